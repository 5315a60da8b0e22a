/* rt_loop: a 1 kHz tick sends one frame per period by interrupt-driven TX and reports its period jitter. */
#include <stdio.h>

#include "board.h"

/*
 * The periodic real-time loop of docs/background.md section 5 (and the 1,000 Hz control loop
 * of its section 2), in miniature: the timer interrupt is the loop body. Each tick timestamps
 * itself with board_now_us, records the period since the previous tick, and queues one frame
 * for the UART without waiting. Jitter is reported the way section 5 measures it: counts
 * outside a band (over and under separately) plus the extremes.
 *
 * One writer at a time: while the tick runs, only the tick writes to the UART (pl011_write is
 * a one-writer function) and main only sleeps; main prints again only after stopping the tick.
 */

#define PERIOD_US 1000u
#define PERIODS 2000u
#define BAND_PERCENT 3u
#define BAND_LOW_US (PERIOD_US - PERIOD_US * BAND_PERCENT / 100u)
#define BAND_HIGH_US (PERIOD_US + PERIOD_US * BAND_PERCENT / 100u)
/* Frame: sequence number (2 hex digits), measured period in us (4 digits), CR LF. Eight bytes
 * per millisecond is 69% of a 115,200 baud line (11.52 bytes per millisecond at 8N1). */
#define FRAME_BYTES 8u
#define FRAME_PERIOD_MAX 9999u
/* TX ring: a power of two, 128 frames of backlog should the line fall behind. */
#define TX_BUFFER_BYTES 1024u
/* Bounds of the waits in main: the first tick within ten periods, the whole run within twice
 * its nominal length plus a second. */
#define FIRST_TICK_BOUND_US (10u * PERIOD_US)
#define RUN_BOUND_US (2u * PERIODS * PERIOD_US + 1000000u)

struct rt_loop {
	bool started;        /* the first tick only takes the reference time */
	uint32_t last_us;    /* time of the previous tick */
	uint32_t periods;    /* periods measured */
	uint32_t over;       /* periods above BAND_HIGH_US */
	uint32_t under;      /* periods below BAND_LOW_US */
	uint32_t min_us;
	uint32_t max_us;
	uint64_t sum_us;
	uint32_t frames;     /* frames queued whole */
	uint32_t dropped;    /* frame bytes the TX ring could not take */
	uint32_t ticks_seen; /* atomic: main watches it */
	uint32_t done;       /* atomic: set by the tick after the last period */
};

static void record_period(struct rt_loop *loop, uint32_t period_us)
{
	if (loop->periods == 0 || period_us < loop->min_us)
		loop->min_us = period_us;
	if (period_us > loop->max_us)
		loop->max_us = period_us;
	if (period_us > BAND_HIGH_US)
		loop->over++;
	if (period_us < BAND_LOW_US)
		loop->under++;
	loop->sum_us += period_us;
	loop->periods++;
}

static void send_frame(struct rt_loop *loop, uint32_t sequence, uint32_t period_us)
{
	static const char hex[] = "0123456789ABCDEF";
	uint8_t frame[FRAME_BYTES];
	uint32_t value = period_us > FRAME_PERIOD_MAX ? FRAME_PERIOD_MAX : period_us;
	frame[0] = (uint8_t)hex[(sequence >> 4) & 0xFu];
	frame[1] = (uint8_t)hex[sequence & 0xFu];
	for (uint32_t digit = 5; digit >= 2; digit--) {
		frame[digit] = (uint8_t)('0' + value % 10u);
		value /= 10u;
	}
	frame[6] = '\r';
	frame[7] = '\n';
	/* Interrupt context: never wait. What the ring cannot take now is counted, not lost
	 * silently. */
	int written = pl011_write(board_console(), frame, FRAME_BYTES, PL011_NO_WAIT);
	uint32_t taken = written > 0 ? (uint32_t)written : 0u;
	if (taken == FRAME_BYTES)
		loop->frames++;
	loop->dropped += FRAME_BYTES - taken;
}

