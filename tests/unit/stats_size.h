/* The size of struct pl011 in a PL011_STATS 1 build, from a file compiled that way (stats_size.c). */
#ifndef TEST_STATS_SIZE_H
#define TEST_STATS_SIZE_H

#include <stddef.h>

extern const size_t stats_size_full_instance;

#endif
