/* TX ownership on two cores: schedules that put the other core in each promise's window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "harness.h"
#include "invariants.h"
#include "pl011_regs.h"

static struct harness h;

/* ---- a scripted schedule: "when core c passes its point p, hand the CPU to the other" ---- */

#define SCRIPT_STEPS 4u

struct script_step {
	int core;
	uint64_t point;
};

static struct script_step script[SCRIPT_STEPS];
static size_t script_length, script_next;

static uint32_t core_of_caller(void *context)
{
	(void)context;
	return (uint32_t)cores_current();
}

static bool handler_is_parked(void);

/* A waiting core's step: time passes for the line while the other core is parked by the
 * script (stalled there), else the CPU goes to the other core (cores_idle_step). */
static void two_core_wait_step(void *context)
{
	if (cores_current() == 0 && handler_is_parked())
		pl011_model_advance(context, 200u);
	else
		cores_idle_step(context, 200u);
}

/* ---- the port: a ring mode at 3 Mbaud, the core number in the owner word ---- */

#define LINE_BAUD 3000000u
#define FIRST_BYTES 96u
#define SECOND_BYTES 24u

static uint8_t first_data[FIRST_BYTES], second_data[SECOND_BYTES];

static void start_port(enum pl011_tx_mode mode, unsigned depth)
{
	harness_setup(&h, 48000000u, depth);
	h.config.baud = LINE_BAUD;
	h.config.tx_mode = mode;
	h.config.core_id = core_of_caller;
	h.config.wait_hook = two_core_wait_step;
	h.config.wait_context = h.model;
	assert_int_equal(harness_start(&h), 0);
	for (size_t i = 0; i < FIRST_BYTES; i++)
		first_data[i] = (uint8_t)(0x10u + i);
	for (size_t i = 0; i < SECOND_BYTES; i++)
		second_data[i] = (uint8_t)(0x80u + i);
}

/*
 * What both writers were promised once their calls returned: every accepted byte reaches the
 * wire, each writer's in its order, with nobody calling the driver again (the interrupt alone
 * takes the ring). Returns NULL or what broke.
 */
static const char *wire_has_both(int first_accepted, int second_accepted)
{
	static char text[160];
	size_t total = (size_t)first_accepted + (size_t)second_accepted;
	pl011_model_advance(h.model, (total + 64u) * pl011_model_frame_ns(h.model) * 4u);
	uint8_t wire[FIRST_BYTES + SECOND_BYTES + 8u];
	size_t len = harness_wire(&h, wire, sizeof wire);
	if (len != total) {
		snprintf(text, sizeof text,
			 "%zu of %zu accepted bytes on the wire, %zu left queued", len, total,
			 harness_tx_backlog(&h.uart));
		return text;
	}
	size_t next_first = 0, next_second = 0;
	for (size_t i = 0; i < len; i++) {
		if (next_first < (size_t)first_accepted && wire[i] == first_data[next_first])
			next_first++;
		else if (next_second < (size_t)second_accepted &&
			 wire[i] == second_data[next_second])
			next_second++;
		else {
			snprintf(text, sizeof text,
				 "wire byte %zu (0x%02x) out of its writer's order", i, wire[i]);
			return text;
		}
	}
	return NULL;
}

/* ---- the writer on core 0, the UART's interrupt on core 1 (a pair pl011.h allows) ---- */

#define HOLD_LIMIT_NS 200000u
/* Handler calls in a row that return with the line still up: a handler that defers to an
 * owner must clear TXIS first (docs/design.md), so it returns with the line down. */
#define REENTRY_LIMIT 1u
#define SERVE_LIMIT_NS 3000000u

static int first_result, second_result;
static bool hold_core0, second_go, second_wanted, flush_wanted, park_handler;
static bool handler_parked;
static uint64_t hold_since_ns;
static unsigned reentries;
static bool storm_seen;
/* docs/design.md's invariants at every point of the schedule (invariants.h). "Sure to come"
 * is relaxed (writer_inside) while core 0 is in pl011_write (it may have queued and not yet
 * looked at the owner word) and while core 1 is in the handler (after its ICR it asks for TX
 * itself: the window the deferral's tx_own_or_request closes). */
static struct invariants invariants;
static const char *invariant_broken;
static bool writer_inside, handler_inside;

static bool port_drained(void)
{
	return harness_tx_backlog(&h.uart) == 0 && pl011_model_tx_level(h.model) == 0 &&
	       !pl011_model_tx_shifting(h.model);
}

/* Core 1 takes the interrupt whenever the line is up. While it holds core 0 (core 0 stalled
 * at a point of the script: a cache miss, a longer interrupt of its own), time passes for the
 * line, so the FIFO drains under a parked owner. */
static void interrupt_core(void)
{
	uint64_t start_ns = pl011_model_now_ns(h.model);
	for (;;) {
		if (pl011_model_irq_line(h.model)) {
			handler_inside = true;
			pl011_irq_handler(&h.uart);
			handler_inside = false;
			if (!pl011_model_irq_line(h.model)) {
				reentries = 0;
			} else if (++reentries > REENTRY_LIMIT) {
				/* Called straight back while core 0 holds TX: let core 0 go on so
				 * that the run ends, and report it. */
				storm_seen = true;
				reentries = 0;
				hold_core0 = false;
				cores_yield();
			}
			continue;
		}
		if (cores_finished(0) && port_drained())
			return;
		if (pl011_model_now_ns(h.model) - start_ns > SERVE_LIMIT_NS)
			return;
		if (hold_core0 && !cores_finished(0) &&
		    pl011_model_now_ns(h.model) - hold_since_ns < HOLD_LIMIT_NS) {
			pl011_model_advance(h.model, 250u);
			continue;
		}
		hold_core0 = false;
		cores_idle_step(h.model, 250u);
	}
}

static bool handler_is_parked(void)
{
	if (!handler_parked)
		return false;
	/* Parked until the stall guard on core 0 has made its pass (or a bound ran out). */
	struct pl011_stats stats;
	pl011_get_stats(&h.uart, &stats);
	if (stats.tx_stalls != 0 || pl011_model_now_ns(h.model) - hold_since_ns > HOLD_LIMIT_NS)
		handler_parked = false;
	return handler_parked;
}

static void writer_core(void)
{
	writer_inside = true;
	first_result = pl011_write(&h.uart, first_data, FIRST_BYTES, 0);
	writer_inside = false;
	if (flush_wanted) {
		int flushed = pl011_flush(&h.uart, 20000u, NULL);
		if (flushed != 0)
			first_result = flushed;
		return;
	}
	if (!second_wanted)
		return;
	while (!second_go && !cores_finished(1))
		cores_idle_step(h.model, 250u);
	writer_inside = true;
	second_result = pl011_write(&h.uart, second_data, SECOND_BYTES, 0);
	writer_inside = false;
}

static void writer_and_interrupt_body(int core, void *context)
{
	(void)context;
	if (core == 0)
		writer_core();
	else
		interrupt_core();
}

/* The script's hand-overs with their side effects: core 0 parked at its point k (core 1
 * holds it while the line drains), core 1 handing back at its point j, or letting core 0
 * make its second write there. */
static void schedule_point(void *unused)
{
	(void)unused;
	invariants.writer_inside = writer_inside || handler_inside;
	const char *broken = invariants_check_point(&invariants, &h, cores_current(), 0);
	/* Between the deferring handler's ICR and its tx_own_or_request, an owner that let go
	 * leaves TXIM armed with the cause just cleared: the handler itself then takes TX and
	 * polls (pl011_tx_service_irq), so "sure to come" is its own next step. The check is the
	 * last invariants_check_point makes: nothing else is skipped with it. */
	if (broken != NULL && handler_inside && strncmp(broken, "TXIM armed over", 15) == 0)
		broken = NULL;
	if (invariant_broken == NULL)
		invariant_broken = broken;
	if (script_next >= script_length)
		return;
	int core = cores_current();
	if (script[script_next].core != core || cores_points(core) != script[script_next].point)
		return;
	script_next++;
	if (core == 1 && park_handler) {
		/* Core 1 stalls inside the handler; core 0 runs (and time passes for its waits). */
		handler_parked = true;
		hold_since_ns = pl011_model_now_ns(h.model);
	} else if (core == 0) {
		hold_core0 = true;
		hold_since_ns = pl011_model_now_ns(h.model);
	} else {
		hold_core0 = false;
		second_go = true;
	}
	cores_yield();
}

