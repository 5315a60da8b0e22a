/* The panic write's, shutdown's and the waits' sentences, each checked on the model (issue 24). */
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

static uint64_t dr_writes(void)
{
	return pl011_model_counters(h.model)->writes[PL011_DR / 4u];
}

static uint64_t register_reads(void)
{
	return pl011_model_counters(h.model)->total_reads;
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

/* docs/api.md, pl011_write_panic: beside an owner it "waits for the FIFO to empty again
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

/* docs/api.md, pl011_write_panic: beside an owner "it writes one byte at a time, each only
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

static bool shutdown_panic_armed;

/* The wait step (2 us, as the harness's); the first one of the shutdown takes a panic (an
 * interrupt of another source). */
static void shutdown_wait_step(void *context)
{
	if (shutdown_panic_armed && !shutdown_panic_done) {
		shutdown_panic_done = true;
		pl011_model_run_as_irq(h.model, panic_during_shutdown, NULL);
	}
	pl011_model_advance(context, 2000u);
}

/* docs/api.md, pl011_write_panic: "once a shutdown begins on another core it stops at its
 * next burst", and its errors are "PL011_ESHUTDOWN when the port was never started, has been
 * shut down, or a shutdown on another core has taken TX". A panic that comes while shutdown
 * still drains (TX not taken) is not refused, and with the FIFO full it returns at once, not
 * after its backlog deadline: within its last pass's (depth + 2) frames + 1 ms. */
static void test_panic_while_shutdown_drains_is_not_refused_and_stops_at_once(void **state)
{
	(void)state;
	static uint8_t text[100];
	harness_fill_random(text, sizeof text, 24u);
	harness_setup(&h, 48000000u, 16u);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.wait_hook = shutdown_wait_step;
	shutdown_panic_armed = false;
	shutdown_panic_done = false;
	shutdown_panic_result = -100;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_tx_stalled(h.model, true);
	assert_int_equal(pl011_write(&h.uart, text, sizeof text, PL011_NO_WAIT), (int)sizeof text);
	shutdown_panic_armed = true;
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

/* docs/api.md, pl011_write: "Returns the count written (less than len only when the wait
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

/* ---- two panics beside the owner on one core, the second over the first ---- */

static struct {
	int stage;
	int outer_result, inner_result;
} twin;

static void twin_inner(void *context)
{
	(void)context;
	twin.inner_result = pl011_write_panic(&h.uart, "inner", 5);
}

static void twin_outer(void *context)
{
	(void)context;
	twin.outer_result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
}

/* The first panic at the polled writer's first owned point with 3 characters in the FIFO; the
 * second over it once it holds a place beside the owner (tx.beside's upper half). */
static void deliver_twin_panics(void *context)
{
	(void)context;
	if (twin.stage == 0 && !pl011_model_in_irq(h.model) && (h.uart.tx.owner & 1u) != 0 &&
	    pl011_model_tx_level(h.model) == 3u) {
		twin.stage = 1;
		pl011_model_run_as_irq(h.model, twin_outer, NULL);
	} else if (twin.stage == 1 && pl011_model_in_irq(h.model) && (h.uart.tx.beside >> 16) != 0) {
		twin.stage = 2;
		pl011_model_run_as_irq(h.model, twin_inner, NULL);
	}
}

/* docs/api.md, pl011_write_panic: "At most two panics write a byte beside an owner at once".
 * A panic from a fault inside a panic that holds its place beside the preempted writer takes
 * the second place and writes all of its bytes; then the first finishes its own. */
static void test_a_panic_over_a_panic_beside_the_owner_takes_the_second_place(void **state)
{
	(void)state;
	static uint8_t text[40];
	for (size_t i = 0; i < sizeof text; i++)
		text[i] = (uint8_t)('a' + i % 26u);
	start_port(16u, PL011_TX_POLLED, false);
	memset(&twin, 0, sizeof twin);
	twin.outer_result = twin.inner_result = -100;
	pl011_model_set_preempt_hook(deliver_twin_panics, NULL);
	int n = pl011_write(&h.uart, text, sizeof text, 1000000u);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_int_equal(twin.stage, 2);
	assert_int_equal(twin.inner_result, 5);
	assert_int_equal(twin.outer_result, (int)PANIC_LEN);
	assert_int_equal(n, (int)sizeof text);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), sizeof text + PANIC_LEN + 5u);
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

/* docs/api.md, pl011_write_panic: "another panic that owns TX: that panic's own deadline,
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

/* ---- two cores, switched by a director at chosen points ---- */

/* cores_run with no switch of its own: the director (the plan's at_point) yields when the
 * scenario wants the other core to run. */
static void run_directed(void (*director)(void *context), void (*body)(int core, void *context))
{
	struct cores_plan plan = {.switch_one_in = 0,
				  .first_slice = UINT64_MAX,
				  .slice = UINT64_MAX,
				  .at_point = director};
	cores_run(&plan, body, NULL);
}

/* A writer on core 0 that, each time core 1's director hands it a turn, offers one byte with
 * PL011_NO_WAIT, at most WRITER_TURNS times; core 1 runs one panic. */
#define WRITER_TURNS 64u

enum panic_phase { PHASE_DATA, PHASE_LAST_PASS };

static struct {
	enum panic_phase phase; /* which part of the panic the writer's turns fall in */
	size_t panic_len;
	bool panic_running;
	uint64_t dr_at_call;
	unsigned turns, queued;
	int panic_result;
} beside_writer;

static const uint8_t writer_text[PANIC_LEN * 4u + 1u] = "ABCDEFGHIJKLMNOPQRST";

static bool in_panic_phase(void)
{
	if (!beside_writer.panic_running)
		return false;
	uint64_t sent = dr_writes() - beside_writer.dr_at_call;
	return beside_writer.phase == PHASE_DATA ? sent >= 1u && sent < beside_writer.panic_len
						 : sent >= beside_writer.panic_len;
}

static void writer_director(void *context)
{
	(void)context;
	if (cores_current() == 1 && beside_writer.turns < WRITER_TURNS && in_panic_phase())
		cores_yield();
}

static void writer_beside_panic_body(int core, void *context)
{
	(void)context;
	if (core == 1) {
		beside_writer.dr_at_call = dr_writes();
		beside_writer.panic_running = true;
		beside_writer.panic_result =
		    pl011_write_panic(&h.uart, writer_text, beside_writer.panic_len);
		beside_writer.panic_running = false;
		return;
	}
	while (!cores_finished(1)) {
		if (beside_writer.turns < WRITER_TURNS && in_panic_phase()) {
			beside_writer.turns++;
			if (pl011_write(&h.uart, "w", 1, PL011_NO_WAIT) == 1)
				beside_writer.queued++;
		}
		cores_yield();
	}
}

static void run_writer_beside_panic(enum panic_phase phase, size_t panic_len)
{
	start_port(16u, PL011_TX_HALF_FIFO, false);
	memset(&beside_writer, 0, sizeof beside_writer);
	beside_writer.phase = phase;
	beside_writer.panic_len = panic_len;
	run_directed(writer_director, writer_beside_panic_body);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	print_message("writer beside a panic's %s: %u of %u turns queued a byte, panic %d\n",
		      phase == PHASE_DATA ? "data" : "last pass", beside_writer.queued,
		      beside_writer.turns, beside_writer.panic_result);
	assert_int_equal(beside_writer.panic_result, (int)panic_len);
}

/* docs/api.md, pl011_write_panic: it sends data, "then in a last pass what was queued
 * meanwhile (writers hold new bytes back during that pass ...)": while its data is still
 * going out (20 bytes into a 16-deep FIFO at 115,200) a writer on the other core queues
 * with PL011_NO_WAIT as ever, and the wire shows the panic's data, then the writer's bytes. */
static void test_writer_queues_while_a_panic_sends_its_data_and_follows_it(void **state)
{
	(void)state;
	run_writer_beside_panic(PHASE_DATA, 20u);
	assert_true(beside_writer.turns >= 8u);
	assert_int_equal(beside_writer.queued, beside_writer.turns);
	uint8_t wire[128];
	size_t len = harness_wire(&h, wire, sizeof wire);
	assert_int_equal(len, 20u + beside_writer.queued);
	assert_memory_equal(wire, writer_text, 20u);
	for (size_t i = 20u; i < len; i++)
		assert_int_equal(wire[i], 'w');
	harness_teardown(&h);
}

/* docs/api.md, two cores: "While a panic on another core makes its last pass, a write
 * queues nothing new (PL011_NO_WAIT returns what it had queued ...)", "so that the pass (and
 * the panic) ends however fast they would queue". A writer offered a turn at every step of
 * the panic once its data is in the FIFO queues at most at the two looks at the owner word
 * that come before the pass, and at the panic's look for an owed TX space event after it has
 * let go (the pass is over then), and the panic ends before the writer's 64 turns run out. */
static void test_writer_queues_nothing_during_a_panics_last_pass(void **state)
{
	(void)state;
	run_writer_beside_panic(PHASE_LAST_PASS, PANIC_LEN);
	assert_true(beside_writer.queued <= 3u);
	assert_true(beside_writer.turns < WRITER_TURNS);
	assert_int_equal(pl011_model_wire_len(h.model), PANIC_LEN + beside_writer.queued);
	harness_teardown(&h);
}

/* ---- POLLED: the writer lets a panic on the other core in at its next byte ---- */

static struct {
	bool panic_started, panic_running;
	uint64_t dr_at_call;
	int panic_result, write_result;
} polled_pair;

static uint8_t polled_text[200];

static void polled_director(void *context)
{
	(void)context;
	/* Core 0 writes until the FIFO is full and more; then the cores alternate at every
	 * point while the panic runs. */
	if (!polled_pair.panic_started ? cores_current() == 0 && dr_writes() >= 24u
				       : polled_pair.panic_running)
		cores_yield();
}

static void polled_pair_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		polled_pair.write_result =
		    pl011_write(&h.uart, polled_text, sizeof polled_text, 1000000u);
		return;
	}
	polled_pair.panic_started = true;
	polled_pair.panic_running = true;
	polled_pair.dr_at_call = dr_writes();
	polled_pair.panic_result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
	polled_pair.panic_running = false;
}

