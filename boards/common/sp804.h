/* ARM SP804 dual timer (ARM DDI 0271) as a board's microsecond clock and drift-free tick. */
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

/* The tick: the timer at `tick` (1 MHz as well), one-shot, re-armed on the boards' common
 * schedule measured on the clock at `clock`, so that ticks do not drift. Call
 * sp804_tick_init once (it stops the timer); then the board passes sp804_tick_timer to
 * board_tick_configure, routes the timer's line, and calls its acknowledge from the IRQ. */
void sp804_tick_init(uintptr_t tick, uintptr_t clock);
extern const struct board_tick_timer sp804_tick_timer;

#endif