static void run_schedule(void)
{
	struct cores_plan plan = {
	    .switch_one_in = 0,
	    .first_slice = UINT64_MAX,
	    .slice = UINT64_MAX,
	    .at_point = schedule_point,
	};
	script_next = 0;
	hold_core0 = second_go = handler_parked = storm_seen = false;
	reentries = 0;
	first_result = second_result = 0;
	invariants_reset(&invariants);
	invariants.ring_storage = h.tx_storage;
	writer_inside = handler_inside = false;
	invariant_broken = NULL;
	pl011_model_set_irq_handler(h.model, NULL, NULL);
	cores_run(&plan, writer_and_interrupt_body, NULL);
	harness_route_irq(&h);
}

static const char *check_schedule(void)
{
	if (first_result < 0 || second_result < 0)
		return "a write failed";
	if (invariant_broken != NULL)
		return invariant_broken;
	if (storm_seen)
		return "the handler returned with TXIS standing twice in a row";
	return wire_has_both(first_result, second_result);
}

/* Sweep k over core 0's points and j over core 1's first points: returns the failing runs. */
static unsigned sweep_parked_owner(enum pl011_tx_mode mode, unsigned depth, uint64_t inner_max)
{
	unsigned failures = 0;
	second_wanted = false;
	start_port(mode, depth);
	script_length = 0;
	run_schedule();
	uint64_t points0 = cores_points(0);
	print_message("parked owner: core 0 passes %llu points\n", (unsigned long long)points0);
	harness_teardown(&h);
	for (uint64_t k = 1; k <= points0; k++) {
		for (uint64_t j = 1; j <= inner_max; j++) {
			start_port(mode, depth);
			script[0] = (struct script_step){0, k};
			script[1] = (struct script_step){1, j};
			script_length = 2;
			run_schedule();
			const char *broken = check_schedule();
			if (broken != NULL && failures++ < 5)
				print_message(
				    "mode %d depth %u: core 0 parked at %llu, core 1 for %llu "
				    "points: %s\n",
				    mode, depth, (unsigned long long)k, (unsigned long long)j,
				    broken);
			harness_teardown(&h);
		}
	}
	return failures;
}

/* Sweep j over core 1's points: the handler there lets core 0 make a second write. */
static unsigned sweep_second_write(enum pl011_tx_mode mode, unsigned depth)
{
	unsigned failures = 0;
	second_wanted = true;
	start_port(mode, depth);
	script_length = 0;
	run_schedule();
	uint64_t points1 = cores_points(1);
	print_message("second write: core 1 passes %llu points\n", (unsigned long long)points1);
	harness_teardown(&h);
	for (uint64_t j = 1; j <= points1; j++) {
		start_port(mode, depth);
		script[0] = (struct script_step){1, j};
		script_length = 1;
		run_schedule();
		const char *broken = check_schedule();
		if (broken != NULL && failures++ < 5)
			print_message("mode %d depth %u: second write at core 1's point %llu: %s\n",
				      mode, depth, (unsigned long long)j, broken);
		harness_teardown(&h);
	}
	second_wanted = false;
	return failures;
}

/* Sweep j over core 1's first handler: parked there while core 0's flush waits. */
static unsigned sweep_parked_handler(enum pl011_tx_mode mode, unsigned depth)
{
	unsigned failures = 0;
	flush_wanted = true;
	park_handler = true;
	start_port(mode, depth);
	script_length = 0;
	run_schedule();
	uint64_t points1 = cores_points(1);
	print_message("parked handler: core 1 passes %llu points\n", (unsigned long long)points1);
	harness_teardown(&h);
	for (uint64_t j = 1; j <= points1; j++) {
		start_port(mode, depth);
		script[0] = (struct script_step){1, j};
		script_length = 1;
		run_schedule();
		const char *broken = check_schedule();
		uint64_t overflows = pl011_model_counters(h.model)->tx_overflows;
		if (broken == NULL && overflows != 0)
			broken = "DR written with the FIFO full";
		if (broken != NULL && failures++ < 5)
			print_message("mode %d depth %u: handler parked at its point %llu: %s\n",
				      mode, depth, (unsigned long long)j, broken);
		harness_teardown(&h);
	}
	flush_wanted = false;
	park_handler = false;
	return failures;
}

/*
 * lib/pl011_tx.c, refill_until_full: "Its writes void the next interrupt refill's blind count"
 * (a blind count trusts the FIFO to be at the trigger, which a polling pass since the
 * interrupt's cause has made untrue); docs/api.md: every accepted byte leaves once, in
 * order. Core 1's handler is parked at each of its points in turn while core 0's flush waits;
 * the flush's stall guard then fills the FIFO itself, and the handler resumes into its refill.
 * No DR write may find the FIFO full, and all 96 bytes leave in order.
 */
static void test_a_polling_pass_voids_the_next_blind_refill(void **state)
{
	(void)state;
	unsigned failures = 0;
	failures += sweep_parked_handler(PL011_TX_HALF_FIFO, 16);
	assert_int_equal(failures, 0);
}

/*
 * docs/design.md, the ownership table: "owned (1,x,a) | a writer queued bytes, or TX interrupt |
 * that context | (1,1,a) | the handler first clears TXIS (ICR) so it does not re-enter; then
 * returns", and "Sure to come": "While the TX ring holds bytes and nobody owns TX, TXIM is
 * armed and a TX interrupt is sure to come". Core 0 writes 96 bytes to an idle port and is
 * parked at each of its points in turn while the line drains, so core 1's handler finds TX
 * owned, or finds it let go between its look and its request; core 0 resumes after each of
 * core 1's first 16 points. Every run: the handler returns with the line down, the invariants
 * hold at every point, and all 96 bytes leave in order with nobody calling the driver again.
 */
static void test_a_deferring_handler_clears_txis_and_the_ring_is_sent(void **state)
{
	(void)state;
	unsigned failures = 0;
	failures += sweep_parked_owner(PL011_TX_HALF_FIFO, 16, 16);
	assert_int_equal(failures, 0);
}

/*
 * docs/design.md: "owned (1,x,a) | a writer queued bytes ... | (1,1,a)" and "owned (1,1,a) | owner
 * wants to let go | owner | (1,0,a) | one more pass"; tx_kick: "With TXIM armed and nobody
 * owning TX the interrupt is sure to come and will find the bytes; otherwise prime the FIFO
 * ourselves, or leave one more pass to the owner." At each point of core 1's handler (the
 * owner, refilling from the ring), core 0 writes 24 more bytes without waiting: they must
 * all leave, after the first 96, with nobody calling the driver again.
 */
static void test_a_write_while_the_handler_owns_tx_is_sent_by_its_next_pass(void **state)
{
	(void)state;
	unsigned failures = 0;
	failures += sweep_second_write(PL011_TX_HALF_FIFO, 16);
	assert_int_equal(failures, 0);
}

/* ---- "a panic that finds TX owned by its own core does not wait for it" (docs/api.md) ---- */

#define PANIC_BYTES 4u

static uint32_t core_now;
static bool panic_armed, panic_delivered;
static uint64_t panic_called_ns;
static int panic_result;
static const uint8_t panic_data[PANIC_BYTES] = {0xE0, 0xE1, 0xE2, 0xE3};

static uint32_t core_of_test(void *context)
{
	(void)context;
	return core_now;
}

static void panic_interrupt(void *context)
{
	(void)context;
	panic_called_ns = pl011_model_now_ns(h.model);
	panic_result = pl011_write_panic(&h.uart, panic_data, PANIC_BYTES);
}

/* Once the thread's write has put characters in the FIFO (it owns TX), an interrupt on the
 * same core preempts it with a panic write. */
static void panic_point(void *context)
{
	(void)context;
	if (!panic_armed || panic_delivered || pl011_model_in_irq(h.model) ||
	    pl011_model_tx_level(h.model) < 4u)
		return;
	panic_delivered = true;
	pl011_model_run_as_irq(h.model, panic_interrupt, NULL);
}

