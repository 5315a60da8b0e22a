/* Shutdown and restart beside contexts of the run they end (issue 33, items 3 and 5): on one
 * core by task priorities (each task an interrupt nested over the one below it, as a
 * higher-priority task preempts a lower one), and on two cores where one is stopped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "depth.h"
#include "harness.h"
#include "pl011_io.h"
#include "pl011_regs.h"

static struct harness h;

static const enum pl011_tx_mode all_modes[] = {PL011_TX_POLLED,	 PL011_TX_HALF_FIFO,
					       PL011_TX_POLL_FULL, PL011_TX_HYBRID,
					       PL011_TX_ADAPTIVE,	 PL011_TX_MEASURED};
static const char *const mode_names[] = {"POLLED", "HALF_FIFO", "POLL_FULL",
					 "HYBRID", "ADAPTIVE",	"MEASURED"};

/* lib/pl011_tx_owner.h's bits of tx.owner that the directors look at. */
#define OWNER_OWNED 1u
#define OWNER_PANIC_OWNER 32u

static uint32_t always_core_0(void *context)
{
	(void)context;
	return 0;
}

static uint64_t dr_writes(void)
{
	return pl011_model_counters(h.model)->writes[PL011_DR / 4u];
}

static uint32_t owner_word(void)
{
	return __atomic_load_n(&h.uart.tx.owner, __ATOMIC_SEQ_CST);
}

static void start_port(enum pl011_tx_mode mode, uint32_t baud, bool with_core_id)
{
	harness_setup(&h, 48000000u, 16u);
	h.config.baud = baud;
	h.config.tx_mode = mode;
	if (with_core_id)
		h.config.core_id = always_core_0;
	assert_int_equal(harness_start(&h), 0);
}

/* Bytes by source, told apart on the wire: the old run's writer lowercase letters, the new
 * run's uppercase, the low task's panic digits, the middle task's panic punctuation. */
static bool is_old_writer(uint8_t c)
{
	return c >= 'a' && c <= 'z';
}

static void fill_letters(uint8_t *data, size_t len, char first)
{
	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)((size_t)first + i % 26u);
}

static const uint8_t low_panic[] = {'0', '1', '2', '3', '4', '5', '6', '7'};
static const uint8_t middle_panic[] = {'#', '$', '%', '&', '(', ')', '*', '+'};

static uint8_t old_text[1000];
static uint8_t new_text[300];
static uint8_t tail_text[50];
static uint8_t wire[4096];

static void fill_texts(void)
{
	fill_letters(old_text, sizeof old_text, 'a');
	fill_letters(new_text, sizeof new_text, 'A');
	fill_letters(tail_text, sizeof tail_text, 'N');
}

/* After the restart (the wire had `restart_at` characters): the new run's bytes that were
 * accepted, then the tail, and nothing else: nothing of the old run leaves after it. */
static void expect_only_the_new_run_after(size_t restart_at, size_t new_accepted,
					  const char *what)
{
	assert_int_equal(pl011_write(&h.uart, tail_text, sizeof tail_text, PL011_WAIT_AUTO),
			 (int)sizeof tail_text);
	size_t pending = 0;
	int flushed = pl011_flush(&h.uart, PL011_WAIT_AUTO, &pending);
	size_t len = harness_wire(&h, wire, sizeof wire);
	if (flushed != 0 || len != restart_at + new_accepted + sizeof tail_text ||
	    memcmp(wire + restart_at, new_text, new_accepted) != 0 ||
	    memcmp(wire + restart_at + new_accepted, tail_text, sizeof tail_text) != 0) {
		size_t after = len > restart_at ? len - restart_at : 0u;
		fail_msg("%s: after the restart the flush returned %s with %zu pending; the wire "
			 "shows %zu bytes (%zu accepted), the first '%c'",
			 what, flushed == 0 ? "0" : pl011_error_name(flushed), pending, after,
			 new_accepted + sizeof tail_text,
			 after != 0 ? wire[restart_at] : '-');
	}
}

/* The count a panic reported is at least what the wire shows of it, in order. */
static void expect_panic_on_the_wire(const uint8_t *message, size_t length, int reported,
				     size_t upto)
{
	size_t seen = 0;
	for (size_t i = 0; i < upto; i++) {
		if (memchr(message, wire[i], length) == NULL)
			continue;
		assert_true(seen < length);
		assert_int_equal(wire[i], message[seen]);
		seen++;
	}
	assert_true(reported >= 0 || seen == 0);
	assert_true(seen <= (size_t)(reported > 0 ? reported : 0));
}

/* ---- item 3, known limit 1: a panic beside a panic, then a restart by a higher task ---- */

/*
 * Task C (the test's thread, lowest priority) is in pl011_write_panic owning TX; task A
 * (middle) calls pl011_write_panic, finds TX owned and writes beside C; task B (highest)
 * preempts A once it has written a byte: pl011_shutdown(PL011_WAIT_AUTO), pl011_init, 300
 * bytes with PL011_NO_WAIT. Then A, then C, run on.
 */
static struct {
	int level; /* 0: C (or the test), 1: A, 2: B */
	bool c_running, a_delivered, b_delivered;
	uint64_t dr_at_a;
	int a_result, c_result, shut_result, init_result, write_result;
	size_t restart_at;
} prio;

static void task_b_restarts(void *context)
{
	(void)context;
	prio.level = 2;
	prio.shut_result = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
	prio.init_result = harness_start(&h);
	if (prio.init_result == 0)
		prio.restart_at = pl011_model_wire_len(h.model);
	prio.write_result = pl011_write(&h.uart, new_text, sizeof new_text, PL011_NO_WAIT);
	prio.level = 1;
}

static void task_a_panics(void *context)
{
	(void)context;
	prio.level = 1;
	prio.dr_at_a = dr_writes();
	prio.a_result = pl011_write_panic(&h.uart, middle_panic, sizeof middle_panic);
	prio.level = 0;
}

