/* Cores 1-3 of an ARMv7-A GIC board woken by an SGI: the parked core's side and board_core_power_on, for boards without PSCI or a spin table. */
#include "board.h"
#include "board_common.h"
#include "gic.h"

/*
 * boards/common/startup_armv7a.S parks cores 1-3 in WFI and calls board_core_wait_prepare on
 * each first: there the core enables its banked CPU interface and SGI WAKE_SGI, so that the SGI
 * core 0 sends from board_core_start (boards/common/core_start.c) ends its WFI. The GIC is
 * BOARD_GICD_BASE and BOARD_GIC_CORE_BASE (gic.h). QEMU starts every core of realview-pbx-a9,
 * vexpress-a9 and vexpress-a15 at the ELF entry (checked with the monitor's `info registers -a`).
 */
#define WAKE_SGI 0u

void board_core_wait_prepare(void)
{
	gic_core_wake_enable(BOARD_GICD_BASE, BOARD_GIC_CORE_BASE, WAKE_SGI);
}

int board_core_power_on(uint32_t core)
{
	gic_send_sgi(WAKE_SGI, core);
	return 0;
}