/*
 * "With config.core_id, a panic that finds TX owned by its own core does not wait for it."
 * Core 2 sends and lets go first (every release must forget the owner's core); then core 0
 * writes, and a panic on core 0 preempts it while it owns TX. The panic writes beside the
 * owner, each byte into an empty FIFO: its first byte starts once the FIFO the owner filled
 * has drained, not after the depth frames + 100 us it would wait for an owner on another core.
 */
static void test_a_panic_finding_tx_owned_by_its_own_core_does_not_wait(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.baud = LINE_BAUD;
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.core_id = core_of_test;
	assert_int_equal(harness_start(&h), 0);
	for (size_t i = 0; i < FIRST_BYTES; i++)
		first_data[i] = (uint8_t)(0x10u + i);
	core_now = 2;
	assert_int_equal(pl011_write(&h.uart, first_data, FIRST_BYTES, 0), (int)FIRST_BYTES);
	pl011_model_advance(h.model, (FIRST_BYTES + 4u) * pl011_model_frame_ns(h.model));
	assert_int_equal(pl011_model_wire_len(h.model), FIRST_BYTES);

	core_now = 0;
	panic_armed = true;
	panic_delivered = false;
	pl011_model_set_preempt_hook(panic_point, NULL);
	assert_int_equal(pl011_write(&h.uart, first_data, FIRST_BYTES, 0), (int)FIRST_BYTES);
	pl011_model_set_preempt_hook(NULL, NULL);
	panic_armed = false;
	assert_true(panic_delivered);
	assert_int_equal(panic_result, (int)PANIC_BYTES);
	pl011_model_advance(h.model, (FIRST_BYTES + 8u) * pl011_model_frame_ns(h.model) * 2u);

	size_t first_panic = SIZE_MAX;
	for (size_t i = 0; i < pl011_model_wire_len(h.model); i++)
		if (pl011_model_wire_byte(h.model, i) == panic_data[0]) {
			first_panic = i;
			break;
		}
	assert_true(first_panic != SIZE_MAX);
	uint64_t frame_ns = pl011_model_frame_ns(h.model);
	uint64_t started_after_ns =
	    pl011_model_wire_start_ns(h.model, first_panic) - panic_called_ns;
	/* The FIFO's depth of frames to drain, one more for the character in the shifter, and
	 * half of the 100 us an owner on another core would add. */
	uint64_t bound_ns = 17u * frame_ns + 50000u;
	print_message("panic on the owner's core: first byte %llu ns after the call (bound %llu)\n",
		      (unsigned long long)started_after_ns, (unsigned long long)bound_ns);
	assert_true(started_after_ns <= bound_ns);
	harness_teardown(&h);
}

/* ---- shutdown over a polled writer: "an owner still there when the first wait runs out is
 * told by STOPPED to let go" (tx_take_for_good, lib/pl011_tx.c) ---- */

static bool stop_armed;
static int stop_result;
static uint64_t stop_fr_reads_seen, stop_dr_writes_at_return;

/* For a preempt hook: whether the step about to run is the first after an FR read (any since
 * *seen, which it updates) and the TX FIFO is empty, as that read showed. */
static bool just_saw_an_empty_fifo(uint64_t *seen)
{
	uint64_t fr_reads = pl011_model_counters(h.model)->reads[PL011_FR / 4u];
	bool just_read = fr_reads != *seen;
	*seen = fr_reads;
	return just_read && pl011_model_tx_level(h.model) == 0;
}

/* Runs shutdown at the writer's first step after an FR read that showed the FIFO empty: a
 * higher task on the writer's core, which the writer cannot answer until it returns. */
static void shutdown_after_empty_look(void *context)
{
	(void)context;
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	if (!just_saw_an_empty_fifo(&stop_fr_reads_seen) || !stop_armed)
		return;
	stop_armed = false;
	stop_result = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
	stop_dr_writes_at_return = c->writes[PL011_DR / 4u];
}

/*
 * A polled writer that read FR (TXFE) and was about to send a burst without FR is preempted
 * by shutdown, which gives up on it (PL011_ESTALLED) and disables the UART, whose FIFO is then
 * one entry deep (FEN cleared). Resumed, the writer sees STOPPED before its next byte and
 * writes nothing more: no write into the stopped UART, nothing counted as sent.
 */
static void test_a_polled_writer_resumed_after_shutdown_writes_nothing_more(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_POLLED;
	assert_int_equal(harness_start(&h), 0);
	harness_fill_random(first_data, FIRST_BYTES, 11);
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	stop_fr_reads_seen = c->reads[PL011_FR / 4u];
	stop_armed = true;
	pl011_model_set_preempt_hook(shutdown_after_empty_look, NULL);
	int written = pl011_write(&h.uart, first_data, FIRST_BYTES, 100000u);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_false(stop_armed);
	print_message("polled writer under shutdown: shutdown %d, writer %d, DR writes after %llu, "
		      "overflows %llu\n",
		      stop_result, written,
		      (unsigned long long)(c->writes[PL011_DR / 4u] - stop_dr_writes_at_return),
		      (unsigned long long)c->tx_overflows);
	assert_int_equal(stop_result, PL011_ESTALLED);
	assert_int_equal(c->writes[PL011_DR / 4u], stop_dr_writes_at_return);
	assert_int_equal(c->tx_overflows, 0);
	assert_int_equal(written, 0);
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.tx_bytes, 0);
	harness_teardown(&h);
}

/* ---- two panics beside a burst into an empty FIFO (TX_WRITER_BURST and TX_BESIDE_CHARS,
 * lib/pl011_tx_owner.h: "one, and one nested in it") ---- */

static int nest_stage, nest_wanted;
static unsigned nest_skip, nest_points;
static bool nest_armed;
static uint64_t nest_fr_reads_seen;
static int nest_results[3];

/* At the owner's first step after an FR read that showed the FIFO empty: CTS drops (the
 * partner holds the line) and a panic comes on the owner's core; at that panic's step
 * nest_skip + 1 after its own such look, a second panic nested in it, and so on to
 * nest_wanted. Each writes at most one character beside the owner, and none sees it leave
 * before its wait runs out. */
static void panics_after_empty_looks(void *context)
{
	(void)context;
	if (nest_stage >= nest_wanted)
		return;
	if (just_saw_an_empty_fifo(&nest_fr_reads_seen)) {
		nest_armed = true;
		nest_points = 0;
	}
	if (!nest_armed || nest_points++ < (nest_stage == 0 ? 0u : nest_skip))
		return;
	nest_armed = false;
	int stage = nest_stage++;
	if (stage == 0)
		pl011_model_set_cts(h.model, false);
	nest_results[stage] = pl011_write_panic(&h.uart, panic_data, 1);
}

/* A port in `mode` whose partner may hold the line (RTS/CTS), the core number in the owner
 * word (core 0: panics from the test find their own core owning TX). */
static void start_flow_controlled_port(enum pl011_tx_mode mode)
{
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = mode;
	h.config.flags |= PL011_FLAG_RTS_CTS;
	h.config.core_id = core_of_test;
	core_now = 0;
	assert_int_equal(harness_start(&h), 0);
}

