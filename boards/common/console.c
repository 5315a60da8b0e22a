/* The console instance every board starts, IRQ routing to it, the tick hook and schedule, board_exit. */
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

void board_tick_set(void (*tick)(void *context), void *context)
{
	tick_function = tick;
	tick_context = context;
}

void board_tick_run(void)
{
	if (tick_function != NULL)
		tick_function(tick_context);
}

bool board_tick_schedule(uint32_t period_us, void (*tick)(void *context), void *context,
			 uint32_t now)
{
	board_tick_set(tick, context);
	tick_period_us = tick != NULL ? period_us : 0u;
	tick_next_us = now + period_us;
	return tick_period_us != 0u;
}

uint32_t board_tick_due(uint32_t now)
{
	if ((int32_t)(tick_next_us - now) < (int32_t)TICK_MARGIN_US)
		tick_next_us += ((now + TICK_MARGIN_US - tick_next_us) / tick_period_us + 1u) *
				tick_period_us; /* late: skip the periods already lost */
	return tick_next_us;
}

bool board_tick_advance(void)
{
	if (tick_period_us == 0u)
		return false;
	tick_next_us += tick_period_us;
	return true;
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

void board_semihosting_exit(int status)
{
	/* ARM semihosting SYS_EXIT: r0 = 0x18, r1 = reason; ADP_Stopped_ApplicationExit (0x20026)
	 * means success, RunTimeErrorUnknown (0x20023) not. The trap is SVC 0x123456 in ARM state
	 * and BKPT 0xAB on M-profile, which has only Thumb (ARM semihosting spec, "The semihosting
	 * interface"). Without a debugger the BKPT escalates to HardFault, which halts. */
	register uint32_t operation __asm__("r0") = 0x18u;
	register uint32_t reason __asm__("r1") = status == 0 ? 0x20026u : 0x20023u;
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
	__asm__ volatile("bkpt 0xab" : : "r"(operation), "r"(reason) : "memory");
#else
	__asm__ volatile("svc 0x123456" : : "r"(operation), "r"(reason) : "memory", "lr");
#endif
}
