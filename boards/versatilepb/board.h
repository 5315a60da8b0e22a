/* QEMU versatilepb (ARM926EJ-S): addresses and constants, plus the common board API. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"

#define BOARD_NAME "versatilepb"

#define BOARD_UART0_BASE 0x101F1000u
#define BOARD_UART_CLOCK_HZ 24000000u /* real hardware; QEMU ignores the divisors */
/* PL011 FIFO entries: what this board's PL011 reports, PeriphID2 = 0x14 (revision 1, before
 * r1p5: 16 entries), in QEMU's model (hw/char/pl011.c, pl011_id_arm), where this project runs
 * it. Linux's versatile-ab.dts overrides no periphid: it goes by that register too. */
#define BOARD_UART_FIFO_DEPTH 16u
#define BOARD_VIC_BASE 0x10140000u    /* PL190 */
#define BOARD_VIC_LINE_TIMER01 4u
/* The console UART's interrupt: PL190 VIC line 12 (UART0). */
#define BOARD_UART_IRQ 12u
/* UART1 and UART2, VIC lines 13 and 14 (QEMU hw/arm/versatilepb.c; ARM DUI 0224, Versatile PB
 * user guide, "Interrupts"). UART3 (0x10009000) sits behind the secondary controller, which this
 * board does not drive. */
#define BOARD_EXTRA_UARTS {0x101F2000u, 13u}, {0x101F3000u, 14u}
#define BOARD_TIMER01_BASE 0x101E2000u /* SP804: timer 0 free-running clock, timer 1 tick */
#define BOARD_TIMER_HZ 1000000u

#endif