static void priorities_hook(void *context)
{
	(void)context;
	if (prio.level == 0 && prio.c_running && !prio.a_delivered &&
	    (owner_word() & (OWNER_OWNED | OWNER_PANIC_OWNER)) == (OWNER_OWNED | OWNER_PANIC_OWNER)) {
		prio.a_delivered = true;
		pl011_model_run_as_irq(h.model, task_a_panics, NULL);
	} else if (prio.level == 1 && !prio.b_delivered && h.uart.tx.beside != 0 &&
		   dr_writes() > prio.dr_at_a) {
		prio.b_delivered = true;
		pl011_model_run_as_irq(h.model, task_b_restarts, NULL);
	}
}

static void run_restart_over_two_panics(enum pl011_tx_mode mode, bool with_core_id)
{
	start_port(mode, 115200u, with_core_id);
	memset(&prio, 0, sizeof prio);
	int old = pl011_write(&h.uart, old_text, 100u, PL011_NO_WAIT);
	assert_true(old > 0);
	pl011_model_set_preempt_hook(priorities_hook, NULL);
	prio.c_running = true;
	prio.c_result = pl011_write_panic(&h.uart, low_panic, sizeof low_panic);
	prio.c_running = false;
	pl011_model_set_preempt_hook(NULL, NULL);
	print_message("%s%s: C %d, A %d; B: shutdown %s, init %s, write %d\n", mode_names[mode],
		      with_core_id ? " (core_id)" : "", prio.c_result, prio.a_result,
		      prio.shut_result >= 0 ? "a count" : pl011_error_name(prio.shut_result),
		      prio.init_result == 0 ? "0" : pl011_error_name(prio.init_result),
		      prio.write_result);
	assert_true(prio.b_delivered);
	size_t new_accepted = prio.write_result > 0 ? (size_t)prio.write_result : 0u;
	if (prio.init_result != 0) {
		/* Refused, said out loud: once A and C have left, the restart goes through. */
		assert_int_equal(prio.init_result, PL011_ESTALLED);
		assert_int_equal(prio.write_result, PL011_ESHUTDOWN);
		prio.restart_at = pl011_model_wire_len(h.model);
		assert_int_equal(harness_start(&h), 0);
		int n = pl011_write(&h.uart, new_text, sizeof new_text, PL011_NO_WAIT);
		assert_true(n > 0);
		new_accepted = (size_t)n;
	}
	expect_only_the_new_run_after(prio.restart_at, new_accepted, mode_names[mode]);
	expect_panic_on_the_wire(low_panic, sizeof low_panic, prio.c_result, prio.restart_at);
	expect_panic_on_the_wire(middle_panic, sizeof middle_panic, prio.a_result, prio.restart_at);
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	harness_teardown(&h);
}

/* docs/shutdown.md, known limit 1, on one core: "TX silent after a restart" when A withdraws
 * from a tx.beside that init set to 0. In every mode, with and without config.core_id (A
 * goes beside at once, or after its ownership wait): either the restart in B works (all its
 * bytes and a later write leave, nothing of the old run after it) or it is refused with
 * PL011_ESTALLED and works once A and C have left. */
static void test_restart_by_a_higher_task_over_a_panic_beside_a_panic(void **state)
{
	enum pl011_tx_mode mode = *(const enum pl011_tx_mode *)*state;
	fill_texts();
	run_restart_over_two_panics(mode, false);
	run_restart_over_two_panics(mode, true);
}

/* ---- item 3, known limit 2: a panic draining the ring, shutdown(0) and init above it ---- */

static struct {
	int level;
	bool a_running, b_delivered;
	uint64_t dr_at_a;
	int a_result, shut_result, init_result, write_result;
	uint32_t discarded;
	size_t restart_at;
} drainer;

#define NEW_RUN_BYTES 20u

static void task_b_stops_and_starts(void *context)
{
	(void)context;
	drainer.level = 1;
	drainer.shut_result = pl011_shutdown(&h.uart, PL011_NO_WAIT);
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	drainer.discarded = stats.tx_discarded;
	drainer.init_result = harness_start(&h);
	if (drainer.init_result == 0)
		drainer.restart_at = pl011_model_wire_len(h.model);
	drainer.write_result = pl011_write(&h.uart, new_text, NEW_RUN_BYTES, PL011_NO_WAIT);
	drainer.level = 0;
}

static void drainer_hook(void *context)
{
	(void)context;
	if (drainer.level == 0 && drainer.a_running && !drainer.b_delivered &&
	    (owner_word() & (OWNER_OWNED | OWNER_PANIC_OWNER)) ==
		(OWNER_OWNED | OWNER_PANIC_OWNER) &&
	    dr_writes() >= drainer.dr_at_a + 139u) {
		drainer.b_delivered = true;
		pl011_model_run_as_irq(h.model, task_b_stops_and_starts, NULL);
	}
}

/* docs/shutdown.md, known limit 2, on one core: task A (low) owns TX as a panic draining
 * 1,000 queued bytes (POLLED: writing 300 of its own), task B (high) calls
 * pl011_shutdown(0) and pl011_init. A kept the ring through both of shutdown's waits, so the
 * count shutdown returns cannot be exact: PL011_ESTALLED (docs/api.md), every old byte on
 * the wire in order or counted discarded, at most a pass of them both. And nothing of the old
 * run leaves after the restart. */
