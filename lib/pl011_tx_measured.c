/* MEASURED: the driver times its own interrupt latency and uses the lowest trigger that covers it. */
#include "pl011_internal.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

/* Samples in a row that must fit a lower level before it is used, at first and at most
 * (doubled each time a lowered level had to be left again); the refills between sampling
 * bursts, at first and at most (fourfold after each burst that moved nothing), and at the
 * lowest level; the frames a chain may span before a fresh full FIFO restarts it (each frame
 * may add 1 ns of rounding to the lateness); the top-ups in a row that found the FIFO barely
 * drained before top-ups stop. */
#define MEASURED_CALM_SAMPLES 256u
#define MEASURED_MAX_CALM_SAMPLES 4096u
#define MEASURED_FIRST_PAUSE 16u
#define MEASURED_MAX_PAUSE 4096u
#define MEASURED_FLOOR_PAUSE 16u
#define MEASURED_CHAIN_FRAMES 1024u
#define MEASURED_PROMPT_REFILLS 256u

/*
 * MEASURED: the driver times its own interrupt latency with the clock it already has and uses
 * the lowest trigger whose headroom covers the latency with half as much again to spare.
 *
 * A chain gives each sampled entry its lateness in absolute terms. It starts at a refill that
 * polled FR until TXFF: at that clock read the FIFO held `depth` entries, so its level falls to
 * the trigger `depth - trigger - 1` frames later at the earliest (the character shifting may
 * end at once). From there, each refill that writes w characters before the line runs dry moves
 * the next crossing w frames on, so the time of every later crossing is known without another
 * FR read; the entry's clock read less the crossing's time is how late the handler ran, plus
 * any time the line stood idle since the chain began (a dry FIFO delays every later crossing):
 * a run-dry within the chain shows at its next sample, and so does a constant latency, however
 * long. The clock's step (timed at init) is added, so the lateness never understates; a coarse
 * clock only makes the judge keep a higher trigger. Each sample also reads FR once: TXFE at entry
 * means the level is too low whatever the clock says.
 *
 * A sample too late for this level raises the trigger at once, before the fill, to the lowest
 * level that covers it (at most 1/2: above it each interrupt carries so few characters that
 * more interrupts mean more late ones, docs/benchmarks.md); calm_needed samples in a row that
 * fit the next level down lower it by one, after the fill. Samples come in bursts, one per
 * refill; a burst that moved nothing makes the pause before the next four times longer (at
 * most MEASURED_MAX_PAUSE refills); at the lowest level a sample comes every
 * MEASURED_FLOOR_PAUSE + 1 refills, and the chain spans the pause, so a change of regime that
 * runs the FIFO dry is seen within that many refills. Entries later than the next level down
 * could take (topup) make every refill poll FR after its blind part, as HYBRID does: a late
 * refill finds the FIFO low and filling it buys the next interrupt more headroom; a calm line
 * reads FR only for the chain and the samples. Without a usable clock it stays at its
 * starting level (1/2 by default) and tops up every refill: HYBRID.
 */
static void measured_burst_end(struct pl011 *uart)
{
	struct pl011_tx_measured *measured = &uart->tx.policy.measured;
	measured->calm = 0;
	if (uart->tx.level == PL011_LEVEL_1_8) {
		measured->sample_wait = MEASURED_FLOOR_PAUSE;
		return;
	}
	measured->sample_wait = measured->sample_pause;
	if (measured->sample_pause < MEASURED_MAX_PAUSE)
		measured->sample_pause *= 4u;
}

/* The lowest level above this one whose headroom covers need, at most the ceiling. */
static uint32_t measured_level_for(const struct pl011 *uart, uint64_t need)
{
	const struct pl011_tx_measured *measured = &uart->tx.policy.measured;
	uint32_t target = uart->tx.level + 1u;
	while (target < PL011_TX_CEILING && measured->headroom_ns[target] < need)
		target++;
	return target;
}

/* Judge one sample (before the fill): raise at once if it is too late for this level or the
 * FIFO ran dry; returns the level to move down to after the fill, or 0. */
