/* Arm CMSDK APB timer (SSE-200, MPS2/MPS3 subsystems) as the one-shot down-counter of a board's tick. */
#include "board.h"
#include "board_common.h"
#include "cmsdk_timer.h"
#include "mmio.h"

/* Registers (Arm DDI 0479C, CMSDK Technical Reference Manual, 4.3 "APB timer"). */
#define CMSDK_TIMER_CTRL 0x00u
#define CMSDK_TIMER_VALUE 0x04u
#define CMSDK_TIMER_RELOAD 0x08u
#define CMSDK_TIMER_INTSTATUS 0x0Cu /* write 1: INTCLEAR */
#define CMSDK_TIMER_CTRL_ENABLE (1u << 0)
#define CMSDK_TIMER_CTRL_IRQ_ENABLE (1u << 3)

static uintptr_t timer_base;
static uint32_t cycles_per_us;

void cmsdk_timer_tick_init(uintptr_t base, uint32_t clock_hz)
{
	timer_base = base;
	cycles_per_us = clock_hz / 1000000u;
	mmio_write(base + CMSDK_TIMER_CTRL, 0);
	mmio_write(base + CMSDK_TIMER_INTSTATUS, 1u);
}

/*
 * The timer has no one-shot mode: at zero it interrupts and reloads from RELOAD (CMSDK TRM
 * 4.3.1). Loaded with RELOAD 0 it counts VALUE down once; the acknowledge stops it before it
 * clears the interrupt, so a counter resting at zero cannot raise a second one before the next
 * delay is loaded (what hardware does at RELOAD 0 is not checked here). Measured under QEMU 7.2 -icount sleep=off: with
 * RELOAD = the delay (periodic in QEMU's model: hw/timer/cmsdk-apb-timer.c runs its ptimer
 * one-shot only while RELOAD is 0) a CPU in WFI woke on every second interrupt only, and
 * rt_loop measured alternating 4 and 1996 us periods; with RELOAD 0 every period is on time.
 */
static void tick_load(uint32_t delay_us)
{
	mmio_write(timer_base + CMSDK_TIMER_CTRL, 0);
	mmio_write(timer_base + CMSDK_TIMER_RELOAD, 0);
	mmio_write(timer_base + CMSDK_TIMER_VALUE, delay_us * cycles_per_us);
	mmio_write(timer_base + CMSDK_TIMER_CTRL, CMSDK_TIMER_CTRL_ENABLE | CMSDK_TIMER_CTRL_IRQ_ENABLE);
}

static void tick_stop(void)
{
	mmio_write(timer_base + CMSDK_TIMER_CTRL, 0);
}

static bool tick_acknowledge(void)
{
	if ((mmio_read(timer_base + CMSDK_TIMER_INTSTATUS) & 1u) == 0u)
		return false;
	mmio_write(timer_base + CMSDK_TIMER_CTRL, 0);
	mmio_write(timer_base + CMSDK_TIMER_INTSTATUS, 1u);
	return true;
}

const struct board_one_shot_timer board_one_shot_timer = {
	.load = tick_load,
	.stop = tick_stop,
	.acknowledge = tick_acknowledge,
};
