/* SP804 dual timer (ARM DDI 0271): a free-running microsecond clock and the one-shot down-counter of a tick. */
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
 * The tick: the timer loaded for one count and its interrupt, as board_one_shot_timer
 * (boards/common/one_shot_tick.c keeps the schedule). Periodic mode would be simpler, but QEMU
 * 7.2 with -icount sleep=off wakes a CPU sleeping in WFI only on every second periodic SP804
 * interrupt (measured: 2000 us between ticks for a 1000 us period, on both SP804s of
 * versatilepb); a one-shot ticks on time there, and behaves the same on hardware.
 */
static uintptr_t tick_timer;

void sp804_tick_init(uintptr_t tick)
{
	tick_timer = tick;
	mmio_write(tick + SP804_CONTROL, 0);
}

static void tick_load(uint32_t delay_us)
{
	mmio_write(tick_timer + SP804_CONTROL, 0);
	mmio_write(tick_timer + SP804_LOAD, delay_us);
	mmio_write(tick_timer + SP804_CONTROL, SP804_CONTROL_TICK);
}

static void tick_stop(void)
{
	mmio_write(tick_timer + SP804_CONTROL, 0);
}

static bool tick_acknowledge(void)
{
	if (!mmio_read(tick_timer + SP804_MIS))
		return false;
	mmio_write(tick_timer + SP804_INTCLR, 1);
	return true;
}

const struct board_one_shot_timer board_one_shot_timer = {
	.load = tick_load,
	.stop = tick_stop,
	.acknowledge = tick_acknowledge,
};
