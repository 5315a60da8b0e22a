/* The TX strategies' own rules, the stall guard and the counters, sentence by sentence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

static struct harness h;
static uint8_t stream[16u * 1024u];

/* ---- a line whose interrupt latency the test sets per dispatch ---- */

static struct {
	uint64_t latency_ns; /* every dispatch, except: */
	uint64_t spike_ns;   /* dispatches [spike_from, spike_to) take this long (0: none) */
	uint64_t spike_from, spike_to;
	uint64_t dispatches;
	uint32_t clock_step_us; /* the clock the driver reads moves in steps of this (us) */
} line;

static uint64_t line_latency(void *context, uint64_t now_ns)
{
	(void)context;
	(void)now_ns;
	uint64_t n = line.dispatches++;
	if (line.spike_ns != 0 && n >= line.spike_from && n < line.spike_to)
		return line.spike_ns;
	return line.latency_ns;
}

static uint32_t line_clock(void *context)
{
	uint32_t us = pl011_model_clock_us(context);
	return line.clock_step_us > 1u ? us - us % line.clock_step_us : us;
}

/* A model at uartclk_hz with the given depth, the line's latency, and a config for `mode` at
 * `baud` with the line's clock (not started). */
static void line_setup(uint32_t uartclk_hz, unsigned depth, uint32_t baud, enum pl011_tx_mode mode)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.uartclk_hz = uartclk_hz;
	model_config.fifo_depth = depth;
	harness_setup_with(&h, &model_config);
	pl011_model_set_latency_fn(h.model, line_latency, NULL);
	h.config.baud = baud;
	h.config.tx_mode = mode;
	h.config.clock = line_clock;
}

static unsigned ifls_tx_code(void)
{
	return pl011_model_peek(h.model, PL011_IFLS) & PL011_IFLS_LEVEL_MASK;
}

static struct pl011_stats stats_now(void)
{
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	return stats;
}

/* Offer `bytes` of the stream without waiting every step_ns until all of them are on the wire;
 * checks the wire against the stream. */
static void line_stream(size_t bytes, uint64_t step_ns)
{
	harness_fill_random(stream, bytes, 0x24u);
	size_t sent = 0;
	while (sent < bytes || pl011_model_wire_len(h.model) < bytes) {
		if (sent < bytes) {
			int n = pl011_write(&h.uart, stream + sent, bytes - sent, PL011_NO_WAIT);
			assert_true(n >= 0);
			sent += (size_t)n;
		}
		pl011_model_advance(h.model, step_ns);
	}
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	assert_int_equal(pl011_model_wire_len(h.model), bytes);
	for (size_t i = 0; i < bytes; i++)
		if (pl011_model_wire_byte(h.model, i) != stream[i])
			fail_msg("wire differs at byte %zu", i);
}

/* ---- ADAPTIVE ---- */

/* The refills (stats.tx_refills) at each trigger move, as the handler made them. */
#define MOVES_MAX 64u
static struct {
	uint32_t refills[MOVES_MAX];
	unsigned code[MOVES_MAX]; /* the IFLS TX code after the move */
	unsigned count;
} moves;

static void moves_handler(void *context)
{
	(void)context;
	unsigned before = ifls_tx_code();
	pl011_irq_handler(&h.uart);
	if (ifls_tx_code() != before && moves.count < MOVES_MAX) {
		moves.refills[moves.count] = stats_now().tx_refills;
		moves.code[moves.count] = ifls_tx_code();
		moves.count++;
	}
}

/*
 * docs/design.md, ADAPTIVE: "after enough refills without underrun (64, doubling up to 4,096
 * whenever a lowered level underruns) move the trigger one level down"; and "a move now forces
 * one polling refill". Started at 1/8 under a 10 us latency (1/8 runs dry after 2 frames, 6.7 us
 * at 3 Mbaud; 1/4 lasts 4 frames, 13.3 us): the first refill at 1/8 underruns and raises to
 * 1/4. That level was not lowered to, so the patience stays 64: the move down comes exactly
 * 1 + 64 refills later. 1/8 then underruns again, a lowered level: the next move down comes
 * 1 + 128 refills after that raise.
 */
