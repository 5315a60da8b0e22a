/* The exclusive-monitor probe: do LDREX/STREX (LDXR/STXR) succeed here, with the MMU on? */
#include "bcm283x.h"

bool bcm283x_exclusives_work(void)
{
	static uint32_t probe_word;
	/* A STREX may fail spuriously (an interrupt, a cache eviction) but not every time. */
	for (uint32_t attempt = 0; attempt < 8u; attempt++) {
		uint32_t old;
		uint32_t failed;
#ifdef __aarch64__
		__asm__ volatile("ldxr %w0, [%2]\n\tstxr %w1, %w0, [%2]"
				 : "=&r"(old), "=&r"(failed)
				 : "r"(&probe_word)
				 : "memory");
#else
		__asm__ volatile("ldrex %0, [%2]\n\tstrex %1, %0, [%2]"
				 : "=&r"(old), "=&r"(failed)
				 : "r"(&probe_word)
				 : "memory");
#endif
		if (failed == 0)
			return true;
	}
	return false;
}

void bcm283x_exclusives_check(void)
{
	if (!bcm283x_exclusives_work())
		bcm283x_console_warning(
			": LDREX/STREX keep failing on this system even with the MMU on; "
			"interrupt-driven TX modes will not work (docs/porting.md)\r\n");
}
