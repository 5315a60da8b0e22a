/* QEMU virt with gic-version=3 and Cortex-A72 cores in AArch64: the board name, the machine's constants, the GICv3 redistributors. */
#ifndef BOARD_H
#define BOARD_H

#define BOARD_NAME "virt64-gicv3"
#include "virt_machine.h"

/* QEMU hw/arm/virt.c base_memmap: VIRT_GIC_REDIST at 0x080A0000, one 128 KiB frame pair per
 * core (the distributor stays at BOARD_GICD_BASE; a GICv3 has no memory-mapped CPU interface). */
#define BOARD_GICR_BASE 0x080A0000u

#endif