/* docs/api.md, pl011_write_panic: "in POLLED mode the writer lets it in at its next byte".
 * A polled writer on core 0 keeps its FIFO full; once the panic on core 1 has been called, at
 * most one more of the writer's characters (and one in the balance of the two cores' steps)
 * enters the FIFO before the panic's, which follow together and in order. */
/* The pair under `director`: both calls return all of their bytes, and the panic's follow at
 * most 2 of the writer's after its call, together and in order. */
static void run_polled_pair(void (*director)(void *context))
{
	for (size_t i = 0; i < sizeof polled_text; i++)
		polled_text[i] = (uint8_t)('a' + i % 26u);
	start_port(16u, PL011_TX_POLLED, false);
	memset(&polled_pair, 0, sizeof polled_pair);
	run_directed(director, polled_pair_body);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	uint8_t wire[256];
	size_t len = harness_wire(&h, wire, sizeof wire);
	size_t first = 0;
	while (first < len && wire[first] != 'P')
		first++;
	print_message("polled writer beside a panic: %zu writer characters after the call, "
		      "panic %d, write %d\n",
		      first - (size_t)polled_pair.dr_at_call, polled_pair.panic_result,
		      polled_pair.write_result);
	assert_int_equal(polled_pair.panic_result, (int)PANIC_LEN);
	assert_int_equal(polled_pair.write_result, (int)sizeof polled_text);
	assert_int_equal(len, sizeof polled_text + PANIC_LEN);
	assert_true(first + PANIC_LEN <= len);
	assert_memory_equal(wire + first, panic_text, PANIC_LEN);
	assert_true(first - (size_t)polled_pair.dr_at_call <= 2u);
	harness_teardown(&h);
}

static void test_polled_writer_lets_a_panic_in_at_its_next_byte(void **state)
{
	(void)state;
	run_polled_pair(polled_director);
}