static uint32_t measured_judge(struct pl011 *uart, uint64_t late_ns, bool dry)
{
	struct pl011_tx_measured *measured = &uart->tx.policy.measured;
	uint64_t need = late_ns + late_ns / 2u;
	uint32_t level = uart->tx.level;
	/* Top up for a lateness the clock's step cannot explain, too much for the level below. */
	uint64_t steps_ns = pl011_multiply(measured->clock_step_us, 2000u);
	uint64_t sure_ns = late_ns > steps_ns ? late_ns - steps_ns : 0u;
	uint32_t below = level > PL011_LEVEL_1_8 ? level - 1u : level;
	if (dry || sure_ns + sure_ns / 2u > measured->headroom_ns[below])
		measured->topup = 1;
	if (dry || need > measured->headroom_ns[level]) {
		if (level >= PL011_TX_CEILING) {
			measured_burst_end(uart);
			return 0;
		}
		/* A level we lowered to was too low after all: wait longer before the next try. */
		if (measured->lowered && measured->calm_needed < MEASURED_MAX_CALM_SAMPLES)
			measured->calm_needed *= 2u;
		measured->lowered = 0;
		measured->calm = 0;
		measured->sample_pause = MEASURED_FIRST_PAUSE;
		measured->sample_wait = 0; /* look again at the new level */
		pl011_tx_set_level(uart, measured_level_for(uart, need));
		return 0;
	}
	if (level == PL011_LEVEL_1_8 || need > measured->headroom_ns[level - 1u]) {
		measured_burst_end(uart);
		return 0;
	}
	if (++measured->calm < measured->calm_needed)
		return 0;
	measured->calm = 0;
	measured->lowered = 1;
	measured->topup = 0; /* calm_needed prompt entries in a row */
	measured->sample_pause = MEASURED_FIRST_PAUSE;
	return level - 1u;
}

/* Line time of `frames`, in ns, rounded down per frame (so the lateness never understates). The
 * chain is cut past MEASURED_CHAIN_FRAMES: the product stays below 2^43. */
static uint64_t line_ns(const struct pl011 *uart, uint32_t frames)
{
	return pl011_multiply(frames, uart->tx.policy.measured.frame_ns);
}

/* At an entry the chain reaches: the clock and FR, then the judge. */
static uint32_t measured_sample(struct pl011 *uart)
{
	struct pl011_tx_measured *measured = &uart->tx.policy.measured;
	uint32_t now = pl011_clock_now(uart);
	/* The first sample of a burst (after a pause, or at a new level) also reads FR; within a
	 * burst the chain's lateness already shows a dry FIFO, at the cost of a clock read. */
	bool dry = measured->calm == 0 && (pl011_tx_read_fr(uart) & PL011_FR_TXFE) != 0;
	if (dry)
		PL011_COUNT(uart, tx_underruns, 1);
	/* Saturated past 71 minutes, far beyond any headroom: one product on the sample path. */
	uint32_t elapsed_us = (now - measured->chain_at_us) + measured->clock_step_us;
	if (elapsed_us < measured->clock_step_us)
		elapsed_us = UINT32_MAX;
	uint64_t elapsed_ns = pl011_multiply(elapsed_us, 1000u);
	uint64_t crossing_ns = line_ns(uart, measured->chain_frames);
	return measured_judge(uart, elapsed_ns > crossing_ns ? elapsed_ns - crossing_ns : 0u, dry);
}

/* What a top-up found: more than one character of room means the entry came late (the FIFO
 * had drained past the trigger). With a clock, MEASURED_PROMPT_REFILLS prompt top-ups in a row
 * end the top-ups until a sample finds entries late again; without one nothing could restart
 * them, so they go on (HYBRID). */
static void measured_topup_seen(struct pl011 *uart, uint32_t more)
{
	struct pl011_tx_measured *measured = &uart->tx.policy.measured;
	if (measured->clock_step_us == 0 || !measured->topup)
		return;
	if (more > 1u) {
		measured->prompt = 0;
	} else if (++measured->prompt >= MEASURED_PROMPT_REFILLS) {
		measured->topup = 0;
		measured->prompt = 0;
	}
}

