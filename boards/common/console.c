/* The console instance every board starts, the board's other PL011s, IRQ routing to them, the tick hook and schedule, board_exit. */
#include <stddef.h>

#include "board.h"
#include "board_common.h"

static struct pl011 console;
static struct pl011_config console_config;
static bool console_irq_routed;
static void (*tick_function)(void *context);
static void *tick_context;
/* Written with the tick's interrupt line masked, and by the tick's interrupt. */
static uint32_t tick_period_us;
static uint32_t tick_next_us;

/* The next tick is never programmed closer than this to now. */
#define TICK_MARGIN_US 2u

const char *board_name(void)
{
	return BOARD_NAME;
}

struct pl011 *board_console(void)
{
	return &console;
}

const struct pl011_config *board_console_config(void)
{
	return &console_config;
}

void board_console_start(uintptr_t base, uint32_t clock_hz)
{
	console_config = (struct pl011_config){
		.base = base,
		.clock_hz = clock_hz,
		.baud = 115200,
		.data_bits = 8,
		.stop_bits = 1,
		.parity = PL011_PARITY_NONE,
		/* Stated, not read from PeriphID: some SoCs report the wrong revision (board.h). */
		.fifo_depth = BOARD_UART_FIFO_DEPTH,
		.tx_mode = PL011_TX_POLLED,
		.rx_mode = PL011_RX_POLLED,
		.clock = board_now_us,
		.core_id = board_core_id,
	};
	(void)pl011_init(&console, &console_config);
}

void board_console_irq(void)
{
	if (console_irq_routed)
		pl011_irq_handler(&console);
}

void board_console_irq_enable(bool enable)
{
	console_irq_routed = enable;
	board_console_route(enable);
	if (enable)
		board_irq_enable();
}

/* board.h's BOARD_EXTRA_UARTS: {base, interrupt line} for each PL011 besides the console. */
struct extra_uart {
	uintptr_t base;
	uint32_t line;
};
#ifdef BOARD_EXTRA_UARTS
static const struct extra_uart extra_uarts[] = {BOARD_EXTRA_UARTS};
static const uint32_t extra_uart_count = sizeof extra_uarts / sizeof extra_uarts[0];
#else
static const struct extra_uart extra_uarts[1];
static const uint32_t extra_uart_count = 0;
#endif
/* Written with the port's line masked, read by the interrupt. */
static struct pl011 *extra_attached[sizeof extra_uarts / sizeof extra_uarts[0]];

uint32_t board_uart_count(void)
{
	return extra_uart_count;
}

int board_uart_config(uint32_t index, struct pl011_config *config)
{
	/* cppcheck-suppress unsignedPositive ; extra_uart_count is 0 on a board without extra UARTs */
	if (index >= extra_uart_count || config == NULL)
		return -1;
	*config = console_config;
	config->base = extra_uarts[index].base;
	return 0;
}

void board_uart_irq_attach(uint32_t index, struct pl011 *uart)
{
	/* cppcheck-suppress unsignedPositive ; extra_uart_count is 0 on a board without extra UARTs */
	if (index >= extra_uart_count)
		return;
	board_irq_line_route(extra_uarts[index].line, false);
	extra_attached[index] = uart;
	if (uart == NULL)
		return;
	board_irq_line_route(extra_uarts[index].line, true);
	board_irq_enable();
}

bool board_uart_irq(uint32_t line)
{
	bool handled = false;
	/* cppcheck-suppress unsignedLessThanZero ; extra_uart_count is 0 on a board without extra UARTs */
	for (uint32_t i = 0; i < extra_uart_count; i++) {
		if (extra_uarts[i].line == line && extra_attached[i] != NULL) {
			pl011_irq_handler(extra_attached[i]);
			handled = true;
		}
	}
	return handled;
}

void board_tick_set(void (*tick)(void *context), void *context)
{
	tick_function = tick;
	tick_context = context;
}

void board_tick_configure(uint32_t period_us, void (*tick)(void *context), void *context,
			  const struct board_tick_timer *timer, void (*route)(bool enable))
{
	route(false);
	timer->stop();
	board_tick_set(tick, context);
	if (period_us == 0 || tick == NULL)
		return;
	timer->start(period_us);
	route(true);
	board_irq_enable();
}

void board_tick_run(void)
{
	if (tick_function != NULL)
		tick_function(tick_context);
}

void board_tick_schedule(uint32_t period_us, uint32_t now)
{
	tick_period_us = period_us;
	tick_next_us = now + period_us;
}

uint32_t board_tick_due(uint32_t now)
{
	if ((int32_t)(tick_next_us - now) < (int32_t)TICK_MARGIN_US)
		tick_next_us += ((now + TICK_MARGIN_US - tick_next_us) / tick_period_us + 1u) *
				tick_period_us; /* late: skip the periods already lost */
	return tick_next_us;
}

void board_tick_advance(void)
{
	tick_next_us += tick_period_us;
}

void board_exit(int status)
{
	/* Everything queued must reach the wire before the emulator is told to stop. On hardware
	 * nobody takes the semihosting call: it returns, and the core sleeps here. */
	(void)pl011_flush(&console, PL011_WAIT_AUTO, NULL);
	board_irq_disable();
	board_semihosting_exit(status);
	for (;;)
		board_wait_for_interrupt();
}
