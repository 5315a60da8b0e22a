/* Every interrupt cause acknowledged, every counter equal to what the model saw, a stopped port silent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

#define STREAM_BYTES (16u * 1024u)

static struct harness h;
static uint8_t stream[STREAM_BYTES];
static uint8_t wire[STREAM_BYTES + 64u];

static const enum pl011_tx_mode strategies[] = {
	PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL, PL011_TX_HYBRID, PL011_TX_ADAPTIVE, PL011_TX_MEASURED};
static const char *const strategy_names[] = {"HALF_FIFO", "POLL_FULL", "HYBRID", "ADAPTIVE",
					     "MEASURED"};
#define STRATEGIES (sizeof strategies / sizeof strategies[0])
static const enum pl011_level levels[] = {PL011_LEVEL_1_8, PL011_LEVEL_1_4, PL011_LEVEL_1_2,
					   PL011_LEVEL_3_4, PL011_LEVEL_7_8};
static const unsigned level_eighths[] = {1, 2, 4, 6, 7};

static void start(enum pl011_tx_mode tx_mode, enum pl011_level tx_trigger, uint32_t baud,
		  uint32_t seed, uint64_t jitter_ns)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.latency_seed = seed;
	model_config.latency_jitter_ns = jitter_ns;
	harness_setup_with(&h, &model_config);
	h.config.baud = baud;
	h.config.tx_mode = tx_mode;
	h.config.tx_trigger = tx_trigger;
	assert_int_equal(harness_start(&h), 0);
}

/* 921,600 baud with a fixed interrupt latency of 30 us: almost three characters leave between
 * the TX cause and its refill. */
static void start_late(enum pl011_tx_mode tx_mode)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.irq_latency_ns = 30000u;
	harness_setup_with(&h, &model_config);
	h.config.baud = 921600u;
	h.config.tx_mode = tx_mode;
	assert_int_equal(harness_start(&h), 0);
}

static struct pl011_stats stats_now(void)
{
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	return stats;
}

/* The wire equals data, nothing overflowed, nothing misused, and the driver's TX and
 * interrupt counters agree with the model's. `prompt`: interrupts come without extra latency,
 * so no wait may see TX stall. */
static void expect_exact(const uint8_t *data, size_t len, bool prompt, const char *label)
{
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	size_t n = harness_wire(&h, wire, sizeof wire);
	if (n != len)
		fail_msg("%s: %zu bytes on the wire, expected %zu (%llu overflows)", label, n, len,
			 (unsigned long long)c->tx_overflows);
	if (memcmp(wire, data, len) != 0)
		fail_msg("%s: the wire differs from what was written", label);
	if (c->tx_overflows != 0 || c->misuse != 0)
		fail_msg("%s: %llu overflows, %llu misuses", label,
			 (unsigned long long)c->tx_overflows, (unsigned long long)c->misuse);
	struct pl011_stats stats = stats_now();
	if (stats.tx_bytes != c->tx_wire_bytes)
		fail_msg("%s: tx_bytes %u, the model saw %llu", label, stats.tx_bytes,
			 (unsigned long long)c->tx_wire_bytes);
	if (stats.irq_entries != c->irq_dispatches)
		fail_msg("%s: irq_entries %u, the model dispatched %llu", label, stats.irq_entries,
			 (unsigned long long)c->irq_dispatches);
	/* Every IFLS write after pl011_init's is an ADAPTIVE trigger move. */
	if (stats.tx_trigger_changes != c->writes[PL011_IFLS / 4u] - 1u)
		fail_msg("%s: %u trigger changes counted, %llu IFLS writes after init", label,
			 stats.tx_trigger_changes,
			 (unsigned long long)(c->writes[PL011_IFLS / 4u] - 1u));
	if (stats.tx_timeouts != 0 || (prompt && stats.tx_stalls != 0))
		fail_msg("%s: %u stalls, %u timeouts on a healthy port", label, stats.tx_stalls,
			 stats.tx_timeouts);
}

/* The histogram of extra characters adds up to tx_extra_chars (every bin but the last is
 * exact; the last holds refills with at least that many). */
