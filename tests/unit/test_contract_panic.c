/* The panic write's, shutdown's and the waits' contract sentences, each checked on the model (issue 24). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "harness.h"
#include "pl011_io.h"
#include "pl011_regs.h"

static struct harness h;

static const char panic_text[] = "PANIC";
#define PANIC_LEN 5u

static uint64_t frames_ns(uint64_t frames)
{
	return frames * pl011_model_frame_ns(h.model);
}

static uint32_t always_core_0(void *context)
{
	(void)context;
	return 0;
}

/* Start the harness at 115,200 8N1 on a FIFO of `depth` in `mode`. */
static void start_port(unsigned depth, enum pl011_tx_mode mode, bool with_core_id)
{
	harness_setup(&h, 48000000u, depth);
	h.config.tx_mode = mode;
	if (with_core_id)
		h.config.core_id = always_core_0;
	assert_int_equal(harness_start(&h), 0);
}

/* ---- a panic delivered as an interrupt over a driver call on the same core ---- */

struct preempting_panic {
	/* Deliver at the first point where TX is owned with this FIFO level, and only at the
	 * `nth` such point (1: the first). */
	unsigned at_level;
	unsigned nth;
	unsigned seen;
	bool delivered;
	int result;
	unsigned level_before, level_after;
	uint64_t took_ns;
};

static struct preempting_panic preempt;

static void panic_as_interrupt(void *context)
{
	(void)context;
	preempt.level_before = pl011_model_tx_level(h.model);
	uint64_t start = pl011_model_now_ns(h.model);
	preempt.result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
	preempt.took_ns = pl011_model_now_ns(h.model) - start;
	preempt.level_after = pl011_model_tx_level(h.model);
}

static void deliver_panic_at_owned_point(void *context)
{
	(void)context;
	if (preempt.delivered || pl011_model_in_irq(h.model) || (h.uart.tx.owner & 1u) == 0 ||
	    pl011_model_tx_level(h.model) != preempt.at_level || ++preempt.seen < preempt.nth)
		return;
	preempt.delivered = true;
	pl011_model_run_as_irq(h.model, panic_as_interrupt, NULL);
}

static void arm_preempting_panic(unsigned at_level, unsigned nth)
{
	memset(&preempt, 0, sizeof preempt);
	preempt.at_level = at_level;
	preempt.nth = nth;
	pl011_model_set_preempt_hook(deliver_panic_at_owned_point, NULL);
}

/* include/pl011.h, pl011_write_panic: beside an owner it "waits for the FIFO to empty again
 * before returning, so the preempted owner finds the FIFO no fuller than it left it".
 * Preempted as it writes its first character into an empty FIFO, the panic's five characters
 * are shifting out one behind the other; the owner must find the FIFO empty again, and the
 * wire shows the panic's bytes before the owner's. */
static void test_panic_beside_an_owner_leaves_the_fifo_no_fuller_than_it_found_it(void **state)
{
	(void)state;
	static const char text[] = "abcdefgh";
	start_port(16u, PL011_TX_MEASURED, true);
	arm_preempting_panic(0u, 1u);
	int n = pl011_write(&h.uart, text, 8, PL011_NO_WAIT);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_true(preempt.delivered);
	assert_int_equal(n, 8);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	print_message("panic beside an owner: FIFO level %u before, %u after, returned %d\n",
		      preempt.level_before, preempt.level_after, preempt.result);
	assert_int_equal(preempt.result, (int)PANIC_LEN);
	assert_true(preempt.level_after <= preempt.level_before);
	uint8_t wire[32];
	assert_int_equal(harness_wire(&h, wire, sizeof wire), 13u);
	assert_memory_equal(wire, "PANICabcdefgh", 13u);
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	harness_teardown(&h);
}

/* include/pl011.h, pl011_write_panic: beside an owner "it writes one byte at a time, each only
 * when the FIFO is empty". The line stalled, the owner is preempted between the FR read that
 * showed one free entry (depth - 1 queued) and the DR write it allows: a FIFO that never
 * empties takes none of the panic's bytes, and the owner's character does not overflow. */
