/* QEMU vexpress-a15 (Versatile Express, CoreTile A15x2 as QEMU models it with four cores): addresses and constants, plus the board API. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"
#include "generic_timer.h"

#define BOARD_NAME "vexpress-a15"

/* QEMU hw/arm/vexpress.c (a15_daughterboard_init, motherboard_aseries_map) and
 * hw/cpu/a15mpcore.c: the A15 MPCore private region at 0x2C000000 (GIC distributor +0x1000,
 * CPU interface +0x2000); UART0 at 0x1C090000 on pic[5], GIC SPI 5; RAM from 0x80000000. */
#define BOARD_GICD_BASE 0x2C001000u
#define BOARD_GICC_BASE 0x2C002000u
#define BOARD_UART0_BASE 0x1C090000u
#define BOARD_UART_IRQ 37u /* SPI 5 */
/* The motherboard's 24 MHz reference (Linux vexpress-v2m-rs1.dtsi, "v2m_clk24mhz"). */
#define BOARD_UART_CLOCK_HZ 24000000u
/* QEMU's PL011 (hw/char/pl011.c): PeriphID2 0x14 (r1p4, 16 entries), 16-entry FIFOs. */
#define BOARD_UART_FIFO_DEPTH 16u
#define BOARD_RAM_START 0x80000000u
#define BOARD_RAM_SIZE 0x08000000u /* -m 128M (board.mk) */
/* QEMU starts the image in Secure SVC (the monitor's `info registers`: "S svc32"): the
 * generic timer's CNTP_* registers are then the Secure physical timer's. */
#define BOARD_TICK_IRQ GENERIC_TIMER_SECURE_ID
/* Four cores share the RAM: mapped Shareable, ACTLR.SMP, cores 1-3 with the MMU on (mmu.c). */
#define BOARD_MMU_SMP
/* QEMU's generic timer runs at 62.5 MHz and says so in CNTFRQ; used only if CNTFRQ reads 0. */
#define BOARD_COUNTER_FALLBACK_HZ 62500000u

#endif
