/* The TX strategies' own rules, the stall guard and the counters, sentence by sentence (issue 24). */
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
	uint64_t latency_ns;   /* every dispatch, except: */
	uint64_t spike_ns;     /* dispatches [spike_from, spike_to) take this long (0: none) */
	uint64_t spike_from, spike_to;
	uint64_t dispatches;
	uint32_t clock_step_us; /* the driver's clock moves in steps of this many us (0 or 1: exact) */
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
 * after each step, `watch` (if any) looks at the port. Checks the wire against the stream. */
static void line_stream(size_t bytes, uint64_t step_ns, void (*watch)(void))
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
		if (watch != NULL)
			watch();
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
	line_stream(sizeof stream, 20000u, NULL);
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
		line_stream(4096u, 20000u, NULL);
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
 * own) counts exactly as many.
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
 * include/pl011.h, struct pl011_stats: "Bytes that a panic write sends without owning TX are
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
 * docs/design.md: "pl011_init of a running port ... its counters carry over"; the panic's bytes
 * are part of tx_bytes (above). After a panic beside the owner, pl011_init on the running port
 * keeps tx_bytes equal to every DR write so far.
 */
static void test_init_of_a_running_port_keeps_the_bytes_a_panic_wrote_beside_the_owner(void **state)
{
	(void)state;
	beside_run();
	uint64_t dr = pl011_model_counters(h.model)->writes[PL011_DR / 4u];
	assert_int_equal(harness_start(&h), 0);
	struct pl011_stats stats = stats_now();
	print_message("after init: tx_bytes %u, DR writes %llu\n", stats.tx_bytes,
		      (unsigned long long)dr);
	assert_int_equal(stats.tx_bytes, dr);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_adaptive_lowers_after_64_clean_refills_doubling_only_after_a_lowering,
			     &h),
		HARNESS_TEST(test_tx_fr_reads_counts_every_fr_read_of_the_tx_owner, &h),
		HARNESS_TEST(test_tx_underruns_counts_the_stall_guards_passes_that_found_the_fifo_empty,
			     &h),
		HARNESS_TEST(test_extra_histogram_counts_a_refill_of_33_extra_in_the_last_bin, &h),
		HARNESS_TEST(test_get_stats_includes_the_bytes_a_panic_wrote_beside_the_owner, &h),
		HARNESS_TEST(test_init_of_a_running_port_keeps_the_bytes_a_panic_wrote_beside_the_owner,
			     &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
