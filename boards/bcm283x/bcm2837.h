/* BCM2836/BCM2837 (Pi 2, Pi 3, Zero 2 W) addresses, for the 32-bit rpi2 and the 64-bit rpi3 boards. */
#ifndef BCM2837_H
#define BCM2837_H

#include "bcm283x.h"

/* ARM physical address of the peripherals (bus address 0x7E000000, moved for BCM2836). */
#define BOARD_PERIPHERAL_BASE 0x3F000000u
#define BOARD_UART0_BASE 0x3F201000u /* PL011 */
/* BCM2836/7: the ARM's RAM is the VideoCore's uncached alias, so mailbox buffers are passed
 * as 0xC0000000 | address. */
#define BOARD_MAILBOX_BUS_ALIAS 0xC0000000u
/* Everything from the peripherals up is mapped Device; below them RAM, Normal cacheable. */
#define BOARD_DEVICE_START 0x3F000000u
#define BOARD_TIMER_HZ 1000000u /* system timer */
/* PL011 FIFO entries. The BCM2835/6/7 PL011 reports revision 3 (r1p5, which would mean 32)
 * in PeriphID2 but has 16-entry FIFOs: FreeBSD's uart_dev_pl011.c (uart_pl011_bus_hwrev_fdt)
 * says so, and Linux's bcm283x.dtsi overrides arm,primecell-periphid to 0x00241011 (revision 2). */
#define BOARD_UART_FIFO_DEPTH 16u
/* The console UART's interrupt: GPU IRQ 57 at the BCM2835 interrupt controller (BCM 7.5). */
#define BOARD_UART_IRQ BCM283X_GPU_IRQ_UART0
/* ARM-local peripherals (per-core timers, mailboxes, interrupt routing): QA7 rev 3.4 (BCM2836
 * ARM-local peripherals) 1.2. The local controller routes GPU interrupts to core 0 from reset
 * ("GPU interrupts routing"). Its "Core0 timers interrupt control" register (QA7 4.6) passes
 * the generic timers' interrupts to core 0 once Linux, or any earlier program, enabled them:
 * board_init clears it. */
#define BOARD_LOCAL_BASE 0x40000000u
#define BOARD_LOCAL_CORE0_TIMER_CONTROL (BOARD_LOCAL_BASE + 0x40u)

#endif
