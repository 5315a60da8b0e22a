/* Board code for a GIC board whose clock and tick are the ARM generic timer (QEMU virt in both states, Pi 5): clock, memory map, board_init. */
#include <stddef.h>

#include "board.h"
#include "board_common.h"
#include "generic_timer.h"
#include "gic.h"

/* board.h lists the regions (BOARD_MEMORY_MAP), or gives only its RAM (BOARD_RAM_START,
 * BOARD_RAM_SIZE) on a machine whose devices all lie below it (QEMU virt, Versatile Express A15). */
#ifndef BOARD_MEMORY_MAP
#define BOARD_MEMORY_MAP BOARD_MEMORY_DEVICES_BELOW_RAM(BOARD_RAM_START, BOARD_RAM_SIZE)
#endif
const struct board_memory_region board_memory_map[] = {BOARD_MEMORY_MAP};
const uint32_t board_memory_map_count = sizeof board_memory_map / sizeof board_memory_map[0];

const struct board_tick_timer board_tick_timer = {
	generic_timer_tick_start,
	generic_timer_tick_stop,
	generic_timer_tick_acknowledge,
};

uint32_t board_now_us(void *context)
{
	(void)context;
	return generic_timer_now_us();
}

void board_init(void)
{
	/* First, before any library code: with the MMU off every access is Device (Strongly
	 * ordered), where an unaligned access faults. A no-op if the start-up already did it. */
	board_mmu_enable(board_memory_map, board_memory_map_count);
	gic_init(BOARD_GICD_BASE, BOARD_GIC_CORE_BASE, NULL);
	generic_timer_init(BOARD_COUNTER_FALLBACK_HZ);
	board_console_start(BOARD_UART0_BASE, BOARD_UART_CLOCK_HZ);
}