static void expect_extra_histogram_consistent(const struct pl011_stats *stats, const char *label)
{
	uint64_t exact = 0;
	for (unsigned bin = 0; bin + 1u < PL011_EXTRA_HISTOGRAM_BINS; bin++)
		exact += (uint64_t)bin * stats->tx_extra_histogram[bin];
	uint64_t last = stats->tx_extra_histogram[PL011_EXTRA_HISTOGRAM_BINS - 1u];
	uint64_t at_least = exact + last * (PL011_EXTRA_HISTOGRAM_BINS - 1u);
	if (stats->tx_extra_chars < at_least || (last == 0 && stats->tx_extra_chars != exact))
		fail_msg("%s: tx_extra_chars %u, the histogram says %llu (%llu in the last bin)", label,
			 stats->tx_extra_chars, (unsigned long long)at_least, (unsigned long long)last);
}

static unsigned ifls_tx_code(void)
{
	return pl011_model_peek(h.model, PL011_IFLS) & PL011_IFLS_LEVEL_MASK;
}

/*
 * Streaming, per strategy and trigger: every byte counted once (tx_bytes is what left on the
 * wire), one irq_entries per dispatch, and a bound on handler entries per KiB: each TX
 * interrupt moves at least the bytes above the trigger, so a cause left unacknowledged (a
 * storm of entries that move nothing) breaks it at once.
 */
static void test_streaming_counts_every_byte_and_bounds_interrupts_per_kib(void **state)
{
	(void)state;
	harness_fill_random(stream, STREAM_BYTES, 0x5EEDu);
	for (size_t s = 0; s < STRATEGIES; s++) {
		for (size_t l = 0; l < 5; l++) {
			char label[64];
			snprintf(label, sizeof label, "%s trigger %u/8", strategy_names[s],
				 level_eighths[l]);
			start(strategies[s], levels[l], 921600u, 1u, 0u);
			/* Half offered without waiting, half through a blocking write, whose wait
			 * watches TX progress: with prompt interrupts it never sees a stall. */
			assert_int_equal(harness_send_all(&h, stream, STREAM_BYTES / 2u, 20000u), 0);
			assert_int_equal(pl011_write(&h.uart, stream + STREAM_BYTES / 2u,
						     STREAM_BYTES / 2u, PL011_WAIT_AUTO),
					 (int)(STREAM_BYTES / 2u));
			assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
			expect_exact(stream, STREAM_BYTES, true, label);
			struct pl011_stats stats = stats_now();
			unsigned depth = 16u;
			/* ADAPTIVE and MEASURED move their own trigger; the highest is 7/8. */
			bool moves = strategies[s] == PL011_TX_ADAPTIVE ||
				     strategies[s] == PL011_TX_MEASURED;
			unsigned eighths = moves ? 7u : level_eighths[l];
			unsigned per_irq = depth - depth * eighths / 8u;
			uint32_t bound = STREAM_BYTES / per_irq + 16u;
			if (stats.irq_entries > bound)
				fail_msg("%s: %u handler entries for %u KiB, at most %u expected", label,
					 stats.irq_entries, STREAM_BYTES / 1024u, bound);
			if (stats.irq_tx == 0 || stats.irq_tx > stats.irq_entries)
				fail_msg("%s: irq_tx %u of %u entries", label, stats.irq_tx,
					 stats.irq_entries);
			/* No refill moves more than two FIFOs. */
			if ((uint64_t)stats.tx_refills * 2u * depth < STREAM_BYTES)
				fail_msg("%s: %u refills for %u bytes", label, stats.tx_refills,
					 STREAM_BYTES);
			if (strategies[s] == PL011_TX_HALF_FIFO && stats.tx_extra_chars != 0)
				fail_msg("%s: %u extra characters without polling", label,
					 stats.tx_extra_chars);
			if ((strategies[s] == PL011_TX_POLL_FULL || strategies[s] == PL011_TX_HYBRID) &&
			    stats.tx_refill_full == 0)
				fail_msg("%s: polling refills never saw the FIFO full", label);
			expect_extra_histogram_consistent(&stats, label);
			if (strategies[s] == PL011_TX_ADAPTIVE) {
				/* 64 clean refills lower the trigger to 1/8 at most; it never goes above
				 * 1/2. */
				if (levels[l] != PL011_LEVEL_1_8 && stats.tx_trigger_changes == 0)
					fail_msg("%s: the trigger never moved", label);
				if (ifls_tx_code() > PL011_LEVEL_1_2 - 1u)
					fail_msg("%s: IFLS TX code %u above 1/2", label, ifls_tx_code());
			} else if (strategies[s] == PL011_TX_MEASURED) {
				/* It only rises to 1/2, and only lowers from where it started. */
				unsigned top = levels[l] > PL011_LEVEL_1_2 ? levels[l] : PL011_LEVEL_1_2;
				if (ifls_tx_code() > top - 1u)
					fail_msg("%s: IFLS TX code %u above %u", label, ifls_tx_code(),
						 top - 1u);
			} else if (ifls_tx_code() != levels[l] - 1u) {
				fail_msg("%s: IFLS TX code %u, %u programmed", label, ifls_tx_code(),
					 (unsigned)levels[l] - 1u);
			}
			harness_teardown(&h);
		}
	}
}