static void test_adaptive_lowers_after_64_clean_refills_doubling_only_after_a_lowering(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	memset(&moves, 0, sizeof moves);
	line.latency_ns = 10000u;
	line_setup(48000000u, 16u, 3000000u, PL011_TX_ADAPTIVE);
	h.config.tx_trigger = PL011_LEVEL_1_8;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_irq_handler(h.model, moves_handler, NULL);
	line_stream(sizeof stream, 20000u);
	for (unsigned i = 0; i < moves.count && i < 8u; i++)
		print_message("move %u: refill %u, IFLS TX code %u\n", i, moves.refills[i],
			      moves.code[i]);
	assert_true(moves.count >= 4u);
	/* up to 1/4, down to 1/8, up to 1/4, down to 1/8 */
	assert_int_equal(moves.code[0], PL011_LEVEL_1_4 - 1u);
	assert_int_equal(moves.code[1], PL011_LEVEL_1_8 - 1u);
	assert_int_equal(moves.code[2], PL011_LEVEL_1_4 - 1u);
	assert_int_equal(moves.code[3], PL011_LEVEL_1_8 - 1u);
	if (moves.refills[1] - moves.refills[0] != 1u + 64u)
		fail_msg("first move down %u refills after the first raise, 1 + 64 expected",
			 moves.refills[1] - moves.refills[0]);
	if (moves.refills[3] - moves.refills[2] != 1u + 128u)
		fail_msg("second move down %u refills after the second raise, 1 + 128 expected",
			 moves.refills[3] - moves.refills[2]);
	harness_teardown(&h);
}

/* In each handler entry that moved the trigger: the DR writes that followed its IFLS write. */
static struct {
	uint64_t ifls_seen;  /* IFLS writes at the last point */
	uint64_t dr_at_ifls; /* DR writes when the last IFLS write was seen */
	unsigned raises;
	uint64_t dr_after_raises; /* summed over the raising entries */
} order;

/* At every register access (before it takes effect): note the DR writes once an IFLS write
 * has landed. */
static void order_point(void *context)
{
	(void)context;
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	if (c->writes[PL011_IFLS / 4u] != order.ifls_seen) {
		order.ifls_seen = c->writes[PL011_IFLS / 4u];
		order.dr_at_ifls = c->writes[PL011_DR / 4u];
	}
}

static void order_handler(void *context)
{
	(void)context;
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	unsigned before = ifls_tx_code();
	uint64_t ifls_before = c->writes[PL011_IFLS / 4u];
	pl011_irq_handler(&h.uart);
	order_point(NULL); /* an IFLS write that was the entry's last access */
	if (c->writes[PL011_IFLS / 4u] != ifls_before && ifls_tx_code() > before) {
		order.raises++;
		order.dr_after_raises += c->writes[PL011_DR / 4u] - order.dr_at_ifls;
	}
}

/*
 * lib/pl011_tx_adaptive.c: "An empty FIFO means the line went idle (underrun): ask for the
 * interrupt earlier and refill the FIFO, less room for panics beside us ... The level moves
 * before the fill: the latched cause then still stands against the new level". Seen on the
 * bus: in every entry that raises the trigger (1/8 under a 10 us latency, as above), the
 * fill's depth - 2 DR writes come after the IFLS write.
 */
