/* Board code shared by the Pi boards with the BCM2835 interrupt controller (rpi1, rpi2). */
#include <stddef.h>

#include "bcm283x.h"
#include "board.h"
#include "board_common.h"

static void tick_route(bool enable)
{
	bcm2835_irq_line_enable(BCM283X_GPU_IRQ_TICK, enable);
}

static const struct board_tick_timer tick_timer = {
	bcm283x_tick_timer_start,
	bcm283x_tick_timer_stop,
	bcm283x_tick_acknowledge,
};

void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context)
{
	board_tick_configure(period_us, tick, context, &tick_timer, tick_route);
}

void board_console_route(bool enable)
{
	bcm2835_irq_line_enable(BOARD_UART_IRQ, enable);
}

void board_irq_line_route(uint32_t line, bool enable)
{
	bcm2835_irq_line_enable(line, enable);
}

void board_irq_dispatch(void)
{
	bcm2835_irq_dispatch();
}

uint32_t board_irq_lines_asserted(uint32_t *lines, uint32_t max)
{
	return bcm2835_irq_lines_asserted(lines, max);
}

void board_init(void)
{
	bcm2835_irq_controller_init();
	bcm283x_tick_timer_stop();
	/* The mailbox query flushes its buffer, so it works with the caches off (32-bit boards,
	 * MMU on below) or on (64-bit boards, MMU on from the start-up). */
	bcm283x_console_init(bcm2835_uart0_pins_pulls);
	bcm283x_memory_init();
}
