/* Board code for a GIC board whose clock and tick are an SP804 (RealView PBX-A9, Versatile Express A9): clock and board_init. */
#include <stddef.h>

#include "board.h"
#include "board_common.h"
#include "gic.h"
#include "sp804.h"

/* board.h names the SP804 (BOARD_TIMER01_BASE: timer 1 the clock, timer 2 the tick, both at a
 * 1 MHz TIMCLK), the GIC (BOARD_GICD_BASE, BOARD_GICC_BASE) and the console UART. */
#define TIMER_CLOCK (BOARD_TIMER01_BASE)
#define TIMER_TICK (BOARD_TIMER01_BASE + SP804_TIMER2_OFFSET)

uint32_t board_now_us(void *context)
{
	(void)context;
	return sp804_clock_us(TIMER_CLOCK);
}

void board_init(void)
{
	gic_init(BOARD_GICD_BASE, BOARD_GIC_CORE_BASE, NULL);
	sp804_clock_start(TIMER_CLOCK);
	sp804_tick_init(TIMER_TICK);
	board_console_start(BOARD_UART0_BASE, BOARD_UART_CLOCK_HZ);
}