static void test_panic_beside_an_owner_writes_nothing_into_a_fifo_that_never_empties(void **state)
{
	(void)state;
	static const char text[] = "abcdefghijklmnopqrst";
	start_port(16u, PL011_TX_MEASURED, true);
	pl011_model_set_tx_stalled(h.model, true);
	/* At depth - 1: the FR read, then the owner's look for a panic beside it (its burst
	 * check), then the DR write; the second point has read FR already. */
	arm_preempting_panic(15u, 2u);
	int n = pl011_write(&h.uart, text, 20, PL011_NO_WAIT);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_true(preempt.delivered);
	assert_int_equal(n, 20);
	pl011_model_set_tx_stalled(h.model, false);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	print_message("panic beside an owner at a stalled FIFO of 15: returned %d, %llu "
		      "overflows\n",
		      preempt.result,
		      (unsigned long long)pl011_model_counters(h.model)->tx_overflows);
	assert_int_equal(preempt.result, 0);
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	uint8_t wire[32];
	assert_int_equal(harness_wire(&h, wire, sizeof wire), 20u);
	assert_memory_equal(wire, text, 20u);
	harness_teardown(&h);
}

/* ---- a panic while a shutdown drains ---- */

static bool shutdown_panic_done;
static int shutdown_panic_result;
static uint64_t shutdown_panic_took_ns;

static void panic_during_shutdown(void *context)
{
	(void)context;
	uint64_t start = pl011_model_now_ns(h.model);
	shutdown_panic_result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
	shutdown_panic_took_ns = pl011_model_now_ns(h.model) - start;
	pl011_model_set_tx_stalled(h.model, false);
}

/* Shutdown's wait step: the first one takes a panic (an interrupt of another source). */
static void shutdown_wait_step(void *context)
{
	if (!shutdown_panic_done) {
		shutdown_panic_done = true;
		pl011_model_run_as_irq(h.model, panic_during_shutdown, NULL);
	}
	pl011_model_advance(context, 2000u);
}

/* include/pl011.h, pl011_write_panic: "once a shutdown begins on another core it stops at its
 * next burst", and its errors are "PL011_ESHUTDOWN when the port was never started, has been
 * shut down, or a shutdown on another core has taken TX". A panic that comes while shutdown
 * still drains (TX not taken) is not refused, and with the FIFO full it returns at once, not
 * after its backlog deadline: within its last pass's (depth + 2) frames + 1 ms. */
static void test_panic_while_shutdown_drains_is_not_refused_and_stops_at_once(void **state)
{
	(void)state;
	static uint8_t text[100];
	harness_fill_random(text, sizeof text, 24u);
	start_port(16u, PL011_TX_HALF_FIFO, false);
	pl011_model_set_tx_stalled(h.model, true);
	assert_int_equal(pl011_write(&h.uart, text, sizeof text, PL011_NO_WAIT), (int)sizeof text);
	shutdown_panic_done = false;
	shutdown_panic_result = -100;
	h.config.wait_hook = shutdown_wait_step;
	h.uart.config.wait_hook = shutdown_wait_step;
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	assert_true(shutdown_panic_done);
	print_message("panic while shutdown drains: returned %d after %llu us\n",
		      shutdown_panic_result, (unsigned long long)(shutdown_panic_took_ns / 1000u));
	assert_true(shutdown_panic_result >= 0);
	assert_true(shutdown_panic_took_ns <= frames_ns(18u) + 1000000u);
	/* Every accepted byte on the wire once: the queue and what the panic counted. */
	uint8_t wire[128];
	size_t len = harness_wire(&h, wire, sizeof wire);
	assert_int_equal(len, sizeof text + (size_t)shutdown_panic_result);
	harness_teardown(&h);
}

/* ---- POLLED: a panic that gave up waiting for the writer ---- */

/* include/pl011.h, pl011_write: "Returns the count written (less than len only when the wait
 * ran out or bound_us was 0)"; a panic that preempted the polled writer on its own core (no
 * config.core_id) asks it for TX, waits out its ownership wait, writes beside it and returns:
 * the writer then finishes its write well within a bound of 100 ms. */