static void test_adaptive_raises_the_trigger_before_it_refills_the_fifo_whole(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	memset(&order, 0, sizeof order);
	line.latency_ns = 10000u;
	line_setup(48000000u, 16u, 3000000u, PL011_TX_ADAPTIVE);
	h.config.tx_trigger = PL011_LEVEL_1_8;
	assert_int_equal(harness_start(&h), 0);
	order.ifls_seen = pl011_model_counters(h.model)->writes[PL011_IFLS / 4u];
	pl011_model_set_irq_handler(h.model, order_handler, NULL);
	pl011_model_set_preempt_hook(order_point, NULL);
	line_stream(4096u, 20000u);
	pl011_model_set_preempt_hook(NULL, NULL);
	print_message("%u raises, %llu DR writes after their IFLS writes\n", order.raises,
		      (unsigned long long)order.dr_after_raises);
	assert_true(order.raises >= 2u);
	/* Each raising entry found the FIFO empty and filled it but for 2: 14 characters. */
	if (order.dr_after_raises < 14u * order.raises)
		fail_msg(
		    "%llu DR writes followed the IFLS writes of %u raises, at least %u expected",
		    (unsigned long long)order.dr_after_raises, order.raises, 14u * order.raises);
	harness_teardown(&h);
}

/* Entries that raised the trigger, emptied the ring and left the FIFO above the old trigger and
 * at or below the new one; and how many of them left the TX cause latched. */
static struct {
	unsigned examined;
	unsigned latched;
} standing;

static void standing_handler(void *context)
{
	(void)context;
	static const unsigned eighths[5] = {1, 2, 4, 6, 7};
	unsigned before = ifls_tx_code();
	pl011_irq_handler(&h.uart);
	unsigned code = ifls_tx_code();
	if (code <= before || pl011_tx_queued(&h.uart) != 0)
		return;
	unsigned level = pl011_model_tx_level(h.model);
	if (level <= 16u * eighths[before] / 8u || level > 16u * eighths[code] / 8u)
		return;
	standing.examined++;
	if ((pl011_model_ris(h.model) & PL011_INT_TX) != 0)
		standing.latched++;
}

/*
 * lib/pl011_tx.c, refill_adaptive: "The level moves before the fill: the latched cause then still
 * stands against the new level, so an interrupt is sure to come whatever the fill reaches". One
 * write to an idle port (ADAPTIVE at 1/8, 10 us of latency) whose last few bytes meet an
 * underrun: that entry raises to 1/4 and writes them all, leaving the FIFO above the old trigger
 * and at or below the new one. TXRIS must still be set after it (the PL011 clears it only once
 * the FIFO is filled above the trigger, TRM 2.8).
 */
static void
test_adaptive_raise_leaves_the_latched_cause_standing_against_the_new_level(void **state)
{
	(void)state;
	memset(&standing, 0, sizeof standing);
	for (unsigned tail = 1; tail <= 8u; tail++) {
		memset(&line, 0, sizeof line);
		line.latency_ns = 10000u;
		line_setup(48000000u, 16u, 3000000u, PL011_TX_ADAPTIVE);
		h.config.tx_trigger = PL011_LEVEL_1_8;
		assert_int_equal(harness_start(&h), 0);
		pl011_model_set_irq_handler(h.model, standing_handler, NULL);
		/* Priming takes 17 (the shifter and the FIFO), the first refill polls until full.
		 */
		size_t total = 17u + 16u + tail;
		harness_fill_random(stream, total, tail);
		assert_int_equal(pl011_write(&h.uart, stream, total, PL011_NO_WAIT), (int)total);
		pl011_model_advance(h.model, 2000000u);
		assert_int_equal(pl011_model_wire_len(h.model), total);
		harness_teardown(&h);
	}
	print_message("%u raising entries left the FIFO between the levels, %u with TXRIS set\n",
		      standing.examined, standing.latched);
	assert_true(standing.examined > 0);
	assert_int_equal(standing.latched, standing.examined);
}

/* ---- counters ---- */

/*
 * include/pl011.h, struct pl011_stats: tx_fr_reads counts "FR reads by the TX owner (refills,
 * polled writes)". Writes that never wait and no flush: every FR read the model sees is the
 * owner's (priming, polled refills), so the counter equals the model's count exactly, in every
 * strategy that polls FR.
 */
