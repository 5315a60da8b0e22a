/* Board code shared by the BCM2711 boards (rpi4, rpi4-64): GIC-400 interrupts (boards/common/gic.c), system timer tick, console UART0. */
#include <stddef.h>

#include "bcm283x.h"
#include "board.h"
#include "board_common.h"
#include "gic.h"

/* board_now_us (the 1 MHz system timer) lives in boards/bcm283x/bcm283x.c. */

#define GIC_ID_TICK BOARD_GIC_ID_VIDEOCORE(BCM283X_GPU_IRQ_TICK)   /* 97 */
#define GIC_ID_UART0 BOARD_GIC_ID_VIDEOCORE(BCM283X_GPU_IRQ_UART0) /* 153 = SPI 121 */
#define CORE0 0u

static void tick_route(bool enable)
{
	gic_route(GIC_ID_TICK, CORE0, enable);
}

static const struct board_tick_timer tick_timer = {
	bcm283x_tick_timer_start,
	bcm283x_tick_timer_stop,
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
	else if (id == GIC_ID_TICK && bcm283x_tick_acknowledge())
		board_tick_run();
}

void board_irq_dispatch(void)
{
	gic_dispatch(handle);
}

void board_init(void)
{
	gic_init(BOARD_GICD_BASE, BOARD_GICC_BASE, bcm283x_barrier);
	bcm283x_tick_timer_stop();
	bcm283x_console_init(bcm2711_uart0_pins_pulls_off);
	board_mmu_enable();
	bcm283x_exclusives_check();
}