static void nested_panics_beside_an_empty_fifo_burst(enum pl011_tx_mode mode, int panics,
						   unsigned skip)
{
	start_flow_controlled_port(mode);
	harness_fill_random(first_data, FIRST_BYTES, 13);
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	nest_stage = 0;
	nest_wanted = panics;
	nest_skip = skip;
	nest_armed = false;
	nest_results[2] = -100;
	nest_fr_reads_seen = c->reads[PL011_FR / 4u];
	pl011_model_set_preempt_hook(panics_after_empty_looks, NULL);
	int written = pl011_write(&h.uart, first_data, 40, 20000u);
	pl011_model_set_preempt_hook(NULL, NULL);
	print_message("%s, %d panics beside a burst into an empty FIFO, each %u steps after the "
		      "look below: panics %d, %d and %d, writer %d, overflows %llu\n",
		      harness_tx_mode_name(mode), nest_stage, skip, nest_results[0],
		      nest_results[1], nest_results[2], written,
		      (unsigned long long)c->tx_overflows);
	/* Nested later than just after the look, a panic may find the FIFO no longer empty and
	 * make no look of its own for the next to nest in. */
	if (skip == 0)
		assert_int_equal(nest_stage, panics);
	else
		assert_true(nest_stage >= 2);
	size_t beside = 0;
	for (int i = 0; i < nest_stage; i++) {
		assert_true(nest_results[i] == 0 || nest_results[i] == 1);
		beside += (size_t)nest_results[i];
	}
	if (skip == 0) {
		/* Each nested just after the look below it: the first two write, a third over
		 * both on their core waits for a place until its deadline. */
		assert_int_equal(nest_results[0], 1);
		assert_int_equal(nest_results[1], 1);
		if (panics == 3)
			assert_int_equal(nest_results[2], 0);
	}
	assert_true(beside <= 2u);
	assert_int_equal(c->tx_overflows, 0);
	pl011_model_set_cts(h.model, true);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	/* Every accepted byte of the writer's, in order, around the panics' characters. */
	size_t len = pl011_model_wire_len(h.model);
	assert_int_equal(len, (size_t)written + beside);
	size_t k = 0, others = 0;
	for (size_t i = 0; i < len; i++) {
		uint8_t byte = pl011_model_wire_byte(h.model, i);
		if (k < (size_t)written && byte == first_data[k])
			k++;
		else {
			assert_int_equal(byte, panic_data[0]);
			others++;
		}
	}
	assert_int_equal(k, (size_t)written);
	assert_int_equal(others, beside);
	harness_teardown(&h);
}

static void test_two_nested_panics_beside_a_burst_into_an_empty_fifo_fit(void **state)
{
	(void)state;
	nested_panics_beside_an_empty_fifo_burst(PL011_TX_POLLED, 2, 0);
	nested_panics_beside_an_empty_fifo_burst(PL011_TX_POLL_FULL, 2, 0);
}

/* TX_BESIDE_CHARS (lib/pl011_tx_owner.h): "at most this many panics may be about to write a
 * byte beside the owner at once". A third nested panic would leave a third character in the
 * FIFO the writer saw empty, one more than its burst leaves room for. */
static void test_a_third_nested_panic_beside_a_burst_writes_nothing(void **state)
{
	(void)state;
	nested_panics_beside_an_empty_fifo_burst(PL011_TX_POLLED, 3, 0);
	nested_panics_beside_an_empty_fifo_burst(PL011_TX_ADAPTIVE, 3, 0);
}

/* The same with each nested panic at every step from the one below's look at FR to its write
 * and past it: a panic holds its place until its byte is written, so no third character comes
 * whatever step the others preempt. */
static void test_nested_panics_at_each_step_of_a_beside_write_leave_two_chars(void **state)
{
	(void)state;
	for (unsigned skip = 1; skip <= 6u; skip++)
		nested_panics_beside_an_empty_fifo_burst(PL011_TX_POLLED, 3, skip);
}

/* ---- three panics beside an owner, each nested while the one below waits for the FIFO ---- */

static int wait_stage;
static int wait_results[3];

/* The first panic at the polled writer's first point with 8 characters in the FIFO; each of
 * the next two at the first point of the one below where it is beside the owner and has no
 * place to write taken (it waits for the FIFO to empty). */
static void panics_while_others_wait(void *context)
{
	(void)context;
	if (wait_stage >= 3)
		return;
	uint32_t beside = __atomic_load_n(&h.uart.tx.beside, __ATOMIC_RELAXED);
	if (wait_stage == 0 ? (h.uart.tx.owner & 1u) == 0 || pl011_model_tx_level(h.model) < 8u
			    : beside != (uint32_t)wait_stage)
		return;
	int stage = wait_stage++;
	wait_results[stage] = pl011_write_panic(&h.uart, panic_data, PANIC_BYTES);
}

/*
 * api.md, pl011_write_panic: "At most two panics write beside an owner at once: a third waits
 * until one has left". Panics that only wait for the FIFO to empty hold no place: three
 * nested on the owner's core, each while the one below waits, all write their bytes as the
 * line drains the FIFO (a count of those present would leave the third waiting for the two it
 * preempted until its deadline).
 */
static void test_three_nested_panics_waiting_beside_an_owner_each_write_all(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_POLLED;
	h.config.core_id = core_of_test;
	core_now = 0;
	assert_int_equal(harness_start(&h), 0);
	harness_fill_random(first_data, FIRST_BYTES, 19);
	wait_stage = 0;
	wait_results[0] = wait_results[1] = wait_results[2] = -100;
	pl011_model_set_preempt_hook(panics_while_others_wait, NULL);
	int written = pl011_write(&h.uart, first_data, 40, 50000u);
	pl011_model_set_preempt_hook(NULL, NULL);
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	print_message("three panics nested while the one below waits: %d, %d and %d of %u, writer "
		      "%d, overflows %llu\n",
		      wait_results[0], wait_results[1], wait_results[2], PANIC_BYTES, written,
		      (unsigned long long)c->tx_overflows);
	assert_int_equal(wait_stage, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(wait_results[i], (int)PANIC_BYTES);
	assert_int_equal(written, 40);
	assert_int_equal(c->tx_overflows, 0);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), 40u + 3u * PANIC_BYTES);
	harness_teardown(&h);
}

/* ---- two panics beside ADAPTIVE's fill after an underrun (TX_BESIDE_CHARS,
 * lib/pl011_tx_owner.h: every blind write leaves room for them) ---- */

static uint64_t underrun_ifls_writes;
static uint64_t latency_ns_long(void *context, uint64_t now_ns)
{
	(void)context;
	(void)now_ns;
	return 2000000u; /* 2 ms: the FIFO runs dry before every refill (an underrun) */
}

/* At the handler's first step after ADAPTIVE raised its trigger for an underrun (an IFLS
 * write, with the FIFO empty as its FR read showed), before its blind fill: CTS drops and a
 * panic comes on the handler's core (a fault); at that panic's first step after its own look
 * at the empty FIFO, a second panic nested in it. Each leaves one character in the FIFO. */
static void panics_before_an_underrun_fill(void *context)
{
	(void)context;
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	if (nest_stage == 0) {
		if (!pl011_model_in_irq(h.model) ||
		    c->writes[PL011_IFLS / 4u] == underrun_ifls_writes ||
		    pl011_model_tx_level(h.model) != 0)
			return;
		nest_stage = 1;
		nest_fr_reads_seen = c->reads[PL011_FR / 4u];
		pl011_model_set_cts(h.model, false);
		nest_results[0] = pl011_write_panic(&h.uart, panic_data, 1);
	} else if (nest_stage == 1 && just_saw_an_empty_fifo(&nest_fr_reads_seen)) {
		nest_stage = 2;
		nest_results[1] = pl011_write_panic(&h.uart, panic_data, 1);
	}
}

/*
 * docs/api.md, pl011_write_panic: beside a stopped owner it "still loses nothing". ADAPTIVE's
 * refill after an underrun writes blind into the FIFO its FR read showed empty; two panics
 * from faults on the handler's core come between that read and the fill, and each leaves its
 * character there (CTS holds the line, neither waits for it to leave). No character
 * overflows, and every byte, the writer's in order, reaches the wire once CTS returns.
 */
static void test_two_panics_before_an_underrun_fill_never_overflow(void **state)
{
	(void)state;
	start_flow_controlled_port(PL011_TX_ADAPTIVE);
	pl011_model_set_latency_fn(h.model, latency_ns_long, NULL);
	harness_fill_random(first_data, FIRST_BYTES, 17);
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	nest_stage = 0;
	nest_results[0] = nest_results[1] = -100;
	underrun_ifls_writes = c->writes[PL011_IFLS / 4u];
	pl011_model_set_preempt_hook(panics_before_an_underrun_fill, NULL);
	assert_int_equal(pl011_write(&h.uart, first_data, FIRST_BYTES, PL011_NO_WAIT),
			 (int)FIRST_BYTES);
	for (unsigned i = 0; i < 200u && nest_stage < 2; i++)
		pl011_model_advance(h.model, pl011_model_frame_ns(h.model));
	pl011_model_set_preempt_hook(NULL, NULL);
	print_message("two panics before ADAPTIVE's underrun fill: panics %d and %d, FIFO %u, "
		      "overflows %llu\n",
		      nest_results[0], nest_results[1], pl011_model_tx_level(h.model),
		      (unsigned long long)c->tx_overflows);
	assert_int_equal(nest_stage, 2);
	assert_int_equal(nest_results[0], 1);
	assert_int_equal(nest_results[1], 1);
	assert_int_equal(c->tx_overflows, 0);
	pl011_model_set_cts(h.model, true);
	pl011_model_set_latency_fn(h.model, NULL, NULL);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	size_t len = pl011_model_wire_len(h.model);
	assert_int_equal(len, FIRST_BYTES + 2u);
	size_t k = 0, others = 0;
	for (size_t i = 0; i < len; i++) {
		if (k < FIRST_BYTES && pl011_model_wire_byte(h.model, i) == first_data[k])
			k++;
		else {
			assert_int_equal(pl011_model_wire_byte(h.model, i), panic_data[0]);
			others++;
		}
	}
	assert_int_equal(k, FIRST_BYTES);
	assert_int_equal(others, 2u);
	harness_teardown(&h);
}

