/* Preemption explorer: an interrupt at every register access and atomic operation of the
 * thread, in every scenario, strategy, FIFO depth and kind of interrupt; TX invariants after. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "depth.h"
#include "explore.h"

/* The nested kind multiplies the runs by the handler's points: explore it on every k'th
 * thread point only. */
#define NESTED_STRIDE 5u
/* make test (PL011_TEST_DEPTH=quick): every case on one point in QUICK_STRIDE, the first and
 * the last, the choice moving from case to case. */
#define QUICK_STRIDE 6u

static const enum pl011_tx_mode modes[] = {PL011_TX_POLLED, PL011_TX_HALF_FIFO,
					   PL011_TX_POLL_FULL, PL011_TX_HYBRID, PL011_TX_ADAPTIVE,
					   PL011_TX_MEASURED};
static const char *const mode_names[] = {"POLLED", "HALF_FIFO", "POLL_FULL", "HYBRID",
					 "ADAPTIVE", "MEASURED"};
static const char *const scenario_names[] = {"prime idle", "write busy", "write wait", "flush",
					     "panic",      "shutdown",   "re-init",    "write asleep",
					     "set_line"};
static const char *const interrupt_names[] = {
	"UART handler",      "panic",          "RX callback panic",
	"slow RX callback",  "nested",         "RX ring filled",
	"write in set_line's hold", "event tick", "panic with core_id",
	"restart by a higher task"};

struct tally {
	unsigned long runs;
	unsigned long points;
	unsigned long failures;
};

static void report_failure(const struct explore_params *p, const struct explore_result *r,
			   struct tally *tally)
{
	if (tally->failures++ < 10)
		print_message("FAIL %s depth %u, %s, %s at point %llu/%llu: %s\n",
			      mode_names[p->mode], p->depth, scenario_names[p->scenario],
			      interrupt_names[p->interrupt], (unsigned long long)p->point,
			      (unsigned long long)p->inner_point, r->failure);
}

static void explore_nested(struct explore_params *p, struct tally *tally)
{
	struct explore_result r;
	for (uint64_t inner = 0;; inner++) {
		p->inner_point = inner;
		explore_run(p, &r);
		tally->runs++;
		if (r.failure != NULL)
			report_failure(p, &r, tally);
		if (!r.inner_delivered)
			return;
		tally->points++;
	}
}

/* Every point of one case: a dry run counts them, then one run per point. */
static void explore_case(struct explore_params *p, struct tally *tally)
{
	struct explore_result dry;
	p->point = EXPLORE_NEVER;
	p->inner_point = EXPLORE_NEVER;
	explore_run(p, &dry);
	tally->runs++;
	if (dry.failure != NULL)
		report_failure(p, &dry, tally);
	static uint64_t turn;
	turn++;
	for (uint64_t k = 0; k < dry.thread_points; k++) {
		if (!depth_pick(k, turn, QUICK_STRIDE) && k != 0 && k + 1 != dry.thread_points)
			continue;
		p->point = k;
		if (p->interrupt == EXPLORE_NESTED) {
			if (k % NESTED_STRIDE == 0)
				explore_nested(p, tally);
			continue;
		}
		struct explore_result r;
		explore_run(p, &r);
		tally->runs++;
		tally->points++;
		if (r.failure != NULL)
			report_failure(p, &r, tally);
	}
}

/* The scenarios a kind runs in (every one when n is 0). */
static void explore_kind_in(enum explore_interrupt interrupt, uint32_t callback_ns,
			    uint64_t latency_ns, const enum explore_scenario *scenarios, size_t n)
{
	struct tally tally = {0, 0, 0};
	struct explore_params p;
	explore_default_params(&p);
	p.interrupt = interrupt;
	p.callback_ns = callback_ns;
	p.latency_ns = latency_ns;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		for (unsigned depth = 16; depth <= 32; depth += 16) {
			for (unsigned s = 0; s < (n != 0 ? n : EXPLORE_SCENARIOS); s++) {
				p.mode = modes[m];
				p.depth = depth;
				p.scenario = n != 0 ? scenarios[s] : (enum explore_scenario)s;
				explore_case(&p, &tally);
			}
		}
	}
	print_message("preemption explorer, %s, latency %llu ns: %lu runs, %lu points delivered, "
		      "%lu failures\n",
		      interrupt_names[interrupt], (unsigned long long)latency_ns, tally.runs,
		      tally.points, tally.failures);
	if (interrupt == EXPLORE_RX_SLOW)
		print_message("  (the callback took %u us)\n", callback_ns / 1000u);
	assert_int_equal(tally.failures, 0);
}

