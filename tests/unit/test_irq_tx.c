/* Interrupt-driven TX on the model: every strategy, byte-exact, no overflow, no hang. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_io.h"
#include "pl011_regs.h"

#define STREAM_BYTES (64u * 1024u)

static struct harness h;
static uint8_t stream[1u << 20];
static uint8_t wire[1u << 20];

static const enum pl011_tx_mode strategies[] = {
	PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL, PL011_TX_HYBRID, PL011_TX_ADAPTIVE, PL011_TX_MEASURED};
static const char *const strategy_names[] = {"HALF_FIFO", "POLL_FULL", "HYBRID", "ADAPTIVE",
					     "MEASURED"};
#define STRATEGIES (sizeof strategies / sizeof strategies[0])

struct scenario {
	uint32_t baud;
	unsigned depth;
	bool loaded;
	enum pl011_tx_mode mode;
};

static void start_scenario(const struct scenario *s)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.fifo_depth = s->depth;
	if (s->loaded) {
		/* A loaded CPU: up to 100 us extra latency, heavy-tailed, seeded. */
		model_config.latency_seed = 0xC0FFEEu;
		model_config.latency_jitter_ns = 100000u;
	}
	harness_setup_with(&h, &model_config);
	h.config.baud = s->baud;
	h.config.tx_mode = s->mode;
	assert_int_equal(harness_start(&h), 0);
}

static void expect_wire_equals(const uint8_t *data, size_t len, const char *label)
{
	size_t n = harness_wire(&h, wire, sizeof wire);
	if (n != len)
		fail_msg("%s: %zu bytes on the wire, expected %zu (%llu overflows)", label, n, len,
			 (unsigned long long)pl011_model_counters(h.model)->tx_overflows);
	for (size_t i = 0; i < len; i++)
		if (wire[i] != data[i])
			fail_msg("%s: first difference at byte %zu", label, i);
	if (pl011_model_counters(h.model)->tx_overflows != 0)
		fail_msg("%s: %llu FIFO overflows", label,
			 (unsigned long long)pl011_model_counters(h.model)->tx_overflows);
}

static void test_irq_tx_64k_every_strategy_baud_depth_and_latency(void **state)
{
	(void)state;
	static const uint32_t bauds[] = {115200u, 3000000u};
	static const unsigned depths[] = {16u, 32u};
	harness_fill_random(stream, STREAM_BYTES, 64u);
	for (size_t b = 0; b < 2; b++)
		for (size_t d = 0; d < 2; d++)
			for (int loaded = 0; loaded < 2; loaded++)
				for (size_t m = 0; m < STRATEGIES; m++) {
					struct scenario s = {bauds[b], depths[d], loaded != 0,
							     strategies[m]};
					char label[96];
					snprintf(label, sizeof label, "%s %u baud FIFO %u %s",
						 strategy_names[m], s.baud, s.depth,
						 loaded ? "loaded" : "fixed latency");
					start_scenario(&s);
					assert_int_equal(harness_send_all(&h, stream, STREAM_BYTES, 20000u), 0);
					expect_wire_equals(stream, STREAM_BYTES, label);
					struct pl011_stats stats;
					pl011_get_stats(&h.uart, &stats);
					if (stats.irq_tx == 0)
						fail_msg("%s: no TX interrupt was used", label);
					harness_teardown(&h);
				}
}

static void test_irq_tx_write_alone_primes_an_idle_transmitter(void **state)
{
	(void)state;
	/* The PL011 raises TXIS only when the FIFO drains through the trigger: after one
	 * non-blocking write and nothing but time, everything must still go out. */
	for (size_t m = 0; m < STRATEGIES; m++) {
		for (size_t len = 1; len <= 300; len += 299) {
			struct scenario s = {115200u, 16u, false, strategies[m]};
			start_scenario(&s);
			harness_fill_random(stream, len, (uint32_t)len);
			assert_int_equal(pl011_write(&h.uart, stream, len, PL011_NO_WAIT), (int)len);
			pl011_model_advance(h.model, (len + 20u) * pl011_model_frame_ns(h.model));
			expect_wire_equals(stream, len, strategy_names[m]);
			/* Everything sent: TXIM is masked again (no pointless interrupts). */
			assert_int_equal(pl011_model_peek(h.model, PL011_IMSC) & PL011_INT_TX, 0);
			harness_teardown(&h);
		}
	}
}

