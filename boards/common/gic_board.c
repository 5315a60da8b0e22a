/* The board API's interrupt part for every GIC board: the UART and the tick routed to core 0, dispatch. */
#include <stddef.h>

#include "board.h"
#include "board_common.h"
#include "gic.h"

/* board.h names the two interrupt IDs (BOARD_UART_IRQ, BOARD_TICK_IRQ); the board's
 * own code defines board_tick_timer, the timer behind BOARD_TICK_IRQ. */
#define CORE0 0u

static void tick_route(bool enable)
{
	gic_route(BOARD_TICK_IRQ, CORE0, enable);
}

void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context)
{
	board_tick_configure(period_us, tick, context, &board_tick_timer, tick_route);
}

void board_console_route(bool enable)
{
	gic_route(BOARD_UART_IRQ, CORE0, enable);
}

void board_irq_line_route(uint32_t line, bool enable)
{
	gic_route(line, CORE0, enable);
}

static void handle(uint32_t id)
{
	if (id == BOARD_UART_IRQ)
		board_console_irq();
	else if (id == BOARD_TICK_IRQ && board_tick_timer.acknowledge())
		board_tick_run();
	else
		(void)board_uart_irq(id);
}

void board_irq_dispatch(void)
{
	gic_dispatch(handle);
}

uint32_t board_irq_lines_asserted(uint32_t *lines, uint32_t max)
{
	return gic_lines_pending(lines, max);
}