/*
 * A loaded CPU: heavy-tailed latency up to 150 us at 921,600 baud (a 16-deep FIFO lasts
 * 174 us), bursts of random size at random moments, so the ring runs dry and the thread
 * primes again and again while interrupts arrive late. Every strategy with every trigger and
 * several seeds: byte-exact, no overflow, the TX ring never stuck; a refill that found the
 * FIFO empty is counted as an underrun whenever the line went idle with bytes waiting.
 */
static void test_every_strategy_and_trigger_under_jitter_is_byte_exact(void **state)
{
	(void)state;
	static const uint32_t seeds[] = {1u, 0xC0FFEEu, 0xBADA55u, 77u};
	bool extra_seen[STRATEGIES] = {false};
	for (size_t s = 0; s < STRATEGIES; s++) {
		for (size_t l = 0; l < 5; l++) {
			for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
				char label[80];
				snprintf(label, sizeof label, "%s trigger %u/8 seed %u", strategy_names[s],
					 level_eighths[l], seeds[k]);
				start(strategies[s], levels[l], 921600u, seeds[k], 150000u);
				uint32_t random = seeds[k];
				size_t total = 4096u;
				harness_fill_random(stream, total, seeds[k]);
				uint64_t frame = pl011_model_frame_ns(h.model);
				size_t sent = 0;
				while (sent < total) {
					size_t burst = 1u + harness_random(&random) % 200u;
					if (burst > total - sent)
						burst = total - sent;
					size_t done = 0;
					while (done < burst) {
						int n = pl011_write(&h.uart, stream + sent + done, burst - done,
								    PL011_NO_WAIT);
						assert_true(n >= 0);
						done += (size_t)n;
						const char *stuck = harness_tx_stuck(&h);
						if (stuck != NULL)
							fail_msg("%s: %s", label, stuck);
						/* ADAPTIVE raises a trigger it started at or below 1/2 no
						 * further than 1/2: above, late interrupts multiply. */
						if (strategies[s] == PL011_TX_ADAPTIVE &&
						    levels[l] <= PL011_LEVEL_1_2 &&
						    ifls_tx_code() > PL011_LEVEL_1_2 - 1u)
							fail_msg("%s: IFLS TX code %u above 1/2", label,
								 ifls_tx_code());
						if (done < burst)
							pl011_model_advance(h.model, frame);
					}
					sent += burst;
					pl011_model_advance(h.model,
							    (harness_random(&random) % 40u) * frame);
				}
				/* Before the flush: only the strategy's refills have run (a write without a
				 * wait never runs the stall guard, whose passes count underruns too). */
				struct pl011_stats written = stats_now();
				uint64_t idle_gaps = pl011_model_counters(h.model)->underruns;
				assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
				expect_exact(stream, total, false, label);
				struct pl011_stats stats = stats_now();
				bool counts_underruns = strategies[s] == PL011_TX_POLL_FULL ||
							strategies[s] == PL011_TX_ADAPTIVE;
				if (counts_underruns && idle_gaps != 0 && written.tx_underruns == 0)
					fail_msg("%s: the line went idle %llu times, no underrun counted",
						 label, (unsigned long long)idle_gaps);
				expect_extra_histogram_consistent(&stats, label);
				/* A late interrupt finds the FIFO below the trigger: polling loads more. */
				extra_seen[s] = extra_seen[s] || stats.tx_extra_chars != 0;
				harness_teardown(&h);
			}
		}
	}
	/* Every polling strategy loads more than the guaranteed count when it can (HALF_FIFO and
	 * MEASURED never poll). */
	for (size_t s = 1; s < STRATEGIES - 1u; s++)
		if (!extra_seen[s])
			fail_msg("%s never loaded an extra character", strategy_names[s]);
}

