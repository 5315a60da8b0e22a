/* BCM2711 (Pi 4) addresses in low-peripheral mode, for the 32-bit rpi4 and the 64-bit rpi4-64 boards. */
#ifndef BCM2711_H
#define BCM2711_H

#include "bcm283x.h"

/* ARM physical address of the peripherals in the "low peripheral" mode the firmware sets up
 * unless config.txt has arm_peri_high=1, for 32- and 64-bit kernels alike (BCM2711 ARM
 * Peripherals 1.2.4; bus address 0x7E000000). */
#define BOARD_PERIPHERAL_BASE 0xFE000000u
#define BOARD_UART0_BASE 0xFE201000u /* PL011 */
/* The VideoCore sees the first GiB of ARM RAM at 0xC0000000. */
#define BOARD_MAILBOX_BUS_ALIAS 0xC0000000u
/* Everything from here up is mapped Device: the peripherals (and, on Pi 4, the PCIe and
 * local areas from 0xFC000000); below it RAM, mapped Normal cacheable. */
#define BOARD_DEVICE_START 0xFC000000u
#define BOARD_TIMER_HZ 1000000u /* system timer */

/* GIC-400 (BCM2711 ARM Peripherals 6.3): distributor and CPU interface. VideoCore interrupt n
 * is SPI 64 + n, GIC interrupt ID 96 + n. */
#define BOARD_GICD_BASE 0xFF841000u
#define BOARD_GICC_BASE 0xFF842000u
#define BOARD_GIC_ID_VIDEOCORE(n) (96u + (n))
#define BOARD_TICK_IRQ BOARD_GIC_ID_VIDEOCORE(BCM283X_GPU_IRQ_TICK)   /* 97 */
/* The console UART's interrupt: VideoCore IRQ 57 = GIC ID 153 (SPI 121). */
#define BOARD_UART_IRQ BOARD_GIC_ID_VIDEOCORE(BCM283X_GPU_IRQ_UART0)
/* PL011 FIFO entries: the BCM2711 PL011s are r1p5 with 32-entry FIFOs (Raspberry Pi's fix
 * "ARM: dts: bcm2711: PL011 UARTs are actually r1p5", Linux commit 0de09025f161, sets their
 * arm,primecell-periphid to 0x00341011). */
#define BOARD_UART_FIFO_DEPTH 32u
/* ARM-local peripherals (per-core timers, mailboxes, interrupt routing): BCM2711 ARM Peripherals 6.5, ARM_LOCAL in low-peripheral mode. */
#define BOARD_LOCAL_BASE 0xFF800000u

#endif
