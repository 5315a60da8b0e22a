/* ARM SP804 dual timer (ARM DDI 0271) as a board's microsecond clock and drift-free tick. */
#ifndef BOARD_SP804_H
#define BOARD_SP804_H

#include <stdbool.h>
#include <stdint.h>

/* The second timer of a dual-timer module sits this far above the first (DDI 0271, register summary). */
#define SP804_TIMER2_OFFSET 0x20u

/* Start the timer at `clock` (a timer's base address) counting down from 0xFFFFFFFF, free
 * running. Its TIMCLK must be 1 MHz (the board selects it): the count is then microseconds. */
void sp804_clock_start(uintptr_t clock);

/* Microseconds since sp804_clock_start, wrapping at 2^32. */
uint32_t sp804_clock_us(uintptr_t clock);

/* Stop the tick timer at `tick`. */
void sp804_tick_stop(uintptr_t tick);

/* Interrupt at the moments of the boards' common schedule (board_tick_schedule, set first)
 * from the timer at `tick` (1 MHz as well), measured on the clock at `clock` so that ticks do
 * not drift. The board routes the tick timer's interrupt line and calls sp804_tick_irq. */
void sp804_tick_start(uintptr_t tick, uintptr_t clock);

/* From the board's IRQ dispatcher: true when the tick timer interrupted; it is then
 * acknowledged and re-armed for the next moment. */
bool sp804_tick_irq(void);

#endif
