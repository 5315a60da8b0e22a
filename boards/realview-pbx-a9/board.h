/* QEMU realview-pbx-a9 (Cortex-A9 MPCore, four cores): addresses and constants, plus the common board API. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"

#define BOARD_NAME "realview-pbx-a9"

/* QEMU hw/arm/realview.c (BOARD_PBX_A9): the A9 MPCore's private region at periphbase
 * 0x1F000000, GIC CPU interface at +0x100 and distributor at +0x1000 (Cortex-A9 MPCore TRM
 * r4p1, table 1-3); pic[n] there is GIC SPI n. UART0 0x10009000 on pic[12], the first SP804
 * 0x10011000 on pic[4]; the same map as the board's own manual (ARM DUI 0440, RealView
 * PBX-A9 user guide, "Memory map" and "Interrupts"). */
#define BOARD_GICD_BASE 0x1F001000u
#define BOARD_GICC_BASE 0x1F000100u
#define BOARD_UART0_BASE 0x10009000u
#define BOARD_UART_IRQ 44u /* SPI 12 */
/* The 24 MHz reference clock (Linux arm-realview-pbx.dtsi, "uartclk" fixed clock); QEMU
 * ignores the divisors. */
#define BOARD_UART_CLOCK_HZ 24000000u
/* PL011 FIFO entries: QEMU's PL011 (hw/char/pl011.c) reports PeriphID2 = 0x14 (r1p4: 16
 * entries) and holds 16 (PL011_FIFO_DEPTH); Linux's dtsi overrides no periphid. */
#define BOARD_UART_FIFO_DEPTH 16u
/* UART1-3 at 0x1000A000-0x1000C000 on SPIs 13-15 (QEMU hw/arm/realview.c, pic[13..15]). */
#define BOARD_EXTRA_UARTS {0x1000A000u, 45u}, {0x1000B000u, 46u}, {0x1000C000u, 47u}
/* SP804 timer 1 the clock, timer 2 the tick (SPI 4); TIMCLK 1 MHz, QEMU's sp804 default. */
#define BOARD_TIMER01_BASE 0x10011000u
#define BOARD_TICK_IRQ 36u

#endif
