/* TI Tiva C TM4C123GH6PM (Cortex-M4F) on the EK-TM4C123GXL LaunchPad. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"

#define BOARD_NAME "tm4c123"

/* Interrupt lines 0-138 (SPMS376E table 2-9): 155 vectors, 620 bytes, so VTOR wants 1 KiB
 * alignment. */
#define BOARD_IRQ_COUNT 139u
#define BOARD_VECTOR_ALIGN 1024
/* "Separate 16x8 transmit (TX) and receive (RX) FIFOs" (SPMS376E section 14.1). */
#define BOARD_UART_FIFO_DEPTH 16u
/* UART0 is interrupt 5 (SPMS376E table 2-9, "Interrupts"). */
#define BOARD_UART_IRQ 5u

/* System clock: 80 MHz from the PLL (400 MHz / 5: DIV400 with SYSDIV2 2, SYSDIV2LSB 0,
 * SPMS376E table 5-6) and the LaunchPad's 16 MHz crystal, or with BOARD_CLOCK_PIOSC the 16 MHz
 * precision internal oscillator alone (no PLL, +/-1% after factory trim, SPMS376E section
 * 5.2.5.1). UARTCC stays 0 after reset, so UART0 counts the system clock (section 14.3.2). */
#ifdef BOARD_CLOCK_PIOSC
#define BOARD_CPU_HZ 16000000u
#else
#define BOARD_CPU_HZ 80000000u
#endif
#define BOARD_PIOSC_HZ 16000000u
#define BOARD_CRYSTAL_HZ 16000000u /* the LaunchPad's main oscillator crystal, Y2 */

#endif