static void explore_interrupt_kind_at(enum explore_interrupt interrupt, uint32_t callback_ns,
				      uint64_t latency_ns)
{
	explore_kind_in(interrupt, callback_ns, latency_ns, NULL, 0);
}

static void explore_interrupt_kind(enum explore_interrupt interrupt, uint32_t callback_ns)
{
	struct explore_params defaults;
	explore_default_params(&defaults);
	explore_interrupt_kind_at(interrupt, callback_ns, defaults.latency_ns);
}

/*
 * The model's default latency (1 us) lets the preempted code run some twenty accesses
 * between two entries of a handler that left its cause latched, enough to hide the
 * starvation: at zero latency such a handler re-enters at once and the per-point bound on
 * handler entries (tests/unit/invariants.h) sees it.
 */
static void test_preempted_at_zero_interrupt_latency(void **state)
{
	(void)state;
	explore_interrupt_kind_at(EXPLORE_UART_HANDLER, 0, 0);
	explore_interrupt_kind_at(EXPLORE_PANIC_OTHER, 0, 0);
}

/* An RX pause against the TX side's IMSC updates: a stale write that unmasks RX under the
 * pause re-enters the handler at once at zero latency, and the bound on entries sees it. */
static void test_preempted_by_an_rx_pause_at_zero_interrupt_latency(void **state)
{
	(void)state;
	explore_interrupt_kind_at(EXPLORE_RX_FILL, 0, 0);
}

/* The windows next to the features' shared state: a writer from an interrupt inside
 * pl011_set_line's hold (only there is it the only writer), and the event timer's tick, with
 * RS-485 on so that a DE release owns TX and sends what was queued meanwhile. */
static void test_preempted_by_a_writer_in_set_lines_hold(void **state)
{
	(void)state;
	struct tally tally = {0, 0, 0};
	struct explore_params p;
	explore_default_params(&p);
	p.interrupt = EXPLORE_WRITE_IN_HOLD;
	p.scenario = EXPLORE_SET_LINE;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16) {
			p.mode = modes[m];
			p.depth = depth;
			explore_case(&p, &tally);
		}
	print_message("preemption explorer, %s in set_line: %lu runs, %lu points, %lu failures\n",
		      interrupt_names[p.interrupt], tally.runs, tally.points, tally.failures);
	assert_int_equal(tally.failures, 0);
}

static void test_preempted_by_the_event_tick(void **state)
{
	(void)state;
	explore_interrupt_kind(EXPLORE_TICK, 0);
}

static void test_preempted_by_the_uart_handler(void **state)
{
	(void)state;
	explore_interrupt_kind(EXPLORE_UART_HANDLER, 0);
}

static void test_preempted_by_a_panic_write(void **state)
{
	(void)state;
	explore_interrupt_kind(EXPLORE_PANIC_OTHER, 0);
}

static void test_preempted_by_an_rx_callback_panic_write(void **state)
{
	(void)state;
	explore_interrupt_kind(EXPLORE_RX_PANIC, 0);
}

/* 20 us: a few characters drain meanwhile at 3 Mbaud; 100 us: the whole FIFO runs dry while
 * the writer is priming it. */
static void test_preempted_by_a_slow_rx_callback(void **state)
{
	(void)state;
	explore_interrupt_kind(EXPLORE_RX_SLOW, 20000u);
	explore_interrupt_kind(EXPLORE_RX_SLOW, 100000u);
}

static void test_preempted_by_two_nested_interrupts(void **state)
{
	(void)state;
	explore_interrupt_kind(EXPLORE_NESTED, 0);
}

/* A panic at every point of a shutdown (and of a re-init's stop) on its own core, config.core_id
 * given: it writes all its bytes unless the stop had begun to disable the UART (item 5 of issue
 * 33: it used to write nothing there). */
