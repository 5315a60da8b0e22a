/* virt64: the other cores are powered on through PSCI, which QEMU's virt machine implements behind HVC. */
#include "board.h"
#include "board_common.h"
#include "psci.h"

int board_core_power_on(uint32_t core)
{
	/* QEMU virt numbers its Cortex-A53 cores in MPIDR Aff0; its device tree gives
	 * psci method "hvc" when neither EL2 nor EL3 is emulated (the default). */
	return psci_cpu_on(core, PSCI_HVC);
}
