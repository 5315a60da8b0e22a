/* Preprocessed with one board's flags by `make print-board-facts`: the facts check_board_facts.py compares with the docs. */
/*
 * Each "board-fact" line expands the macro the board's code itself uses: the console config
 * takes BOARD_UART_FIFO_DEPTH (boards/common/console.c), the interrupt routing and dispatch
 * BOARD_UART_IRQ, and the UART clock is BOARD_UART_CLOCK_HZ where the board fixes it, else
 * the firmware's answer for clock id BCM283X_CLOCK_ID_UART (bcm283x_uart_clock_hz, same test),
 * else the system clock BOARD_CPU_HZ the microcontroller boards set up and pass as the UART's.
 * extra_uarts is the {base, line} list of the PL011s besides the console (boards/common/console.c),
 * from which the QEMU test knows how many ports examples/multiport must run.
 */
#include "board.h"

board-fact fifo_depth BOARD_UART_FIFO_DEPTH
#if defined(BOARD_UART_CLOCK_HZ)
board-fact uart_clock fixed BOARD_UART_CLOCK_HZ
#elif defined(BCM283X_CLOCK_ID_UART)
board-fact uart_clock mailbox BCM283X_CLOCK_ID_UART
#elif defined(BOARD_CPU_HZ)
board-fact uart_clock system BOARD_CPU_HZ
#else
board-fact uart_clock unknown 0
#endif
board-fact uart_irq BOARD_UART_IRQ
#ifdef BOARD_EXTRA_UARTS
board-fact extra_uarts BOARD_EXTRA_UARTS
#endif