static void test_restart_by_a_higher_task_over_a_panic_draining_the_ring(void **state)
{
	static uint8_t long_panic[300];
	fill_texts();
	for (size_t i = 0; i < sizeof long_panic; i++)
		long_panic[i] = (uint8_t)('0' + i % 10u);
	{
		enum pl011_tx_mode mode = *(const enum pl011_tx_mode *)*state;
		size_t m = (size_t)mode;
		bool polled = mode == PL011_TX_POLLED;
		start_port(mode, 115200u, false);
		memset(&drainer, 0, sizeof drainer);
		int old = pl011_write(&h.uart, old_text, polled ? 16u : sizeof old_text,
				      PL011_NO_WAIT);
		assert_true(old > 0);
		pl011_model_set_preempt_hook(drainer_hook, NULL);
		drainer.dr_at_a = dr_writes();
		drainer.a_running = true;
		drainer.a_result = pl011_write_panic(&h.uart, polled ? long_panic : low_panic,
						     polled ? sizeof long_panic : sizeof low_panic);
		drainer.a_running = false;
		pl011_model_set_preempt_hook(NULL, NULL);
		print_message("%s: A %d; B: shutdown %s (%u discarded), init %s\n", mode_names[m],
			      drainer.a_result,
			      drainer.shut_result >= 0 ? "a count"
						       : pl011_error_name(drainer.shut_result),
			      drainer.discarded,
			      drainer.init_result == 0 ? "0" : pl011_error_name(drainer.init_result));
		assert_true(drainer.b_delivered);
		size_t new_accepted =
		    drainer.write_result > 0 ? (size_t)drainer.write_result : 0u;
		if (drainer.init_result != 0) {
			assert_int_equal(drainer.init_result, PL011_ESTALLED);
			drainer.restart_at = pl011_model_wire_len(h.model);
			assert_int_equal(harness_start(&h), 0);
			int n = pl011_write(&h.uart, new_text, NEW_RUN_BYTES, PL011_NO_WAIT);
			assert_true(n > 0);
			new_accepted = (size_t)n;
		}
		expect_only_the_new_run_after(drainer.restart_at, new_accepted, mode_names[m]);
		size_t old_on_wire = 0;
		for (size_t i = 0; i < drainer.restart_at; i++) {
			if (!is_old_writer(wire[i]))
				continue;
			assert_int_equal(wire[i], old_text[old_on_wire]);
			old_on_wire++;
		}
		/* PL011_ESTALLED: the ring was counted under an owner that had written up to a
		 * pass (2 x depth) it had yet to take from the ring; never more. */
		assert_int_equal(drainer.shut_result, PL011_ESTALLED);
		assert_true(old_on_wire + drainer.discarded >= (size_t)old);
		assert_true(old_on_wire + drainer.discarded <= (size_t)old + 2u * 16u);
		assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
		harness_teardown(&h);
	}
}

/* ---- item 5: a panic that preempts pl011_shutdown on its own core ---- */

#define SHUTDOWN_BACKLOG 40u

static struct {
	bool in_shutdown, delivered;
	uint64_t points, deliver_at, disabled_at;
	bool enabled_at_delivery;
	int result;
} inside;

static void panic_inside_shutdown(void *context)
{
	(void)context;
	inside.enabled_at_delivery =
	    (pl011_model_peek(h.model, PL011_CR) & PL011_CR_UARTEN) != 0;
	inside.result = pl011_write_panic(&h.uart, low_panic, sizeof low_panic);
}

static void inside_hook(void *context)
{
	(void)context;
	if (!inside.in_shutdown || pl011_model_in_irq(h.model))
		return;
	uint64_t point = inside.points++;
	if (inside.disabled_at == UINT64_MAX &&
	    (pl011_model_peek(h.model, PL011_CR) & PL011_CR_UARTEN) == 0)
		inside.disabled_at = point;
	if (point == inside.deliver_at && !inside.delivered) {
		inside.delivered = true;
		pl011_model_run_as_irq(h.model, panic_inside_shutdown, NULL);
	}
}

/* One run: the panic at the shutdown's point `at` (UINT64_MAX: none). Returns the shutdown's
 * result; the wire is left in `wire`. */
static int shutdown_with_panic_at(enum pl011_tx_mode mode, uint64_t at, int *accepted)
{
	start_port(mode, 3000000u, true);
	memset(&inside, 0, sizeof inside);
	inside.deliver_at = at;
	inside.disabled_at = UINT64_MAX;
	inside.result = -100;
	*accepted = pl011_write(&h.uart, old_text, SHUTDOWN_BACKLOG, PL011_NO_WAIT);
	assert_true(*accepted > 0);
	pl011_model_set_preempt_hook(inside_hook, NULL);
	inside.in_shutdown = true;
	int result = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
	inside.in_shutdown = false;
	pl011_model_set_preempt_hook(NULL, NULL);
	pl011_model_advance(h.model, 40u * pl011_model_frame_ns(h.model));
	(void)harness_wire(&h, wire, sizeof wire);
	return result;
}

/* The points before the disable where the shutdown has begun it: its mark, its last look for
 * a panic beside it, the CR read and write of the TRM sequence. */
#define DISABLE_STEPS 4u

/*
 * docs/api.md, pl011_write_panic, with config.core_id: a panic that preempts a shutdown
 * on its own core cannot race it (the shutdown goes on only when the panic returns), so it
 * writes its bytes, within its bound, into the UART the shutdown has not disabled yet. At
 * every point of a shutdown (PL011_WAIT_AUTO, 40 bytes queued, 3 Mbaud) in every mode: the
 * panic returns 8 and its 8 bytes are on the wire, together and in order, unless the
 * shutdown had begun to disable the UART; every accepted byte is on the wire once.
 */
static void test_panic_inside_its_own_cores_shutdown_writes_its_bytes(void **state)
{
	fill_texts();
	unsigned long runs = 0, written = 0, refused = 0, failures = 0;
	{
		size_t m = (size_t)*(const enum pl011_tx_mode *)*state;
		int accepted = 0;
		(void)shutdown_with_panic_at(all_modes[m], UINT64_MAX, &accepted);
		uint64_t points = inside.points, disabled_at = inside.disabled_at;
		harness_teardown(&h);
		assert_true(disabled_at != UINT64_MAX);
		for (uint64_t at = 0; at < points; at++) {
			/* quick depth: a share of the points, and always the ones next to the disable */
			bool near_disable = at + 2u * DISABLE_STEPS >= disabled_at &&
					    at <= disabled_at + 2u * DISABLE_STEPS;
			if (!depth_pick(at, m, 4u) && !near_disable)
				continue;
			int result = shutdown_with_panic_at(all_modes[m], at, &accepted);
			size_t len = pl011_model_wire_len(h.model);
			size_t letters = 0, digits = 0, first = 0, last = 0;
			bool in_order = true;
			for (size_t i = 0; i < len && i < sizeof wire; i++) {
				if (is_old_writer(wire[i])) {
					in_order &= wire[i] == old_text[letters];
					letters++;
				} else if (wire[i] >= '0' && wire[i] <= '9') {
					if (digits == 0)
						first = i;
					last = i;
					in_order &= wire[i] == low_panic[digits % 8u];
					digits++;
				}
			}
			bool together = digits == 0 || last - first + 1u == digits;
			bool may_refuse = at + DISABLE_STEPS >= disabled_at || !inside.enabled_at_delivery;
			bool ok = inside.delivered && result >= 0 && in_order && together &&
				  letters + (size_t)result == (size_t)accepted &&
				  (inside.result == (int)sizeof low_panic
					   ? digits == sizeof low_panic
					   : may_refuse && inside.result == PL011_ESHUTDOWN && digits == 0);
			runs++;
			written += inside.result == (int)sizeof low_panic;
			refused += inside.result == PL011_ESHUTDOWN;
			if (!ok && failures++ < 8)
				print_message("FAIL %s, panic at point %llu of %llu (disable at %llu): "
					      "panic %s, %zu on the wire; shutdown %s, %zu of %d "
					      "letters\n",
					      mode_names[m], (unsigned long long)at,
					      (unsigned long long)points,
					      (unsigned long long)disabled_at,
					      inside.result >= 0 ? "wrote" : pl011_error_name(inside.result),
					      digits,
					      result >= 0 ? "a count" : pl011_error_name(result), letters,
					      accepted);
			harness_teardown(&h);
		}
	}
	print_message("panic inside its own core's shutdown, %s: %lu runs, %lu wrote all, %lu "
		      "refused (the UART being disabled), %lu failures\n",
		      mode_names[*(const enum pl011_tx_mode *)*state], runs, written, refused,
		      failures);
	assert_int_equal(failures, 0);
}