static void tick(void *context)
{
	struct rt_loop *loop = context;
	uint32_t now = board_now_us(NULL);
	__atomic_store_n(&loop->ticks_seen, loop->ticks_seen + 1u, __ATOMIC_RELAXED);
	if (__atomic_load_n(&loop->done, __ATOMIC_RELAXED) != 0u)
		return;
	if (!loop->started) {
		loop->started = true;
		loop->last_us = now;
		return;
	}
	uint32_t period = now - loop->last_us;
	loop->last_us = now;
	send_frame(loop, loop->periods, period);
	record_period(loop, period);
	if (loop->periods == PERIODS)
		__atomic_store_n(&loop->done, 1u, __ATOMIC_RELEASE);
}

/* Sleep until the tick says the run is over. The first tick is awaited by polling, so a timer
 * that never fires ends the run instead of hanging it; after that each WFI lasts at most one
 * period, because the running timer interrupts every period. */
static bool wait_for_run(struct rt_loop *loop)
{
	uint32_t start = board_now_us(NULL);
	while (__atomic_load_n(&loop->ticks_seen, __ATOMIC_RELAXED) == 0u) {
		if (board_now_us(NULL) - start >= FIRST_TICK_BOUND_US)
			return false;
	}
	while (__atomic_load_n(&loop->done, __ATOMIC_ACQUIRE) == 0u) {
		if (board_now_us(NULL) - start >= RUN_BOUND_US)
			return false;
		board_wait_for_interrupt();
	}
	return true;
}

static unsigned long max_deviation_us(const struct rt_loop *loop)
{
	uint32_t above = loop->max_us > PERIOD_US ? loop->max_us - PERIOD_US : 0u;
	uint32_t below = loop->min_us < PERIOD_US ? PERIOD_US - loop->min_us : 0u;
	return (unsigned long)(above > below ? above : below);
}

int main(void)
{
	static uint8_t tx_buffer[TX_BUFFER_BYTES];
	static struct rt_loop loop;

	printf("rt_loop on %s: %u periods of %u us, one %u-byte frame per period, "
	       "interrupt-driven TX (MEASURED)\n",
	       board_name(), PERIODS, PERIOD_US, FRAME_BYTES);
	/* Re-initialising flushes the FIFO (TRM 3.3.8): let the banner leave first. */
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);

	/* static: the port reads its config in place while it runs (pl011_init). */
	static struct pl011_config config;
	config = *board_console_config();
	config.tx_mode = PL011_TX_MEASURED;
	config.tx_buffer = tx_buffer;
	config.tx_buffer_size = sizeof tx_buffer;
	if (pl011_restart(board_console(), &config) != 0)
		return 1; /* the console is stopped: nothing can be said */
	board_console_irq_enable(true);

	board_tick_start(PERIOD_US, tick, &loop);
	bool completed = wait_for_run(&loop);
	board_tick_start(0, NULL, NULL);

	struct pl011_stats stats;
	(void)pl011_get_stats(board_console(), &stats);
	uint64_t mean_ns = loop.periods ? loop.sum_us * 1000u / loop.periods : 0u;
	printf("rt_loop: periods %lu over %lu under %lu band %u..%u us\n",
	       (unsigned long)loop.periods, (unsigned long)loop.over, (unsigned long)loop.under,
	       BAND_LOW_US, BAND_HIGH_US);
	printf("rt_loop: min %lu max %lu mean %lu.%03lu max_deviation %lu us\n",
	       (unsigned long)loop.min_us, (unsigned long)loop.max_us,
	       (unsigned long)(mean_ns / 1000u), (unsigned long)(mean_ns % 1000u),
	       max_deviation_us(&loop));
	printf("rt_loop: frames %lu dropped_bytes %lu tx_irqs %lu tx_refills %lu tx_stalls %lu\n",
	       (unsigned long)loop.frames, (unsigned long)loop.dropped, (unsigned long)stats.irq_tx,
	       (unsigned long)stats.tx_refills, (unsigned long)stats.tx_stalls);
	if (!completed) {
		printf("rt_loop: run incomplete (%s)\n",
		       loop.ticks_seen ? "ticks stopped" : "no tick within 10 periods");
		return 1;
	}
	return 0;
}
