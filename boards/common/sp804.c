/* SP804 dual timer (ARM DDI 0271): a free-running microsecond clock and a one-shot tick re-armed per period. */
#include "sp804.h"

#include "board_common.h"
#include "mmio.h"

/* Registers of one timer (DDI 0271, register summary). */
#define SP804_LOAD 0x00u
#define SP804_VALUE 0x04u
#define SP804_CONTROL 0x08u
#define SP804_INTCLR 0x0Cu
#define SP804_MIS 0x14u
#define SP804_CONTROL_ONESHOT (1u << 0)
#define SP804_CONTROL_32BIT (1u << 1)
#define SP804_CONTROL_INTEN (1u << 5)
#define SP804_CONTROL_ENABLE (1u << 7)
#define SP804_CONTROL_TICK (SP804_CONTROL_ENABLE | SP804_CONTROL_ONESHOT | SP804_CONTROL_INTEN | \
			    SP804_CONTROL_32BIT)
void sp804_clock_start(uintptr_t clock)
{
	mmio_write(clock + SP804_CONTROL, 0);
	mmio_write(clock + SP804_LOAD, 0xFFFFFFFFu);
	mmio_write(clock + SP804_CONTROL, SP804_CONTROL_ENABLE | SP804_CONTROL_32BIT);
}

uint32_t sp804_clock_us(uintptr_t clock)
{
	return ~mmio_read(clock + SP804_VALUE);
}

/*
 * The tick is a one-shot timer re-armed by its interrupt for the next moment of the boards'
 * common schedule (board_tick_due: no drift). Periodic mode would be simpler, but QEMU 7.2 with
 * -icount sleep=off wakes a CPU sleeping in WFI only on every second periodic SP804 interrupt
 * (measured: 2000 us between ticks for a 1000 us period, on both SP804s of versatilepb); a
 * one-shot ticks on time there, and behaves the same on hardware.
 */
static struct {
	uintptr_t timer;
	uintptr_t clock;
} tick_state;

static void tick_arm(uint32_t now)
{
	uint32_t due = board_tick_due(now);
	mmio_write(tick_state.timer + SP804_CONTROL, 0);
	mmio_write(tick_state.timer + SP804_LOAD, due - now);
	mmio_write(tick_state.timer + SP804_CONTROL, SP804_CONTROL_TICK);
}

void sp804_tick_stop(uintptr_t tick)
{
	mmio_write(tick + SP804_CONTROL, 0);
}

void sp804_tick_start(uintptr_t tick, uintptr_t clock)
{
	tick_state.timer = tick;
	tick_state.clock = clock;
	mmio_write(tick + SP804_INTCLR, 1);
	tick_arm(sp804_clock_us(clock));
}

bool sp804_tick_irq(void)
{
	if (tick_state.timer == 0 || !mmio_read(tick_state.timer + SP804_MIS))
		return false;
	mmio_write(tick_state.timer + SP804_INTCLR, 1);
	if (board_tick_advance())
		tick_arm(sp804_clock_us(tick_state.clock));
	return true;
}