static uint32_t pl011_tx_measured_refill(struct pl011 *uart, uint32_t guaranteed)
{
	struct pl011_tx_measured *measured = &uart->tx.policy.measured;
	uint32_t lower = 0;
	bool long_chain = measured->chain_frames > MEASURED_CHAIN_FRAMES;
	if (measured->sample_wait != 0 && !long_chain)
		measured->sample_wait--;
	else if (measured->chain_open)
		lower = measured_sample(uart);
	if (long_chain)
		measured->chain_open = 0; /* sampled: start afresh, before the rounding adds up */
	uint32_t written = pl011_tx_fill_blind(uart, guaranteed);
	bool start = !measured->chain_open && measured->clock_step_us != 0;
	bool full = false;
	if ((measured->topup || start) && written == guaranteed) {
		uint32_t more = 0;
		full = pl011_tx_fill_polling(uart, uart->line.fifo_depth, written, NULL, &more);
		written += more;
		measured_topup_seen(uart, more);
	}
	if (uart->tx.poll_next || written < guaranteed) {
		measured->chain_open = 0; /* another writer, a new level, or the ring ran out */
	} else if (start && full) {
		measured->chain_at_us = pl011_clock_now(uart);
		uint32_t depth = uart->line.fifo_depth;
		measured->chain_frames = depth - pl011_level_entries(depth, uart->tx.level) - 1u;
		measured->chain_open = 1;
	} else if (measured->chain_open) {
		measured->chain_frames += written;
	}
	if (lower != 0)
		pl011_tx_set_level(uart, lower);
	return written;
}

/* Before the UART is programmed: the step, which measured_reset uses. */
static void measured_prepare(struct pl011 *uart)
{
	uart->tx.policy.measured.clock_step_us = pl011_clock_step_us(uart);
}

/* MEASURED's table: per level, the headroom ((trigger + 1) entries: the line stays busy that
 * long after the crossing) in nanoseconds of line time; the clock's step; its sampling state. */
static void measured_reset(struct pl011 *uart)
{
	struct pl011_tx_measured *measured = &uart->tx.policy.measured;
	uint32_t depth = uart->line.fifo_depth;
	/* Exact to the ns, where the line's frame_time rounds up to 1/256 us; saturated below
	 * 3 baud, where a frame outlasts 4.29 s. */
	uint32_t bits = pl011_lcr_h_frame_bits(uart->line.lcr_h);
	measured->frame_ns = pl011_divide_product(bits, 1000000000u, 0, uart->line.baud.actual_baud);
	for (uint32_t level = PL011_LEVEL_1_8; level <= PL011_LEVEL_7_8; level++) {
		uint64_t headroom = line_ns(uart, pl011_level_entries(depth, level) + 1u);
		measured->headroom_ns[level] =
			headroom > UINT32_MAX ? UINT32_MAX : (uint32_t)headroom;
	}
	/* The step was timed before the UART was programmed (measured_prepare). A clock too
	 * coarse to time even the highest level's headroom is no use to the judge. */
	if (pl011_multiply(measured->clock_step_us, 1000u) > measured->headroom_ns[PL011_TX_CEILING])
		measured->clock_step_us = 0;
	measured->chain_open = 0;
	measured->chain_frames = 0;
	measured->topup = measured->clock_step_us == 0;
	measured->prompt = 0;
	measured->sample_wait = 0;
	measured->sample_pause = MEASURED_FIRST_PAUSE;
	measured->calm = 0;
	measured->calm_needed = MEASURED_CALM_SAMPLES;
}

/* A refill that polls because someone else wrote the FIFO: the crossings are no longer a
 * refill apart. */
static void measured_lost_track(struct pl011 *uart)
{
	uart->tx.policy.measured.chain_open = 0;
}

const struct pl011_tx_strategy pl011_tx_measured = {
	.mode = PL011_TX_MEASURED,
	.refill = pl011_tx_measured_refill,
	.prepare = measured_prepare,
	.reset = measured_reset,
	/* Its headroom table is in line time: rebuilt for the new frame, and its sampling
	 * starts afresh (its trigger stays). */
	.line_changed = measured_reset,
	.lost_track = measured_lost_track,
	.ring = &pl011_tx_ring_ops,
};

#endif /* PL011_INTERRUPTS */
