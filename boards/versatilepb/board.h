/* QEMU versatilepb (ARM926EJ-S): addresses and constants, plus the common board API. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"

#define BOARD_NAME "versatilepb"

#define BOARD_UART0_BASE 0x101F1000u
#define BOARD_UART_CLOCK_HZ 24000000u /* real hardware; QEMU ignores the divisors */
#define BOARD_VIC_BASE 0x10140000u    /* PL190 */
#define BOARD_VIC_LINE_TIMER01 4u
#define BOARD_VIC_LINE_UART0 12u
#define BOARD_TIMER01_BASE 0x101E2000u /* SP804: timer 0 free-running clock, timer 1 tick */
#define BOARD_TIMER_HZ 1000000u

#endif