/* ---- known limit 4: a handler stuck past shutdown's wait, then init of the stopped port ---- */

static struct {
	bool callback_entered, release;
	int shut_result, first_init, second_init, third_init;
} stuck;

static void stuck_callback(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	(void)events;
	(void)context;
	stuck.callback_entered = true;
	while (!stuck.release)
		cores_yield();
}

/* Core 1's context, a step at a time: the UART's interrupt handler, or the event tick. */
static void step_handler(void)
{
	if (pl011_model_irq_line(h.model))
		pl011_irq_handler(&h.uart);
	else
		pl011_model_advance(h.model, 500u);
}

static void step_tick(void)
{
	if (harness_timer.armed && pl011_model_now_ns(h.model) >= harness_timer.due_ns) {
		harness_timer.armed = false;
		pl011_event_tick(&h.uart);
	} else {
		pl011_model_advance(h.model, 500u);
	}
}

static void (*stuck_step)(void);

static void stuck_body(int core, void *context)
{
	(void)context;
	if (core == 1) {
		while (!stuck.callback_entered)
			stuck_step();
		return;
	}
	while (!stuck.callback_entered)
		cores_yield();
	stuck.shut_result = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
	stuck.first_init = harness_start(&h);
	stuck.release = true;
	while (!cores_finished(1))
		cores_yield();
	stuck.second_init = stuck.first_init == 0 ? 0 : harness_start(&h);
	stuck.third_init = harness_restart(&h);
}

static void no_switch(void *context)
{
	(void)context;
}

/* Core 1 runs `step` until its callback is stuck, core 0 shuts the port down and starts it
 * (stuck_body). Shutdown gave up waiting, init after the context left starts, and so does a
 * restart of the running port, which then sends. */
static void run_stuck(const char *who, void (*step)(void))
{
	stuck_step = step;
	struct cores_plan plan = {.switch_one_in = 0,
				  .first_slice = UINT64_MAX,
				  .slice = UINT64_MAX,
				  .at_point = no_switch};
	cores_run(&plan, stuck_body, NULL);
	harness_route_irq(&h);
	print_message("%s stuck past shutdown: shutdown %s, init %s, %s, %s\n", who,
		      pl011_error_name(stuck.shut_result),
		      stuck.first_init == 0 ? "0" : pl011_error_name(stuck.first_init),
		      stuck.second_init == 0 ? "0" : pl011_error_name(stuck.second_init),
		      stuck.third_init == 0 ? "0" : pl011_error_name(stuck.third_init));
	assert_true(stuck.callback_entered);
	assert_int_equal(stuck.shut_result, PL011_ESTALLED);
	assert_int_equal(stuck.second_init, 0);
	assert_int_equal(stuck.third_init, 0);
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
}

static const uint8_t four_bytes[4] = {'r', 's', 't', 'u'};

/* A HALF_FIFO, LOW_LATENCY port giving RX_DATA to `callback`, its interrupt left to the test
 * (the model dispatches none), and 4 bytes on their way in. */
static void start_with_four_bytes_coming(pl011_event_fn callback)
{
	harness_setup(&h, 48000000u, 16u);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.event_mask = PL011_EVENT_RX_DATA;
	h.config.event = callback;
	h.config.event_driver = &pl011_event_driver;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_irq_handler(h.model, NULL, NULL);
	(void)pl011_model_rx_inject_stream(h.model, four_bytes, sizeof four_bytes,
					   pl011_model_now_ns(h.model));
}

/* docs/shutdown.md, known limit 4: after a shutdown that returned PL011_ESTALLED for a handler
 * stuck in its RX callback on another core, pl011_init of the stopped port either refuses
 * (PL011_ESTALLED) while the handler is inside, or counts it: once it has returned, starting
 * the port again, and restarting the running port (pl011_restart), both succeed. */
static void test_init_after_a_shutdown_that_left_a_handler_inside(void **state)
{
	(void)state;
	memset(&stuck, 0, sizeof stuck);
	start_with_four_bytes_coming(stuck_callback);
	run_stuck("handler", step_handler);
	harness_teardown(&h);
}

/* ---- an event tick stuck in its callback on another core, then shutdown and init ---- */

/* The event tick counts as a handler (docs/api.md): a shutdown waits for one inside on another
 * core, here stuck in the TX_DONE callback it gives, and returns PL011_ESTALLED when it does not
 * leave; init of the stopped port refuses or waits until it has, then starts. */
