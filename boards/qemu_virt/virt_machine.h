/* QEMU's `virt` machine, the same for the AArch32 (virt) and AArch64 (virt64) boards: addresses and constants. */
#ifndef VIRT_MACHINE_H
#define VIRT_MACHINE_H

#include "board_api.h"
#include "generic_timer.h"

/* QEMU hw/arm/virt.c (base_memmap, a15irqmap) and the device tree it generates: GICv2
 * distributor and CPU interface, the PL011 on SPI 1 with a 24 MHz "apb-pclk", RAM from 1 GiB. */
#define BOARD_GICD_BASE 0x08000000u
#define BOARD_GICC_BASE 0x08010000u
#define BOARD_UART0_BASE 0x09000000u
#define BOARD_UART_IRQ 33u /* SPI 1 */
#define BOARD_UART_CLOCK_HZ 24000000u
/* PL011 FIFO entries: QEMU's PL011 (hw/char/pl011.c) reports PeriphID2 = 0x14 (revision 1,
 * before r1p5: 16 entries) and has 16-entry FIFOs (PL011_FIFO_DEPTH in hw/char/pl011.h). */
#define BOARD_UART_FIFO_DEPTH 16u
#define BOARD_RAM_START 0x40000000u
#define BOARD_RAM_SIZE 0x08000000u /* the 128 MiB of -m 128M (board.mk) */
/* Peripherals below RAM: generic_timer_board.c's default map (BOARD_MEMORY_DEVICES_BELOW_RAM). */
#define BOARD_TICK_IRQ GENERIC_TIMER_ID
/* QEMU's generic timer runs at 62.5 MHz and says so in CNTFRQ; used only if CNTFRQ reads 0. */
#define BOARD_COUNTER_FALLBACK_HZ 62500000u

#endif
