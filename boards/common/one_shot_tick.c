/* board_tick_timer from a board's one-shot down-counter: loaded for each moment of the common drift-free schedule. */
#include <stddef.h>

#include "board.h"
#include "board_common.h"

static void load_next(uint32_t now)
{
	board_one_shot_timer.load(board_tick_due(now) - now);
}

static void tick_start(uint32_t period_us)
{
	uint32_t now = board_now_us(NULL);
	board_tick_schedule(period_us, now);
	(void)board_one_shot_timer.acknowledge(); /* an interrupt left pending from before */
	load_next(now);
}

static void tick_stop(void)
{
	board_one_shot_timer.stop();
}

static bool tick_acknowledge(void)
{
	if (!board_one_shot_timer.acknowledge())
		return false;
	board_tick_advance();
	load_next(board_now_us(NULL));
	return true;
}

const struct board_tick_timer board_tick_timer = {
	.start = tick_start,
	.stop = tick_stop,
	.acknowledge = tick_acknowledge,
};
