/* M-profile boards' tick start, console routing and interrupt dispatch around the board's tick timer. */
#include "board.h"
#include "board_common.h"
#include "cortex_m.h"

/* board.h names the two lines (BOARD_UART_IRQ, BOARD_TICK_IRQ); the board's own code defines
 * board_tick_timer, the timer behind BOARD_TICK_IRQ. */
static void tick_route(bool enable)
{
	cortex_m_irq_line(BOARD_TICK_IRQ, enable);
}

void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context)
{
	board_tick_configure(period_us, tick, context, &board_tick_timer, tick_route);
}

void board_console_route(bool enable)
{
	cortex_m_irq_line(BOARD_UART_IRQ, enable);
}

/* Every external line's vector (vectors.c); IPSR says which line it is. */
void board_irq_dispatch(void)
{
	uint32_t irq = cortex_m_active_irq();
	if (irq == BOARD_UART_IRQ)
		board_console_irq();
	else if (irq == BOARD_TICK_IRQ && board_tick_timer.acknowledge())
		board_tick_run();
	else
		(void)board_uart_irq(irq);
}

void board_irq_line_route(uint32_t line, bool enable)
{
	cortex_m_irq_line(line, enable);
}

uint32_t board_irq_lines_asserted(uint32_t *lines, uint32_t max)
{
	return cortex_m_irq_lines_pending(lines, max);
}