/* The same pair under a scheduler that lets the panic's core look only while the writer holds
 * TX (or after the writer has spun 64 points without it): a writer that took TX back over the
 * panic's request (RETRY) at every byte would keep it from ever finding TX free, and the panic
 * would give up. The writer must wait for the panic instead. */
static struct {
	uint64_t unowned_points;
} holding;

static void holding_director(void *context)
{
	(void)context;
	if (!polled_pair.panic_started) {
		if (cores_current() == 0 && dr_writes() >= 24u)
			cores_yield();
		return;
	}
	if (!polled_pair.panic_running)
		return;
	if (cores_current() == 1) {
		cores_yield();
		return;
	}
	if ((h.uart.tx.owner & 1u) != 0 || ++holding.unowned_points >= 64u) {
		holding.unowned_points = 0;
		cores_yield();
	}
}

static void test_polled_writer_never_takes_tx_back_over_a_waiting_panic(void **state)
{
	(void)state;
	memset(&holding, 0, sizeof holding);
	run_polled_pair(holding_director);
}

/* ---- after a panic that waited for an owner on the other core ---- */

static struct {
	bool panic_started, panic_running;
	int panic_result;
} waited_pair;

static uint8_t long_text[4000];

static void waited_director(void *context)
{
	(void)context;
	/* Core 0's writer owns TX and has written a few characters: the panic starts on core
	 * 1, then the cores alternate at every point until it returns. */
	if (!waited_pair.panic_started
		? cores_current() == 0 && (h.uart.tx.owner & 1u) != 0 && dr_writes() >= 4u
		: waited_pair.panic_running)
		cores_yield();
}

static void waited_pair_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		(void)pl011_write(&h.uart, long_text, 400u, PL011_WAIT_AUTO);
		return;
	}
	waited_pair.panic_started = true;
	waited_pair.panic_running = true;
	waited_pair.panic_result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
	waited_pair.panic_running = false;
}

static void start_instant_line(enum pl011_tx_mode mode, unsigned depth)
{
	harness_setup_instant_line(&h, depth);
	h.config.tx_mode = mode;
	assert_int_equal(harness_start(&h), 0);
}

/* docs/waiting.md / docs/api.md, pl011_write: it "waits up to bound_us" (PL011_WAIT_AUTO:
 * the backlog deadline). On a line as fast as the CPU an owner lets go at each pass limit and
 * gives a panic that says it waits a moment to take TX; once a panic that waited for the
 * owner on the other core has taken TX and returned, nobody waits any more: a 4000-byte
 * write afterwards returns all of it within its own backlog deadline. */
static void test_write_after_a_panic_took_tx_from_a_waited_owner_keeps_its_bound(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof long_text; i++)
		long_text[i] = (uint8_t)('a' + i % 26u);
	start_instant_line(PL011_TX_HALF_FIFO, 16u);
	memset(&waited_pair, 0, sizeof waited_pair);
	run_directed(waited_director, waited_pair_body);
	assert_int_equal(waited_pair.panic_result, (int)PANIC_LEN);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	uint64_t bound_us = pl011_backlog_deadline_us(&h.uart, sizeof long_text);
	uint64_t start = pl011_model_now_ns(h.model);
	int n = pl011_write(&h.uart, long_text, sizeof long_text, PL011_WAIT_AUTO);
	uint64_t took_ns = pl011_model_now_ns(h.model) - start;
	print_message("4000-byte write after a panic that waited: %d in %llu us (bound %llu us)\n",
		      n, (unsigned long long)(took_ns / 1000u), (unsigned long long)bound_us);
	assert_int_equal(n, (int)sizeof long_text);
	assert_true(took_ns <= bound_us * 1000u);
	harness_teardown(&h);
}

/* ---- pl011_write's PL011_WAIT_AUTO ---- */

/* docs/waiting.md, pl011_write: "bound_us; PL011_WAIT_AUTO = backlog deadline of (queued +
 * len)". With the line stalled and a 256-byte ring full, a 10-byte write waits that whole
 * deadline (the bytes ahead of it count), then returns what it wrote (none) and counts a
 * timeout. */
static void test_write_auto_waits_the_backlog_deadline_of_queued_and_len(void **state)
{
	(void)state;
	static uint8_t ring[256];
	static uint8_t text[256 + 16];
	harness_fill_random(text, sizeof text, 7u);
	harness_setup(&h, 48000000u, 16u);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.tx_buffer = ring;
	h.config.tx_buffer_size = sizeof ring;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_tx_stalled(h.model, true);
	assert_int_equal(pl011_write(&h.uart, text, sizeof text, PL011_NO_WAIT), (int)sizeof text);
	size_t queued = pl011_tx_queued(&h.uart);
	uint64_t bound_us = pl011_backlog_deadline_us(&h.uart, queued + 10u);
	uint64_t start = pl011_model_now_ns(h.model);
	int n = pl011_write(&h.uart, text, 10u, PL011_WAIT_AUTO);
	uint64_t took_ns = pl011_model_now_ns(h.model) - start;
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	print_message("write of 10 behind %zu queued, line stalled: %d after %llu us (bound %llu "
		      "us)\n",
		      queued, n, (unsigned long long)(took_ns / 1000u),
		      (unsigned long long)bound_us);
	assert_int_equal(queued, sizeof ring);
	assert_int_equal(n, 0);
	assert_int_equal(stats.tx_timeouts, 1);
	/* The wait counts whole microseconds of config.clock: begun between two ticks, it may end
	 * up to one microsecond before the bound's real time. */
	assert_true(took_ns + 1000u >= bound_us * 1000u);
	assert_true(took_ns <= bound_us * 1000u + 100000u);
	pl011_model_set_tx_stalled(h.model, false);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	harness_teardown(&h);
}

/* ---- a panic that passed its state check, then a restart on the other core ---- */

static struct {
	bool panic_started, switched, resumed;
	uint64_t icr_at_init;
	int panic_result, init_result;
} restart_pair;

static uint64_t icr_writes(void)
{
	return pl011_model_counters(h.model)->writes[PL011_ICR / 4u];
}