static void test_shutdown_waits_for_an_event_tick_on_another_core(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16u);
	memset(&harness_timer, 0, sizeof harness_timer);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.event_mask = PL011_EVENT_TX_DONE;
	h.config.event = stuck_callback;
	h.config.event_driver = &pl011_event_driver;
	h.config.event_timer = harness_timer_arm;
	h.config.event_timer_context = &h;
	assert_int_equal(harness_start(&h), 0);
	memset(&stuck, 0, sizeof stuck);
	assert_int_equal(pl011_write(&h.uart, "ab", 2, PL011_NO_WAIT), 2);
	pl011_model_advance(h.model, 4u * pl011_model_frame_ns(h.model));
	assert_true(harness_timer.armed);
	pl011_model_set_irq_handler(h.model, NULL, NULL);
	run_stuck("tick", step_tick);
	assert_int_equal(stuck.first_init, PL011_ESTALLED);
	harness_teardown(&h);
}

/* ---- a handler or a tick stopped at each point of its call, beside a shutdown ---- */

static struct {
	bool shut_returned, stalled;
	int shut_result;
	uint64_t accesses_at_return;
	size_t events_after;
} late;

static uint64_t register_accesses(void)
{
	const struct pl011_model_counters *counters = pl011_model_counters(h.model);
	return counters->total_reads + counters->total_writes;
}

static void late_callback(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	(void)events;
	(void)context;
	if (late.shut_returned)
		late.events_after++;
}

static void (*late_entry)(struct pl011 *uart);
static uint32_t late_bound_us;

/* Core 1 calls the handler or the tick once; core 0 lets it run to its stop, then shuts the
 * port down. Core 1 goes on once core 0 has returned. */
static void late_body(int core, void *context)
{
	(void)context;
	if (core == 1) {
		late_entry(&h.uart);
		return;
	}
	while (!cores_stalled(1) && !cores_finished(1))
		cores_yield();
	late.stalled = cores_stalled(1);
	late.shut_result = pl011_shutdown(&h.uart, late_bound_us);
	late.accesses_at_return = register_accesses();
	late.shut_returned = true;
}

/*
 * One run per point of core 1's call (set up by `arrange`, which leaves the UART's interrupt
 * to the test): core 1 stops there until a shutdown on core 0 has returned. A shutdown that
 * did not say PL011_ESTALLED waited out every context inside: the call, once it goes on, must
 * find the port stopped and return at once, touching no register and giving no event. The
 * port then starts again and sends.
 */
static void run_late_context(const char *who, void (*arrange)(void), void (*entry)(struct pl011 *),
			     uint32_t bound_us)
{
	unsigned long counted = 0, stalled = 0;
	late_entry = entry;
	late_bound_us = bound_us;
	for (uint64_t at = 1;; at++) {
		arrange();
		memset(&late, 0, sizeof late);
		struct cores_plan plan = {.first_slice = UINT64_MAX,
					  .slice = UINT64_MAX,
					  .at_point = no_switch,
					  .stall_at = at,
					  .stall_core = 1};
		cores_run(&plan, late_body, NULL);
		harness_route_irq(&h);
		if (!late.stalled) {
			harness_teardown(&h);
			break; /* past the call's last point */
		}
		uint64_t accesses = register_accesses() - late.accesses_at_return;
		if (late.shut_result == PL011_ESTALLED)
			stalled++;
		else if (late.shut_result >= 0 && accesses == 0 && late.events_after == 0)
			counted++;
		else
			fail_msg("%s stopped at its point %llu: shutdown %s, then the %s made %llu "
				 "register accesses and gave %zu events",
				 who, (unsigned long long)at,
				 late.shut_result >= 0 ? "a count"
						       : pl011_error_name(late.shut_result),
				 who, (unsigned long long)accesses, late.events_after);
		assert_int_equal(harness_start(&h), 0);
		assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		harness_teardown(&h);
	}
	print_message("%s stopped at each of its points beside a shutdown: %lu said "
		      "PL011_ESTALLED, %lu counted with the %s gone\n",
		      who, stalled, counted, who);
	/* Both kinds of stop exist: before its announcement, and inside. */
	assert_true(stalled != 0);
	assert_true(counted != 0);
}

/* The handler with received bytes pending (its RX cause up, RX_DATA to give). */
static void arrange_handler(void)
{
	start_with_four_bytes_coming(late_callback);
	pl011_model_advance(h.model, 10u * pl011_model_frame_ns(h.model));
	assert_true(pl011_model_irq_line(h.model));
}

/* docs/api.md, pl011_irq_handler: it announces itself before it looks at the port's state,
 * and shutdown waits for a handler already running on another core; a stopped port's handler
 * returns at once. At every point of a handler on core 1 stopped there: either the shutdown
 * on core 0 says PL011_ESTALLED, or the handler, once it goes on, services nothing. */
static void test_handler_stopped_at_each_point_beside_a_shutdown(void **state)
{
	(void)state;
	run_late_context("handler", arrange_handler, pl011_irq_handler, PL011_WAIT_AUTO);
}

/* The tick with TX_SPACE owed once the ring is half free: a short write, the ring full and
 * nothing draining it (the UART's interrupt left to the test). */
static void arrange_tick(void)
{
	static uint8_t text[HARNESS_TX_RING + 200u];
	harness_setup(&h, 48000000u, 16u);
	memset(&harness_timer, 0, sizeof harness_timer);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.event_mask = PL011_EVENT_TX_DONE | PL011_EVENT_TX_SPACE;
	h.config.event = late_callback;
	h.config.event_driver = &pl011_event_driver;
	h.config.event_timer = harness_timer_arm;
	h.config.event_timer_context = &h;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_irq_handler(h.model, NULL, NULL);
	fill_letters(text, sizeof text, 'a');
	int accepted = pl011_write(&h.uart, text, sizeof text, PL011_NO_WAIT);
	assert_true(accepted > 0 && (size_t)accepted < sizeof text);
}

/* docs/api.md, "Two cores": the event tick counts as a handler, and shutdown waits for it.
 * At every point of a tick on core 1 stopped there, with a shutdown(0) on core 0 (which
 * empties the ring, so TX_SPACE would be given): either the shutdown says PL011_ESTALLED, or
 * the tick, once it goes on, touches no register and gives no event. */
static void test_tick_stopped_at_each_point_beside_a_shutdown(void **state)
{
	(void)state;
	run_late_context("tick", arrange_tick, pl011_event_tick, 0u);
}

/* ---- a tick that passed its state check before a shutdown, going on inside the init ---- */