static void test_tx_fr_reads_counts_every_fr_read_of_the_tx_owner(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_POLL_FULL, PL011_TX_HYBRID,
						   PL011_TX_ADAPTIVE, PL011_TX_MEASURED};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		memset(&line, 0, sizeof line);
		line.latency_ns = 2000u;
		line_setup(48000000u, 16u, 3000000u, modes[m]);
		assert_int_equal(harness_start(&h), 0);
		uint64_t fr_before = pl011_model_counters(h.model)->reads[PL011_FR / 4u];
		uint32_t counted_before = stats_now().tx_fr_reads;
		line_stream(4096u, 20000u);
		uint64_t fr = pl011_model_counters(h.model)->reads[PL011_FR / 4u] - fr_before;
		uint32_t counted = stats_now().tx_fr_reads - counted_before;
		print_message("mode %d: %u FR reads counted, %llu made\n", modes[m], counted,
			      (unsigned long long)fr);
		assert_true(fr > 0);
		assert_int_equal(counted, fr);
		harness_teardown(&h);
	}
}

/*
 * include/pl011.h: tx_underruns counts "refills that found TXFE set (ADAPTIVE, POLL_FULL, stall
 * guard)"; pl011_flush: "If the TX interrupt does not make progress the wait refills the FIFO
 * itself and counts tx_stalls". With the TX interrupt broken the stall guard alone feeds the
 * line: every time the line ran dry with bytes waiting (the model's underruns) ended with a
 * pass of the guard that found the FIFO empty, so HALF_FIFO (which counts no underrun of its
 * own) counts exactly as many. Feeding, the guard passes once every half FIFO of frames.
 */
static void test_tx_underruns_counts_the_stall_guards_passes_that_found_the_fifo_empty(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	line.latency_ns = 1000u;
	line_setup(48000000u, 16u, 3000000u, PL011_TX_HALF_FIFO);
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_tx_irq_broken(h.model, true);
	harness_fill_random(stream, 600u, 3u);
	assert_int_equal(pl011_write(&h.uart, stream, 600u, PL011_WAIT_AUTO), 600);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	struct pl011_stats stats = stats_now();
	uint64_t gaps = pl011_model_counters(h.model)->underruns;
	print_message("stalls %u, underruns counted %u, line ran dry %llu times\n", stats.tx_stalls,
		      stats.tx_underruns, (unsigned long long)gaps);
	assert_int_equal(pl011_model_wire_len(h.model), 600u);
	assert_true(stats.tx_stalls > 0);
	/* Once feeding, the guard passes every half FIFO of frames, not at every wait step. */
	assert_true(stats.tx_stalls <= 600u / (16u / 2u) + 2u);
	assert_true(gaps > 0);
	assert_int_equal(stats.tx_underruns, gaps);
	harness_teardown(&h);
}

/*
 * include/pl011.h: tx_extra_histogram counts "refills by extra characters", its bins "0 .. 32
 * characters beyond the guaranteed count", the last one taking every refill beyond (tests
 * elsewhere check the exact bins). On a line faster than the CPU writes, a polling refill at
 * the 1/2 trigger of a 32-deep FIFO (16 guaranteed) writes all the ring holds, up to 64: with
 * 49 queued it writes 33 beyond, one more than the last bin's number, and that refill is
 * counted there.
 */