static void test_irq_tx_stale_unmasked_txim_with_empty_fifo_still_sends(void **state)
{
	(void)state;
	struct scenario s = {115200u, 16u, false, PL011_TX_HALF_FIFO};
	start_scenario(&s);
	/* Someone unmasked TXIM with an empty FIFO: on the PL011 no interrupt follows. */
	pl011_io_write(HARNESS_BASE + PL011_IMSC, pl011_model_peek(h.model, PL011_IMSC) | PL011_INT_TX);
	pl011_model_advance(h.model, 1000000u);
	assert_int_equal(pl011_model_counters(h.model)->irq_dispatches, 0);
	harness_fill_random(stream, 100, 7u);
	assert_int_equal(pl011_write(&h.uart, stream, 100, PL011_NO_WAIT), 100);
	pl011_model_advance(h.model, 130u * pl011_model_frame_ns(h.model));
	expect_wire_equals(stream, 100, "stale TXIM");
	harness_teardown(&h);
}

static void test_irq_tx_console_and_panic_writes_keep_order_without_overflow(void **state)
{
	(void)state;
	for (size_t m = 0; m < STRATEGIES; m++) {
		struct scenario s = {3000000u, 16u, true, strategies[m]};
		start_scenario(&s);
		size_t expected_len = 0;
		uint8_t chunk[200];
		for (uint32_t round = 0; round < 200; round++) {
			harness_fill_random(chunk, sizeof chunk, round + 1u);
			int n = pl011_write(&h.uart, chunk, 100 + round % 100, PL011_WAIT_AUTO);
			assert_int_equal(n, (int)(100 + round % 100));
			memcpy(stream + expected_len, chunk, (size_t)n);
			expected_len += (size_t)n;
			/* A console character through the ring, in order. */
			assert_int_equal(pl011_putc(&h.uart, (uint8_t)('a' + round % 26)), 0);
			stream[expected_len++] = (uint8_t)('a' + round % 26);
			pl011_model_advance(h.model, (round % 7) * 3000u);
			if (round % 5 == 0) {
				/* A panic write lands after everything queued so far. */
				const char *note = "!panic!";
				assert_int_equal(pl011_write_panic(&h.uart, note, 7), 7);
				memcpy(stream + expected_len, note, 7);
				expected_len += 7;
			}
		}
		while (pl011_tx_queued(&h.uart) != 0)
			pl011_model_advance(h.model, 10000u);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		expect_wire_equals(stream, expected_len, strategy_names[m]);
		harness_teardown(&h);
	}
}

static void test_irq_tx_lost_interrupt_writes_and_flush_still_finish(void **state)
{
	(void)state;
	for (size_t m = 0; m < STRATEGIES; m++) {
		struct scenario s = {115200u, 16u, false, strategies[m]};
		start_scenario(&s);
		pl011_model_set_tx_irq_broken(h.model, true);
		harness_fill_random(stream, 10000, 99u);
		/* 10,000 bytes through a 4 KiB ring: the writer must wait for room, and room only
		 * appears because its wait refills the FIFO itself when the interrupt never comes. */
		uint64_t start = pl011_model_now_ns(h.model);
		int n = pl011_write(&h.uart, stream, 10000, PL011_WAIT_AUTO);
		assert_int_equal(n, 10000);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		expect_wire_equals(stream, 10000, strategy_names[m]);
		struct pl011_stats stats;
		pl011_get_stats(&h.uart, &stats);
		assert_true(stats.tx_stalls > 0);
		assert_int_equal(stats.irq_tx, 0);
		/* Never slower than the stall window per FIFO load, plus the line time. */
		uint64_t line_ns = 10000u * pl011_model_frame_ns(h.model);
		uint64_t took = pl011_model_now_ns(h.model) - start;
		assert_true(took < 3u * line_ns);
		harness_teardown(&h);
	}
}

