/* QEMU musca-b1 (Arm Musca-B1, SSE-200, Cortex-M33 in Secure state): addresses and constants, plus the common board API. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"

#define BOARD_NAME "musca-b1"

/* NVIC lines: the SSE-200's own 32 first, then the board's 96 expansion interrupts from line 32
 * (QEMU hw/arm/armsse.c NUM_SSE_IRQS, EXP_IRQ n is NVIC line 32 + n; hw/arm/musca.c num_irqs).
 * 128 + 16 = 144 words, so VTOR wants 1 KiB alignment. */
#define BOARD_IRQ_COUNT 128u
#define BOARD_VECTOR_ALIGN 1024
/* The core starts Secure, so every address here is the Secure alias (bit 28 set: the SSE-200
 * IDAU, Arm 101104 "SSE-200 TRM" 3.2; QEMU hw/arm/armsse.c aliases 0x5xxxxxxx to the
 * 0x4xxxxxxx peripherals). UART0 0x40105000 (hw/arm/musca.c b1_ppcs, apb_ppcexp1 port 4),
 * its combined interrupt is expansion line 7 + 5 = 12 (make_uart), NVIC line 44. */
#define BOARD_UART0_BASE 0x50105000u
#define BOARD_UART_IRQ 44u
/* QEMU's PL011 (hw/char/pl011.c): PeriphID2 0x14 (r1p4, 16 entries), 16-entry FIFOs. */
#define BOARD_UART_FIFO_DEPTH 16u
/* SYSCLK, the core's, SysTick's and the APB timers' clock: 40 MHz (hw/arm/musca.c SYSCLK_FRQ).
 * The UART is taken to count it too; QEMU ignores the divisors, hardware is untried. */
#define BOARD_CPU_HZ 40000000u
#define BOARD_UART_CLOCK_HZ BOARD_CPU_HZ
/* SSE-200 timer 0 (CMSDK APB timer) at 0x40000000, interrupt 3 (hw/arm/armsse.c). */
#define BOARD_TIMER0_BASE 0x50000000u
#define BOARD_TICK_IRQ 3u

#endif