/* Core 1's call stops at its point park_at (before the shutdown on core 0 begins); at core 0's
 * point resume_at of the init that follows the shutdown it takes `steps` more points, then
 * stops again until core 0 has returned. */
static struct {
	uint64_t park_at, steps, resume_at, init_points;
	bool in_init, resumed;
	int shut_result, init_result;
} script;

static void script_point(void *context)
{
	(void)context;
	if (cores_current() == 1) {
		uint64_t at = cores_points(1);
		if (at == script.park_at || (script.resumed && at == script.park_at + script.steps))
			cores_yield();
	} else if (script.in_init && ++script.init_points == script.resume_at) {
		script.resumed = true;
		cores_yield();
	}
}

static void script_body(int core, void *context)
{
	(void)context;
	if (core == 1) {
		late_entry(&h.uart);
		return;
	}
	cores_yield(); /* core 1 to its stop */
	script.shut_result = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
	script.in_init = true;
	script.init_result = harness_start(&h);
	script.in_init = false;
}

/* The tick passes its state check on a running port (TX done's opener set), nothing else
 * pending. */
static void arrange_quiet_tick(void)
{
	harness_setup(&h, 48000000u, 16u);
	memset(&harness_timer, 0, sizeof harness_timer);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.event_mask = PL011_EVENT_TX_DONE;
	h.config.event = late_callback;
	h.config.event_driver = &pl011_event_driver;
	h.config.event_timer = harness_timer_arm;
	h.config.event_timer_context = &h;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_irq_handler(h.model, NULL, NULL);
}

/*
 * lib/pl011.c, pl011_start_begin: a context that looked at the state before the shutdown may
 * announce itself while the init of the port the shutdown stopped runs, and withdraw after it;
 * the init keeps the presence count of such a port, so the count comes back to 0. Here the
 * event tick, stopped on core 1 before it counts itself in (or once it has), takes one point
 * at every point of the init on core 0 and goes on once the init has returned. Whatever the
 * init said (PL011_ESTALLED while the tick is inside), the port then starts, shuts down
 * without PL011_ESTALLED (nobody is inside), starts again and sends.
 */
static void test_tick_counting_in_during_an_init_leaves_no_count(void **state)
{
	(void)state;
	late_entry = pl011_event_tick;
	unsigned long refused = 0, runs = 0;
	/* Stopped at its first or second point: before it counts in (whichever build). */
	for (uint64_t at = 1, park_at = 1; park_at <= 2; at++) {
		arrange_quiet_tick();
		memset(&script, 0, sizeof script);
		script.park_at = park_at;
		script.steps = 1;
		script.resume_at = at;
		script.shut_result = script.init_result = -100;
		struct cores_plan plan = {.first_slice = UINT64_MAX,
					  .slice = UINT64_MAX,
					  .at_point = script_point};
		cores_run(&plan, script_body, NULL);
		harness_route_irq(&h);
		/* Past the init's last point, or the tick counted in before the shutdown (which
		 * said so, and the init, waiting for it, refuses): the next stop. */
		if (!script.resumed || script.shut_result == PL011_ESTALLED) {
			if (script.resumed)
				assert_int_equal(script.init_result, PL011_ESTALLED);
			else
				assert_true(script.shut_result >= 0);
			harness_teardown(&h);
			at = 0;
			park_at++;
			continue;
		}
		runs++;
		assert_true(script.shut_result >= 0);
		if (script.init_result != 0) {
			assert_int_equal(script.init_result, PL011_ESTALLED);
			refused++;
			assert_int_equal(harness_start(&h), 0);
		}
		int shut = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
		if (shut < 0)
			fail_msg("tick stopped at its point %llu, going on at the init's point %llu "
				 "(init %s): the next shutdown says %s",
				 (unsigned long long)park_at, (unsigned long long)at,
				 script.init_result == 0 ? "0"
							 : pl011_error_name(script.init_result),
				 pl011_error_name(shut));
		assert_int_equal(harness_start(&h), 0);
		assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		harness_teardown(&h);
	}
	print_message("tick going on during an init: %lu runs, %lu inits refused\n", runs,
		      refused);
	assert_true(runs != 0);
}

/* ---- a panic beside the shutdown's hold, stopped through the init or going on inside it ---- */

#define OWNER_HELD 128u

/* Core 1's panic starts once the shutdown on core 0 holds TX (config.core_id says both run on
 * core 0: it goes beside the stop, CUT_WHEN_DISABLING); it stops at its point park_at, takes
 * one point at the init's point resume_at (0: none), and goes on once core 0 has returned. */
static struct {
	uint64_t park_at, resume_at, init_points;
	bool started, parked, beside_at_park, in_init, resumed;
	int shut_result, init_result, panic_result;
} pb;

static void beside_point(void *context)
{
	(void)context;
	if (cores_current() == 1) {
		uint64_t at = cores_points(1);
		if (at == pb.park_at) {
			pb.parked = true;
			pb.beside_at_park =
			    __atomic_load_n(&h.uart.tx.beside, __ATOMIC_SEQ_CST) != 0;
			cores_yield();
		} else if (pb.resumed && at == pb.park_at + 1u) {
			cores_yield();
		}
	} else if (!pb.started && (owner_word() & OWNER_HELD) != 0) {
		pb.started = true;
		cores_yield();
	} else if (pb.in_init && ++pb.init_points == pb.resume_at) {
		pb.resumed = true;
		cores_yield();
	}
}

static void beside_body(int core, void *context)
{
	(void)context;
	if (core == 1) {
		while (!pb.started)
			cores_yield();
		pb.panic_result = pl011_write_panic(&h.uart, low_panic, sizeof low_panic);
		return;
	}
	pb.shut_result = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
	pb.in_init = true;
	pb.init_result = harness_start(&h);
	pb.in_init = false;
}

/* The init's points where the panic may go on, and the panic's own where it may stop: its
 * entry, its look at TX, its announcement beside and its first bytes (tens of points; the
 * rest is its wait for the FIFO, the same points again). */
#define BESIDE_INIT_POINTS 60u
#define BESIDE_PANIC_POINTS 40u