/* A coarse wait hook: 10 us of other work per wait step (an RTOS yield, a WFI). */
static void ten_us_step(void *context)
{
	pl011_model_advance(context, 10000u);
}

/*
 * The stall guard as the only sender: the TX interrupt never fires, 3 Mbaud, FIFO 16, a writer
 * waiting with a 10 us wait step. Once the guard has had to send, it keeps the FIFO fed every
 * half FIFO of frames, so the line stays busy: at least 95 % of the line rate (simulated time,
 * deterministic). Waiting the whole (depth + 2)-frame window each time gave 74 %, and a
 * PL011_WAIT_AUTO write timed out.
 */
static void test_irq_tx_stall_guard_keeps_the_line_busy(void **state)
{
	(void)state;
	for (size_t m = 0; m < STRATEGIES; m++) {
		struct scenario s = {3000000u, 16u, false, strategies[m]};
		start_scenario(&s);
		h.config.wait_hook = ten_us_step;
		h.config.wait_context = h.model;
		assert_int_equal(harness_restart(&h), 0);
		pl011_model_set_tx_irq_broken(h.model, true);
		size_t total = 65536u;
		harness_fill_random(stream, total, 7u);
		uint64_t start = pl011_model_now_ns(h.model);
		assert_int_equal(pl011_write(&h.uart, stream, total, PL011_WAIT_AUTO), (int)total);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		expect_wire_equals(stream, total, strategy_names[m]);
		uint64_t line_ns = total * pl011_model_frame_ns(h.model);
		uint64_t took = pl011_model_wire_end_ns(h.model, total - 1u) - start;
		double rate = 100.0 * (double)line_ns / (double)took;
		print_message("%s: stall guard alone, 3 Mbaud FIFO 16, 10 us wait step: %.1f %% of "
			      "the line rate\n", strategy_names[m], rate);
		if (line_ns * 100u < took * 95u)
			fail_msg("%s: %.1f %% of the line rate, at least 95 %% expected",
				 strategy_names[m], rate);
		harness_teardown(&h);
	}
}

static void test_irq_tx_stalled_transmitter_times_out_within_bound(void **state)
{
	(void)state;
	struct scenario s = {115200u, 16u, false, PL011_TX_HALF_FIFO};
	start_scenario(&s);
	pl011_model_set_tx_stalled(h.model, true);
	harness_fill_random(stream, 8192, 5u);
	uint64_t start = pl011_model_now_ns(h.model);
	int n = pl011_write(&h.uart, stream, 8192, 20000u);
	uint64_t took = pl011_model_now_ns(h.model) - start;
	/* The FIFO (16) and the ring (4096) fill, then the 20 ms bound ends the wait. */
	assert_int_equal(n, 4096 + 16);
	/* The clock has 1 us steps, so the wait may end up to 1 us early. */
	if (!(took + 1000u >= 20000000u && took < 21000000u))
		fail_msg("write took %llu ns for a 20 ms bound", (unsigned long long)took);
	size_t pending = 0;
	start = pl011_model_now_ns(h.model);
	assert_int_equal(pl011_flush(&h.uart, 5000u, &pending), PL011_ETIMEDOUT);
	took = pl011_model_now_ns(h.model) - start;
	assert_true(took + 1000u >= 5000000u && took < 6000000u);
	assert_int_equal(pending, 4096);
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	struct pl011_stats stats;
	pl011_get_stats(&h.uart, &stats);
	assert_int_equal(stats.tx_timeouts, 2);
	/* The port is still usable: release the line and everything goes out. */
	pl011_model_set_tx_stalled(h.model, false);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	expect_wire_equals(stream, 4096 + 16, "after stall");
	harness_teardown(&h);
}

/* 64 KiB at 3 Mbaud on silicon whose PeriphID claims 32 entries but whose FIFO has 16 (the
 * BCM2835/6/7), with the depth the config states; returns the FIFO overflows. */