static void restart_director(void *context)
{
	(void)context;
	if (cores_current() == 0 && restart_pair.panic_started && !restart_pair.switched) {
		restart_pair.switched = true; /* the panic's first point: its state check passed */
		cores_yield();
	} else if (cores_current() == 1 && !restart_pair.resumed &&
		   icr_writes() > restart_pair.icr_at_init) {
		/* The stop's last access (the ICR clear of the quiesce) is done: init proper. */
		restart_pair.resumed = true;
		cores_yield();
	}
}

static void restart_pair_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		restart_pair.panic_started = true;
		restart_pair.panic_result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
		return;
	}
	restart_pair.icr_at_init = icr_writes();
	restart_pair.init_result = harness_restart(&h);
}

/* docs/api.md, pl011_write_panic: "PL011_ESHUTDOWN when the port was never started, has
 * been shut down, or a shutdown on another core has taken TX"; and pl011_restart of a running
 * port with a panic write is safe. A panic that passed its state check just before a restart
 * on the other core, and looks at TX once the restart has stopped the port, is refused: it
 * writes nothing into the port being programmed. */
static void test_panic_during_a_restart_on_the_other_core_is_refused(void **state)
{
	(void)state;
	start_port(16u, PL011_TX_HALF_FIFO, false);
	memset(&restart_pair, 0, sizeof restart_pair);
	run_directed(restart_director, restart_pair_body);
	print_message("panic during a restart on the other core: %d (init %d)\n",
		      restart_pair.panic_result, restart_pair.init_result);
	assert_true(restart_pair.resumed);
	assert_int_equal(restart_pair.init_result, 0);
	assert_int_equal(restart_pair.panic_result, PL011_ESHUTDOWN);
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	uint8_t wire[16];
	assert_int_equal(harness_wire(&h, wire, sizeof wire), 2u);
	assert_memory_equal(wire, "ok", 2u);
	harness_teardown(&h);
}

/* ---- a panic beside an owner that resumes in the middle of a burst ---- */

static struct {
	unsigned stop_at; /* core 0 stops at its stop_at-th point owning TX */
	unsigned owned_points;
	bool stopped, panic_started, panic_switched, first_panic_byte;
	uint64_t panic_dr, panic_reads;
	int panic_result;
} burst_pair;

static void burst_director(void *context)
{
	(void)context;
	if (cores_current() == 0) {
		if (!burst_pair.stopped && (h.uart.tx.owner & 1u) != 0 &&
		    ++burst_pair.owned_points == burst_pair.stop_at) {
			burst_pair.stopped = true;
			cores_yield();
		}
		return;
	}
	if (!burst_pair.panic_started || burst_pair.panic_switched)
		return;
	/* Core 1 beside the stopped owner: once its first byte is in and it has read FR for the
	 * second, the owner resumes before that byte's DR write. */
	if (!burst_pair.first_panic_byte && dr_writes() == burst_pair.panic_dr + 1u) {
		burst_pair.first_panic_byte = true;
		burst_pair.panic_reads = register_reads();
	} else if (burst_pair.first_panic_byte && register_reads() > burst_pair.panic_reads) {
		burst_pair.panic_switched = true;
		cores_yield();
	}
}

static void burst_pair_body(int core, void *context)
{
	(void)context;
	static const char text[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN";
	if (core == 0) {
		(void)pl011_write(&h.uart, text, sizeof text - 1u, PL011_NO_WAIT);
		return;
	}
	burst_pair.panic_dr = dr_writes();
	burst_pair.panic_started = true;
	burst_pair.panic_result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
}

/* lib/pl011_tx_owner.h, TX_BESIDE_CHARS: what the owner writes without FR leaves room for the
 * characters of panics beside it; docs/api.md: beside a stopped owner a panic "still loses nothing". The owner on core 0 stops at
 * each of its first points owning TX in turn; the panic on core 1 waits for it, writes beside
 * it, and between the FR read that showed its second byte room and the DR write the owner
 * resumes its burst: no character overflows, and all 40 + 5 reach the wire. */
static void test_owner_burst_resumed_beside_a_panic_never_overflows_the_fifo(void **state)
{
	(void)state;
	for (unsigned stop_at = 1; stop_at <= 8u; stop_at++) {
		start_port(16u, PL011_TX_HALF_FIFO, false);
		memset(&burst_pair, 0, sizeof burst_pair);
		burst_pair.stop_at = stop_at;
		run_directed(burst_director, burst_pair_body);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		uint64_t overflows = pl011_model_counters(h.model)->tx_overflows;
		if (overflows != 0 || burst_pair.panic_result != (int)PANIC_LEN)
			print_message("owner stopped at its point %u: panic %d, %llu overflows\n",
				      stop_at, burst_pair.panic_result,
				      (unsigned long long)overflows);
		assert_true(burst_pair.stopped);
		assert_int_equal(overflows, 0);
		assert_int_equal(burst_pair.panic_result, (int)PANIC_LEN);
		assert_int_equal(pl011_model_wire_len(h.model), 40u + PANIC_LEN);
		harness_teardown(&h);
	}
}

/* ---- shutdown beside a panic beside a stopped owner ---- */

static struct {
	bool writing, panic_delivered, switched, resumed;
	uint64_t reads_in_panic, shutdown_start_ns, resume_ns;
	unsigned points_after_read;
	int panic_result, shutdown_result;
} stop_pair;

static uint32_t current_core(void *context)
{
	(void)context;
	return (uint32_t)cores_current();
}

static void panic_over_the_owner(void *context)
{
	(void)context;
	stop_pair.reads_in_panic = register_reads();
	stop_pair.panic_result = pl011_write_panic(&h.uart, panic_text, 1u);
}

static void stop_director(void *context)
{
	(void)context;
	if (cores_current() == 0) {
		if (stop_pair.writing && !stop_pair.panic_delivered &&
		    (h.uart.tx.owner & 1u) != 0 && !pl011_model_in_irq(h.model)) {
			/* The owner preempted by a panic on its own core (beside it at once). */
			stop_pair.panic_delivered = true;
			pl011_model_run_as_irq(h.model, panic_over_the_owner, NULL);
		} else if (stop_pair.panic_delivered && !stop_pair.switched &&
			   pl011_model_in_irq(h.model) && h.uart.tx.beside != 0 &&
			   register_reads() > stop_pair.reads_in_panic &&
			   ++stop_pair.points_after_read == 2u) {
			/* Beside, it read FR and saw the FIFO empty, then looked at the owner word
			 * (not stopped yet): core 0 stops before its DR write. */
			stop_pair.switched = true;
			cores_yield();
		}
		return;
	}
	if (stop_pair.switched && !stop_pair.resumed &&
	    pl011_model_now_ns(h.model) >= stop_pair.resume_ns) {
		stop_pair.resumed = true;
		cores_yield();
	}
}

static void stop_pair_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		stop_pair.writing = true;
		(void)pl011_write(&h.uart, "abcdefgh", 8u, PL011_NO_WAIT);
		stop_pair.writing = false;
		return;
	}
	while (!stop_pair.switched)
		cores_yield();
	/* Shutdown's two waits for the owner run out (2 x (2 frames + 1 ms)); core 0 resumes
	 * half a millisecond into the wait for the panic beside it. */
	stop_pair.shutdown_start_ns = pl011_model_now_ns(h.model);
	stop_pair.resume_ns =
	    stop_pair.shutdown_start_ns + 2u * (frames_ns(2u) + 1000000u) + 500000u;
	stop_pair.shutdown_result = pl011_shutdown(&h.uart, PL011_NO_WAIT);
}