static void test_preempted_stop_by_a_panic_on_its_own_core(void **state)
{
	(void)state;
	static const enum explore_scenario stops[] = {EXPLORE_SHUTDOWN, EXPLORE_REINIT};
	struct explore_params defaults;
	explore_default_params(&defaults);
	explore_kind_in(EXPLORE_PANIC_OWN_CORE, 0, defaults.latency_ns, stops, 2);
}

/* A higher-priority task that shuts the port down, starts it again and writes, at every point
 * of a lower task's panic write: the panic is then a context of an older run (issue 33, item
 * 3). Init waits for it or refuses; nothing of the old run leaves after the restart. */
static void test_preempted_panic_by_a_restart(void **state)
{
	(void)state;
	static const enum explore_scenario panic_only[] = {EXPLORE_PANIC};
	struct explore_params defaults;
	explore_default_params(&defaults);
	explore_kind_in(EXPLORE_RESTART, 0, defaults.latency_ns, panic_only, 1);
}

/*
 * Found by make fuzz: a 7/8 trigger (each refill writes 2 characters into a 16-deep FIFO) with
 * a 41.6 us interrupt latency, 200 bytes through a 64-byte ring, a panic from another source at
 * thread point 443. Every refill comes late and leaves the cause latched; serviced once per
 * handler entry, the TX stream crawled at 2 characters per latency and the final flush ran out
 * of its deadline. Above a 1/2 trigger the handler takes up to four passes per entry.
 */
static void test_late_interrupts_above_a_half_trigger_keep_up(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		struct explore_params p;
		explore_default_params(&p);
		p.mode = modes[m];
		p.tx_trigger = PL011_LEVEL_7_8;
		p.depth = 16u;
		p.baud = 3000000u;
		p.scenario = EXPLORE_WRITE_WAIT;
		p.interrupt = EXPLORE_PANIC_OTHER;
		p.point = 443u;
		p.latency_ns = 41620u;
		p.seed = 6162177u;
		struct explore_result r;
		explore_run(&p, &r);
		if (r.failure != NULL)
			fail_msg("%s: %s", mode_names[m], r.failure);
	}
}

/* The RX ring filled before the run under a latency longer than a frame (the fuzzer's find):
 * the model's own delivery must not nest the handler inside the one the fill runs. */
static void test_rx_fill_under_a_latency_longer_than_a_frame(void **state)
{
	(void)state;
	struct explore_params p;
	explore_default_params(&p);
	p.mode = PL011_TX_HYBRID;
	p.depth = 16u;
	p.baud = 921600u; /* a frame of 10.85 us */
	p.scenario = EXPLORE_PRIME_IDLE;
	p.interrupt = EXPLORE_RX_FILL;
	p.point = 1295u;
	p.latency_ns = 11075u;
	struct explore_result r;
	explore_run(&p, &r);
	if (r.failure != NULL)
		fail_msg("%s", r.failure);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preempted_by_the_uart_handler),
		cmocka_unit_test(test_preempted_at_zero_interrupt_latency),
		cmocka_unit_test(test_preempted_by_an_rx_pause_at_zero_interrupt_latency),
		cmocka_unit_test(test_preempted_by_a_writer_in_set_lines_hold),
		cmocka_unit_test(test_preempted_by_the_event_tick),
		cmocka_unit_test(test_preempted_by_a_panic_write),
		cmocka_unit_test(test_preempted_by_an_rx_callback_panic_write),
		cmocka_unit_test(test_preempted_by_a_slow_rx_callback),
		cmocka_unit_test(test_preempted_by_two_nested_interrupts),
		cmocka_unit_test(test_preempted_stop_by_a_panic_on_its_own_core),
		cmocka_unit_test(test_preempted_panic_by_a_restart),
		cmocka_unit_test(test_late_interrupts_above_a_half_trigger_keep_up),
		cmocka_unit_test(test_rx_fill_under_a_latency_longer_than_a_frame),
	};
	/* PREEMPTION_ONLY=<pattern>: one test of this program (a check of a new test, a mutant). */
	if (getenv("PREEMPTION_ONLY") != NULL)
		cmocka_set_test_filter(getenv("PREEMPTION_ONLY"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