static void test_extra_histogram_counts_a_refill_of_33_extra_in_the_last_bin(void **state)
{
	(void)state;
	static const unsigned queued[] = {48u, 49u, 50u};
	for (size_t k = 0; k < sizeof queued / sizeof queued[0]; k++) {
		memset(&line, 0, sizeof line);
		line.latency_ns = 1000u;
		line_setup(4000000000u, 32u, 250000000u, PL011_TX_POLL_FULL);
		h.config.tx_trigger = PL011_LEVEL_1_2;
		assert_int_equal(harness_start(&h), 0);
		/* Held: priming fills the FIFO (32) and the rest waits in the ring. */
		pl011_model_set_tx_stalled(h.model, true);
		size_t total = 32u + queued[k];
		harness_fill_random(stream, total, 5u);
		assert_int_equal(pl011_write(&h.uart, stream, total, PL011_NO_WAIT), (int)total);
		assert_int_equal(pl011_tx_queued(&h.uart), queued[k]);
		struct pl011_stats before = stats_now();
		pl011_model_set_tx_stalled(h.model, false);
		pl011_model_advance(h.model, 20000u);
		struct pl011_stats after = stats_now();
		assert_int_equal(pl011_model_wire_len(h.model), total);
		uint64_t binned = 0;
		for (unsigned bin = 0; bin < PL011_EXTRA_HISTOGRAM_BINS; bin++)
			binned += after.tx_extra_histogram[bin] - before.tx_extra_histogram[bin];
		uint32_t extra = after.tx_extra_chars - before.tx_extra_chars;
		uint32_t last = after.tx_extra_histogram[PL011_EXTRA_HISTOGRAM_BINS - 1u] -
				before.tx_extra_histogram[PL011_EXTRA_HISTOGRAM_BINS - 1u];
		print_message("%u queued: %llu refills binned, %u extra, %u in the last bin\n",
			      queued[k], (unsigned long long)binned, extra, last);
		assert_int_equal(binned, 1u);
		assert_int_equal(extra, queued[k] - 16u);
		assert_int_equal(last, 1u);
		harness_teardown(&h);
	}
}

/* A panic write from another source's interrupt, delivered at the thread's point `panic_at`
 * while it primes an idle port: it preempts the TX owner and writes beside it. */
static const uint8_t panic_message[] = {'P', 'A', 'N', 'I', 'C'};
static struct {
	uint64_t points;
	uint64_t panic_at;
	int written;
	bool delivered;
} beside;

static void beside_panic(void *context)
{
	(void)context;
	beside.written = pl011_write_panic(&h.uart, panic_message, sizeof panic_message);
}

static void beside_point(void *context)
{
	(void)context;
	if (beside.delivered || beside.points++ != beside.panic_at)
		return;
	beside.delivered = true;
	pl011_model_run_as_irq(h.model, beside_panic, NULL);
}

/* HALF_FIFO at 3 Mbaud, 40 bytes written to an idle port with the panic delivered inside the
 * write's DR writes, then flushed: every byte on the wire. */
static void beside_run(void)
{
	memset(&line, 0, sizeof line);
	memset(&beside, 0, sizeof beside);
	beside.panic_at = 12u;
	line.latency_ns = 1000u;
	line_setup(48000000u, 16u, 3000000u, PL011_TX_HALF_FIFO);
	assert_int_equal(harness_start(&h), 0);
	harness_fill_random(stream, 40u, 9u);
	pl011_model_set_preempt_hook(beside_point, NULL);
	int n = pl011_write(&h.uart, stream, 40u, PL011_NO_WAIT);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_int_equal(n, 40);
	assert_true(beside.delivered);
	assert_int_equal(beside.written, (int)sizeof panic_message);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), 40u + sizeof panic_message);
}

/*
 * docs/api.md, struct pl011_stats: "Bytes that a panic write sends without owning TX are
 * counted with an atomic add and included in tx_bytes by pl011_get_stats"; tx_bytes is "bytes
 * written to DR, every path". A panic that preempted the owner writes beside it: the snapshot's
 * tx_bytes equals the DR writes the model saw.
 */
static void test_get_stats_includes_the_bytes_a_panic_wrote_beside_the_owner(void **state)
{
	(void)state;
	beside_run();
	uint64_t dr = pl011_model_counters(h.model)->writes[PL011_DR / 4u];
	struct pl011_stats stats = stats_now();
	print_message("tx_bytes %u, DR writes %llu\n", stats.tx_bytes, (unsigned long long)dr);
	assert_int_equal(dr, 40u + sizeof panic_message);
	assert_int_equal(stats.tx_bytes, dr);
	harness_teardown(&h);
}

/*
 * docs/api.md, pl011_restart: "A running one is first shut down with PL011_WAIT_AUTO (its
 * counters carry over ...)"; the panic's bytes are part of tx_bytes (above). After a panic
 * beside the owner, pl011_restart of the running port keeps tx_bytes equal to every DR write so
 * far.
 */