/* ---- two panics on another core beside an owner's polling fill (TX_BESIDE_CHARS,
 * lib/pl011_tx_owner.h: between two looks at tx.beside the owner leaves room for them) ---- */

#define FILL_BYTES 48u
#define RESUMED_POINTS_MAX 400u
/* Core 0's owned points swept: all of the POLL_FULL flush's passes (143), and the panic owner's
 * first three bursts (its waits for room pass some 27,000 more). */
#define OWNED_POINTS_SWEPT 160u

enum fill_phase {
	FILL_OWNER_RUNS,
	FILL_FIRST_PANIC,
	FILL_SECOND_PANIC,
	FILL_OWNER_RESUMES,
	FILL_PANICS_WRITE,
	FILL_OWNER_LOOKS_LATE,
	FILL_OWNER_DONE
};
static enum fill_phase fill_phase;
static uint64_t fill_stall_at, fill_owned_points, fill_resumed_points, fill_dr_at_resume;
static uint64_t fill_owner_chars;
static int fill_results[2];
/* Core 0, resumed, is stopped again at its next look at tx.beside after an FR read, while the
 * panics write and leave; CTS holds the line until it lets go of TX. */
static bool fill_stop_before_look;
static uint64_t fill_fr_reads_before, fill_atomic_points_before;

/* Core 0 owns TX: the owner word's OWNED bit with core 0's tag (its core + 1, bits 8-15). */
static bool core0_owns_tx(void)
{
	return (__atomic_load_n(&h.uart.tx.owner, __ATOMIC_RELAXED) & 0xFF01u) == 0x0101u;
}

/* Panics beside the owner holding a place to write (tx.beside's upper half). */
static uint32_t beside_places(void)
{
	return __atomic_load_n(&h.uart.tx.beside, __ATOMIC_RELAXED) >> 16;
}

/* Core 0, resumed, let go of TX (or ran RESUMED_POINTS_MAX points), or stopped before its
 * look: the panics write now. */
static void fill_owner_hands_back(enum fill_phase next)
{
	fill_phase = next;
	fill_owner_chars = pl011_model_counters(h.model)->writes[PL011_DR / 4u] - fill_dr_at_resume;
	cores_yield();
}

/* At core 0's point: whether it is an atomic point (the model counts it before the hook) right
 * after an FR read, with characters written since core 0 resumed: the look at tx.beside that
 * starts its next burst (pl011_tx_burst_up_to), whose first character rests on that read. */
static bool fill_owner_about_to_look(const struct pl011_model_counters *c)
{
	bool fr_read = c->reads[PL011_FR / 4u] == fill_fr_reads_before + 1u;
	bool atomic = c->atomic_points == fill_atomic_points_before + 1u;
	fill_fr_reads_before = c->reads[PL011_FR / 4u];
	fill_atomic_points_before = c->atomic_points;
	return fr_read && atomic && c->writes[PL011_DR / 4u] != fill_dr_at_resume;
}

/*
 * Core 0 is stopped at its point fill_stall_at among those where it owns TX; core 1's panic
 * waits out its ownership bound, goes beside the owner, takes a place and reads FR showing the
 * FIFO empty; there CTS drops (the partner holds the line) and a second panic, nested in it
 * on core 1, does the same. Both stopped before their DR writes, core 0 runs until it lets go
 * of TX; then the panics write.
 */
static void stall_owner_beside_two_panics(void *context)
{
	(void)context;
	int core = cores_current();
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	switch (fill_phase) {
	case FILL_OWNER_RUNS:
		if (core != 0 || !core0_owns_tx() || ++fill_owned_points != fill_stall_at)
			return;
		fill_phase = FILL_FIRST_PANIC;
		nest_fr_reads_seen = c->reads[PL011_FR / 4u];
		cores_yield();
		return;
	case FILL_FIRST_PANIC:
		if (core != 1 || !just_saw_an_empty_fifo(&nest_fr_reads_seen) ||
		    beside_places() != 1u)
			return;
		fill_phase = FILL_SECOND_PANIC;
		pl011_model_set_cts(h.model, false);
		fill_results[1] = pl011_write_panic(&h.uart, &panic_data[1], 1);
		return;
	case FILL_SECOND_PANIC:
		if (core != 1 || !just_saw_an_empty_fifo(&nest_fr_reads_seen) ||
		    beside_places() != 2u)
			return;
		fill_phase = FILL_OWNER_RESUMES;
		fill_resumed_points = 0;
		fill_dr_at_resume = c->writes[PL011_DR / 4u];
		fill_fr_reads_before = c->reads[PL011_FR / 4u];
		fill_atomic_points_before = c->atomic_points;
		cores_yield();
		return;
	case FILL_OWNER_RESUMES:
		if (core != 0)
			return;
		if (fill_stop_before_look && fill_owner_about_to_look(c))
			fill_owner_hands_back(FILL_OWNER_LOOKS_LATE);
		else if (!core0_owns_tx() || ++fill_resumed_points >= RESUMED_POINTS_MAX)
			fill_owner_hands_back(FILL_PANICS_WRITE);
		return;
	case FILL_OWNER_LOOKS_LATE:
		if (core == 0 && !core0_owns_tx()) {
			fill_phase = FILL_OWNER_DONE;
			pl011_model_set_cts(h.model, true);
		}
		return;
	default: return;
	}
}

/* Core 0 in a ring mode queues FILL_BYTES and flushes: with no TX interrupt (lost), the
 * flush's stall guard sends the ring in polling fills. In POLLED mode core 0 is a panic
 * writing FILL_BYTES as the owner, one character after each FR read that shows room. Core 1
 * runs the panics beside it once core 0 is stopped. */
static void fill_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		if (h.uart.config->tx_mode == PL011_TX_POLLED) {
			first_result = pl011_write_panic(&h.uart, first_data, FILL_BYTES);
		} else {
			first_result = pl011_write(&h.uart, first_data, FILL_BYTES, PL011_NO_WAIT);
			second_result = pl011_flush(&h.uart, 200000u, NULL);
		}
		/* Let go and returned with no point of its own after (the panic owner). */
		if (fill_phase == FILL_OWNER_RESUMES)
			fill_owner_hands_back(FILL_PANICS_WRITE);
		return;
	}
	if (fill_phase == FILL_OWNER_RUNS)
		return; /* core 0 finished without stopping: nothing to run beside */
	fill_results[0] = pl011_write_panic(&h.uart, &panic_data[0], 1);
	if (fill_phase != FILL_OWNER_LOOKS_LATE)
		pl011_model_set_cts(h.model, true);
}

/* The writer's `written` first bytes in order, around `beside` panic characters (each one of
 * panic_data's): NULL, or what broke. */
static const char *wire_has_writer_around_panics(size_t written, size_t beside)
{
	static char text[120];
	size_t len = pl011_model_wire_len(h.model);
	if (len != written + beside) {
		snprintf(text, sizeof text, "%zu bytes on the wire, %zu written and %zu beside",
			 len, written, beside);
		return text;
	}
	size_t k = 0;
	for (size_t i = 0; i < len; i++) {
		uint8_t byte = pl011_model_wire_byte(h.model, i);
		if (k < written && byte == first_data[k])
			k++;
		else if (memchr(panic_data, byte, PANIC_BYTES) == NULL) {
			snprintf(text, sizeof text, "wire byte %zu (0x%02x) out of order", i, byte);
			return text;
		}
	}
	return NULL;
}

