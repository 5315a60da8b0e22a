/* Raspberry Pi RP2040 (Cortex-M0+) on the Raspberry Pi Pico, running from SRAM. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"

#define BOARD_NAME "rp2040"

/* RP2040 datasheet (RPTL-8, "RP2040 Datasheet") section 2.2.2 "Address Map" and 2.3.2
 * "Interrupts" (26 lines: 42 vectors, 168 bytes, so VTOR wants 256-byte alignment). */
#define BOARD_IRQ_COUNT 26u
#define BOARD_VECTOR_ALIGN 256
#define RP2040_SIO_BASE 0xD0000000u
#define RP2040_CLOCKS_BASE 0x40008000u
#define RP2040_RESETS_BASE 0x4000C000u
#define RP2040_IO_BANK0_BASE 0x40014000u
#define RP2040_PADS_BANK0_BASE 0x4001C000u
#define RP2040_XOSC_BASE 0x40024000u
#define RP2040_PLL_SYS_BASE 0x40028000u
#define RP2040_UART0_BASE 0x40034000u
#define RP2040_TIMER_BASE 0x40054000u
#define RP2040_WATCHDOG_BASE 0x40058000u
#define BOARD_TICK_IRQ 0u /* TIMER_IRQ_0: alarm 0 */
#define BOARD_UART_IRQ 20u /* UART0_IRQ */
/* Section 4.2.1: "Separate 32x8 Tx and 32x12 Rx FIFOs" (an ARM PL011 r1p5, whose PeriphID
 * also says 32). */
#define BOARD_UART_FIFO_DEPTH 32u
/* The Pico's crystal is 12 MHz (Pico datasheet, section 2.1 / schematic, "XIN 12 MHz"). The
 * system PLL makes 125 MHz of it (RP2040 datasheet section 2.18.2: REFDIV 1, FBDIV 125 for a
 * 1500 MHz VCO, POSTDIV1 6, POSTDIV2 2), and clk_peri, UART0's clock, is clk_sys. */
#define BOARD_XOSC_HZ 12000000u
#define BOARD_CPU_HZ 125000000u

#endif