/* lib/pl011_tx.c, beside_cut_off: a panic beside the owner stops "where shutdown ... has taken
 * TX (STOPPED): both wait for tx.beside to drop, so every byte counted here goes before the
 * UART is disabled"; docs/api.md: each byte a panic returns "leaves the UART". The owner on
 * core 0 is preempted by a panic on its own core, which core 0 then stops between its look at
 * STOPPED (clear) and its DR write; shutdown on core 1 waits out the owner twice, then waits
 * for the panic beside it with a wait of its own: core 0, resumed half a millisecond into that
 * wait, gets its byte out before the UART is disabled. */
static void test_shutdown_waits_for_a_panic_beside_with_a_wait_of_its_own(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16u);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.core_id = current_core;
	assert_int_equal(harness_start(&h), 0);
	memset(&stop_pair, 0, sizeof stop_pair);
	run_directed(stop_director, stop_pair_body);
	size_t wire = pl011_model_wire_len(h.model);
	size_t panic_bytes = 0;
	for (size_t i = 0; i < wire; i++)
		panic_bytes += pl011_model_wire_byte(h.model, i) == 'P';
	print_message(
	    "shutdown beside a panic beside a stopped owner: panic %d, %zu of it on the "
	    "wire, shutdown %d after %llu us\n",
	    stop_pair.panic_result, panic_bytes, stop_pair.shutdown_result,
	    (unsigned long long)((pl011_model_now_ns(h.model) - stop_pair.shutdown_start_ns) /
				 1000u));
	assert_true(stop_pair.resumed);
	assert_int_equal(stop_pair.panic_result, 1);
	assert_int_equal(panic_bytes, 1u);
	harness_teardown(&h);
}

/* ---- a panic that preempts the TX interrupt between its MIS read and its refill ---- */

static struct {
	uint64_t dispatch, mis_reads;
	bool armed, delivered;
	int result;
} handler_panic;

static void stalled_panic(void *context)
{
	(void)context;
	pl011_model_set_tx_stalled(h.model, true);
	handler_panic.result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
	pl011_model_set_tx_stalled(h.model, false);
}

static void deliver_panic_after_mis_read(void *context)
{
	(void)context;
	const struct pl011_model_counters *counters = pl011_model_counters(h.model);
	if (handler_panic.delivered || !pl011_model_in_irq(h.model) ||
	    counters->irq_dispatches != handler_panic.dispatch)
		return;
	if (!handler_panic.armed) {
		handler_panic.armed = true;
		handler_panic.mis_reads = counters->reads[PL011_MIS / 4u];
	} else if (counters->reads[PL011_MIS / 4u] > handler_panic.mis_reads) {
		handler_panic.delivered = true;
		pl011_model_run_as_irq(h.model, stalled_panic, NULL);
	}
}

/* docs/api.md, pl011_write_panic: "Context: any ... any interrupt (including one that
 * preempted another pl011 call ...)", and pl011_write with the interrupt handler and a panic
 * write is safe: every accepted byte reaches the wire once. lib/pl011_tx.c: a polling owner's
 * "writes void the next interrupt refill's blind count". The second TX interrupt is preempted
 * after its MIS read by a panic that, the line stalled, fills the FIFO by polling and runs
 * out of time: the refill that follows must not write its blind count into a full FIFO. */
static void test_refill_after_a_panic_preempted_the_handler_never_overflows(void **state)
{
	(void)state;
	static uint8_t text[100];
	harness_fill_random(text, sizeof text, 11u);
	start_port(16u, PL011_TX_HALF_FIFO, false);
	memset(&handler_panic, 0, sizeof handler_panic);
	handler_panic.dispatch = pl011_model_counters(h.model)->irq_dispatches + 2u;
	pl011_model_set_preempt_hook(deliver_panic_after_mis_read, NULL);
	assert_int_equal(pl011_write(&h.uart, text, sizeof text, PL011_NO_WAIT), (int)sizeof text);
	/* The panic's stalled line comes out of the flush's bound: a second of its own. */
	assert_int_equal(pl011_flush(&h.uart, 1000000u, NULL), 0);
	pl011_model_set_preempt_hook(NULL, NULL);
	uint64_t overflows = pl011_model_counters(h.model)->tx_overflows;
	print_message("refill after a panic in the TX interrupt: panic %d, %llu overflows, %zu on "
		      "the wire\n",
		      handler_panic.result, (unsigned long long)overflows,
		      pl011_model_wire_len(h.model));
	assert_true(handler_panic.delivered);
	assert_true(handler_panic.result >= 0);
	assert_int_equal(overflows, 0);
	assert_int_equal(pl011_model_wire_len(h.model), sizeof text + (size_t)handler_panic.result);
	harness_teardown(&h);
}