/* One run with core 0 stopped at its owned point `stall_at` (0: never). Returns NULL or what
 * broke: a DR write into a full FIFO, a panic's character missing, the owner's out of order. */
static const char *run_two_panics_beside_an_owner(enum pl011_tx_mode mode, uint64_t stall_at)
{
	static char text[160];
	start_flow_controlled_port(mode);
	harness_live_config(&h)->core_id = core_of_caller;
	pl011_model_set_irq_handler(h.model, NULL, NULL);
	harness_fill_random(first_data, FILL_BYTES, 23);
	fill_phase = FILL_OWNER_RUNS;
	fill_stall_at = stall_at;
	fill_owned_points = fill_owner_chars = 0;
	fill_results[0] = fill_results[1] = 0;
	first_result = second_result = 0;
	struct cores_plan plan = {.first_slice = UINT64_MAX / 2u,
				  .slice = UINT64_MAX / 2u,
				  .at_point = stall_owner_beside_two_panics};
	cores_run(&plan, fill_body, NULL);
	pl011_model_set_cts(h.model, true);
	if (mode != PL011_TX_POLLED)
		assert_int_equal(first_result, (int)FILL_BYTES);
	assert_true(first_result >= 0);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	pl011_model_advance(h.model, (FILL_BYTES + 4u) * pl011_model_frame_ns(h.model));
	uint64_t overflows = pl011_model_counters(h.model)->tx_overflows;
	if (overflows != 0) {
		snprintf(text, sizeof text,
			 "%llu DR writes into a full FIFO (the owner wrote %llu characters "
			 "between the panics' FR reads and their writes)",
			 (unsigned long long)overflows, (unsigned long long)fill_owner_chars);
		return text;
	}
	if (fill_results[0] < 0 || fill_results[1] < 0)
		return "a panic failed";
	return wire_has_writer_around_panics((size_t)first_result,
					     (size_t)fill_results[0] + (size_t)fill_results[1]);
}

/* Sweeps core 0's stop over its first OWNED_POINTS_SWEPT points where it owns TX: returns the
 * runs that broke. */
static unsigned sweep_two_panics_beside_an_owner(enum pl011_tx_mode mode)
{
	assert_null(run_two_panics_beside_an_owner(mode, 0));
	uint64_t owned =
	    fill_owned_points < OWNED_POINTS_SWEPT ? fill_owned_points : OWNED_POINTS_SWEPT;
	harness_teardown(&h);
	unsigned failures = 0, reached = 0;
	uint64_t most_chars = 0;
	for (uint64_t k = 1; k <= owned; k++) {
		const char *broken = run_two_panics_beside_an_owner(mode, k);
		if (fill_phase == (fill_stop_before_look ? FILL_OWNER_DONE : FILL_PANICS_WRITE)) {
			reached++;
			if (fill_owner_chars > most_chars)
				most_chars = fill_owner_chars;
		}
		if (broken != NULL && failures++ < 5)
			print_message("%s owner stopped at its owned point %llu of %llu, panics %d "
				      "and %d: %s\n",
				      harness_tx_mode_name(mode), (unsigned long long)k,
				      (unsigned long long)owned, fill_results[0], fill_results[1],
				      broken);
		harness_teardown(&h);
	}
	print_message("%s%s: %u of %llu stops of the owner had both panics stopped before their "
		      "writes; the owner wrote up to %llu characters meanwhile\n",
		      harness_tx_mode_name(mode), fill_stop_before_look ? ", late look" : "",
		      reached, (unsigned long long)owned, (unsigned long long)most_chars);
	assert_true(reached != 0);
	return failures;
}

/*
 * docs/api.md, pl011_write_panic: beside an owner on another core it "still loses nothing";
 * TX_BESIDE_CHARS (lib/pl011_tx_owner.h): at most two panics may be about to write beside the
 * owner, and every write of the owner's leaves room for their characters. Core 0 flushes a
 * ring no interrupt sends, so its stall guard fills the FIFO by polling FR; it is stopped at
 * each point where it owns TX in turn. Two panics on core 1 (one nested in the other) go beside
 * it, each reads FR showing the FIFO empty, and stops before its DR write while core 0 runs
 * on, CTS holding the line; then they write. No DR write finds the FIFO full, and the wire
 * holds the writer's 48 bytes in order and every character the panics report.
 */
static void test_two_panics_stalled_beside_a_polling_fill_never_overflow(void **state)
{
	(void)state;
	assert_int_equal(sweep_two_panics_beside_an_owner(PL011_TX_POLL_FULL), 0);
}

/* The same beside a panic that owns TX (POLLED mode: no ring), writing its 48 characters one
 * at a time after FR reads that show room, its look at tx.beside once per burst
 * (pl011_tx_burst_allowed): the two panics on core 1 wait out its deadline, then go beside. */
static void test_two_panics_stalled_beside_a_panic_owner_never_overflow(void **state)
{
	(void)state;
	assert_int_equal(sweep_two_panics_beside_an_owner(PL011_TX_POLLED), 0);
}

/*
 * The same promise where the panics leave before the owner's look. The owner's polling fill
 * (write_while_room, lib/pl011_tx_fifo.c) writes each burst's first character on the FR value
 * it read before that burst's look. Core 0 is stopped as above while two panics read FR empty
 * beside it; resumed, it writes its burst and reads FR (room), and is stopped again just
 * before its next look, while both panics write, wait out their wait for the FIFO to empty
 * (2 frames + 1 ms: CTS holds the line) and leave. Its look then finds nobody, and no
 * character it writes may find the FIFO full.
 */
static void test_panics_leaving_between_the_fr_read_and_the_look_never_overflow(void **state)
{
	(void)state;
	fill_stop_before_look = true;
	unsigned failures = sweep_two_panics_beside_an_owner(PL011_TX_POLL_FULL);
	fill_stop_before_look = false;
	assert_int_equal(failures, 0);
}

/* ---- a TX interrupt on a MIS read older than a panic's character (MIS_BEFORE_LOOK) ---- */

#define STALE_RX_RING 8u
#define STALE_TX_BYTES FIRST_BYTES

enum stale_phase {
	STALE_READER,
	STALE_FIRST_HANDLER,
	STALE_PANIC_LOOKS,
	STALE_FIRST_RESUMES,
	STALE_SECOND_HANDLER,
	STALE_PANIC_WRITES
};
static enum stale_phase stale_phase;
static uint64_t stale_atomic_points_before;
static int stale_read_result, stale_panic_result;
static bool stale_first_returned;

/*
 * Core 0's reader frees room in a paused RX ring and resumes RX (rx_resume_if_room): it swaps
 * RX's bits into the imsc word and writes the word as it loaded it. Just before that write the
 * TX interrupt comes (TXRIS latched, TXIM armed): the handler takes TX and, after its look at
 * tx.beside, is stopped before its blind refill. A panic on core 1 waits out its ownership
 * bound, goes beside, reads FR showing the FIFO empty (it drained meanwhile) and stops there;
 * CTS drops. The handler refills 8 blind, masks TXIM (a panic is beside) and returns; the
 * reader's write then sets TXIM again (its stale word) with TXRIS still latched (8 entries),
 * and the TX interrupt comes at its next point. That handler reads MIS, takes TX, and is
 * stopped before its look while the panic writes (9 entries), waits out its 2 frames + 1 ms
 * for the FIFO to empty and leaves; then the handler looks, finds nobody, and refills.
 */