static uint64_t overflows_with_lying_id(enum pl011_tx_mode mode, uint32_t stated_depth)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.fifo_depth = 16;
	model_config.id_fifo_depth = 32;
	harness_setup_with(&h, &model_config);
	h.config.baud = 3000000u;
	h.config.tx_mode = mode;
	h.config.fifo_depth = stated_depth;
	assert_int_equal(harness_start(&h), 0);
	harness_fill_random(stream, STREAM_BYTES, 7);
	size_t sent = 0;
	while (sent < STREAM_BYTES) {
		int n = pl011_write(&h.uart, stream + sent, STREAM_BYTES - sent, PL011_NO_WAIT);
		sent += (size_t)n;
		pl011_model_advance(h.model, 20000u);
	}
	(void)pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL);
	uint64_t overflows = pl011_model_counters(h.model)->tx_overflows;
	if (stated_depth != 0 || mode == PL011_TX_POLLED || mode == PL011_TX_POLL_FULL)
		expect_wire_equals(stream, STREAM_BYTES, harness_tx_mode_name(mode));
	harness_teardown(&h);
	return overflows;
}

static void test_irq_tx_a_lying_periph_id_needs_the_board_stated_depth(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof strategies / sizeof strategies[0]; m++)
		assert_int_equal(overflows_with_lying_id(strategies[m], 16u), 0);
	/* Trusting the ID, the blind strategies write twice what the FIFO holds. */
	uint64_t trusted = overflows_with_lying_id(PL011_TX_HALF_FIFO, 0u);
	print_message("ID says 32, FIFO is 16, depth from the ID: HALF_FIFO lost %llu of %u bytes\n",
		      (unsigned long long)trusted, STREAM_BYTES);
	assert_true(trusted > 1000u);
}

/* The writers' bursts into an empty FIFO go without FR for at most 15 characters, the
 * shallowest FIFO less one (lib/pl011_tx_owner.h): with the depth from the same lying ID,
 * POLLED and POLL_FULL, which read FR for the rest, lose nothing. */
static void test_a_lying_periph_id_costs_the_fr_polling_modes_nothing(void **state)
{
	(void)state;
	assert_int_equal(overflows_with_lying_id(PL011_TX_POLLED, 0u), 0);
	assert_int_equal(overflows_with_lying_id(PL011_TX_POLL_FULL, 0u), 0);
}

static uint32_t slow_callback_ns;

/* An RX callback that works a while, as an application's protocol parser might. */
static void slow_rx_callback(struct pl011 *uart, uint32_t events, void *context)
{
	(void)events;
	(void)context;
	size_t available = (size_t)pl011_rx_available(uart);
	uint8_t sink[64];
	while (available != 0) {
		int n = pl011_read(uart, sink, sizeof sink, PL011_NO_WAIT);
		available = n > 0 ? available - (size_t)n : 0u;
	}
	pl011_model_advance(h.model, slow_callback_ns);
}

/*
 * The lost wake-up: at 3 Mbaud, with RX interrupts every few characters and a callback of
 * 10-30 us, the writer priming an idle FIFO is preempted so often that the FIFO never gets
 * above the trigger; arming TXIM then brings no interrupt. After every call the ring must be
 * empty or an interrupt sure to come, and every byte must reach the wire.
 */