/*
 * docs/api.md, pl011_init: it refuses (PL011_ESTALLED) while a panic of the last run writes
 * beside its owner; and (lib/pl011.c, pl011_start_begin) it keeps tx.beside of a port it
 * stopped, so a panic that announces itself beside during the init and withdraws after it
 * leaves the count at 0. A panic beside the shutdown's hold on core 1, stopped at each of its
 * first points: through the whole shutdown and init (a panic stopped beside makes the init refuse),
 * or taking one point at each of the init's first points. Then the port starts (again),
 * sends, and shuts down without PL011_ESTALLED.
 */
static void test_panic_beside_a_shutdown_stopped_through_the_init(void **state)
{
	(void)state;
	fill_texts();
	unsigned long runs = 0, beside_refused = 0;
	for (uint64_t park_at = 1; park_at <= BESIDE_PANIC_POINTS; park_at++) {
		bool parked = false;
		for (uint64_t at = 0; at <= BESIDE_INIT_POINTS; at++) {
			start_port(PL011_TX_HALF_FIFO, 3000000u, true);
			pl011_model_set_irq_handler(h.model, NULL, NULL);
			memset(&pb, 0, sizeof pb);
			pb.park_at = park_at;
			pb.resume_at = at;
			pb.shut_result = pb.init_result = pb.panic_result = -100;
			struct cores_plan plan = {.first_slice = UINT64_MAX,
						  .slice = UINT64_MAX,
						  .at_point = beside_point};
			cores_run(&plan, beside_body, NULL);
			harness_route_irq(&h);
			assert_true(pb.started);
			parked = pb.parked;
			if (!parked || (at != 0 && !pb.resumed)) {
				harness_teardown(&h);
				break; /* past the panic's last point, or the init's */
			}
			runs++;
			if (at == 0 && pb.beside_at_park) {
				beside_refused++;
				if (pb.init_result != PL011_ESTALLED)
					fail_msg("panic stopped beside at its point %llu: "
						 "shutdown %s, init %s",
						 (unsigned long long)park_at,
						 pl011_error_name(pb.shut_result),
						 pl011_error_name(pb.init_result));
			}
			if (pb.init_result != 0) {
				assert_int_equal(pb.init_result, PL011_ESTALLED);
				assert_int_equal(harness_start(&h), 0);
			}
			int sent = pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO);
			int flushed = pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL);
			int shut = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
			if (sent != 2 || flushed != 0 || shut < 0)
				fail_msg("panic stopped at its point %llu, one point at the init's "
					 "%llu (init %s): then write %d, flush %s, shutdown %s",
					 (unsigned long long)park_at, (unsigned long long)at,
					 pl011_error_name(pb.init_result), sent,
					 pl011_error_name(flushed), pl011_error_name(shut));
			harness_teardown(&h);
		}
		if (!parked)
			break;
	}
	print_message("panic beside a shutdown, stopped through or inside the init: %lu runs, %lu "
		      "stopped beside (init refused)\n",
		      runs, beside_refused);
	assert_true(beside_refused != 0);
}

/* ---- pl011_set_line beside a handler stuck on another core ---- */

static const struct pl011_line_config faster = {.baud = 230400, .data_bits = 8, .stop_bits = 1};
static int line_first, line_second;

static void stuck_line_body(int core, void *context)
{
	(void)context;
	if (core == 1) {
		while (!stuck.callback_entered)
			step_handler();
		return;
	}
	while (!stuck.callback_entered)
		cores_yield();
	line_first = pl011_set_line(&h.uart, &faster, PL011_WAIT_AUTO);
	stuck.release = true;
	while (!cores_finished(1))
		cores_yield();
	line_second = pl011_set_line(&h.uart, &faster, PL011_WAIT_AUTO);
}

/* docs/api.md, pl011_set_line: it waits out a handler on another core (the RX ring's producer)
 * and says PL011_ESTALLED, with the line as before, when it does not return within its bound;
 * here one stuck in its RX callback. Once it has returned, the switch goes through. */
static void test_set_line_waits_for_a_handler_on_another_core(void **state)
{
	(void)state;
	memset(&stuck, 0, sizeof stuck);
	line_first = line_second = -100;
	start_with_four_bytes_coming(stuck_callback);
	struct cores_plan plan = {.first_slice = UINT64_MAX,
				  .slice = UINT64_MAX,
				  .at_point = no_switch};
	struct pl011_line_config before, after;
	assert_int_equal(pl011_get_line(&h.uart, &before), 0);
	cores_run(&plan, stuck_line_body, NULL);
	harness_route_irq(&h);
	print_message("set_line beside a handler stuck in its callback: %s, then %s\n",
		      pl011_error_name(line_first),
		      line_second == 0 ? "0" : pl011_error_name(line_second));
	assert_true(stuck.callback_entered);
	assert_int_equal(line_first, PL011_ESTALLED);
	assert_int_equal(line_second, 0);
	assert_int_equal(pl011_get_line(&h.uart, &after), 0);
	assert_true(before.baud < 200000u && after.baud > 200000u);
	uint8_t got[8];
	assert_int_equal(pl011_read(&h.uart, got, sizeof got, PL011_NO_WAIT), (int)sizeof four_bytes);
	assert_memory_equal(got, four_bytes, sizeof four_bytes);
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	harness_teardown(&h);
}

/* ---- config.core_id's premise broken: two tasks of one core, time-sliced ---- */

static struct {
	int shut_result, panic_result, accepted;
	bool once_held; /* the panic comes once the shutdown holds TX (else once it began) */
} sliced;

static const uint8_t *sliced_message(void)
{
	static uint8_t message[40];
	for (size_t i = 0; i < sizeof message; i++)
		message[i] = (uint8_t)('0' + i % 10u);
	return message;
}

static void sliced_wait_hook(void *context)
{
	(void)context;
	cores_idle_step(h.model, 2000u); /* the shutdown's task lets the other run: a yield */
}

static void sliced_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		sliced.shut_result = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
		return;
	}
	/* The other task panics once the shutdown has begun, or holds TX (HELD). */
	while (!cores_finished(0) &&
	       (sliced.once_held ? (h.uart.tx.owner & 128u) == 0 : h.uart.tx.stop == 0))
		cores_yield();
	if (!cores_finished(0))
		sliced.panic_result = pl011_write_panic(&h.uart, sliced_message(),
							sliced.once_held ? 40u : sizeof low_panic);
}