static void stale_mis_point(void *context)
{
	(void)context;
	int core = cores_current();
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	/* A register access, not an atomic point (the model counts those before the hook). */
	bool register_access = core == 0 && c->atomic_points == stale_atomic_points_before;
	if (core == 0)
		stale_atomic_points_before = c->atomic_points;
	switch (stale_phase) {
	case STALE_READER:
		if (!register_access || (h.uart.imsc & PL011_INT_RX) == 0)
			return;
		stale_phase = STALE_FIRST_HANDLER;
		pl011_irq_handler(&h.uart);
		stale_first_returned = true; /* the reader's IMSC write comes next */
		return;
	case STALE_FIRST_HANDLER:
		/* Its first register access owning TX: the first blind DR write, after its look. */
		if (!register_access || !core0_owns_tx())
			return;
		stale_phase = STALE_PANIC_LOOKS;
		nest_fr_reads_seen = c->reads[PL011_FR / 4u];
		cores_yield();
		return;
	case STALE_PANIC_LOOKS:
		if (core != 1 || !just_saw_an_empty_fifo(&nest_fr_reads_seen) ||
		    beside_places() != 1u)
			return;
		stale_phase = STALE_FIRST_RESUMES;
		pl011_model_set_cts(h.model, false);
		cores_yield();
		return;
	case STALE_FIRST_RESUMES:
		if (core != 0 || !stale_first_returned ||
		    (pl011_model_peek(h.model, PL011_MIS) & PL011_INT_TX) == 0)
			return;
		stale_phase = STALE_SECOND_HANDLER;
		pl011_irq_handler(&h.uart);
		return;
	case STALE_SECOND_HANDLER:
		if (core != 0 || !core0_owns_tx())
			return;
		stale_phase = STALE_PANIC_WRITES;
		cores_yield();
		return;
	default: return;
	}
}

static void stale_mis_body(int core, void *context)
{
	(void)context;
	uint8_t rx[STALE_RX_RING];
	if (core == 0)
		stale_read_result = pl011_read(&h.uart, rx, sizeof rx, 0);
	else if (stale_phase != STALE_READER)
		stale_panic_result = pl011_write_panic(&h.uart, &panic_data[0], 1);
}

/*
 * docs/api.md, pl011_write_panic: beside an owner on another core it "still loses nothing";
 * lib/pl011_tx_ring.c, refill_by_strategy: after TXIS "the FIFO holds at most `trigger`
 * entries, so `depth - trigger` can go blind". A panic's character written after the MIS
 * read that showed TXIS, and left in the FIFO by CTS, must not make that blind count overflow
 * (the schedule above stale_mis_point). HALF_FIFO, its 1/2 trigger: 8 blind characters.
 */
static void test_a_panic_leaving_before_the_handlers_look_never_overflows(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.rx_mode = PL011_RX_FEW_IRQS;
	h.config.rx_buffer_size = STALE_RX_RING;
	h.config.flags |= PL011_FLAG_RTS_CTS;
	h.config.core_id = core_of_caller;
	assert_int_equal(harness_start(&h), 0);
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	uint64_t frame_ns = pl011_model_frame_ns(h.model);
	/* RX paused: twice the ring's characters, the handler stops at a full ring. */
	uint8_t rx_data[2u * STALE_RX_RING];
	harness_fill_random(rx_data, sizeof rx_data, 29);
	(void)pl011_model_rx_inject_stream(h.model, rx_data, sizeof rx_data,
					   pl011_model_now_ns(h.model));
	pl011_model_advance(h.model, (sizeof rx_data + 4u) * frame_ns);
	assert_int_equal(h.uart.imsc & PL011_INT_RX, 0);
	/* TX interrupt-driven, its refills blind once the first has polled (poll_next). */
	harness_fill_random(first_data, STALE_TX_BYTES, 31);
	assert_int_equal(pl011_write(&h.uart, first_data, STALE_TX_BYTES, PL011_NO_WAIT),
			 (int)STALE_TX_BYTES);
	for (unsigned i = 0; i < 40u && (h.uart.tx.poll_next != 0 || c->irq_dispatches < 4u); i++)
		pl011_model_advance(h.model, frame_ns);
	assert_int_equal(h.uart.tx.poll_next, 0);
	/* No dispatch from now on but the schedule's: TXRIS latched, TXIM armed. */
	pl011_model_set_irq_handler(h.model, NULL, NULL);
	for (unsigned i = 0; i < 20u && (pl011_model_ris(h.model) & PL011_INT_TX) == 0; i++)
		pl011_model_advance(h.model, frame_ns);
	assert_true((pl011_model_peek(h.model, PL011_MIS) & PL011_INT_TX) != 0);
	assert_true(harness_tx_backlog(&h.uart) >= 16u);

	stale_phase = STALE_READER;
	stale_atomic_points_before = c->atomic_points;
	stale_read_result = stale_panic_result = -100;
	stale_first_returned = false;
	struct cores_plan plan = {
	    .first_slice = UINT64_MAX / 2u, .slice = UINT64_MAX / 2u, .at_point = stale_mis_point};
	cores_run(&plan, stale_mis_body, NULL);
	print_message("handler on a MIS read before a panic wrote and left: phase %d, reader %d, "
		      "panic %d, FIFO %u, overflows %llu\n",
		      stale_phase, stale_read_result, stale_panic_result,
		      pl011_model_tx_level(h.model), (unsigned long long)c->tx_overflows);
	assert_int_equal(stale_phase, STALE_PANIC_WRITES);
	assert_int_equal(stale_read_result, (int)STALE_RX_RING);
	assert_int_equal(stale_panic_result, 1);
	assert_int_equal(c->tx_overflows, 0);
	pl011_model_set_cts(h.model, true);
	harness_route_irq(&h);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_null(wire_has_writer_around_panics(STALE_TX_BYTES, 1u));
	harness_teardown(&h);
}

/* ---- posted writes: "our last DR, IMSC and IFLS writes reach the UART before the next owner,
 * on another core, can see the word free" (tx_release, lib/pl011_tx.c; lib/pl011_io.h) ---- */

#define RELEASE_BYTES 10u
#define POSTED_OTHER_POINTS 1000u

static bool release_write_returned;
static int release_panic_result;

static void release_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		first_result = pl011_write(&h.uart, first_data, RELEASE_BYTES, 0);
		release_write_returned = true;
		return;
	}
	while (!release_write_returned)
		cores_yield();
	release_panic_result = pl011_write_panic(&h.uart, panic_data, PANIC_BYTES);
}

/*
 * docs/api.md, pl011_write_panic: "the wire shows every byte accepted before the call, then
 * data". Core 0 writes 10 bytes to an idle port (they go straight to the FIFO, and the owner
 * lets go with the ring empty), core 1's panic starts once that write returned. The model
 * holds each core's Device writes until that core's next register read or barrier (posted
 * writes, lib/pl011_io.h's premise), and core 0 makes no access after its write: only the
 * barrier before its release lands its last DR write ahead of the panic's.
 */
static void test_release_lands_the_owners_writes_before_the_next_owner(void **state)
{
	(void)state;
	static const enum pl011_tx_mode ring_modes[] = {PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL,
							PL011_TX_HYBRID, PL011_TX_ADAPTIVE,
							PL011_TX_MEASURED};
	for (size_t m = 0; m < sizeof ring_modes / sizeof ring_modes[0]; m++) {
		start_port(ring_modes[m], 16);
		release_write_returned = false;
		struct cores_plan plan = {.first_slice = UINT64_MAX, .slice = UINT64_MAX};
		pl011_model_set_posted_writes(cores_current, POSTED_OTHER_POINTS, false);
		cores_run(&plan, release_body, NULL);
		pl011_model_set_posted_writes(NULL, 0, false);
		assert_int_equal(first_result, (int)RELEASE_BYTES);
		assert_int_equal(release_panic_result, (int)PANIC_BYTES);
		pl011_model_advance(h.model, (RELEASE_BYTES + PANIC_BYTES + 4u) *
						 pl011_model_frame_ns(h.model) * 2u);
		uint8_t wire[RELEASE_BYTES + PANIC_BYTES + 4u];
		size_t len = harness_wire(&h, wire, sizeof wire);
		assert_int_equal(len, RELEASE_BYTES + PANIC_BYTES);
		assert_memory_equal(wire, first_data, RELEASE_BYTES);
		assert_memory_equal(wire + RELEASE_BYTES, panic_data, PANIC_BYTES);
		assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
		harness_teardown(&h);
	}
}

/* ---- a panic owning TX beside another panic: the queued bytes, then its data ---- */

#define ORDER_QUEUED 40u
#define ORDER_BESIDE 8u
#define ORDER_OWN 4u

