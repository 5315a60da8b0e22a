/* versatilepb board: PL190 VIC, the SP804's two timers as microsecond clock and tick (boards/common/sp804.c), console UART0. */
#include "board.h"
#include "board_common.h"
#include "mmio.h"
#include "sp804.h"

/* PL190 VIC registers (ARM DDI 0181). */
#define VIC_IRQSTATUS 0x000u
#define VIC_RAWINTR 0x008u
#define VIC_INTENABLE 0x010u
#define VIC_INTENCLEAR 0x014u

#define TIMER_CLOCK (BOARD_TIMER01_BASE)
#define TIMER_TICK (BOARD_TIMER01_BASE + SP804_TIMER2_OFFSET)

static void vic_enable_line(uint32_t line, bool enable)
{
	mmio_write(BOARD_VIC_BASE + (enable ? VIC_INTENABLE : VIC_INTENCLEAR), 1u << line);
}

uint32_t board_now_us(void *context)
{
	(void)context;
	return sp804_clock_us(TIMER_CLOCK);
}

static void tick_route(bool enable)
{
	vic_enable_line(BOARD_VIC_LINE_TIMER01, enable);
}

void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context)
{
	board_tick_configure(period_us, tick, context, &board_tick_timer, tick_route);
}

void board_console_route(bool enable)
{
	vic_enable_line(BOARD_UART_IRQ, enable);
}

void board_irq_line_route(uint32_t line, bool enable)
{
	vic_enable_line(line, enable);
}

void board_irq_dispatch(void)
{
	uint32_t status = mmio_read(BOARD_VIC_BASE + VIC_IRQSTATUS);
	if (status & (1u << BOARD_UART_IRQ))
		board_console_irq();
	if ((status & (1u << BOARD_VIC_LINE_TIMER01)) && board_tick_timer.acknowledge())
		board_tick_run();
	status &= ~((1u << BOARD_UART_IRQ) | (1u << BOARD_VIC_LINE_TIMER01));
	for (uint32_t line = 0; status != 0u; line++, status >>= 1)
		if (status & 1u)
			(void)board_uart_irq(line);
}

uint32_t board_irq_lines_asserted(uint32_t *lines, uint32_t max)
{
	/* RAWINTR: the 32 inputs before the enable mask (DDI 0181, VICRAWINTR). */
	uint32_t raw = mmio_read(BOARD_VIC_BASE + VIC_RAWINTR);
	uint32_t count = 0;
	for (uint32_t line = 0; line < 32u && count < max; line++) {
		if (raw & (1u << line))
			lines[count++] = line;
	}
	return count;
}

void board_init(void)
{
	mmio_write(BOARD_VIC_BASE + VIC_INTENCLEAR, 0xFFFFFFFFu);
	sp804_clock_start(TIMER_CLOCK);
	sp804_tick_init(TIMER_TICK);
	board_console_start(BOARD_UART0_BASE, BOARD_UART_CLOCK_HZ);
}