/*
 * MEASURED chooses its trigger from the lateness it times. With a fixed 1 us latency at 3 Mbaud,
 * FIFO 16 it must reach 1/8 (16 KiB: at most 0.65 x the 2,048 interrupts of the 1/2 trigger, its
 * first interrupts being spent at 1/2 and 1/4 while it samples 256 in a row at each). With
 * latency jitter up to 20 us, more than the 1/4 trigger's headroom can take with its margin, it
 * must stay at 1/2 and never let the line run dry. With a latency of always 15 us (beyond 1/8's
 * 10 us of headroom, and 1/4's 16.7 us with the margin) it must not go below 1/2 at all: the
 * chain times the latency itself, not a difference between entries. Without a clock it cannot
 * time anything and stays at its starting level. test_measured_judge.c tests the rules one by
 * one, test_regimes.c over a matrix of regimes.
 */
static void test_measured_picks_the_trigger_the_latency_allows(void **state)
{
	(void)state;
	static const struct {
		uint64_t latency_ns;
		uint64_t jitter_ns;
		bool clock;
		unsigned min_code; /* the lowest IFLS TX code allowed at the end */
		uint32_t max_irqs;
		uint64_t max_underruns;
	} cases[] = {
		{1000u, 0u, true, PL011_LEVEL_1_8 - 1u, 1331u, 0u},
		{1000u, 20000u, true, PL011_LEVEL_1_2 - 1u, 2048u, 0u},
		{15000u, 0u, true, PL011_LEVEL_1_2 - 1u, 2048u, 0u},
		{1000u, 0u, false, PL011_LEVEL_1_2 - 1u, 2048u, 0u},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pl011_model_config model_config;
		pl011_model_default_config(&model_config);
		model_config.base = HARNESS_BASE;
		model_config.latency_seed = 0xC0FFEEu;
		model_config.latency_jitter_ns = cases[i].jitter_ns;
		model_config.irq_latency_ns = cases[i].latency_ns;
		harness_setup_with(&h, &model_config);
		h.config.baud = 3000000u;
		h.config.tx_mode = PL011_TX_MEASURED;
		if (!cases[i].clock) {
			h.config.clock = NULL;
			h.config.spins_per_us = 20u;
		}
		assert_int_equal(harness_start(&h), 0);
		harness_fill_random(stream, STREAM_BYTES, 64u);
		assert_int_equal(harness_send_all(&h, stream, STREAM_BYTES, 20000u), 0);
		expect_exact(stream, STREAM_BYTES, false, "MEASURED");
		struct pl011_stats stats = stats_now();
		if (ifls_tx_code() < cases[i].min_code || ifls_tx_code() > PL011_LEVEL_1_2 - 1u ||
		    stats.irq_tx > cases[i].max_irqs)
			fail_msg("case %zu: IFLS TX code %u (%u to 2 expected), %u TX interrupts (at most "
				 "%u)", i, ifls_tx_code(), cases[i].min_code, stats.irq_tx,
				 cases[i].max_irqs);
		print_message("MEASURED case %zu: IFLS TX code %u, %u TX interrupts, %llu underruns\n",
			      i, ifls_tx_code(), stats.irq_tx,
			      (unsigned long long)pl011_model_counters(h.model)->underruns);
		if (pl011_model_counters(h.model)->underruns > cases[i].max_underruns)
			fail_msg("case %zu: the line ran dry %llu times (at most %llu)", i,
				 (unsigned long long)pl011_model_counters(h.model)->underruns,
				 (unsigned long long)cases[i].max_underruns);
		if (!cases[i].clock && stats.tx_trigger_changes != 0)
			fail_msg("without a clock the trigger moved %u times", stats.tx_trigger_changes);
		harness_teardown(&h);
	}
}

/* RX interrupts at a rate: one error character raises one error interrupt, which the handler
 * acknowledges; left latched it would call the handler again and again. */
static void start_rx(enum pl011_rx_mode mode)
{
	harness_setup(&h, 48000000u, 16);
	h.config.rx_mode = mode;
	assert_int_equal(harness_start(&h), 0);
}