static void test_polled_writer_finishes_its_write_after_a_panic_gave_up_waiting(void **state)
{
	(void)state;
	static uint8_t text[40];
	for (size_t i = 0; i < sizeof text; i++)
		text[i] = (uint8_t)('a' + i % 26u);
	start_port(16u, PL011_TX_POLLED, false);
	arm_preempting_panic(3u, 1u);
	int n = pl011_write(&h.uart, text, sizeof text, 100000u);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_true(preempt.delivered);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	print_message("polled writer beside a panic that gave up: wrote %d of %zu, panic %d, %u "
		      "timeouts\n",
		      n, sizeof text, preempt.result, stats.tx_timeouts);
	assert_int_equal(preempt.result, (int)PANIC_LEN);
	assert_int_equal(n, (int)sizeof text);
	assert_int_equal(stats.tx_timeouts, 0);
	assert_int_equal(pl011_model_wire_len(h.model), sizeof text + PANIC_LEN);
	harness_teardown(&h);
}

/* ---- a panic over another panic that owns TX on the same core ---- */

static bool inner_panic_delivered;
static bool outer_panic_running;
static int inner_panic_result;
static uint64_t inner_panic_took_ns;

static void inner_panic(void *context)
{
	(void)context;
	uint64_t start = pl011_model_now_ns(h.model);
	inner_panic_result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
	inner_panic_took_ns = pl011_model_now_ns(h.model) - start;
}

static void deliver_inner_panic(void *context)
{
	(void)context;
	if (inner_panic_delivered || !outer_panic_running || pl011_model_in_irq(h.model) ||
	    (h.uart.tx.owner & 1u) == 0)
		return;
	inner_panic_delivered = true;
	pl011_model_run_as_irq(h.model, inner_panic, NULL);
}

/* include/pl011.h, pl011_write_panic: "another panic that owns TX: that panic's own deadline,
 * which it publishes, plus the same depth frames + 100 us for its last pass, then its own
 * backlog deadline of (bytes queued at the call + len) ..., then its last pass or its wait for
 * the FIFO to empty ((depth + 2) frames + 1 ms)". A panic over a panic it preempted (which
 * cannot let go until it returns) gives up waiting within that sum and writes beside it. */
static void test_panic_over_a_preempted_panic_waits_no_longer_than_its_deadline(void **state)
{
	(void)state;
	static const char outer_text[] = "0123456789";
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.fifo_depth = 16u;
	model_config.time_limit_ns = 2000000000ull; /* a panic waiting for ever aborts */
	harness_setup_with(&h, &model_config);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	assert_int_equal(harness_start(&h), 0);
	inner_panic_delivered = false;
	inner_panic_result = -100;
	uint64_t outer_deadline_us = pl011_backlog_deadline_us(&h.uart, 10u);
	uint64_t inner_deadline_us = pl011_backlog_deadline_us(&h.uart, 0u + PANIC_LEN);
	pl011_model_set_preempt_hook(deliver_inner_panic, NULL);
	outer_panic_running = true;
	int outer = pl011_write_panic(&h.uart, outer_text, 10u);
	outer_panic_running = false;
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_true(inner_panic_delivered);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	uint64_t bound_ns = (outer_deadline_us + 100u + inner_deadline_us + 1000u) * 1000u +
			    frames_ns(16u + 16u + 2u);
	print_message("panic over a preempted panic: %d after %llu us (bound %llu us), outer %d\n",
		      inner_panic_result, (unsigned long long)(inner_panic_took_ns / 1000u),
		      (unsigned long long)(bound_ns / 1000u), outer);
	assert_int_equal(inner_panic_result, (int)PANIC_LEN);
	assert_int_equal(outer, 10);
	assert_true(inner_panic_took_ns <= bound_ns);
	assert_int_equal(pl011_model_wire_len(h.model), 15u);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_panic_beside_an_owner_leaves_the_fifo_no_fuller_than_it_found_it, &h),
		HARNESS_TEST(test_panic_beside_an_owner_writes_nothing_into_a_fifo_that_never_empties,
			     &h),
		HARNESS_TEST(test_panic_while_shutdown_drains_is_not_refused_and_stops_at_once, &h),
		HARNESS_TEST(test_polled_writer_finishes_its_write_after_a_panic_gave_up_waiting, &h),
		HARNESS_TEST(test_panic_over_a_preempted_panic_waits_no_longer_than_its_deadline, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
