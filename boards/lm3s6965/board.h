/* Stellaris LM3S6965 (Cortex-M3), QEMU lm3s6965evb and the EK-LM3S6965 board. */
#ifndef BOARD_H
#define BOARD_H

#include "board_api.h"

#define BOARD_NAME "lm3s6965"

/* Every LM3S6965 interrupt line is below 48 (DS-LM3S6965 table 2-9); 48 entries + 16 = 64
 * words, so VTOR wants 256-byte alignment. */
#define BOARD_IRQ_COUNT 48u
#define BOARD_VECTOR_ALIGN 256
/* "The UART has 16x8 transmit and 16x12 receive FIFOs" (DS-LM3S6965 section 12.1). The
 * PeriphID Luminary put in the UART (PeriphID2 0x18, revision 1) would also give 16, QEMU's
 * model returns the same ID; stating it keeps the depth right whatever the ID says. */
#define BOARD_UART_FIFO_DEPTH 16u
/* UART0 is interrupt 5 (DS-LM3S6965 table 2-9, "Interrupts"). */
#define BOARD_UART_IRQ 5u
/* PLL 200 MHz / 4 (SYSDIV 3): 50 MHz, the part's maximum (DS-LM3S6965 table 6-2 "Possible
 * System Clock Frequencies Using the SYSDIV Field"). The UART is clocked by the system clock. */
#define BOARD_CPU_HZ 50000000u
/* If the PLL does not lock, the system runs from the 8 MHz crystal of the EK-LM3S6965. */
#define BOARD_CRYSTAL_HZ 8000000u

#endif
