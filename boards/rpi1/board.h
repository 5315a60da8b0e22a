/* Raspberry Pi Zero / 1 (BCM2835, ARM1176JZF-S): addresses and constants, plus the board API. */
#ifndef BOARD_H
#define BOARD_H

#include "bcm283x.h"
#include "board_api.h"

#define BOARD_NAME "rpi1"

/* ARM physical address of the peripherals (bus address 0x7E000000; BCM 1.2.3). */
#define BOARD_PERIPHERAL_BASE 0x20000000u
#define BOARD_UART0_BASE 0x20201000u /* PL011 */
/* The VideoCore sees ARM RAM through its L2-cached alias on BCM2835 (the firmware leaves the
 * L2 cache on for the ARM), so mailbox buffers are passed as 0x40000000 | address. */
#define BOARD_MAILBOX_BUS_ALIAS 0x40000000u
/* Everything from the peripherals up is mapped Device; below them RAM, Normal cacheable. */
#define BOARD_DEVICE_START 0x20000000u
#define BOARD_TIMER_HZ 1000000u /* system timer */
/* PL011 FIFO entries. The BCM2835/6/7 PL011 reports revision 3 (r1p5, which would mean 32)
 * in PeriphID2 but has 16-entry FIFOs: FreeBSD's uart_dev_pl011.c (uart_pl011_bus_hwrev_fdt)
 * says so, and Linux's bcm283x.dtsi overrides arm,primecell-periphid to 0x00241011 (revision 2). */
#define BOARD_UART_FIFO_DEPTH 16u
/* The console UART's interrupt: GPU IRQ 57 at the BCM2835 interrupt controller (BCM 7.5). */
#define BOARD_UART_IRQ BCM283X_GPU_IRQ_UART0

#endif