/* ---- a restart while an RX handler on the other core is stuck in its callback ---- */

#define STUCK_FIRST 4u
#define STUCK_LATER 8u

static struct {
	bool callback_entered, init_done;
	size_t available;
	int init_result;
} stuck;

static void stuck_callback(struct pl011 *uart, uint32_t events, void *context)
{
	(void)events;
	(void)context;
	stuck.available = (size_t)pl011_rx_available(uart);
	stuck.callback_entered = true;
	while (!stuck.init_done)
		cores_yield();
}

static void stuck_body(int core, void *context)
{
	(void)context;
	if (core == 1) {
		while (!stuck.callback_entered) {
			if (pl011_model_irq_line(h.model))
				pl011_irq_handler(&h.uart);
			else
				pl011_model_advance(h.model, 500u);
		}
		return;
	}
	while (!stuck.callback_entered)
		cores_yield();
	static const uint8_t later[STUCK_LATER] = {'4', '5', '6', '7', '8', '9', 'a', 'b'};
	uint64_t last =
	    pl011_model_rx_inject_stream(h.model, later, STUCK_LATER, pl011_model_now_ns(h.model));
	pl011_model_advance_to(h.model, last + 1000u);
	stuck.init_result = harness_restart(&h);
	stuck.init_done = true;
}

/* The cores switch only where the bodies yield. */
static void no_switch(void *context)
{
	(void)context;
}

/* docs/api.md, two cores: pl011_restart of a running port waits "for a handler already
 * running on another core to return before they touch the RX FIFO or the rings, so every
 * received byte is in the (new) ring once and in order, or counted in stats.rx_discarded";
 * pl011_restart: "PL011_ESTALLED when such a handler did not return within that bound ...: the
 * port is then stopped as by pl011_shutdown, its rings and counters left as they are, and
 * pl011_init may be called again once the handler returned". A restart beside a handler
 * stuck in its RX callback (4 bytes sent, the handler took the first ones), 8 more sent
 * meanwhile: what the callback was told of stays in the ring, and the FIFO's bytes are
 * counted as discarded, not as delivered. */
static void test_restart_beside_a_stuck_rx_handler_loses_no_received_byte(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16u);
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.event_mask = PL011_EVENT_RX_DATA;
	h.config.event = stuck_callback;
	h.config.event_driver = &pl011_event_driver;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_irq_handler(h.model, NULL, NULL);
	memset(&stuck, 0, sizeof stuck);
	static const uint8_t first[STUCK_FIRST] = {'0', '1', '2', '3'};
	(void)pl011_model_rx_inject_stream(h.model, first, STUCK_FIRST,
					   pl011_model_now_ns(h.model));
	run_directed(no_switch, stuck_body);
	assert_int_equal(stuck.init_result, PL011_ESTALLED);
	/* Stopped with its rings and counters as they are: the ring holds what the callback was
	 * told (nobody read it), and the FIFO's bytes are counted as discarded. */
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	print_message("restart beside a stuck RX handler: %zu in the ring, %u delivered, %u "
		      "discarded, of %u\n",
		      stuck.available, stats.rx_bytes, stats.rx_discarded,
		      STUCK_FIRST + STUCK_LATER);
	assert_true(stuck.available >= 1u);
	assert_int_equal(stats.rx_bytes, stuck.available);
	assert_int_equal(stats.rx_bytes + stats.rx_discarded, STUCK_FIRST + STUCK_LATER);
	harness_teardown(&h);
}

/* ---- a panic draining a long ring on an instant line, shutdown on the other core ---- */

#define DRAIN_RING 65536u

static uint8_t drain_ring_storage[DRAIN_RING];
static uint8_t drain_text[DRAIN_RING + 64u];

static struct {
	bool panic_started, switched;
	uint64_t dr_at_call;
	int panic_result, shutdown_result;
} drain_pair;

static void drain_director(void *context)
{
	(void)context;
	if (!drain_pair.switched) {
		if (cores_current() == 0 && drain_pair.panic_started &&
		    dr_writes() >= drain_pair.dr_at_call + 100u) {
			drain_pair.switched = true;
			cores_yield();
		}
		return;
	}
	cores_yield(); /* from then on the cores alternate at every point */
}

static void drain_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		drain_pair.dr_at_call = dr_writes();
		drain_pair.panic_started = true;
		drain_pair.panic_result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
		return;
	}
	drain_pair.shutdown_result = pl011_shutdown(&h.uart, PL011_NO_WAIT);
}

/* docs/api.md, pl011_shutdown with a panic write on another core: "every accepted byte is
 * on the wire once or counted in stats.tx_discarded, never both"; pl011_write_panic: "once a
 * shutdown begins on another core it stops at its next burst ... even on a line as fast as
 * the CPU". A panic that owns TX drains a 64 KiB ring on such a line when shutdown begins on
 * the other core (the two then alternate at every point): shutdown takes TX within its waits
 * and counts exactly what was not sent. */
static void test_shutdown_beside_a_panic_draining_a_long_ring_counts_each_byte_once(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof drain_text; i++)
		drain_text[i] = (uint8_t)('a' + i % 26u);
	harness_setup_instant_line(&h, 16u);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.tx_buffer = drain_ring_storage;
	h.config.tx_buffer_size = sizeof drain_ring_storage;
	assert_int_equal(harness_start(&h), 0);
	/* Queue the ring full with the line stalled; no TX interrupt will take it. */
	pl011_model_set_tx_irq_broken(h.model, true);
	pl011_model_set_tx_stalled(h.model, true);
	int accepted = pl011_write(&h.uart, drain_text, sizeof drain_text, PL011_NO_WAIT);
	pl011_model_set_tx_stalled(h.model, false);
	memset(&drain_pair, 0, sizeof drain_pair);
	run_directed(drain_director, drain_body);
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	size_t wire = pl011_model_wire_len(h.model);
	size_t panic_bytes = 0;
	for (size_t i = 0; i < wire; i++)
		panic_bytes += pl011_model_wire_byte(h.model, i) < 'a';
	print_message(
	    "shutdown beside a panic draining %d bytes: panic %d, shutdown %d, %zu on the "
	    "wire, %u discarded\n",
	    accepted, drain_pair.panic_result, drain_pair.shutdown_result, wire,
	    stats.tx_discarded);
	assert_true(drain_pair.switched);
	assert_true(drain_pair.panic_result >= 0);
	assert_int_equal(panic_bytes, (size_t)drain_pair.panic_result);
	assert_int_equal(wire - panic_bytes + stats.tx_discarded, (size_t)accepted);
	harness_teardown(&h);
}