static void test_one_error_character_gives_one_error_interrupt(void **state)
{
	(void)state;
	static const unsigned errors[] = {PL011_DR_FE, PL011_DR_PE, PL011_DR_BE | PL011_DR_FE};
	for (int mode = PL011_RX_LOW_LATENCY; mode <= PL011_RX_FEW_IRQS; mode++) {
		for (size_t e = 0; e < 3; e++) {
			start_rx((enum pl011_rx_mode)mode);
			uint64_t t = pl011_model_now_ns(h.model) + pl011_model_frame_ns(h.model);
			pl011_model_rx_inject(h.model, 'x', errors[e], t);
			pl011_model_advance_to(h.model, t + 5000000u); /* 5 ms */
			struct pl011_stats stats = stats_now();
			if (stats.irq_error != 1 || stats.irq_entries > 2u)
				fail_msg("mode %d error %#x: %u error interrupts in %u handler entries",
					 mode, errors[e], stats.irq_error, stats.irq_entries);
			assert_int_equal(stats.irq_entries, pl011_model_counters(h.model)->irq_dispatches);
			assert_int_equal(stats.rx_framing + stats.rx_parity + stats.rx_break, 1);
			assert_int_equal(stats.rx_bytes, 0);
			assert_false(pl011_model_irq_line(h.model));
			harness_teardown(&h);
		}
	}
}

/* A stream of RX characters with an error every 256: each error is one error interrupt, every
 * good byte counted, and the handler entries per KiB bounded by the trigger (2 of 16 entries
 * for LOW_LATENCY, 12 for FEW_IRQS): each entry drains the FIFO, not a character or two. */
static void test_rx_stream_counts_match_and_entries_per_kib_are_bounded(void **state)
{
	(void)state;
	static uint8_t got[4096];
	for (int mode = PL011_RX_LOW_LATENCY; mode <= PL011_RX_FEW_IRQS; mode++) {
		start_rx((enum pl011_rx_mode)mode);
		uint64_t frame = pl011_model_frame_ns(h.model);
		uint64_t t = pl011_model_now_ns(h.model) + frame;
		size_t good = 0;
		unsigned bad = 0;
		harness_fill_random(stream, 4096u, 99u);
		for (size_t i = 0; i < 4096u; i++) {
			unsigned error = i % 256u == 255u ? PL011_DR_FE : 0u;
			if (error)
				bad++;
			else
				stream[good++] = stream[i];
			pl011_model_rx_inject(h.model, stream[i], error, t);
			t += frame;
		}
		size_t n = 0;
		while (n < good && pl011_model_now_ns(h.model) < t + 10000000u) {
			int r = pl011_read(&h.uart, got + n, sizeof got - n, PL011_NO_WAIT);
			assert_true(r >= 0);
			n += (size_t)r;
			pl011_model_advance(h.model, 8u * frame);
		}
		pl011_model_advance(h.model, 64u * frame);
		assert_int_equal(n, good);
		assert_memory_equal(got, stream, good);
		struct pl011_stats stats = stats_now();
		assert_int_equal(stats.rx_bytes, good);
		assert_int_equal(stats.rx_framing, bad);
		assert_int_equal(stats.irq_error, bad);
		assert_int_equal(stats.irq_entries, pl011_model_counters(h.model)->irq_dispatches);
		unsigned trigger = mode == PL011_RX_LOW_LATENCY ? 2u : 12u;
		if (stats.irq_entries > 4096u / trigger + 2u * bad + 16u)
			fail_msg("mode %d: %u handler entries for 4 KiB", mode, stats.irq_entries);
		harness_teardown(&h);
	}
}

/*
 * A stopped port: IMSC 0 and its interrupt line low, whatever arrives. Characters come in
 * before, during and after the shutdown; the handler of a stopped port returns without
 * servicing, so a cause left unmasked would call it without end.
 */
