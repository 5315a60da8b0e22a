/* Board code shared by the BCM2711 boards (rpi4, rpi4-64): GIC-400 (with boards/common/gic_board.c), system timer tick, console UART0. */
#include "bcm283x.h"
#include "board.h"
#include "board_common.h"
#include "gic.h"

/* board_now_us (the 1 MHz system timer) lives in boards/bcm283x/system_timer.c. */

const struct board_tick_timer board_tick_timer = {
	bcm283x_tick_timer_start,
	bcm283x_tick_timer_stop,
	bcm283x_tick_acknowledge,
};

void board_init(void)
{
	gic_init(BOARD_GICD_BASE, BOARD_GICC_BASE, bcm283x_barrier);
	bcm283x_tick_timer_stop();
	bcm283x_console_init(bcm2711_uart0_pins_pulls);
	bcm283x_memory_init();
}
