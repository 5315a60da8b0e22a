/* QEMU vexpress-a9 (Versatile Express, CoreTile A9x4): addresses and constants, plus the common board API. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"

#define BOARD_NAME "vexpress-a9"

/* QEMU hw/arm/vexpress.c: the A9 MPCore private region at 0x1E000000 (GIC CPU interface
 * +0x100, distributor +0x1000); motherboard_legacy_map UART0 0x10009000 on pic[5] and the
 * first SP804 0x10011000 on pic[2], pic[n] being GIC SPI n; RAM from 0x60000000. */
#define BOARD_GICD_BASE 0x1E001000u
#define BOARD_GICC_BASE 0x1E000100u
#define BOARD_UART0_BASE 0x10009000u
#define BOARD_UART_IRQ 37u /* SPI 5 */
/* The motherboard's 24 MHz reference (Linux vexpress-v2m.dtsi, "v2m_clk24mhz"). */
#define BOARD_UART_CLOCK_HZ 24000000u
/* QEMU's PL011 (hw/char/pl011.c): PeriphID2 0x14 (r1p4, 16 entries), 16-entry FIFOs. */
#define BOARD_UART_FIFO_DEPTH 16u
/* SP804 timer 1 the clock, timer 2 the tick (SPI 2); TIMCLK 1 MHz, QEMU's sp804 default. */
#define BOARD_TIMER01_BASE 0x10011000u
#define BOARD_TICK_IRQ 34u

#endif
