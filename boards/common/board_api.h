/* The board API every board implements and every example uses (no #ifdef BOARD_x needed). */
#ifndef BOARD_API_H
#define BOARD_API_H

#include <stdbool.h>
#include <stdint.h>

#include "pl011.h"

/* Bring up clocks, pins, the interrupt controller and the microsecond timer, then start the
 * console UART in polled mode (115,200 8N1). Call first. */
void board_init(void);

/* Human-readable board name ("versatilepb"). */
const char *board_name(void);

/* The console UART instance and the config it was started with (polled, clock set). An
 * example may copy the config into storage of its own that outlives the port (a static),
 * change modes and buffers there, and call pl011_restart with it (pl011_init refuses a
 * running port). */
struct pl011 *board_console(void);
const struct pl011_config *board_console_config(void);

/* Free-running microsecond clock (wraps after 2^32 us); matches pl011_clock_fn. */
uint32_t board_now_us(void *context);

/* Route the console UART's interrupt to pl011_irq_handler(board_console()) and unmask IRQs
 * at the CPU (true), or stop routing it (false). */
void board_console_irq_enable(bool enable);

/* Call tick(context) from the timer interrupt every period_us (0 stops it). */
void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context);

/* Sleep until the next interrupt (WFI or the CPU's equivalent). */
void board_wait_for_interrupt(void);

/* CPU interrupt mask (CPSR.I). */
void board_irq_enable(void);
void board_irq_disable(void);

/* Run function(context) on another core (1 .. 3) with its own 16 KiB stack, IRQs masked
 * there, the MMU and caches as core 0 has them; when it returns that core sleeps for good. 0 on
 * success; -1 on a board that cannot (the single-core ones: boards/common/single_core.c). */
int board_core_start(uint32_t core, void (*function)(void *context), void *context);

/* The board's PL011s besides the console (examples/multiport): how many (0 on most boards).
 * board.h lists them as BOARD_EXTRA_UARTS, {base, interrupt line} each. */
uint32_t board_uart_count(void);

/* Port `index` (0 .. board_uart_count() - 1) as the console's config with its base: polled,
 * 115,200 8N1, the board's UART clock and time source. 0, or -1 for no such port. */
int board_uart_config(uint32_t index, struct pl011_config *config);

/* Route port `index`'s interrupt to pl011_irq_handler(uart) and unmask IRQs at the CPU, or
 * stop routing it (uart NULL). */
void board_uart_irq_attach(uint32_t index, struct pl011 *uart);

/* For the board facts probe (examples/probe, make board-check): the interrupt controller's
 * lines that are asserted now, enabled or not, in lines[] (at most max, lowest first); returns
 * how many. Call with IRQs masked at the CPU and nothing routed: it may enable lines briefly
 * where the controller shows only enabled ones (BCM2835), and leaves them all disabled. */
uint32_t board_irq_lines_asserted(uint32_t *lines, uint32_t max);

/* The calling core's number, unique per core (pl011_config.core_id: a panic that finds its
 * own core owning TX writes beside it at once). 0 where only one core runs. */
uint32_t board_core_id(void *context);

/* Flush the console (bounded) and end: semihosting exit under QEMU (status 0 = success),
 * otherwise halt in a low-power loop. */
void board_exit(int status) __attribute__((noreturn));

#endif
