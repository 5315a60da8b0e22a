/* M-profile boards' tick start, console routing and interrupt dispatch around the board's tick timer. */
#include "board.h"
#include "board_common.h"
#include "cortex_m.h"

void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context)
{
	board_tick_timer.stop();
	cortex_m_irq_line(board_tick_timer.irq, false);
	uint32_t now = board_now_us(0);
	if (!board_tick_schedule(period_us, tick, context, now))
		return;
	board_tick_timer.arm(board_tick_due(now), now);
	cortex_m_irq_line(board_tick_timer.irq, true);
	board_irq_enable();
}

void board_console_route(bool enable)
{
	cortex_m_irq_line(BOARD_UART_IRQ, enable);
}

/* Every external line's vector (vectors.c); IPSR says which line it is. */
void board_irq_dispatch(void)
{
	uint32_t irq = cortex_m_active_irq();
	if (irq == BOARD_UART_IRQ) {
		board_console_irq();
	} else if (irq == board_tick_timer.irq && board_tick_timer.acknowledge()) {
		if (board_tick_advance()) {
			uint32_t now = board_now_us(0);
			board_tick_timer.arm(board_tick_due(now), now);
		}
		board_tick_run();
	}
}