static void test_a_stopped_port_has_imsc_zero_and_its_line_low(void **state)
{
	(void)state;
	static const uint32_t bounds[] = {PL011_WAIT_AUTO, 0u};
	for (size_t s = 0; s < STRATEGIES; s++) {
		for (size_t b = 0; b < 2; b++) {
			harness_setup(&h, 48000000u, 16);
			h.config.tx_mode = strategies[s];
			h.config.rx_mode = PL011_RX_LOW_LATENCY;
			assert_int_equal(harness_start(&h), 0);
			uint64_t frame = pl011_model_frame_ns(h.model);
			uint64_t now = pl011_model_now_ns(h.model);
			for (unsigned i = 0; i < 400u; i++)
				pl011_model_rx_inject(h.model, (uint8_t)i, 0, now + (i + 1u) * frame / 4u);
			harness_fill_random(stream, 200u, 3u);
			assert_int_equal(pl011_write(&h.uart, stream, 200u, PL011_NO_WAIT), 200);
			pl011_model_advance(h.model, 3u * frame);
			uint64_t before = pl011_model_counters(h.model)->irq_dispatches;
			int result = pl011_shutdown(&h.uart, bounds[b]);
			assert_true(result >= 0);
			uint64_t during = pl011_model_counters(h.model)->irq_dispatches - before;
			/* The drain takes up to 200 frames with 4 characters arriving per frame: at
			 * most one RX interrupt per 2 characters. */
			if (during > 450u)
				fail_msg("%s bound %u: %llu handler calls during shutdown",
					 strategy_names[s], bounds[b], (unsigned long long)during);
			assert_int_equal(pl011_model_peek(h.model, PL011_IMSC), 0);
			assert_false(pl011_model_irq_line(h.model));
			uint64_t stopped = pl011_model_counters(h.model)->irq_dispatches;
			pl011_model_advance(h.model, 200u * frame);
			assert_int_equal(pl011_model_counters(h.model)->irq_dispatches, stopped);
			assert_int_equal(pl011_model_peek(h.model, PL011_IMSC), 0);
			assert_false(pl011_model_irq_line(h.model));
			/* What was accepted either left or was counted as discarded. */
			struct pl011_stats stats = stats_now();
			assert_int_equal(stats.tx_discarded, (uint32_t)result);
			assert_int_equal(stats.tx_bytes + stats.tx_discarded, 200u);
			assert_int_equal(stats.tx_bytes, pl011_model_counters(h.model)->tx_wire_bytes);
			harness_teardown(&h);
		}
	}
}

/*
 * A shutdown whose FIFO cannot drain (CTS held off) reports it, counts it, and flushes the
 * FIFO: when CTS comes back, a stopped port sends nothing.
 */
static void test_a_stalled_shutdown_flushes_the_fifo_and_counts_it(void **state)
{
	(void)state;
	for (size_t s = 0; s < STRATEGIES; s++) {
		harness_setup(&h, 48000000u, 16);
		h.config.tx_mode = strategies[s];
		h.config.flags = PL011_FLAG_RTS_CTS;
		assert_int_equal(harness_start(&h), 0);
		pl011_model_set_cts(h.model, false);
		harness_fill_random(stream, 40u, 5u);
		assert_int_equal(pl011_write(&h.uart, stream, 40u, PL011_NO_WAIT), 40);
		pl011_model_advance(h.model, 100000u);
		assert_int_equal(pl011_model_tx_level(h.model), 16);
		assert_int_equal(pl011_shutdown(&h.uart, 0), PL011_ESTALLED);
		struct pl011_stats stats = stats_now();
		assert_int_equal(stats.tx_fifo_abandoned, 1);
		assert_int_equal(stats.tx_discarded, 24);
		assert_int_equal(stats.tx_bytes, 16);
		assert_int_equal(pl011_model_counters(h.model)->tx_fen_flushed, 16);
		assert_int_equal(pl011_model_peek(h.model, PL011_IMSC), 0);
		pl011_model_set_cts(h.model, true);
		pl011_model_advance(h.model, 10000000u);
		assert_int_equal(pl011_model_wire_len(h.model), 0);
		harness_teardown(&h);
	}
}

/*
 * ADAPTIVE with an interrupt latency (30 us) longer than the FIFO lasts at 1/8 (2 characters,
 * 22 us at 921,600) but shorter than at 1/4 (43 us): every try of 1/8 underruns at once. It
 * tries again after twice as many clean refills each time, so the trigger moves a few times
 * per stream, not once per 64 refills.
 */
static void test_adaptive_backs_off_from_a_level_that_underruns(void **state)
{
	(void)state;
	start_late(PL011_TX_ADAPTIVE);
	harness_fill_random(stream, STREAM_BYTES, 21u);
	assert_int_equal(harness_send_all(&h, stream, STREAM_BYTES, 20000u), 0);
	expect_exact(stream, STREAM_BYTES, true, "ADAPTIVE back-off");
	struct pl011_stats stats = stats_now();
	/* About 1,400 refills: tries after 64, 128, 256, 512 clean ones, two moves each. */
	if (stats.tx_underruns < 3u || stats.tx_trigger_changes < 6u ||
	    stats.tx_trigger_changes > 12u)
		fail_msg("%u trigger changes, %u underruns in %u refills", stats.tx_trigger_changes,
			 stats.tx_underruns, stats.tx_refills);
	harness_teardown(&h);
}

/*
 * HYBRID under a fixed 30 us latency at 921,600 (a character every 10.9 us): when the
 * interrupt is served the FIFO has drained below the trigger, so after the blind part the
 * polling part tops it up, refill after refill.
 */
