/* QEMU virt in AArch64 (virt64, virt64-gicv3): the other cores are powered on through PSCI, which QEMU implements behind HVC or SMC as the entry level says. */
#include <stdio.h>

#include "board.h"
#include "board_common.h"
#include "psci.h"

/* boards/aarch64/startup.S: the exception level QEMU entered the image at. */
extern const volatile uint32_t aarch64_entry_el;

int board_core_power_on(uint32_t core)
{
	/* QEMU virt numbers its cores in MPIDR Aff0. Its PSCI (hw/arm/virt.c, the device tree's
	 * psci method): HVC when neither EL2 nor EL3 is emulated (entered at EL1, the default);
	 * SMC with virtualization=on (entered at EL2: an HVC would go to our own EL2, which has no
	 * handler); none with secure=on (entered at EL3), where QEMU expects firmware at EL3 to
	 * provide it, and this image has none. */
	switch (aarch64_entry_el) {
	case 1:
		return psci_cpu_on(core, PSCI_HVC);
	case 2:
		return psci_cpu_on(core, PSCI_SMC);
	default:
		printf("board: entered at EL%u, where QEMU virt has no PSCI: core %u stays off\n",
		       (unsigned)aarch64_entry_el, (unsigned)core);
		return -1;
	}
}
