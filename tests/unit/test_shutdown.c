/* The shutdown-drain fix on the model: nothing lost silently, nothing hung, always restartable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "depth.h"
#include "harness.h"
#include "pl011_io.h"
#include "pl011_regs.h"

#define STREAM_BYTES (1u << 20)
#define MESSAGE_BYTES 4096u

static struct harness h;
static uint8_t stream[STREAM_BYTES];
static uint8_t message[MESSAGE_BYTES];

static void start(uint32_t flags)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	/* 1,000 trials of up to 40 ms, a drain and a 4 KiB message: several minutes of line. */
	model_config.time_limit_ns = 3600ull * 1000000000u;
	harness_setup_with(&h, &model_config);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.flags = flags;
	assert_int_equal(harness_start(&h), 0);
}

/* The documented deadline, computed here from the line: (queued + depth) frames, plus a
 * quarter, plus 1 ms. 8N1 at 48 MHz / (16 * (26 + 3/64)) = 115,177 baud. */
static uint64_t documented_deadline_ns(size_t queued)
{
	uint64_t frame_ns = pl011_model_frame_ns(h.model);
	uint64_t us = ((queued + 16u) * frame_ns + 999u) / 1000u;
	return (us + us / 4u + 1000u) * 1000u;
}

/* Send the 4 KiB message on a freshly started port and check it arrives intact at the end. */
static void expect_message_goes_through(size_t wire_before, uint32_t seed)
{
	harness_fill_random(message, MESSAGE_BYTES, seed);
	assert_int_equal(pl011_write(&h.uart, message, MESSAGE_BYTES, PL011_WAIT_AUTO),
			 MESSAGE_BYTES);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	size_t wire_len = pl011_model_wire_len(h.model);
	assert_int_equal(wire_len, wire_before + MESSAGE_BYTES);
	for (size_t i = 0; i < MESSAGE_BYTES; i++)
		if (pl011_model_wire_byte(h.model, wire_before + i) != message[i])
			fail_msg("message byte %zu differs after restart", i);
}

static void test_shutdown_ctrl_c_at_1000_random_moments_loses_nothing_silently(void **state)
{
	(void)state;
	start(0);
	harness_fill_random(stream, STREAM_BYTES, 2015u);
	uint32_t seed = 0x5EEDu;
	uint64_t accepted = 0, discarded = 0;
	size_t offset = 0;
	unsigned with_full_fifo = 0, without_tx_pending = 0, drained_fully = 0;

	/* make test (PL011_TEST_DEPTH=quick): the first 250 moments. */
	const unsigned trials = depth_scale(1000, 4);
	for (unsigned trial = 0; trial < trials; trial++) {
		/* The producer keeps the 4 KiB ring topped up for a random while. */
		uint64_t run_ns = (harness_random(&seed) % 4000u) * 10000u;
		uint64_t stop_at = pl011_model_now_ns(h.model) + run_ns;
		while (pl011_model_now_ns(h.model) < stop_at) {
			if (offset == STREAM_BYTES)
				offset = 0;
			int n = pl011_write(&h.uart, stream + offset, STREAM_BYTES - offset,
					    PL011_NO_WAIT);
			assert_true(n >= 0);
			offset += (size_t)n;
			accepted += (uint64_t)n;
			pl011_model_advance(h.model, 1000u + harness_random(&seed) % 200000u);
		}
		if (pl011_model_tx_level(h.model) == 16)
			with_full_fifo++;
		if ((pl011_model_ris(h.model) & PL011_INT_TX) == 0)
			without_tx_pending++;

		/* ^C: an ample bound, a short one, or none at all. */
		uint32_t choice = harness_random(&seed) % 3u;
		uint32_t bound = choice == 0 ? PL011_WAIT_AUTO
					     : choice == 1 ? harness_random(&seed) % 50000u : 0u;
		size_t queued = pl011_tx_queued(&h.uart);
		uint64_t deadline = documented_deadline_ns(queued);
		if (bound != PL011_WAIT_AUTO && (uint64_t)bound * 1000u < deadline)
			deadline = (uint64_t)bound * 1000u;
		/* After the deadline the FIFO gets (depth + 1) frames, the disable 2 more. */
		deadline += 19u * pl011_model_frame_ns(h.model) + 10000u;
		uint64_t begin = pl011_model_now_ns(h.model);
		int result = pl011_shutdown(&h.uart, bound);
		uint64_t took = pl011_model_now_ns(h.model) - begin;
		if (result < 0)
			fail_msg("trial %u: shutdown failed: %s", trial, pl011_error_name(result));
		if (took > deadline)
			fail_msg("trial %u: shutdown took %llu ns, deadline %llu ns", trial,
				 (unsigned long long)took, (unsigned long long)deadline);
		if (bound == PL011_WAIT_AUTO && result != 0)
			fail_msg("trial %u: ample bound still discarded %d bytes", trial, result);
		if (result == 0)
			drained_fully++;
		discarded += (uint64_t)result;
		/* Conservation: every accepted byte is on the wire or reported discarded. */
		size_t wire_len = pl011_model_wire_len(h.model);
		if (wire_len + discarded != accepted)
			fail_msg("trial %u: wire %zu + discarded %llu != accepted %llu", trial,
				 wire_len, (unsigned long long)discarded,
				 (unsigned long long)accepted);
		assert_int_equal(pl011_write(&h.uart, "x", 1, 0), PL011_ESHUTDOWN);

		assert_int_equal(harness_start(&h), 0);
		expect_message_goes_through(wire_len, trial + 1u);
		accepted += MESSAGE_BYTES;
	}
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	/* The moments covered the cases the bug needs. */
	assert_true(with_full_fifo > trials / 10);
	assert_true(without_tx_pending > trials / 10);
	assert_true(drained_fully > trials / 10 && drained_fully < trials);
	harness_teardown(&h);
}

