/* Board code for a board whose interrupts come from a GICv2 and whose clock and tick are the generic timer (QEMU virt in both states, Pi 5). */
#include <stddef.h>

#include "board.h"
#include "board_common.h"
#include "generic_timer.h"
#include "gic.h"

#define GIC_ID_UART0 GIC_ID_SPI(BOARD_UART0_SPI)
#define CORE0 0u

/* board.h lists the regions (BOARD_MEMORY_MAP). */
const struct board_memory_region board_memory_map[] = {BOARD_MEMORY_MAP};
const uint32_t board_memory_map_count = sizeof board_memory_map / sizeof board_memory_map[0];


uint32_t board_now_us(void *context)
{
	(void)context;
	return generic_timer_now_us();
}

static void tick_route(bool enable)
{
	gic_route(GENERIC_TIMER_ID, CORE0, enable);
}

static const struct board_tick_timer tick_timer = {
	generic_timer_tick_start,
	generic_timer_tick_stop,
	tick_route,
};

void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context)
{
	board_tick_configure(period_us, tick, context, &tick_timer);
}

void board_console_route(bool enable)
{
	gic_route(GIC_ID_UART0, CORE0, enable);
}

static void handle(uint32_t id)
{
	if (id == GIC_ID_UART0)
		board_console_irq();
	else if (id == GENERIC_TIMER_ID && generic_timer_tick_acknowledge())
		board_tick_run();
}

void board_irq_dispatch(void)
{
	gic_dispatch(handle);
}

void board_init(void)
{
	/* First, before any library code: with the MMU off every access is Device (Strongly
	 * ordered), where an unaligned access faults. A no-op if the start-up already did it. */
	board_mmu_enable();
	gic_init(BOARD_GICD_BASE, BOARD_GICC_BASE, NULL);
	generic_timer_init(BOARD_COUNTER_FALLBACK_HZ);
	board_console_start(BOARD_UART0_BASE, BOARD_UART_CLOCK_HZ);
}
