/* versatilepb board: PL190 VIC, SP804 timers (microsecond clock and tick), console UART0. */
#include "board.h"
#include "board_common.h"
#include "mmio.h"

/* PL190 VIC registers (ARM DDI 0181). */
#define VIC_IRQSTATUS 0x000u
#define VIC_INTENABLE 0x010u
#define VIC_INTENCLEAR 0x014u

/* SP804 registers (ARM DDI 0271); timer 1 sits 0x20 above timer 0. */
#define TIMER_LOAD 0x00u
#define TIMER_VALUE 0x04u
#define TIMER_CONTROL 0x08u
#define TIMER_INTCLR 0x0Cu
#define TIMER_MIS 0x14u
#define TIMER_CONTROL_ONESHOT (1u << 0)
#define TIMER_CONTROL_32BIT (1u << 1)
#define TIMER_CONTROL_INTEN (1u << 5)
#define TIMER_CONTROL_ENABLE (1u << 7)
#define TIMER_CONTROL_TICK (TIMER_CONTROL_ENABLE | TIMER_CONTROL_ONESHOT | TIMER_CONTROL_INTEN | \
			    TIMER_CONTROL_32BIT)
#define TIMER_CLOCK (BOARD_TIMER01_BASE)
#define TIMER_TICK (BOARD_TIMER01_BASE + 0x20u)

static void vic_enable_line(uint32_t line, bool enable)
{
	mmio_write(BOARD_VIC_BASE + (enable ? VIC_INTENABLE : VIC_INTENCLEAR), 1u << line);
}

uint32_t board_now_us(void *context)
{
	(void)context;
	/* Timer 0 counts down from 0xFFFFFFFF at 1 MHz (QEMU's SP804 clock). */
	return ~mmio_read(TIMER_CLOCK + TIMER_VALUE);
}

static void clock_start(void)
{
	mmio_write(TIMER_CLOCK + TIMER_CONTROL, 0);
	mmio_write(TIMER_CLOCK + TIMER_LOAD, 0xFFFFFFFFu);
	mmio_write(TIMER_CLOCK + TIMER_CONTROL, TIMER_CONTROL_ENABLE | TIMER_CONTROL_32BIT);
}

/*
 * The tick is timer 1 in one-shot mode, re-armed by the interrupt for the next moment of the
 * common schedule (board_tick_due: no drift). Periodic mode would be simpler, but QEMU 7.2 with
 * -icount sleep=off wakes a CPU sleeping in WFI only on every second periodic SP804 interrupt
 * (measured: 2000 us between ticks for a 1000 us period, on both SP804s); a one-shot ticks on
 * time there, and behaves the same on hardware.
 */
static void tick_arm(uint32_t now)
{
	uint32_t due = board_tick_due(now);
	mmio_write(TIMER_TICK + TIMER_CONTROL, 0);
	mmio_write(TIMER_TICK + TIMER_LOAD, due - now);
	mmio_write(TIMER_TICK + TIMER_CONTROL, TIMER_CONTROL_TICK);
}

void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context)
{
	mmio_write(TIMER_TICK + TIMER_CONTROL, 0);
	vic_enable_line(BOARD_VIC_LINE_TIMER01, false);
	uint32_t now = board_now_us(0);
	if (!board_tick_schedule(period_us, tick, context, now))
		return;
	mmio_write(TIMER_TICK + TIMER_INTCLR, 1);
	tick_arm(now);
	vic_enable_line(BOARD_VIC_LINE_TIMER01, true);
	board_irq_enable();
}

void board_console_route(bool enable)
{
	vic_enable_line(BOARD_VIC_LINE_UART0, enable);
}

void board_irq_dispatch(void)
{
	uint32_t status = mmio_read(BOARD_VIC_BASE + VIC_IRQSTATUS);
	if (status & (1u << BOARD_VIC_LINE_UART0))
		board_console_irq();
	if ((status & (1u << BOARD_VIC_LINE_TIMER01)) && mmio_read(TIMER_TICK + TIMER_MIS)) {
		mmio_write(TIMER_TICK + TIMER_INTCLR, 1);
		if (board_tick_advance())
			tick_arm(board_now_us(0));
		board_tick_run();
	}
}

void board_init(void)
{
	mmio_write(BOARD_VIC_BASE + VIC_INTENCLEAR, 0xFFFFFFFFu);
	clock_start();
	board_console_start(BOARD_UART0_BASE, BOARD_UART_CLOCK_HZ);
}