static void test_hybrid_tops_up_beyond_the_guaranteed_count_when_late(void **state)
{
	(void)state;
	start_late(PL011_TX_HYBRID);
	harness_fill_random(stream, STREAM_BYTES, 22u);
	assert_int_equal(harness_send_all(&h, stream, STREAM_BYTES, 20000u), 0);
	expect_exact(stream, STREAM_BYTES, true, "HYBRID late");
	struct pl011_stats stats = stats_now();
	if (stats.tx_extra_chars < stats.tx_refills)
		fail_msg("%u extra characters in %u refills", stats.tx_extra_chars, stats.tx_refills);
	harness_teardown(&h);
}

/*
 * A panic write from the thread takes TX over just as a TX cause has latched and its interrupt
 * is on its way (30 us of latency). The interrupt finds TX owned: it must clear its cause before
 * returning; left latched, the level-sensitive line would call the handler back after every
 * latency for as long as the panic drains the ring (22 ms). The panic keeps the FIFO full, so
 * no new cause comes meanwhile.
 */
static void test_a_panic_over_an_armed_stream_bounds_handler_entries(void **state)
{
	(void)state;
	for (size_t s = 0; s < STRATEGIES; s++) {
		start_late(strategies[s]);
		harness_fill_random(stream, 2000u, 31u);
		assert_int_equal(pl011_write(&h.uart, stream, 2000u, PL011_NO_WAIT), 2000);
		pl011_model_advance(h.model, 200000u);
		assert_true(pl011_model_peek(h.model, PL011_IMSC) & PL011_INT_TX);
		while ((pl011_model_ris(h.model) & PL011_INT_TX) == 0)
			pl011_model_advance(h.model, 500u);
		struct pl011_stats before = stats_now();
		static const char panic[] = "PANIC: the sky is falling\n";
		int n = pl011_write_panic(&h.uart, panic, sizeof panic - 1u);
		assert_int_equal(n, (int)(sizeof panic - 1u));
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		struct pl011_stats after = stats_now();
		if (after.irq_entries - before.irq_entries > 16u)
			fail_msg("%s: %u handler entries during a panic over 2000 bytes", strategy_names[s],
				 after.irq_entries - before.irq_entries);
		memcpy(stream + 2000u, panic, sizeof panic - 1u);
		expect_exact(stream, 2000u + sizeof panic - 1u, true, strategy_names[s]);
		harness_teardown(&h);
	}
}

/* pl011_restart of a running port keeps the counters. */
static void test_reinit_keeps_the_counters(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_HYBRID;
	assert_int_equal(harness_start(&h), 0);
	harness_fill_random(stream, 100u, 8u);
	assert_int_equal(pl011_write(&h.uart, stream, 100u, PL011_WAIT_AUTO), 100);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	h.config.tx_mode = PL011_TX_POLLED;
	assert_int_equal(harness_restart(&h), 0);
	assert_int_equal(pl011_write(&h.uart, stream, 10u, PL011_WAIT_AUTO), 10);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	struct pl011_stats stats = stats_now();
	assert_int_equal(stats.tx_bytes, 110u);
	assert_int_equal(stats.tx_bytes, pl011_model_counters(h.model)->tx_wire_bytes);
	assert_true(stats.tx_refills != 0);
	harness_teardown(&h);
}

/* A break waits for the queued bytes first: with CTS held off they never leave, and the
 * break is refused without touching the line. */
static void test_a_break_behind_bytes_that_cannot_leave_times_out(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.flags = PL011_FLAG_RTS_CTS;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_cts(h.model, false);
	assert_int_equal(pl011_write(&h.uart, "abc", 3, PL011_NO_WAIT), 3);
	assert_int_equal(pl011_send_break(&h.uart, 1000u), PL011_ETIMEDOUT);
	assert_int_equal(pl011_model_break_count(h.model), 0);
	assert_int_equal(stats_now().tx_timeouts, 1);
	harness_teardown(&h);
}

/* An RX callback that tries to send while the thread shuts the port down. */
static bool shutting_down;
static unsigned refused_during_shutdown;
static unsigned accepted_during_shutdown;

static void write_from_callback(struct pl011 *uart, uint32_t events, void *context)
{
	(void)events;
	(void)context;
	uint8_t sink[64];
	(void)pl011_read(uart, sink, sizeof sink, PL011_NO_WAIT);
	int n = pl011_write(uart, "!", 1, PL011_NO_WAIT);
	if (shutting_down && n == PL011_ESHUTDOWN)
		refused_during_shutdown++;
	else if (shutting_down)
		accepted_during_shutdown++;
}