/* A passive driver's start: queue data, unmask TXIM, wait for the interrupt to do the rest. */
static unsigned passive_interrupts;

static void passive_irq(void *context)
{
	(void)context;
	passive_interrupts++;
	pl011_io_write(HARNESS_BASE + PL011_IMSC, 0);
}

static void driver_irq(void *context)
{
	pl011_irq_handler(context);
}

static void test_shutdown_passive_start_hangs_on_the_model_and_priming_does_not(void **state)
{
	(void)state;
	start(0);
	/* The ^C moment: FIFO full, then shutdown and a new init (which flushes the FIFO). */
	harness_fill_random(stream, 8192, 1u);
	int accepted = pl011_write(&h.uart, stream, 8192, PL011_NO_WAIT);
	accepted += pl011_write(&h.uart, stream + accepted, 8192u - (size_t)accepted, PL011_NO_WAIT);
	/* The ring, the FIFO and the character already in the shift register. */
	assert_int_equal(accepted, 4096 + 16 + 1);
	assert_int_equal(pl011_model_tx_level(h.model), 16);
	int discarded = pl011_shutdown(&h.uart, 0);
	assert_int_equal(discarded, 4096);
	size_t wire_len = pl011_model_wire_len(h.model);
	assert_int_equal(harness_start(&h), 0);

	pl011_model_set_irq_handler(h.model, passive_irq, NULL);
	passive_interrupts = 0;
	pl011_io_write(HARNESS_BASE + PL011_IMSC, PL011_INT_TX);
	/* The hang, detected by a bound of one second of line time: no TXIS ever comes. */
	pl011_model_advance(h.model, 1000000000u);
	assert_int_equal(passive_interrupts, 0);
	assert_int_equal(pl011_model_wire_len(h.model), wire_len);

	/* The driver primes instead, and the same port, in the same state, sends. */
	pl011_model_set_irq_handler(h.model, driver_irq, &h.uart);
	assert_int_equal(harness_restart(&h), 0);
	expect_message_goes_through(wire_len, 7u);
	harness_teardown(&h);
}

static void test_shutdown_bound_zero_discards_now_and_reports_exact_count(void **state)
{
	(void)state;
	start(0);
	harness_fill_random(stream, 3000, 9u);
	assert_int_equal(pl011_write(&h.uart, stream, 3000, PL011_NO_WAIT), 3000);
	pl011_model_advance(h.model, 50u * pl011_model_frame_ns(h.model));
	size_t queued = pl011_tx_queued(&h.uart);
	uint64_t begin = pl011_model_now_ns(h.model);
	int discarded = pl011_shutdown(&h.uart, 0);
	uint64_t took = pl011_model_now_ns(h.model) - begin;
	/* The interrupt may move a few bytes into the FIFO while shutdown starts; the count is
	 * what the wire proves. */
	assert_true(discarded > 0 && (size_t)discarded <= queued);
	assert_int_equal(pl011_model_wire_len(h.model) + (size_t)discarded, 3000);
	for (size_t i = 0; i < pl011_model_wire_len(h.model); i++)
		assert_int_equal(pl011_model_wire_byte(h.model, i), stream[i]);
	/* Immediate: only the FIFO's own drain, at most depth + 3 frames. */
	assert_true(took <= 19u * pl011_model_frame_ns(h.model) + 10000u);
	struct pl011_stats stats;
	pl011_get_stats(&h.uart, &stats);
	assert_int_equal(stats.tx_discarded, (uint32_t)discarded);
	harness_teardown(&h);
}

static void test_shutdown_flush_with_cts_held_off_times_out_within_bound(void **state)
{
	(void)state;
	start(PL011_FLAG_RTS_CTS);
	pl011_model_set_cts(h.model, false);
	harness_fill_random(stream, 500, 4u);
	assert_int_equal(pl011_write(&h.uart, stream, 500, PL011_NO_WAIT), 500);
	size_t pending = 0;
	uint64_t begin = pl011_model_now_ns(h.model);
	assert_int_equal(pl011_flush(&h.uart, 10000u, &pending), PL011_ETIMEDOUT);
	uint64_t took = pl011_model_now_ns(h.model) - begin;
	assert_true(took + 1000u >= 10000000u && took < 11000000u);
	assert_int_equal(pending, 500 - 16);
	assert_int_equal(pl011_model_wire_len(h.model), 0);

	/* Shutdown with CTS still held: the ring is discarded and counted, the FIFO cannot
	 * drain, which is reported as PL011_ESTALLED rather than hidden. */
	assert_int_equal(pl011_shutdown(&h.uart, 5000u), PL011_ESTALLED);
	struct pl011_stats stats;
	pl011_get_stats(&h.uart, &stats);
	assert_int_equal(stats.tx_discarded, 500 - 16);
	assert_int_equal(stats.tx_fifo_abandoned, 1);

	/* A new start works once the peer lets us talk again. */
	pl011_model_set_cts(h.model, true);
	assert_int_equal(harness_start(&h), 0);
	expect_message_goes_through(pl011_model_wire_len(h.model), 42u);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_shutdown_ctrl_c_at_1000_random_moments_loses_nothing_silently, &h),
		HARNESS_TEST(test_shutdown_passive_start_hangs_on_the_model_and_priming_does_not, &h),
		HARNESS_TEST(test_shutdown_bound_zero_discards_now_and_reports_exact_count, &h),
		HARNESS_TEST(test_shutdown_flush_with_cts_held_off_times_out_within_bound, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