static void test_irq_tx_priming_slowed_by_rx_callbacks_never_strands_the_ring(void **state)
{
	(void)state;
	static const uint32_t callback_us[] = {10, 20, 30};
	for (size_t m = 0; m < sizeof strategies / sizeof strategies[0]; m++) {
		for (size_t c = 0; c < sizeof callback_us / sizeof callback_us[0]; c++) {
			struct scenario s = {3000000u, 16, false, strategies[m]};
			slow_callback_ns = callback_us[c] * 1000u;
			struct pl011_model_config model_config;
			pl011_model_default_config(&model_config);
			model_config.base = HARNESS_BASE;
			/* A fast interrupt controller: the writer gets only a few accesses between
			 * two callbacks, fewer characters than drain meanwhile. */
			model_config.irq_latency_ns = 100u;
			harness_setup_with(&h, &model_config);
			h.config.baud = s.baud;
			h.config.tx_mode = s.mode;
			h.config.rx_mode = PL011_RX_LOW_LATENCY;
			h.config.event_mask = PL011_EVENT_RX_DATA;
			h.config.event = slow_rx_callback;
			h.config.event_driver = &pl011_event_driver;
			assert_int_equal(harness_start(&h), 0);
			harness_fill_random(stream, 4000, (uint32_t)(m * 3u + c + 1u));
			(void)pl011_model_rx_inject_stream(h.model, stream, 4000,
							   pl011_model_now_ns(h.model));
			pl011_model_advance(h.model, 8000u); /* the callbacks have begun */
			size_t sent = 0;
			for (int round = 0; round < 10; round++) {
				/* More than two FIFOs, so that a bounded priming would stop short. */
				int n = pl011_write(&h.uart, stream + sent, 100, PL011_NO_WAIT);
				assert_true(n >= 0);
				sent += (size_t)n;
				const char *stuck = harness_tx_stuck(&h);
				if (stuck != NULL)
					fail_msg("%s, callback %u us, round %d: %s", strategy_names[m],
						 callback_us[c], round, stuck);
				pl011_model_advance(h.model, 1000u);
			}
			pl011_model_advance(h.model, 20000000u);
			expect_wire_equals(stream, sent, strategy_names[m]);
			harness_teardown(&h);
		}
	}
}

static void test_send_break_waits_for_the_drain_then_holds_the_line_low(void **state)
{
	(void)state;
	struct scenario s = {115200u, 16u, false, PL011_TX_HALF_FIFO};
	start_scenario(&s);
	harness_fill_random(stream, 50, 3u);
	assert_int_equal(pl011_write(&h.uart, stream, 50, PL011_NO_WAIT), 50);
	assert_int_equal(pl011_send_break(&h.uart, 2000u), 0);
	/* The break starts only after the last stop bit of the queued bytes... */
	assert_int_equal(pl011_model_break_count(h.model), 1);
	assert_true(pl011_model_break_start_ns(h.model, 0) >= pl011_model_wire_end_ns(h.model, 49));
	/* ...and lasts the duration asked for (the clock has 1 us steps). */
	uint64_t held = pl011_model_break_end_ns(h.model, 0) - pl011_model_break_start_ns(h.model, 0);
	assert_true(held + 1000u >= 2000000u && held < 2100000u);
	/* A break shorter than two frames would not be seen as one: it is stretched. */
	assert_int_equal(pl011_send_break(&h.uart, 1u), 0);
	held = pl011_model_break_end_ns(h.model, 1) - pl011_model_break_start_ns(h.model, 1);
	assert_true(held + 1000u >= 2u * pl011_model_frame_ns(h.model));
	/* Toggling BRK is not a reprogramming violation, and the line works afterwards. */
	assert_int_equal(pl011_model_counters(h.model)->order_violations, 0);
	assert_int_equal(pl011_write(&h.uart, stream + 50, 10, PL011_WAIT_AUTO), 10);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	expect_wire_equals(stream, 60, "after break");
	harness_teardown(&h);
}

static void test_rts_cts_flag_enables_hardware_flow_control(void **state)
{
	(void)state;
	struct scenario s = {115200u, 16u, false, PL011_TX_HALF_FIFO};
	start_scenario(&s);
	assert_int_equal(pl011_model_peek(h.model, PL011_CR) & (PL011_CR_RTSEN | PL011_CR_CTSEN), 0);
	h.config.flags = PL011_FLAG_RTS_CTS;
	assert_int_equal(harness_restart(&h), 0);
	assert_int_equal(pl011_model_peek(h.model, PL011_CR) & (PL011_CR_RTSEN | PL011_CR_CTSEN),
			 PL011_CR_RTSEN | PL011_CR_CTSEN);
	/* The peer holds CTS off: nothing leaves until it lets go, then everything does. */
	pl011_model_set_cts(h.model, false);
	harness_fill_random(stream, 100, 8u);
	assert_int_equal(pl011_write(&h.uart, stream, 100, PL011_NO_WAIT), 100);
	pl011_model_advance(h.model, 50000000u);
	assert_int_equal(pl011_model_wire_len(h.model), 0);
	pl011_model_set_cts(h.model, true);
	pl011_model_advance(h.model, 200u * pl011_model_frame_ns(h.model));
	expect_wire_equals(stream, 100, "after CTS");
	harness_teardown(&h);
}

