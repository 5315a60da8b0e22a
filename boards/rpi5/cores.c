/* rpi5: the other cores are powered on through PSCI, which the Pi 5's Trusted Firmware-A answers at EL3 by SMC. */
#include "board.h"
#include "board_common.h"
#include "psci.h"

/* The Cortex-A76 is multi-threaded in MPIDR terms: the core number is Aff1 (bits 15:8), Aff0 the
 * thread (0). bcm2712.dtsi: cpus have enable-method = "psci", psci method = "smc". */
#define MPIDR_AFF1_SHIFT 8u

int board_core_power_on(uint32_t core)
{
	return psci_cpu_on((uint64_t)core << MPIDR_AFF1_SHIFT, PSCI_SMC);
}