/* docs/shutdown.md, "A panic during a shutdown": config.core_id's premise broken, a wait hook
 * that lets another task of the same core run while pl011_shutdown waits, and the two tasks
 * time-sliced (every switch at a preemption point, seeded). The other task's panic (8 bytes
 * once the shutdown began, at 3 Mbaud; 40 once it holds TX, at 115,200) counts as over the
 * shutdown, and still every byte it counts leaves: the shutdown waits for it before the
 * disable (DISABLING, tx.beside), or says PL011_ESTALLED when it gives up (one byte at most
 * then; a panic that keeps feeding the FIFO through the shutdown's last FIFO wait makes it
 * say so too); every accepted byte is on the wire or counted. */
static void test_panic_of_another_task_beside_a_yielding_shutdown_loses_nothing(void **state)
{
	enum pl011_tx_mode mode = *(const enum pl011_tx_mode *)*state;
	static const uint32_t one_in[] = {2, 7, 40};
	fill_texts();
	unsigned long runs = 0, wrote = 0, stalled = 0;
	for (size_t i = 0; i < 2u * sizeof one_in / sizeof one_in[0]; i++)
		for (uint32_t seed = 1; seed <= 15; seed++) {
			if (!depth_pick(seed, i + (size_t)mode, 3u))
				continue;
			bool once_held = i >= sizeof one_in / sizeof one_in[0];
			harness_setup(&h, 48000000u, 16u);
			h.config.baud = once_held ? 115200u : 3000000u;
			h.config.tx_mode = mode;
			h.config.core_id = always_core_0;
			h.config.wait_hook = sliced_wait_hook;
			assert_int_equal(harness_start(&h), 0);
			memset(&sliced, 0, sizeof sliced);
			sliced.once_held = once_held;
			sliced.panic_result = -100;
			sliced.accepted = pl011_write(&h.uart, old_text, 40u, PL011_NO_WAIT);
			assert_true(sliced.accepted > 0);
			struct cores_plan plan = {.switch_one_in = one_in[i % 3u],
						  .seed = seed * 2654435761u};
			cores_run(&plan, sliced_body, NULL);
			harness_route_irq(&h);
			pl011_model_advance(h.model, 40u * pl011_model_frame_ns(h.model));
			size_t len = harness_wire(&h, wire, sizeof wire);
			size_t letters = 0, digits = 0;
			for (size_t k = 0; k < len; k++) {
				if (is_old_writer(wire[k]))
					letters++;
				else if (wire[k] >= '0' && wire[k] <= '9')
					digits++;
			}
			struct pl011_stats stats;
			assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
			size_t reported = sliced.panic_result > 0 ? (size_t)sliced.panic_result : 0u;
			bool said = sliced.shut_result == PL011_ESTALLED;
			runs++;
			wrote += reported == (once_held ? 40u : sizeof low_panic);
			stalled += said;
			if (!(sliced.shut_result >= 0 || said) || digits > reported ||
			    reported - digits > (said ? 1u : 0u) ||
			    letters + stats.tx_discarded < (size_t)sliced.accepted ||
			    letters + stats.tx_discarded > (size_t)sliced.accepted + (said ? 32u : 0u))
				fail_msg("%s, one in %u, seed %u%s: shutdown %d, panic %d with %zu on the "
					 "wire, %zu letters + %u discarded of %d",
					 mode_names[mode], one_in[i % 3u], seed,
					 once_held ? ", once held" : "", sliced.shut_result,
					 sliced.panic_result, digits, letters, stats.tx_discarded,
					 sliced.accepted);
			harness_teardown(&h);
		}
	print_message("%s: another task's panic beside a yielding shutdown: %lu runs, %lu wrote all, "
		      "%lu shutdowns said PL011_ESTALLED\n",
		      mode_names[mode], runs, wrote, stalled);
}

/* One test per mode: the state is the mode. The harness is freed by the teardown when a test
 * fails before its own harness_teardown. */
static int teardown(void **state)
{
	(void)state;
	if (h.model != NULL)
		harness_teardown(&h);
	return 0;
}

#define PER_MODE(test)                                                                          \
	cmocka_unit_test_prestate_setup_teardown(test, NULL, teardown, (void *)&all_modes[0]),   \
	    cmocka_unit_test_prestate_setup_teardown(test, NULL, teardown, (void *)&all_modes[1]), \
	    cmocka_unit_test_prestate_setup_teardown(test, NULL, teardown, (void *)&all_modes[2]), \
	    cmocka_unit_test_prestate_setup_teardown(test, NULL, teardown, (void *)&all_modes[3]), \
	    cmocka_unit_test_prestate_setup_teardown(test, NULL, teardown, (void *)&all_modes[4]), \
	    cmocka_unit_test_prestate_setup_teardown(test, NULL, teardown, (void *)&all_modes[5])

int main(void)
{
	const struct CMUnitTest tests[] = {
	    PER_MODE(test_restart_by_a_higher_task_over_a_panic_beside_a_panic),
	    PER_MODE(test_restart_by_a_higher_task_over_a_panic_draining_the_ring),
	    PER_MODE(test_panic_inside_its_own_cores_shutdown_writes_its_bytes),
	    PER_MODE(test_panic_of_another_task_beside_a_yielding_shutdown_loses_nothing),
	    cmocka_unit_test_teardown(test_init_after_a_shutdown_that_left_a_handler_inside,
				      teardown),
	    cmocka_unit_test_teardown(test_shutdown_waits_for_an_event_tick_on_another_core,
				      teardown),
	    cmocka_unit_test_teardown(test_handler_stopped_at_each_point_beside_a_shutdown,
				      teardown),
	    cmocka_unit_test_teardown(test_tick_stopped_at_each_point_beside_a_shutdown, teardown),
	    cmocka_unit_test_teardown(test_set_line_waits_for_a_handler_on_another_core,
				      teardown),
	    cmocka_unit_test_teardown(test_tick_counting_in_during_an_init_leaves_no_count,
				      teardown),
	    cmocka_unit_test_teardown(test_panic_beside_a_shutdown_stopped_through_the_init,
				      teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