static void test_init_of_a_running_port_keeps_the_bytes_a_panic_wrote_beside_the_owner(void **state)
{
	(void)state;
	beside_run();
	uint64_t dr = pl011_model_counters(h.model)->writes[PL011_DR / 4u];
	assert_int_equal(harness_restart(&h), 0);
	struct pl011_stats stats = stats_now();
	print_message("after init: tx_bytes %u, DR writes %llu\n", stats.tx_bytes,
		      (unsigned long long)dr);
	assert_int_equal(stats.tx_bytes, dr);
	harness_teardown(&h);
}

/* ---- MEASURED ---- */

/* Per handler entry: the refill count, the clock reads and FR reads it made, the level it left. */
#define ENTRIES_MAX 40000u
static struct {
	uint32_t refills[ENTRIES_MAX];
	uint8_t clock_reads[ENTRIES_MAX];
	uint16_t fr_reads[ENTRIES_MAX];
	uint8_t code[ENTRIES_MAX];
	size_t count;
} entries;

static void entries_handler(void *context)
{
	(void)context;
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	uint64_t clock_before = c->clock_reads;
	uint64_t fr_before = c->reads[PL011_FR / 4u];
	pl011_irq_handler(&h.uart);
	if (entries.count == ENTRIES_MAX)
		return;
	size_t i = entries.count++;
	entries.refills[i] = stats_now().tx_refills;
	entries.clock_reads[i] = (uint8_t)(c->clock_reads - clock_before);
	entries.fr_reads[i] = (uint16_t)(c->reads[PL011_FR / 4u] - fr_before);
	entries.code[i] = (uint8_t)ifls_tx_code();
}

static void measured_start(enum pl011_tx_mode mode)
{
	line_setup(48000000u, 16u, 3000000u, mode);
	assert_int_equal(harness_start(&h), 0);
	memset(&entries, 0, sizeof entries);
	pl011_model_set_irq_handler(h.model, entries_handler, NULL);
}

/* The refills of the entries that read the clock (samples and chain starts), up to max. */
static size_t sampled_refills(uint32_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < entries.count && n < max; i++)
		if (entries.clock_reads[i] != 0)
			out[n++] = entries.refills[i];
	return n;
}

/*
 * docs/design.md, MEASURED: "Samples come one per refill in a burst; a burst that moves nothing
 * ends, and the pause before the next grows fourfold (16 refills at first, at most 4,096)".
 * Under a constant 13 us the 1/2 trigger (30 us of headroom at 3 Mbaud, FIFO 16) is right and
 * 1/4 (16.7 us) is not, with half as much again: every burst is one sample that moves nothing.
 * After the chain's start, the samples come at its first refill, then 16 + 1 and 64 + 1 refills
 * apart (the chain's own restart, every 1,024 frames, comes later than that).
 */
static void test_measured_pause_between_bursts_grows_fourfold(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	line.latency_ns = 13000u;
	measured_start(PL011_TX_MEASURED);
	line_stream(4096u, 20000u);
	uint32_t at[5];
	size_t n = sampled_refills(at, 5);
	print_message("clock-reading entries at refills %u %u %u %u %u, IFLS TX code %u\n", at[0],
		      at[1], at[2], at[3], at[4], ifls_tx_code());
	assert_true(n >= 4u);
	assert_int_equal(ifls_tx_code(), PL011_LEVEL_1_2 - 1u);
	/* at[0] starts the chain, at[1] is its first refill: the first sample. */
	assert_int_equal(at[1], at[0] + 1u);
	if (at[2] - at[1] != 16u + 1u || at[3] - at[2] != 64u + 1u)
		fail_msg("samples %u and %u refills apart, 16 + 1 and 64 + 1 expected",
			 at[2] - at[1], at[3] - at[2]);
	harness_teardown(&h);
}