/* ---- a panic beside an owner that let go, and a line switch on the other core ---- */

/* lib/pl011_tx.c's TX_PANIC_WAITS: set in the owner word while a panic waits for TX in the
 * ring modes, cleared when it gives up waiting (the scenario's clock: the panic's next point
 * is its first beside the owner). */
#define OWNER_PANIC_WAITS 64u

static struct {
	bool writer_stopped, waits_seen, switched, back;
	unsigned points_beside, halt_at;
	uint64_t cr_writes;
	int panic_result, line_result;
} switch_pair;

static uint64_t cr_writes(void)
{
	return pl011_model_counters(h.model)->writes[PL011_CR / 4u];
}

static void switch_director(void *context)
{
	(void)context;
	if (cores_current() == 1) {
		if (!switch_pair.writer_stopped && (h.uart.tx.owner & 1u) != 0 &&
		    dr_writes() == 4u) {
			/* The writer's four bytes are in; it stops owning TX. */
			switch_pair.writer_stopped = true;
			cores_yield();
		} else if (switch_pair.switched && !switch_pair.back &&
			   cr_writes() > switch_pair.cr_writes) {
			/* The switch has disabled the UART: the panic goes on. */
			switch_pair.back = true;
			cores_yield();
		}
		return;
	}
	if (switch_pair.switched)
		return;
	bool waits = (h.uart.tx.owner & OWNER_PANIC_WAITS) != 0;
	if (waits)
		switch_pair.waits_seen = true;
	else if (switch_pair.waits_seen && ++switch_pair.points_beside == switch_pair.halt_at) {
		/* Its halt_at'th point beside the owner: 2, it announced itself and has yet to
		 * look at the owner word; then its FR read, its look before the byte, the byte. */
		switch_pair.switched = true;
		cores_yield();
	}
}

static void switch_pair_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		while (!switch_pair.writer_stopped)
			cores_yield();
		switch_pair.panic_result = pl011_write_panic(&h.uart, panic_text, PANIC_LEN);
		return;
	}
	switch_pair.cr_writes = cr_writes();
	(void)pl011_write(&h.uart, "abcd", 4u, PL011_NO_WAIT);
	const struct pl011_line_config line = {
	    .baud = 57600, .data_bits = 8, .stop_bits = 1, .parity = PL011_PARITY_NONE};
	switch_pair.line_result = pl011_set_line(&h.uart, &line, 100000u);
}

/* docs/api.md, pl011_set_line: "pl011_write_panic during the switch returns
 * PL011_ESHUTDOWN without writing (as during a shutdown), before or after it writes
 * normally", and a panic beside the owner that does not finish within the hold's wait makes
 * it PL011_ETIMEDOUT with nothing changed (docs/shutdown.md, known limit 3: the switch's FIFO
 * flush dropped a byte the panic counted). A panic on core 0 waits for the writer on core 1
 * and gives up; core 0 stops at its 2nd to 7th point beside the owner (announced; its look
 * at STOPPED; its place to write; its FR read; its look before the byte; its DR write; its
 * place given back) while core 1 lets go and
 * switches the line, and resumes once the switch disabled the UART (or gave up): no byte the
 * panic counts is flushed or lost, and the switch either refused the panic or did not happen. */
static void test_panic_beside_a_line_switch_never_has_a_byte_flushed(void **state)
{
	(void)state;
	for (unsigned halt_at = 2; halt_at <= 7u; halt_at++) {
		start_port(16u, PL011_TX_HALF_FIFO, false);
		memset(&switch_pair, 0, sizeof switch_pair);
		switch_pair.halt_at = halt_at;
		run_directed(switch_director, switch_pair_body);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		print_message("panic beside a line switch, stopped at its point %u: %d, switch %d, "
			      "%zu on the wire, %llu flushed by FEN\n",
			      halt_at, switch_pair.panic_result, switch_pair.line_result,
			      pl011_model_wire_len(h.model),
			      (unsigned long long)pl011_model_counters(h.model)->tx_fen_flushed);
		assert_true(switch_pair.switched);
		size_t panic_bytes =
		    switch_pair.panic_result > 0 ? (size_t)switch_pair.panic_result : 0u;
		assert_int_equal(pl011_model_counters(h.model)->tx_fen_flushed, 0);
		assert_int_equal(pl011_model_wire_len(h.model), 4u + panic_bytes);
		if (switch_pair.line_result == 0)
			assert_true(switch_pair.panic_result == PL011_ESHUTDOWN ||
				    switch_pair.panic_result == 0);
		else
			assert_int_equal(switch_pair.line_result, PL011_ETIMEDOUT);
		harness_teardown(&h);
	}
}

/* ---- shutdown beside an owner stopped in its pass, which resumes before the disable ---- */

#define SMALL_RING 64u
#define PRIME_BYTES (16u + 60u) /* a FIFO's worth, then ring positions 0..59 */
#define WRAP_BYTES (16u + 44u)	/* a FIFO's worth, then ring positions 60..63 and 0..39 */

static uint8_t small_ring[SMALL_RING];
static uint8_t wrap_stream[PRIME_BYTES + WRAP_BYTES];

static struct {
	bool owning, stopped, resumed;
	uint64_t reads_at_take;
	unsigned points_after_read;
	uint64_t resume_ns;
	int shutdown_result;
} stuck_owner;

