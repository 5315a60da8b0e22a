/* sizeof(struct pl011) with every counter, for test_stats_off, whatever PL011_STATS it is built with. */
#undef PL011_STATS
#define PL011_STATS 1
#include <stddef.h>

#include "pl011.h"
#include "stats_size.h"

const size_t stats_size_full_instance = sizeof(struct pl011);
