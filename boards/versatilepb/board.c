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
#define TIMER_CONTROL_32BIT (1u << 1)
#define TIMER_CONTROL_INTEN (1u << 5)
#define TIMER_CONTROL_PERIODIC (1u << 6)
#define TIMER_CONTROL_ENABLE (1u << 7)
#define TIMER_CLOCK (BOARD_TIMER01_BASE)
#define TIMER_TICK (BOARD_TIMER01_BASE + 0x20u)

const char *board_name(void)
{
	return "versatilepb";
}

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

void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context)
{
	mmio_write(TIMER_TICK + TIMER_CONTROL, 0);
	vic_enable_line(BOARD_VIC_LINE_TIMER01, false);
	board_tick_set(tick, context);
	if (period_us == 0 || tick == 0)
		return;
	mmio_write(TIMER_TICK + TIMER_LOAD, period_us);
	mmio_write(TIMER_TICK + TIMER_INTCLR, 1);
	mmio_write(TIMER_TICK + TIMER_CONTROL, TIMER_CONTROL_ENABLE | TIMER_CONTROL_PERIODIC |
						       TIMER_CONTROL_INTEN | TIMER_CONTROL_32BIT);
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
		board_tick_run();
	}
}

void board_init(void)
{
	mmio_write(BOARD_VIC_BASE + VIC_INTENCLEAR, 0xFFFFFFFFu);
	clock_start();
	board_console_start(BOARD_UART0_BASE, BOARD_UART_CLOCK_HZ);
}