/*
 * docs/design.md, MEASURED: "The clock's step ... is added, so the lateness never understates",
 * with the chain's crossing "no earlier than depth - trigger - 1 frames later (the character
 * shifting may end at once)"; the judge uses "the lowest trigger (at most 1/2) whose headroom
 * covers its measured lateness and half as much again", a headroom of (trigger + 1) frames.
 * So under a constant latency L no handler entry may find a trigger whose headroom is below
 * 1.5 x L. At 921,600 baud, FIFO 16, a frame F is 10.85 us: under 3.5 F and 3.8 F the 1/4
 * trigger (5 F) is too low (1.5 x L is 5.25 F and 5.7 F) and 1/2 (9 F) is not; a crossing
 * placed one frame late would take 1/4.
 */
static void
test_measured_never_uses_a_trigger_with_less_headroom_than_the_latency_and_half(void **state)
{
	(void)state;
	static const unsigned latencies_tenth_frames[] = {35u, 38u};
	for (size_t k = 0; k < sizeof latencies_tenth_frames / sizeof latencies_tenth_frames[0];
	     k++) {
		memset(&line, 0, sizeof line);
		line_setup(48000000u, 16u, 921600u, PL011_TX_MEASURED);
		assert_int_equal(harness_start(&h), 0);
		memset(&entries, 0, sizeof entries);
		pl011_model_set_irq_handler(h.model, entries_handler, NULL);
		uint64_t frame_ns = pl011_model_frame_ns(h.model);
		line.latency_ns = frame_ns * latencies_tenth_frames[k] / 10u;
		line_stream(sizeof stream, 20000u);
		static const unsigned eighths[5] = {1, 2, 4, 6, 7};
		unsigned lowest = PL011_LEVEL_7_8 - 1u;
		for (size_t i = 0; i < entries.count; i++)
			if (entries.code[i] < lowest)
				lowest = entries.code[i];
		uint64_t headroom_ns = (16u * eighths[lowest] / 8u + 1u) * frame_ns;
		print_message("%llu ns: lowest IFLS TX code %u, %llu ns of headroom\n",
			      (unsigned long long)line.latency_ns, lowest,
			      (unsigned long long)headroom_ns);
		if (2u * headroom_ns < 3u * line.latency_ns)
			fail_msg("a latency of %llu ns used IFLS TX code %u, %llu ns of headroom",
				 (unsigned long long)line.latency_ns, lowest,
				 (unsigned long long)headroom_ns);
		harness_teardown(&h);
	}
}

/*
 * docs/design.md, MEASURED's top-up: "256 top-ups in a row that found at most one character of
 * room end it. A calm line therefore reads FR only to start chains and at the first sample of
 * each burst." A clock of 10 us steps (which keeps the trigger at 1/2), 5 us of latency, and 200
 * entries at 40 us early on, which a sample finds late (the FIFO dry) and turn the top-ups on.
 * After them each top-up finds one character of room (one left the FIFO during the 5 us): the
 * top-ups end, and the second half of the run reads FR at fewer than one entry in ten.
 */
static void
test_measured_top_ups_end_after_256_that_found_at_most_one_character_of_room(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	line.latency_ns = 5000u;
	line.clock_step_us = 10u;
	line.spike_ns = 40000u;
	line.spike_from = 150u;
	line.spike_to = 350u;
	measured_start(PL011_TX_MEASURED);
	struct pl011_stats before = stats_now();
	line_stream(sizeof stream, 20000u);
	struct pl011_stats after = stats_now();
	size_t half = entries.count / 2u;
	uint64_t fr_early = 0, fr_late = 0;
	for (size_t i = 0; i < entries.count; i++)
		*(i < half ? &fr_early : &fr_late) += entries.fr_reads[i];
	uint32_t one_more = after.tx_extra_histogram[1] - before.tx_extra_histogram[1];
	print_message("%zu entries: FR reads %llu in the first half, %llu in the second; %u "
		      "refills with one character more\n",
		      entries.count, (unsigned long long)fr_early, (unsigned long long)fr_late,
		      one_more);
	/* The top-ups happened, and found one character of room at least 256 times. */
	assert_true(fr_early > half);
	assert_true(one_more >= 256u);
	if (fr_late * 10u > entries.count - half)
		fail_msg("%llu FR reads in the last %zu entries: the top-ups went on",
			 (unsigned long long)fr_late, entries.count - half);
	assert_int_equal(ifls_tx_code(), PL011_LEVEL_1_2 - 1u);
	harness_teardown(&h);
}