static void stuck_owner_director(void *context)
{
	(void)context;
	if (cores_current() == 0) {
		if (stuck_owner.stopped || !pl011_model_in_irq(h.model) ||
		    (h.uart.tx.owner & 1u) == 0)
			return;
		if (!stuck_owner.owning) {
			stuck_owner.owning = true;
			stuck_owner.reads_at_take = register_reads();
		} else if (register_reads() > stuck_owner.reads_at_take &&
			   ++stuck_owner.points_after_read == 2u) {
			/* The refill read FR and looked for a panic beside it: its next point is
			 * its first DR write. Its core stops here, the line with it. */
			stuck_owner.stopped = true;
			pl011_model_set_tx_stalled(h.model, true);
			cores_yield();
		}
		return;
	}
	if (stuck_owner.stopped && !stuck_owner.resumed &&
	    pl011_model_now_ns(h.model) >= stuck_owner.resume_ns) {
		stuck_owner.resumed = true;
		pl011_model_set_tx_stalled(h.model, false);
		cores_yield();
	}
}

static void handler_on_core(void *context)
{
	pl011_irq_handler(context);
}

static void stuck_owner_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		while (!pl011_model_irq_line(h.model))
			pl011_model_advance(h.model, 500u);
		pl011_model_run_as_irq(h.model, handler_on_core, &h.uart);
		return;
	}
	while (!stuck_owner.stopped)
		cores_yield();
	/* Both of shutdown's waits for the owner run out (2 x (2 frames + 1 ms)); the owner's
	 * core resumes 300 us into the wait for the FIFO to drain, before the disable. */
	stuck_owner.resume_ns =
	    pl011_model_now_ns(h.model) + 2u * (frames_ns(2u) + 1000000u) + 300000u;
	stuck_owner.shutdown_result = pl011_shutdown(&h.uart, PL011_NO_WAIT);
}

/* docs/api.md, two cores: "Only an owner stopped for both waits keeps the ring, which is
 * counted as discarded without being consumed; if that core resumes, it finishes the pass it
 * was in (at most 2 x depth characters) and lets go: those characters ... may only reach the
 * wire (counted too) if it resumes before the disable". The TX interrupt's refill on core 0
 * stops before its first DR write, its pass about to cross the end of a 64-byte ring; shutdown
 * on core 1 waits it out twice; the owner resumes before the disable: what reaches the wire is
 * the accepted bytes in order, each once (the pass goes on with the ring's next bytes). */
static void test_owner_resumed_after_shutdown_counted_its_ring_sends_the_next_bytes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof wrap_stream; i++)
		wrap_stream[i] = (uint8_t)(' ' + i % 95u);
	harness_setup(&h, 48000000u, 16u);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.tx_buffer = small_ring;
	h.config.tx_buffer_size = sizeof small_ring;
	assert_int_equal(harness_start(&h), 0);
	/* With the line stalled an idle write fills the FIFO and queues the rest from ring
	 * position 0: after the first, the ring's next byte goes to position 60. */
	pl011_model_set_tx_stalled(h.model, true);
	assert_int_equal(pl011_write(&h.uart, wrap_stream, PRIME_BYTES, PL011_NO_WAIT),
			 (int)PRIME_BYTES);
	pl011_model_set_tx_stalled(h.model, false);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	pl011_model_set_tx_stalled(h.model, true);
	assert_int_equal(pl011_write(&h.uart, wrap_stream + PRIME_BYTES, WRAP_BYTES, PL011_NO_WAIT),
			 (int)WRAP_BYTES);
	pl011_model_set_irq_handler(h.model, NULL, NULL);
	pl011_model_set_tx_stalled(h.model, false);
	memset(&stuck_owner, 0, sizeof stuck_owner);
	run_directed(stuck_owner_director, stuck_owner_body);
	size_t wire = pl011_model_wire_len(h.model);
	size_t in_order = 0;
	while (in_order < wire && pl011_model_wire_byte(h.model, in_order) == wrap_stream[in_order])
		in_order++;
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	print_message("owner resumed after shutdown counted its ring: %zu on the wire, the first "
		      "%zu in order; shutdown %d, %u discarded\n",
		      wire, in_order, stuck_owner.shutdown_result, stats.tx_discarded);
	assert_true(stuck_owner.resumed);
	assert_true(wire > PRIME_BYTES + 16u);
	assert_int_equal(in_order, wire);
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
	    HARNESS_TEST(test_writer_queues_while_a_panic_sends_its_data_and_follows_it, &h),
	    HARNESS_TEST(test_writer_queues_nothing_during_a_panics_last_pass, &h),
	    HARNESS_TEST(test_polled_writer_lets_a_panic_in_at_its_next_byte, &h),
	    HARNESS_TEST(test_polled_writer_never_takes_tx_back_over_a_waiting_panic, &h),
	    HARNESS_TEST(test_a_panic_over_a_panic_beside_the_owner_takes_the_second_place, &h),
	    HARNESS_TEST(test_write_after_a_panic_took_tx_from_a_waited_owner_keeps_its_bound, &h),
	    HARNESS_TEST(test_write_auto_waits_the_backlog_deadline_of_queued_and_len, &h),
	    HARNESS_TEST(test_panic_during_a_restart_on_the_other_core_is_refused, &h),
	    HARNESS_TEST(test_owner_burst_resumed_beside_a_panic_never_overflows_the_fifo, &h),
	    HARNESS_TEST(test_shutdown_waits_for_a_panic_beside_with_a_wait_of_its_own, &h),
	    HARNESS_TEST(test_refill_after_a_panic_preempted_the_handler_never_overflows, &h),
	    HARNESS_TEST(test_restart_beside_a_stuck_rx_handler_loses_no_received_byte, &h),
	    HARNESS_TEST(test_shutdown_beside_a_panic_draining_a_long_ring_counts_each_byte_once,
			 &h),
	    HARNESS_TEST(test_panic_beside_a_line_switch_never_has_a_byte_flushed, &h),
	    HARNESS_TEST(test_owner_resumed_after_shutdown_counted_its_ring_sends_the_next_bytes,
			 &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