/*
 * The synchronisation a TX interrupt pays on the common path (no panic, nobody else owning
 * TX), as make bench counts it, held as a bound. One core (PL011_SINGLE_CORE): one masked
 * section per entry, the TX service's, as a uniprocessor lock takes, and no barrier; MEASURED's
 * clock reads leave it and mask again (the user's clock runs outside it): one more each.
 * Several cores: the owner word's take and release (2 read-modify-writes; the handler's presence
 * is a flag, two stores) and 2 barriers (docs/benchmarks.md); the slack of 0.01 per entry is
 * for the entry that empties the ring and masks TXIM (a swap and a barrier more).
 */
static void test_irq_tx_synchronisation_per_interrupt_is_bounded(void **state)
{
	(void)state;
	const double rmws_most = PL011_SINGLE_CORE ? 1.0 : 2.0;
	const double barriers_most = PL011_SINGLE_CORE ? 0.0 : 2.0;
	harness_fill_random(stream, 8192u, 35u);
	for (size_t m = 0; m < STRATEGIES; m++) {
		struct scenario s = {3000000u, 16u, false, strategies[m]};
		start_scenario(&s);
		/* Queued at once and left to the interrupt: no writer owns TX meanwhile. */
		pl011_model_reset_counters(h.model);
		assert_int_equal(pl011_write(&h.uart, stream, 4096u, PL011_NO_WAIT), 4096);
		pl011_model_advance(h.model, 4200u * pl011_model_frame_ns(h.model));
		expect_wire_equals(stream, 4096u, strategy_names[m]);
		const struct pl011_model_counters *c = pl011_model_counters(h.model);
		double entries = (double)c->irq_dispatches;
		if (entries < 100.0)
			fail_msg("%s: %.0f interrupts, expected the ring's", strategy_names[m], entries);
		double rmws = (double)c->irq_rmw_points / entries;
		double barriers = (double)c->irq_barriers / entries;
		double clock_reads = PL011_SINGLE_CORE ? (double)c->clock_reads / entries : 0.0;
		if (rmws > rmws_most + clock_reads + 0.01 || barriers > barriers_most + 0.01)
			fail_msg("%s: %.3f read-modify-writes (masked sections on one core) and %.3f "
				 "barriers per TX interrupt, at most %.0f (and %.3f for the clock) and "
				 "%.0f", strategy_names[m], rmws, barriers, rmws_most, clock_reads,
				 barriers_most);
		harness_teardown(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_irq_tx_64k_every_strategy_baud_depth_and_latency, &h),
		HARNESS_TEST(test_irq_tx_write_alone_primes_an_idle_transmitter, &h),
		HARNESS_TEST(test_irq_tx_stale_unmasked_txim_with_empty_fifo_still_sends, &h),
		HARNESS_TEST(test_irq_tx_console_and_panic_writes_keep_order_without_overflow, &h),
		HARNESS_TEST(test_irq_tx_lost_interrupt_writes_and_flush_still_finish, &h),
		HARNESS_TEST(test_irq_tx_stall_guard_keeps_the_line_busy, &h),
		HARNESS_TEST(test_irq_tx_stalled_transmitter_times_out_within_bound, &h),
		HARNESS_TEST(test_irq_tx_priming_slowed_by_rx_callbacks_never_strands_the_ring, &h),
		HARNESS_TEST(test_irq_tx_a_lying_periph_id_needs_the_board_stated_depth, &h),
		HARNESS_TEST(test_a_lying_periph_id_costs_the_fr_polling_modes_nothing, &h),
		HARNESS_TEST(test_send_break_waits_for_the_drain_then_holds_the_line_low, &h),
		HARNESS_TEST(test_rts_cts_flag_enables_hardware_flow_control, &h),
		HARNESS_TEST(test_irq_tx_synchronisation_per_interrupt_is_bounded, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
