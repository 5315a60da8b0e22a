/* Arm CMSDK APB timer as a board's tick (with boards/common/one_shot_tick.c). */
#ifndef BOARD_CMSDK_TIMER_H
#define BOARD_CMSDK_TIMER_H

#include <stdint.h>

/* The timer at `base`, counting its APB clock of clock_hz (a whole number of MHz), stopped and
 * its interrupt cleared; it is then the board's board_one_shot_timer. */
void cmsdk_timer_tick_init(uintptr_t base, uint32_t clock_hz);

#endif