/* From the moment shutdown starts, nothing new is accepted: an interrupt during its drain gets
 * PL011_ESHUTDOWN, so the drain's deadline (computed from what was queued) still holds. */
static void test_an_interrupt_during_shutdown_cannot_queue_more(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_HYBRID;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.event_mask = PL011_EVENT_RX_DATA;
	h.config.event = write_from_callback;
	h.config.event_driver = &pl011_event_driver;
	assert_int_equal(harness_start(&h), 0);
	shutting_down = false;
	refused_during_shutdown = accepted_during_shutdown = 0;
	harness_fill_random(stream, 200u, 4u);
	assert_int_equal(pl011_write(&h.uart, stream, 200u, PL011_NO_WAIT), 200);
	uint64_t frame = pl011_model_frame_ns(h.model);
	uint64_t now = pl011_model_now_ns(h.model);
	for (unsigned i = 0; i < 20u; i++)
		pl011_model_rx_inject(h.model, 'r', 0, now + (i + 1u) * 8u * frame);
	shutting_down = true;
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	assert_true(refused_during_shutdown != 0);
	assert_int_equal(accepted_during_shutdown, 0);
	assert_int_equal(stats_now().tx_bytes, 200u);
	harness_teardown(&h);
}

/* Polled paths count what they send and receive. */
static void test_polled_counters_equal_the_wire(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	assert_int_equal(harness_start(&h), 0);
	harness_fill_random(stream, 1000u, 11u);
	assert_int_equal(pl011_write(&h.uart, stream, 1000u, PL011_WAIT_AUTO), 1000);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	expect_exact(stream, 1000u, true, "polled");
	uint64_t t = pl011_model_now_ns(h.model) + pl011_model_frame_ns(h.model);
	pl011_model_rx_inject(h.model, 0, 0, t);
	pl011_model_rx_inject(h.model, 'q', 0, t + pl011_model_frame_ns(h.model));
	pl011_model_advance_to(h.model, t + 3u * pl011_model_frame_ns(h.model));
	assert_int_equal(pl011_getc(&h.uart), 0);
	assert_int_equal(pl011_getc(&h.uart), 'q');
	assert_int_equal(pl011_getc(&h.uart), PL011_EAGAIN);
	assert_int_equal(stats_now().rx_bytes, 2);
	/* pl011_read delivers a NUL byte like any other. */
	static const uint8_t sent[4] = {'a', 0, 'b', 0};
	t = pl011_model_now_ns(h.model) + pl011_model_frame_ns(h.model);
	for (unsigned i = 0; i < 4u; i++)
		pl011_model_rx_inject(h.model, sent[i], 0, t + i * pl011_model_frame_ns(h.model));
	pl011_model_advance_to(h.model, t + 5u * pl011_model_frame_ns(h.model));
	uint8_t got[8];
	assert_int_equal(pl011_read(&h.uart, got, sizeof got, PL011_NO_WAIT), 4);
	assert_memory_equal(got, sent, 4);
	assert_int_equal(stats_now().rx_bytes, 6);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_streaming_counts_every_byte_and_bounds_interrupts_per_kib, &h),
		HARNESS_TEST(test_every_strategy_and_trigger_under_jitter_is_byte_exact, &h),
		HARNESS_TEST(test_measured_picks_the_trigger_the_latency_allows, &h),
		HARNESS_TEST(test_one_error_character_gives_one_error_interrupt, &h),
		HARNESS_TEST(test_rx_stream_counts_match_and_entries_per_kib_are_bounded, &h),
		HARNESS_TEST(test_a_stopped_port_has_imsc_zero_and_its_line_low, &h),
		HARNESS_TEST(test_a_stalled_shutdown_flushes_the_fifo_and_counts_it, &h),
		HARNESS_TEST(test_adaptive_backs_off_from_a_level_that_underruns, &h),
		HARNESS_TEST(test_hybrid_tops_up_beyond_the_guaranteed_count_when_late, &h),
		HARNESS_TEST(test_a_panic_over_an_armed_stream_bounds_handler_entries, &h),
		HARNESS_TEST(test_reinit_keeps_the_counters, &h),
		HARNESS_TEST(test_a_break_behind_bytes_that_cannot_leave_times_out, &h),
		HARNESS_TEST(test_an_interrupt_during_shutdown_cannot_queue_more, &h),
		HARNESS_TEST(test_polled_counters_equal_the_wire, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
