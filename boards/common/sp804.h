/* ARM SP804 dual timer (ARM DDI 0271) as a board's microsecond clock and one-shot tick timer. */
#ifndef BOARD_SP804_H
#define BOARD_SP804_H

#include <stdbool.h>
#include <stdint.h>

#include "board_common.h"

/* The second timer of a dual-timer module sits this far above the first (DDI 0271, register summary). */
#define SP804_TIMER2_OFFSET 0x20u

/* Start the timer at `clock` (a timer's base address) counting down from 0xFFFFFFFF, free
 * running. Its TIMCLK must be 1 MHz (the board selects it): the count is then microseconds. */
void sp804_clock_start(uintptr_t clock);

/* Microseconds since sp804_clock_start, wrapping at 2^32. */
uint32_t sp804_clock_us(uintptr_t clock);

/* The tick: the timer at `tick` (1 MHz as well) as the board's board_one_shot_timer, which
 * boards/common/one_shot_tick.c (linked with this file) turns into board_tick_timer: a GIC
 * board (gic_board.c) takes it as it is, a VIC board passes it to board_tick_configure. Call
 * sp804_tick_init once (it stops the timer). */
void sp804_tick_init(uintptr_t tick);

#endif