/*
 * docs/api.md, MEASURED: "without a usable clock it stays there topping up (HYBRID)";
 * docs/design.md: "a clock whose step exceeds the 1/2 trigger's headroom, or none, leaves
 * MEASURED at its starting level topping up every refill (HYBRID)". Without a clock, the same
 * stream under the same latency (5 us, 20 us for 20 entries) leaves the same wire, to the
 * nanosecond, as HYBRID, with the same FR reads and extra characters.
 */
static void test_measured_without_a_clock_refills_as_hybrid(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_HYBRID, PL011_TX_MEASURED};
	static uint64_t ends[2][4096];
	struct pl011_stats stats[2];
	for (size_t m = 0; m < 2; m++) {
		memset(&line, 0, sizeof line);
		line.latency_ns = 5000u;
		line.spike_ns = 20000u;
		line.spike_from = 100u;
		line.spike_to = 120u;
		line_setup(48000000u, 16u, 3000000u, modes[m]);
		h.config.clock = NULL;
		h.config.clock_context = NULL;
		assert_int_equal(harness_start(&h), 0);
		line_stream(4096u, 20000u);
		for (size_t i = 0; i < 4096u; i++)
			ends[m][i] = pl011_model_wire_end_ns(h.model, i);
		stats[m] = stats_now();
		harness_teardown(&h);
	}
	print_message("HYBRID: %u FR reads, %u extra; MEASURED without a clock: %u, %u\n",
		      stats[0].tx_fr_reads, stats[0].tx_extra_chars, stats[1].tx_fr_reads,
		      stats[1].tx_extra_chars);
	assert_true(stats[0].tx_extra_chars > 0);
	assert_int_equal(stats[1].tx_fr_reads, stats[0].tx_fr_reads);
	assert_int_equal(stats[1].tx_extra_chars, stats[0].tx_extra_chars);
	assert_int_equal(stats[1].tx_refills, stats[0].tx_refills);
	for (size_t i = 0; i < 4096u; i++)
		if (ends[1][i] != ends[0][i])
			fail_msg("byte %zu ends at %llu ns, HYBRID's at %llu ns", i,
				 (unsigned long long)ends[1][i], (unsigned long long)ends[0][i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    HARNESS_TEST(test_adaptive_lowers_after_64_clean_refills_doubling_only_after_a_lowering,
			 &h),
	    HARNESS_TEST(test_adaptive_raises_the_trigger_before_it_refills_the_fifo_whole, &h),
	    HARNESS_TEST(
		test_adaptive_raise_leaves_the_latched_cause_standing_against_the_new_level, &h),
	    HARNESS_TEST(test_tx_fr_reads_counts_every_fr_read_of_the_tx_owner, &h),
	    HARNESS_TEST(test_tx_underruns_counts_the_stall_guards_passes_that_found_the_fifo_empty,
			 &h),
	    HARNESS_TEST(test_extra_histogram_counts_a_refill_of_33_extra_in_the_last_bin, &h),
	    HARNESS_TEST(test_get_stats_includes_the_bytes_a_panic_wrote_beside_the_owner, &h),
	    HARNESS_TEST(test_init_of_a_running_port_keeps_the_bytes_a_panic_wrote_beside_the_owner,
			 &h),
	    HARNESS_TEST(test_measured_pause_between_bursts_grows_fourfold, &h),
	    HARNESS_TEST(
		test_measured_never_uses_a_trigger_with_less_headroom_than_the_latency_and_half,
		&h),
	    HARNESS_TEST(
		test_measured_top_ups_end_after_256_that_found_at_most_one_character_of_room, &h),
	    HARNESS_TEST(test_measured_without_a_clock_refills_as_hybrid, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