enum order_phase { ORDER_OWNER_TAKES, ORDER_BESIDE_WRITES, ORDER_OWNER_RESUMES, ORDER_TURNS };
static enum order_phase order_phase;
static uint64_t order_dr_before;
static bool order_panicking, order_beside_seen;
static int order_results[3];

/* Core 0, owning TX in write_idle before its first look at tx.beside, is stopped; core 1's
 * panic waits out the owner, goes beside and writes one byte; core 0 resumes (its look sees
 * the panic: the write is queued) and its own panic takes TX; from there the cores alternate
 * at every point, so that its drain looks while core 1 is still beside. */
static void order_point(void *context)
{
	(void)context;
	int core = cores_current();
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	switch (order_phase) {
	case ORDER_OWNER_TAKES:
		if (core != 0 || !core0_owns_tx())
			return;
		order_phase = ORDER_BESIDE_WRITES;
		order_dr_before = c->writes[PL011_DR / 4u];
		cores_yield();
		return;
	case ORDER_BESIDE_WRITES:
		if (core != 1 || c->writes[PL011_DR / 4u] == order_dr_before)
			return;
		order_phase = ORDER_OWNER_RESUMES;
		cores_yield();
		return;
	case ORDER_OWNER_RESUMES:
		if (core != 0 || !order_panicking || !core0_owns_tx())
			return;
		order_phase = ORDER_TURNS;
		order_beside_seen = __atomic_load_n(&h.uart.tx.beside, __ATOMIC_RELAXED) != 0;
		cores_yield();
		return;
	default: cores_yield(); return;
	}
}

static void order_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		order_results[0] = pl011_write(&h.uart, first_data, ORDER_QUEUED, PL011_NO_WAIT);
		order_panicking = true;
		order_results[2] = pl011_write_panic(&h.uart, "ZZZZ", ORDER_OWN);
		return;
	}
	if (order_phase != ORDER_OWNER_TAKES)
		order_results[1] = pl011_write_panic(&h.uart, "bbbbbbbb", ORDER_BESIDE);
}

/*
 * docs/api.md, pl011_write_panic, a panic that owns TX: "The wire shows every byte accepted
 * before the call, then data." Core 0 writes 40 'A's, which go to the ring because core 1's
 * panic writes beside it; core 0's panic ("ZZZZ") then owns TX, and its drain finds core 1
 * still beside: it must wait for that panic to leave and send the A's, not take the stopped
 * fill for an empty ring and send ZZZZ first. Core 1's bytes may go anywhere, as a block.
 */
static void
test_panic_owner_sends_the_queued_bytes_before_its_data_beside_another_panic(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_POLL_FULL;
	h.config.core_id = core_of_caller;
	assert_int_equal(harness_start(&h), 0);
	memset(first_data, 'A', ORDER_QUEUED);
	order_phase = ORDER_OWNER_TAKES;
	order_panicking = order_beside_seen = false;
	order_results[0] = order_results[1] = order_results[2] = -1;
	struct cores_plan plan = {
	    .first_slice = UINT64_MAX / 2u, .slice = UINT64_MAX / 2u, .at_point = order_point};
	cores_run(&plan, order_body, NULL);
	assert_int_equal(order_phase, ORDER_TURNS);
	assert_true(order_beside_seen);
	assert_int_equal(order_results[0], (int)ORDER_QUEUED);
	assert_int_equal(order_results[1], (int)ORDER_BESIDE);
	assert_int_equal(order_results[2], (int)ORDER_OWN);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	enum { TOTAL = ORDER_QUEUED + ORDER_BESIDE + ORDER_OWN };
	pl011_model_advance(h.model, (TOTAL + 4u) * pl011_model_frame_ns(h.model));
	uint8_t wire[TOTAL + 8u];
	size_t len = harness_wire(&h, wire, sizeof wire);
	char seen[TOTAL + 9u], owned[TOTAL + 9u];
	memcpy(seen, wire, len);
	seen[len] = '\0';
	print_message("wire: %s\n", seen);
	size_t n = 0, first_b = len, last_b = 0;
	for (size_t i = 0; i < len; i++) {
		if (wire[i] != 'b') {
			owned[n++] = (char)wire[i];
			continue;
		}
		first_b = i < first_b ? i : first_b;
		last_b = i;
	}
	owned[n] = '\0';
	assert_int_equal(len, TOTAL);
	assert_int_equal(last_b - first_b + 1u, ORDER_BESIDE);
	assert_string_equal(owned, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAZZZZ");
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	harness_teardown(&h);
}

/* ---- "the getters (pl011_get_stats, pl011_tx_queued, ...): safe, each a snapshot" ---- */

static size_t queued_seen;

static void queued_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		first_result = pl011_write(&h.uart, first_data, FIRST_BYTES, 0);
		pl011_model_advance(h.model, (FIRST_BYTES + 4u) * pl011_model_frame_ns(h.model));
		return;
	}
	queued_seen = pl011_tx_queued(&h.uart);
}

/*
 * docs/api.md: "the getters (pl011_get_stats, pl011_tx_queued, ...): safe, each a
 * snapshot"; pl011_tx_queued: "Bytes accepted by pl011_write and not yet handed to the FIFO
 * ... Context: any (a snapshot)". Core 1 asks while the ring is empty and stops between the
 * getter's two looks at the ring's indices (script: its point p); core 0 meanwhile writes
 * 96 bytes, and its interrupt (on core 0) hands them all to the FIFO. Whatever the getter
 * returns must be a count the ring held at some moment of the call: at most 96.
 */
static void test_tx_queued_is_a_snapshot_under_a_moving_ring(void **state)
{
	(void)state;
	for (uint64_t p = 1; p <= 3u; p++) {
		start_port(PL011_TX_HALF_FIFO, 16);
		harness_live_config(&h)->wait_hook = NULL;
		harness_route_irq(&h);
		script[0] = (struct script_step){0, 1};
		script[1] = (struct script_step){1, p};
		script_length = 2;
		script_next = 0;
		queued_seen = SIZE_MAX;
		invariants_reset(&invariants);
		invariants.ring_storage = h.tx_storage;
		invariant_broken = NULL;
		struct cores_plan plan = {
		    .first_slice = UINT64_MAX,
		    .slice = UINT64_MAX,
		    .at_point = schedule_point,
		};
		cores_run(&plan, queued_body, NULL);
		assert_int_equal(first_result, (int)FIRST_BYTES);
		print_message("tx_queued stopped at its point %llu: %zu\n", (unsigned long long)p,
			      queued_seen);
		assert_true(queued_seen <= FIRST_BYTES);
		harness_teardown(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_deferring_handler_clears_txis_and_the_ring_is_sent),
	    cmocka_unit_test(test_a_write_while_the_handler_owns_tx_is_sent_by_its_next_pass),
	    cmocka_unit_test(test_a_polling_pass_voids_the_next_blind_refill),
	    cmocka_unit_test(test_a_panic_finding_tx_owned_by_its_own_core_does_not_wait),
	    cmocka_unit_test(test_a_polled_writer_resumed_after_shutdown_writes_nothing_more),
	    cmocka_unit_test(test_two_nested_panics_beside_a_burst_into_an_empty_fifo_fit),
	    cmocka_unit_test(test_a_third_nested_panic_beside_a_burst_writes_nothing),
	    cmocka_unit_test(test_nested_panics_at_each_step_of_a_beside_write_leave_two_chars),
	    cmocka_unit_test(test_three_nested_panics_waiting_beside_an_owner_each_write_all),
	    cmocka_unit_test(test_two_panics_before_an_underrun_fill_never_overflow),
	    HARNESS_TEST(test_two_panics_stalled_beside_a_polling_fill_never_overflow, &h),
	    HARNESS_TEST(test_two_panics_stalled_beside_a_panic_owner_never_overflow, &h),
	    HARNESS_TEST(test_panics_leaving_between_the_fr_read_and_the_look_never_overflow, &h),
	    HARNESS_TEST(test_a_panic_leaving_before_the_handlers_look_never_overflows, &h),
	    cmocka_unit_test(test_release_lands_the_owners_writes_before_the_next_owner),
	    HARNESS_TEST(
		test_panic_owner_sends_the_queued_bytes_before_its_data_beside_another_panic, &h),
	    cmocka_unit_test(test_tx_queued_is_a_snapshot_under_a_moving_ring),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
