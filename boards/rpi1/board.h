/* Raspberry Pi Zero / 1 (BCM2835, ARM1176JZF-S): addresses and constants, plus the board API. */
#ifndef BOARD_H
#define BOARD_H

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

#endif
