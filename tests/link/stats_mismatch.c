/* Links only against a library built with the same PL011_STATS and PL011_INTERRUPTS (make
 * stats-link-test). */
#include "pl011.h"

int main(void)
{
	static struct pl011 uart;
	struct pl011_config config = {0};
	return pl011_init(&uart, &config) == PL011_EINVAL ? 0 : 1;
}
