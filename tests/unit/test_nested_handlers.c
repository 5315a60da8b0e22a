/*
 * Handler contexts nested on one core: the UART handler or the event tick, preempted at each of
 * its own points (its register accesses and atomic points, the window inside the handlers'
 * presence count among them) by another interrupt context that runs to completion there: the
 * tick, the handler, or a panic write. After each run the presence count and tx.beside are 0,
 * TX is not stuck, and the thread's accepted bytes are on the wire in order. In the build with
 * PL011_SINGLE_CORE=1 the count is a plain load and store (lib/pl011_internal.h), which this
 * checks is left as it was found; in the default build the same schedules run on the atomic one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011.h"

enum outer_context { OUTER_HANDLER, OUTER_TICK };
enum nested_context { NESTED_TICK, NESTED_HANDLER, NESTED_PANIC };
static const char *const nested_names[] = {"tick", "handler", "panic"};

static struct harness h;
static enum outer_context outer;
static enum nested_context nested;
static uint64_t target_point, points_seen;
static int in_outer, in_nested;
static bool delivered;

static void nested_body(void *context)
{
	struct harness *harness = context;
	in_nested++;
	if (nested == NESTED_TICK)
		pl011_event_tick(&harness->uart);
	else if (nested == NESTED_HANDLER)
		pl011_irq_handler(&harness->uart);
	else
		(void)pl011_write_panic(&harness->uart, "\xF5\xF6", 2);
	in_nested--;
}

/* At the outer context's point number target_point (counted while it runs, not nested). */
static void at_point(void *context)
{
	(void)context;
	if (in_outer == 0 || in_nested != 0)
		return;
	if (!delivered && points_seen++ == target_point) {
		delivered = true;
		pl011_model_run_as_irq(h.model, nested_body, &h);
	}
}

static void handler_entry(void *uart)
{
	bool counted = outer == OUTER_HANDLER && in_nested == 0;
	in_outer += counted;
	pl011_irq_handler(uart);
	in_outer -= counted;
}

static void tick_entry(void *uart)
{
	bool counted = outer == OUTER_TICK && in_nested == 0;
	in_outer += counted;
	pl011_event_tick(uart);
	in_outer -= counted;
}

static void on_event(struct pl011 *uart, uint32_t kinds, void *context)
{
	(void)uart;
	(void)kinds;
	(void)context;
}

/* One run with the nested context at the outer's point `point`; returns whether it came there
 * (false: the outer contexts of the run passed fewer points). */
static bool run_nested_at(enum pl011_tx_mode mode, uint64_t point)
{
	harness_setup_timed_events(&h, on_event);
	h.config.tx_mode = mode;
	pl011_model_set_irq_handler(h.model, handler_entry, &h.uart);
	harness_timer.on_tick = tick_entry;
	target_point = point;
	points_seen = 0;
	delivered = false;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_preempt_hook(at_point, NULL);

	uint8_t data[100];
	for (unsigned i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i & 0x7F); /* the panic's bytes are above 0x7F */
	int first = pl011_write(&h.uart, data, 60, PL011_NO_WAIT);
	assert_true(first >= 0);
	uint64_t now = pl011_model_now_ns(h.model);
	static const uint8_t received[] = {0x90, 0x91, 0x92, 0x93, 0x94, 0x95};
	(void)pl011_model_rx_inject_stream(h.model, received, sizeof received, now + 1000u);
	harness_advance_with_timer(&h, now + 3000000u);
	int second = pl011_write(&h.uart, data + first, 40, PL011_NO_WAIT);
	assert_true(second >= 0);
	harness_advance_with_timer(&h, pl011_model_now_ns(h.model) + 8000000u);
	pl011_model_set_preempt_hook(NULL, NULL);

	size_t accepted = (size_t)first + (size_t)second;
	uint8_t wire[512];
	size_t wire_len = harness_wire(&h, wire, sizeof wire);
	size_t in_order = 0;
	for (size_t i = 0; i < wire_len && in_order < accepted; i++)
		if (wire[i] == data[in_order])
			in_order++;
	if (h.uart.irq_inside != 0 || h.uart.ticks_inside != 0 || h.uart.tx.beside != 0 ||
	    harness_tx_stuck(&h) != NULL || in_order != accepted)
		fail_msg("%s mode, outer %s, %s nested at point %llu: irq_inside %u, ticks_inside "
			 "%u, beside %u, stuck: %s, %zu of %zu bytes on the wire in order",
			 harness_tx_mode_name(mode), outer == OUTER_HANDLER ? "handler" : "tick",
			 nested_names[nested], (unsigned long long)point, h.uart.irq_inside,
			 h.uart.ticks_inside,
			 h.uart.tx.beside, harness_tx_stuck(&h) ? harness_tx_stuck(&h) : "no",
			 in_order, accepted);
	harness_teardown(&h);
	return delivered;
}

static void explore(enum outer_context o, enum nested_context n)
{
	static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_MEASURED};
	outer = o;
	nested = n;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		uint64_t point = 0;
		while (run_nested_at(modes[m], point))
			point++;
		/* The run must have had points to preempt at: else this explored nothing. */
		assert_true(point > 10u);
		print_message("outer %s, %s nested, %s: %llu points\n",
			      o == OUTER_HANDLER ? "handler" : "tick", nested_names[n],
			      harness_tx_mode_name(modes[m]), (unsigned long long)point);
	}
}

/* Which context is preempted, and by what: the state of one test. */
struct nesting {
	enum outer_context outer;
	enum nested_context nested;
};

static void test_nesting(void **state)
{
	const struct nesting *nesting = *state;
	explore(nesting->outer, nesting->nested);
}

static struct nesting handler_by_tick = {OUTER_HANDLER, NESTED_TICK};
static struct nesting handler_by_panic = {OUTER_HANDLER, NESTED_PANIC};
static struct nesting tick_by_handler = {OUTER_TICK, NESTED_HANDLER};
static struct nesting tick_by_panic = {OUTER_TICK, NESTED_PANIC};

int main(void)
{
	const struct CMUnitTest tests[] = {
		{"test_handler_preempted_by_tick", test_nesting, NULL, NULL, &handler_by_tick},
		{"test_handler_preempted_by_panic", test_nesting, NULL, NULL, &handler_by_panic},
		{"test_tick_preempted_by_handler", test_nesting, NULL, NULL, &tick_by_handler},
		{"test_tick_preempted_by_panic", test_nesting, NULL, NULL, &tick_by_panic},
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
