/* Raspberry Pi 5 (BCM2712, Cortex-A76) in 64-bit mode: the SoC's own PL011 on the 3-pin debug connector, GIC-400, generic timer. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"
#include "generic_timer.h"

#define BOARD_NAME "rpi5"

/*
 * From the public device tree arch/arm64/boot/dts/broadcom/bcm2712.dtsi (Linux and the
 * raspberrypi/linux tree): the "soc@107c000000" bus maps its 0x7c000000.. addresses to ARM
 * physical 0x10_7c00_0000..; "uart10: serial@7d001000" (arm,pl011, the debug connector UART,
 * serial10 in the Pi 5 board file) is interrupt GIC_SPI 121; "interrupt-controller@7fff9000"
 * is the GIC-400 with its CPU interface at 0x7fffa000. Its arm,primecell-periphid was
 * corrected to 0x00341011 (r1p5: 32-entry FIFOs, raspberrypi/linux commit "dts: bcm2712:
 * PL011 UARTs are actually r1p5"), which is what the UART itself reports.
 */
#define BOARD_SOC_BASE 0x107C000000ull
#define BOARD_UART0_BASE (BOARD_SOC_BASE + 0x01001000u)
#define BOARD_UART_IRQ 153u /* SPI 121 */
/* PL011 FIFO entries: r1p5, 32 entries (the corrected arm,primecell-periphid above). */
#define BOARD_UART_FIFO_DEPTH 32u
#define BOARD_TICK_IRQ GENERIC_TIMER_ID
#define BOARD_GICD_BASE (BOARD_SOC_BASE + 0x03FF9000u)
#define BOARD_GICC_BASE (BOARD_SOC_BASE + 0x03FFA000u)
/*
 * The UART clock ("clk_uart" in the device tree) is set by the firmware; no public document
 * states its rate, and the BCM283x mailbox code does not apply (BCM2712 moves the mailbox and
 * the peripheral window). Give it at build time: make BOARD=rpi5 BOARD_UART_CLOCK_HZ=<hz>.
 * Without it the board assumes 48 MHz, the rate the earlier Pi firmware sets (a wrong rate
 * shows as garbled text, the hint to set it).
 */
#ifndef BOARD_UART_CLOCK_HZ
#define BOARD_UART_CLOCK_HZ 48000000u
#endif
/* The firmware writes CNTFRQ (the 54 MHz crystal of the Pi 4 and 5); used only if it reads 0. */
#define BOARD_COUNTER_FALLBACK_HZ 54000000u
/* RAM from 0 (the firmware loads kernel_2712.img at kernel_address=0x80000, config.txt), the
 * SoC peripherals (64 MiB from 0x10_7c00_0000, UART and GIC included) Device. */
#define BOARD_MEMORY_MAP                                                                   \
	{0, 0x40000000u, BOARD_MEMORY_NORMAL},                                             \
	{                                                                                  \
		BOARD_SOC_BASE, 0x04000000u, BOARD_MEMORY_DEVICE                           \
	}

#endif
