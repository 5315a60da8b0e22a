/* musca-b1: SysTick microsecond clock, SSE-200 timer 0 tick, console UART0, all in Secure state. */
#include "board.h"
#include "board_common.h"
#include "cmsdk_timer.h"
#include "cortex_m.h"

void board_init(void)
{
	cortex_m_irq_lines_off();
	cortex_m_systick_clock_start(BOARD_CPU_HZ);
	cmsdk_timer_tick_init(BOARD_TIMER0_BASE, BOARD_CPU_HZ);
	board_console_start(BOARD_UART0_BASE, BOARD_UART_CLOCK_HZ);
}
