/* One explorer run: a thread scenario with an interrupt at a chosen preemption point (explore.h). */
#include "explore.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "harness.h"
#include "invariants.h"
#include "pl011_internal.h"
#include "pl011_regs.h"

#define SMALL_RING 64u
#define RX_CHARACTERS 4u /* above the 1/8 RX trigger of either depth */
/* EXPLORE_RX_FILL: the ring holds RX_FILL_BEFORE before the scenario, RX_FILL_AT arrive. */
#define RX_FILL_BEFORE (SMALL_RING - 4u)
#define RX_FILL_AT 10u

/* Bytes by source, told apart on the wire by their values: the thread writes lowercase
 * letters (and '#' from its own panic write), the delivered interrupt's panic writes PANIC,
 * the nested one digits. */
static const uint8_t outer_message[] = {'P', 'A', 'N', 'I', 'C'};
static const uint8_t inner_message[] = {'0', '1', '2', '3'};
static const uint8_t thread_panic_message[] = {'#', '#'};

static struct harness h;
static const struct explore_params *params;
static struct explore_result *result;
static char failure_text[400];
static uint8_t expected[4096]; /* the thread's accepted stream, in order */
static size_t expected_len;
static uint32_t stream_position;
static int outer_written, inner_written; /* panic write results, -1 when not called */
static bool in_outer, in_inner, callback_armed;
static bool checking; /* the test's own look at the driver is not a point of the thread's */
static struct invariants invariants;
static uint32_t rx_discarded_by_shutdown;
static bool in_thread_panic;
static int thread_panic_written;
/* EXPLORE_PANIC_OWN_CORE: the panic came inside a stop on its own core, not yet disabling. */
static bool own_stop_writable;

/* EXPLORE_RESTART: what the higher-priority task did, and the old run's accepted stream. */
static struct {
	bool engaged; /* the thread's panic held TX or wrote beside it when the task came */
	bool restarted;
	int shut, init;
	uint32_t discarded;
	size_t mark; /* the wire's length at the restart */
	uint8_t old[4096];
	size_t old_len;
} restart;

static void run_scenario(void);
static void check_rx_fill(void);
static uint8_t wire[8192];

static void fail(const char *format, ...)
{
	if (result->failure != NULL)
		return;
	va_list args;
	va_start(args, format);
	vsnprintf(failure_text, sizeof failure_text, format, args);
	va_end(args);
	result->failure = failure_text;
}

void explore_default_params(struct explore_params *p)
{
	memset(p, 0, sizeof *p);
	p->mode = PL011_TX_HALF_FIFO;
	p->tx_trigger = PL011_LEVEL_DEFAULT;
	p->depth = 16;
	p->baud = 3000000u;
	p->scenario = EXPLORE_PRIME_IDLE;
	p->interrupt = EXPLORE_UART_HANDLER;
	p->point = EXPLORE_NEVER;
	p->inner_point = EXPLORE_NEVER;
	p->callback_ns = 20000u;
	p->latency_ns = 1000u;
	p->seed = 1;
	p->second_panic_at = EXPLORE_NEVER;
}

/* The events ride along in every case: the RX ones carry the RX scenarios, TX done comes from a
 * timer tick that core 1 takes (two cores), that follows the UART handler delivered at a point
 * (one core), and that the final check runs; each TX done must find every byte handed over
 * before its tick on the wire (one core: with posted writes another core's DR write may land
 * after the tick's look, and its drain then gets the next TX done). */
#define EXPLORE_EVENTS                                                                      \
	(PL011_EVENT_TX_DONE | PL011_EVENT_TX_SPACE | PL011_EVENT_RX_DATA | PL011_EVENT_RX_IDLE | \
	 PL011_EVENT_BREAK | PL011_EVENT_ERROR)
static bool tick_armed, in_set_line;
static size_t tx_done_events, tx_space_events;

static void arm_tick(uint32_t delay_us, void *context)
{
	(void)delay_us;
	(void)context;
	tick_armed = true;
}

/* What was handed to the UART (DR writes, ring bytes) when the tick began: a TX done it gives
 * must find all of that gone, whatever a nested interrupt writes meanwhile. */
static uint64_t tick_owed;

static void run_tick(void)
{
	tick_armed = false;
	tick_owed = pl011_model_counters(h.model)->writes[PL011_DR / 4u] + pl011_tx_queued(&h.uart);
	pl011_event_tick(&h.uart);
}

/* EXPLORE_WRITE_IN_HOLD: the stream's next bytes, from an interrupt while the thread is in
 * pl011_set_line and writes nothing itself. While it holds TX they wait in the ring (no stuck
 * check here): its give back sends them. */
static void accept(const uint8_t *data, int n);
static void hold_write(void)
{
	in_set_line = false; /* once */
	uint8_t data[6];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)('a' + (stream_position + i) % 26u);
	int n = pl011_write(&h.uart, data, sizeof data, PL011_NO_WAIT);
	accept(data, n);
	if (n > 0)
		stream_position += (uint32_t)n;
	/* Its bytes wait for set_line's give back, which lets go, then kicks them: "sure to
	 * come" is relaxed until set_line returns (docs/design.md). */
	invariants.writer_inside = true;
}

static int thread_write(size_t len, uint32_t bound_us);
static void fail(const char *format, ...);

/* The new run begins: the old run's stream is kept apart, the new one's starts empty. */
static void restart_begin_new_run(void)
{
	memcpy(restart.old, expected, expected_len);
	restart.old_len = expected_len;
	expected_len = 0;
	restart.mark = pl011_model_wire_len(h.model);
	restart.restarted = true;
}

static void restart_task(void)
{
	/* Nothing else runs: an owner (OWNED) is the thread's panic. */
	restart.engaged = (h.uart.tx.owner & 1u) != 0 || h.uart.tx.beside != 0;
	restart.shut = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
	struct pl011_stats stats;
	(void)pl011_get_stats(&h.uart, &stats);
	restart.discarded = stats.tx_discarded;
	if (restart.shut < 0 && restart.shut != PL011_ESTALLED)
		fail("shutdown over the panic returned %s", pl011_error_name(restart.shut));
	restart.init = harness_start(&h);
	if (restart.init == 0) {
		restart_begin_new_run();
		thread_write(10, PL011_NO_WAIT);
	} else if (restart.init != PL011_ESTALLED || !restart.engaged) {
		fail("init over the panic returned %s (the panic %s)", pl011_error_name(restart.init),
		     restart.engaged ? "engaged" : "not engaged");
	}
}

static void inner_interrupt(void *unused)
{
	(void)unused;
	inner_written = pl011_write_panic(&h.uart, inner_message, sizeof inner_message);
}

static void outer_interrupt(void *unused)
{
	(void)unused;
	in_outer = true;
	switch (params->interrupt) {
	case EXPLORE_PANIC_OTHER:
		outer_written = pl011_write_panic(&h.uart, outer_message, sizeof outer_message);
		break;
	case EXPLORE_WRITE_IN_HOLD:
		if (in_set_line)
			hold_write();
		break;
	case EXPLORE_TICK:
		if (tick_armed)
			run_tick();
		break;
	case EXPLORE_RX_FILL:
		for (unsigned i = 0; i < RX_FILL_AT; i++)
			pl011_model_rx_inject(h.model, 'r', 0, pl011_model_now_ns(h.model));
		pl011_irq_handler(&h.uart);
		break;
	case EXPLORE_PANIC_OWN_CORE:
		own_stop_writable = (h.uart.state == PL011_STATE_SHUTTING_DOWN ||
				     h.uart.state == PL011_STATE_SHUT) &&
				    (h.uart.tx.stop & (PL011_STOP_CORE_MASK | PL011_STOP_DISABLING)) == 1u;
		outer_written = pl011_write_panic(&h.uart, outer_message, sizeof outer_message);
		break;
	case EXPLORE_RESTART:
		restart_task();
		break;
	case EXPLORE_RX_PANIC:
	case EXPLORE_RX_SLOW:
		for (unsigned i = 0; i < RX_CHARACTERS; i++)
			pl011_model_rx_inject(h.model, 'r', 0, pl011_model_now_ns(h.model));
		callback_armed = true;
		pl011_irq_handler(&h.uart);
		callback_armed = false;
		break;
	default:
		pl011_irq_handler(&h.uart);
		if (tick_armed)
			run_tick(); /* the TX done timer's interrupt, at the same point */
		break;
	}
	in_outer = false;
}

/* ---- two cores, as coroutines switched at preemption points ---- */

#define CORE_STACK (256u * 1024u)

static ucontext_t main_context, core_context[2];
static char core_stack[2][CORE_STACK];
static int running_core;
static bool thread_done, second_done, second_panicked;
static int script_stage;
static uint32_t schedule_state;

static void switch_core(int to)
{
	int from = running_core;
	running_core = to;
	swapcontext(&core_context[from], &core_context[to]);
}

/*
 * Scripted: core 1 takes the interrupt as soon as its line is up, except that at core 0's
 * point `point` core 1 starts (stage 1) and runs only `inner_point` points of its own before
 * core 0 resumes for `resume_points` points (stage 2); then core 1 finishes (stage 3).
 */
static uint64_t stage_mark;

static bool scripted_switch(void)
{
	if (script_stage == 0 && running_core == 0 && result->thread_points > params->point) {
		script_stage = 1;
		stage_mark = result->second_points;
		return true;
	}
	if (script_stage == 1 && running_core == 1 &&
	    result->second_points - stage_mark > params->inner_point) {
		script_stage = 2;
		stage_mark = result->thread_points;
		return true;
	}
	if (script_stage == 2 && running_core == 0 &&
	    result->thread_points - stage_mark > params->resume_points) {
		script_stage = 3;
		return true;
	}
	return script_stage != 1 && script_stage != 2 && running_core == 0 &&
	       pl011_model_irq_line(h.model);
}

static void two_core_point(void)
{
	if (running_core == 0)
		result->thread_points++;
	else
		result->second_points++;
	bool go = params->switch_one_in != 0
			  ? harness_random(&schedule_state) % params->switch_one_in == 0
			  : scripted_switch();
	if (go)
		switch_core(1 - running_core);
}

static void thread_core(void)
{
	run_scenario();
	thread_done = true;
	while (!second_done)
		switch_core(1);
	/* uc_link: back to explore_run with both cores done */
}

/* Core 1: the UART's interrupt whenever its line is up, a panic write when it is time. */
static void second_core(void)
{
	if (script_stage == 1)
		result->delivered = true; /* the scripted interleaving took place */
	for (;;) {
		if (pl011_model_irq_line(h.model)) {
			pl011_irq_handler(&h.uart);
			continue;
		}
		if (!second_panicked && result->thread_points >= params->second_panic_at) {
			second_panicked = true;
			outer_written = pl011_write_panic(&h.uart, outer_message, sizeof outer_message);
			continue;
		}
		if (tick_armed)
			run_tick(); /* once per turn: a tick that finds the line busy arms again */
		if (thread_done)
			break;
		switch_core(0);
	}
	second_done = true;
	switch_core(0);
}

static void start_core(int core, void (*entry)(void))
{
	getcontext(&core_context[core]);
	core_context[core].uc_stack.ss_sp = core_stack[core];
	core_context[core].uc_stack.ss_size = CORE_STACK;
	core_context[core].uc_link = &main_context;
	makecontext(&core_context[core], entry, 0);
}

static void run_two_cores(void)
{
	thread_done = second_done = second_panicked = false;
	script_stage = 0;
	schedule_state = params->seed ? params->seed : 1u;
	pl011_model_set_irq_handler(h.model, NULL, NULL);
	start_core(0, thread_core);
	start_core(1, second_core);
	running_core = 0;
	swapcontext(&main_context, &core_context[0]);
	harness_route_irq(&h);
}

/* Called before every register access and atomic operation of the driver. */
static void preemption_point(void *unused)
{
	(void)unused;
	if (checking)
		return;
	const char *broken = invariants_check_point(&invariants, &h,
						    params->two_cores ? running_core : 0,
						    in_inner ? 2 : in_outer ? 1 : 0);
	if (broken != NULL)
		fail("at point %llu: %s", (unsigned long long)result->thread_points, broken);
	if (params->two_cores) {
		two_core_point();
		return;
	}
	if (!pl011_model_in_irq(h.model)) {
		if (params->interrupt == EXPLORE_RESTART && !in_thread_panic)
			return; /* a shutdown beside the thread's write is not allowed */
		if (result->thread_points++ == params->point && !result->delivered) {
			result->delivered = true;
			pl011_model_run_as_irq(h.model, outer_interrupt, NULL);
		}
		return;
	}
	if (!in_outer || in_inner || params->interrupt != EXPLORE_NESTED)
		return;
	if (result->inner_points++ == params->inner_point && !result->inner_delivered) {
		result->inner_delivered = true;
		in_inner = true;
		pl011_model_run_as_irq(h.model, inner_interrupt, NULL);
		in_inner = false;
	}
}

static void rx_event(struct pl011 *uart)
{
	if (!callback_armed)
		return;
	callback_armed = false;
	if (params->interrupt == EXPLORE_RX_PANIC)
		outer_written = pl011_write_panic(uart, outer_message, sizeof outer_message);
	else
		pl011_model_advance(h.model, params->callback_ns);
}

static void on_event(struct pl011 *uart, uint32_t kinds, void *context)
{
	(void)context;
	if ((kinds & ~EXPLORE_EVENTS) != 0)
		fail("event kinds 0x%x outside the mask", kinds);
	if (kinds & PL011_EVENT_TX_DONE) {
		tx_done_events++;
		const struct pl011_model_counters *c = pl011_model_counters(h.model);
		uint64_t gone = c->tx_wire_bytes + c->tx_fen_flushed + c->tx_overflows;
		if (!params->two_cores && gone < tick_owed)
			fail("TX done with %llu of the bytes before it not sent",
			     (unsigned long long)(tick_owed - gone));
	}
	if (kinds & PL011_EVENT_TX_SPACE)
		tx_space_events++;
	if (kinds & PL011_EVENT_RX_DATA)
		rx_event(uart);
}

static void check_not_stuck(const char *after)
{
	if (params->two_cores)
		return; /* core 1 may be sending: checked once both cores are done */
	checking = true;
	const char *stuck = harness_tx_stuck(&h);
	if (stuck != NULL)
		fail("after %s: %s", after, stuck);
	checking = false;
}

static void accept(const uint8_t *data, int n)
{
	if (n < 0 || expected_len + (size_t)n > sizeof expected) {
		fail("write returned %d", n);
		return;
	}
	memcpy(expected + expected_len, data, (size_t)n);
	expected_len += (size_t)n;
}

static int thread_write(size_t len, uint32_t bound_us)
{
	uint8_t data[256];
	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)('a' + (stream_position + i) % 26u);
	invariants.writer_inside = true;
	int n = pl011_write(&h.uart, data, len, bound_us);
	invariants.writer_inside = false;
	accept(data, n);
	if (n > 0)
		stream_position += (uint32_t)n;
	check_not_stuck("pl011_write");
	return n;
}

/*
 * EXPLORE_WRITE_SLEEP: after each short write, sleep (time passes, no driver call) until TX
 * space is given, as a task blocked on a semaphore the event gives would. The space may be
 * made outside the TX interrupt (a panic owning TX drains the ring and leaves TXIM masked):
 * the event must come all the same. Four rings' worth of frames is the bound.
 */
static void thread_write_sleeping(size_t len)
{
	while (len > 0 && result->failure == NULL) {
		size_t before = tx_space_events;
		int n = thread_write(len, PL011_NO_WAIT);
		if (n < 0)
			return;
		len -= (size_t)n;
		if (len == 0)
			return;
		uint64_t give_up = pl011_model_now_ns(h.model) +
				   4u * SMALL_RING * pl011_model_frame_ns(h.model);
		while (tx_space_events == before) {
			if (pl011_model_now_ns(h.model) > give_up) {
				fail("a writer asleep on TX space was never woken (%zu queued)",
				     pl011_tx_queued(&h.uart));
				return;
			}
			pl011_model_advance(h.model, pl011_model_frame_ns(h.model));
		}
	}
}

static void start_port(void)
{
	int err = harness_start(&h);
	if (err != 0)
		fail("pl011_init: %s", pl011_error_name(err));
}

static void thread_shutdown_and_restart(void)
{
	int discarded = pl011_shutdown(&h.uart, 10u);
	if (discarded < 0 || (size_t)discarded > expected_len) {
		fail("pl011_shutdown returned %d with %zu accepted", discarded, expected_len);
		return;
	}
	expected_len -= (size_t)discarded; /* the newest bytes are the ones discarded */
	struct pl011_stats stats;
	(void)pl011_get_stats(&h.uart, &stats);
	rx_discarded_by_shutdown = stats.rx_discarded; /* the restart starts the counters anew */
	if (pl011_model_peek(h.model, PL011_IMSC) != 0)
		fail("stopped port has IMSC 0x%x", pl011_model_peek(h.model, PL011_IMSC));
	start_port();
	thread_write(10, PL011_NO_WAIT);
}

static void run_scenario(void)
{
	thread_write(40, PL011_NO_WAIT);
	switch (params->scenario) {
	case EXPLORE_WRITE_BUSY:
		pl011_model_advance(h.model, 20000u);
		thread_write(40, PL011_NO_WAIT);
		break;
	case EXPLORE_WRITE_WAIT:
		thread_write(160, PL011_WAIT_AUTO);
		break;
	case EXPLORE_FLUSH:
		if (pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL) != 0)
			fail("flush timed out");
		check_not_stuck("pl011_flush");
		break;
	case EXPLORE_PANIC:
		in_thread_panic = true;
		thread_panic_written =
		    pl011_write_panic(&h.uart, thread_panic_message, sizeof thread_panic_message);
		in_thread_panic = false;
		if (params->interrupt != EXPLORE_RESTART)
			accept(thread_panic_message, thread_panic_written);
		if (params->interrupt == EXPLORE_RESTART && result->delivered && restart.init != 0) {
			/* Refused while the panic was inside: now it has left, the restart goes. */
			start_port();
			restart_begin_new_run();
			thread_write(10, PL011_NO_WAIT);
		}
		check_not_stuck("pl011_write_panic");
		break;
	case EXPLORE_SHUTDOWN:
		thread_shutdown_and_restart();
		break;
	case EXPLORE_REINIT: {
		/* pl011_init refuses a running port, touching nothing; pl011_restart restarts it. */
		int err = harness_start(&h);
		if (err != PL011_EBUSY)
			fail("pl011_init on the running port: %s", pl011_error_name(err));
		err = harness_restart(&h);
		if (err != 0)
			fail("pl011_restart: %s", pl011_error_name(err));
		thread_write(10, PL011_NO_WAIT);
		break;
	}
	case EXPLORE_WRITE_SLEEP:
		if (params->mode != PL011_TX_POLLED)
			thread_write_sleeping(100);
		break;
	case EXPLORE_SET_LINE: {
		static const struct pl011_line_config half = {.baud = 1500000u, .data_bits = 8,
							       .stop_bits = 1};
		in_set_line = true;
		int err = pl011_set_line(&h.uart, &half, PL011_WAIT_AUTO);
		in_set_line = false;
		invariants.writer_inside = false;
		/* With the RX ring nearly full the FIFO's bytes may not fit it: then the switch is
		 * refused, as documented, and the line stays. */
		bool busy_allowed = params->interrupt == EXPLORE_RX_FILL && err == PL011_EBUSY;
		if (err != 0 && !busy_allowed)
			fail("pl011_set_line: %s", pl011_error_name(err));
		check_not_stuck("pl011_set_line");
		thread_write(10, PL011_NO_WAIT);
		break;
	}
	default:
		break;
	}
	size_t pending = 0;
	int err = pl011_flush(&h.uart, PL011_WAIT_AUTO, &pending);
	if (err != 0)
		fail("final flush: %s with %zu pending", pl011_error_name(err), pending);
}

/* A panic's bytes on the wire: in order, and together (nothing else between them); up to
 * `slack` of those it counted may be missing (a stop that gave up on it said so). */
static void check_block(const uint8_t *message, size_t length, int written, size_t slack,
			bool (*is_mine)(uint8_t), size_t wire_len, const char *name)
{
	size_t count = 0, first = 0, last = 0;
	for (size_t i = 0; i < wire_len; i++) {
		if (!is_mine(wire[i]))
			continue;
		if (count == 0)
			first = i;
		last = i;
		if (count >= length || wire[i] != message[count])
			fail("%s byte %zu on the wire is '%c'", name, count, wire[i]);
		count++;
	}
	size_t reported = written > 0 ? (size_t)written : 0u;
	if (count > reported || reported - count > slack)
		fail("%s wrote %d bytes, the wire shows %zu", name, written, count);
	if (count != 0 && last - first + 1 != count && !params->two_cores)
		fail("%s bytes are split on the wire (%zu over %zu places)", name, count,
		     last - first + 1);
}

static bool is_outer(uint8_t c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_inner(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static bool is_thread_panic(uint8_t c)
{
	return c == thread_panic_message[0];
}

/* EXPLORE_RESTART: before the restart, the old run's bytes in order, each on the wire or
 * counted discarded (PL011_ESTALLED: at most a pass of 2 x depth both); after it, the thread's
 * panic only if it had not taken TX or gone beside before the task came. */
static size_t check_old_run(size_t wire_len)
{
	size_t seen = 0;
	for (size_t i = 0; i < restart.mark && i < wire_len; i++) {
		if (is_outer(wire[i]) || is_inner(wire[i]) || is_thread_panic(wire[i]))
			continue;
		if (seen >= restart.old_len || wire[i] != restart.old[seen]) {
			fail("old run's byte %zu differs on the wire ('%c')", seen, wire[i]);
			return restart.mark;
		}
		seen++;
	}
	size_t both = restart.shut >= 0 ? 0u : 2u * params->depth;
	if (seen + restart.discarded < restart.old_len ||
	    seen + restart.discarded > restart.old_len + both)
		fail("old run: wire %zu + discarded %u against %zu accepted (shutdown %d)", seen,
		     restart.discarded, restart.old_len, restart.shut);
	for (size_t i = restart.mark; i < wire_len && restart.engaged; i++)
		if (is_thread_panic(wire[i]))
			fail("the panic of the old run wrote after the restart");
	return restart.mark;
}

static void check_wire(void)
{
	size_t wire_len = harness_wire(&h, wire, sizeof wire);
	size_t thread_seen = 0;
	size_t from = restart.restarted ? check_old_run(wire_len) : 0u;
	bool restarting = params->interrupt == EXPLORE_RESTART;
	for (size_t i = from; i < wire_len && wire_len <= sizeof wire; i++) {
		if (is_outer(wire[i]) || is_inner(wire[i]) || (restarting && is_thread_panic(wire[i])))
			continue;
		if (thread_seen >= expected_len || wire[i] != expected[thread_seen]) {
			fail("thread byte %zu differs on the wire ('%c')", thread_seen, wire[i]);
			return;
		}
		thread_seen++;
	}
	if (thread_seen != expected_len)
		fail("wire shows %zu thread bytes, %zu accepted", thread_seen, expected_len);
	check_block(outer_message, sizeof outer_message, outer_written, 0, is_outer, wire_len,
		    "interrupt's panic");
	check_block(inner_message, sizeof inner_message, inner_written, 0, is_inner, wire_len,
		    "nested panic");
	if (restarting && thread_panic_written != -1)
		check_block(thread_panic_message, sizeof thread_panic_message,
			    thread_panic_written, restart.shut < 0 ? 1u : 0u, is_thread_panic,
			    wire_len, "thread's panic");
	struct pl011_stats stats;
	(void)pl011_get_stats(&h.uart, &stats);
	/* Counters restart with the port after a shutdown; otherwise every byte is counted. */
	if (params->scenario != EXPLORE_SHUTDOWN && !restart.restarted && stats.tx_bytes != wire_len)
		fail("stats.tx_bytes %u, wire %zu", stats.tx_bytes, wire_len);
	if (own_stop_writable && outer_written != (int)sizeof outer_message)
		fail("a panic inside its own core's stop wrote %d of %zu", outer_written,
		     sizeof outer_message);
}

/* The line is idle: the ticks give the last drain its TX done, and then stop. */
static void check_tx_done(void)
{
	for (int i = 0; i < 100 && tick_armed; i++) {
		pl011_model_advance(h.model, pl011_model_frame_ns(h.model));
		run_tick();
	}
	if (tick_armed)
		fail("the TX done ticks never end on an idle line");
	if (params->mode != PL011_TX_POLLED && expected_len != 0 && tx_done_events == 0)
		fail("no TX done for %zu bytes sent", expected_len);
	if (h.uart.events.tx_done_pending != 0)
		fail("a drain is still open on an idle line");
}

/* DE (active high: nUARTRTS high) at time t, from the model's log of RTS edges. */
static bool de_on_at(uint64_t t)
{
	bool rts_low = false; /* before any edge: CR.RTS clear from reset, the pin high */
	for (size_t e = 0; e < pl011_model_rts_edge_count(h.model); e++) {
		if (pl011_model_rts_edge_ns(h.model, e) > t)
			break;
		rts_low = pl011_model_rts_edge_asserted(h.model, e);
	}
	return !rts_low;
}

/* RS-485: each thread byte left with DE on (a panic's own bytes go with DE as it stands), and
 * the ticks that ended the last drain released it. */
static void check_rs485(void)
{
	if (h.config.rs485 == NULL)
		return;
	size_t wire_len = harness_wire(&h, wire, sizeof wire);
	for (size_t i = 0; i < wire_len && wire_len <= sizeof wire; i++) {
		if (is_outer(wire[i]) || is_inner(wire[i]))
			continue;
		if (!de_on_at(pl011_model_wire_start_ns(h.model, i))) {
			fail("thread byte at wire %zu sent with DE off", i);
			return;
		}
	}
	if (!pl011_model_rts(h.model))
		fail("DE still on once the TX done ticks ended");
}

static void check_final_state(void)
{
	/* A panic taken after the flush's last look may still be on its way out. */
	pl011_model_advance(h.model, pl011_model_frame_ns(h.model) * 40u);
	const struct pl011_model_counters *counters = pl011_model_counters(h.model);
	if (counters->tx_overflows != 0)
		fail("%llu FIFO overflows", (unsigned long long)counters->tx_overflows);
	if (pl011_tx_queued(&h.uart) != 0)
		fail("%zu bytes still queued after the flush", pl011_tx_queued(&h.uart));
	if (pl011_model_peek(h.model, PL011_IMSC) & PL011_INT_TX)
		fail("TXIM left armed with nothing to send");
	checking = true;
	const char *stuck = harness_tx_stuck(&h);
	if (stuck != NULL)
		fail("at the end: %s", stuck);
	checking = false;
	check_wire();
	check_tx_done();
	check_rs485();
	check_rx_fill();
	/* Ownership was released: a write now goes out by itself. */
	size_t before = expected_len;
	thread_write(20, PL011_WAIT_AUTO);
	if (expected_len != before + 20)
		fail("a write after the run was refused");
	pl011_model_advance(h.model, pl011_model_frame_ns(h.model) * 60u);
	if (pl011_model_wire_len(h.model) < before + 20u)
		fail("a write after the run did not reach the wire");
}

static uint32_t explore_core_zero(void *context)
{
	(void)context;
	return 0;
}

static void setup(void)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.fifo_depth = params->depth;
	model_config.irq_latency_ns = params->latency_ns;
	model_config.latency_jitter_ns = params->jitter_ns;
	model_config.latency_seed = params->seed ? params->seed : 1u;
	harness_setup_with(&h, &model_config);
	h.config.baud = params->baud;
	h.config.tx_mode = params->mode;
	h.config.tx_trigger = params->tx_trigger;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.event_mask = EXPLORE_EVENTS;
	h.config.event_driver = &pl011_event_driver;
	if (params->mode == PL011_TX_POLLED) /* the TX kinds need the ring (pl011_init refuses) */
		h.config.event_mask &= ~(PL011_EVENT_TX_DONE | PL011_EVENT_TX_SPACE);
	h.config.event = on_event;
	h.config.event_timer = arm_tick;
	if (params->interrupt == EXPLORE_PANIC_OWN_CORE)
		h.config.core_id = explore_core_zero;
	static const struct pl011_rs485 no_delays = {&pl011_rs485_driver, 0, 0, 0};
	if (params->rs485)
		h.config.rs485 = &no_delays;
	if (params->scenario == EXPLORE_WRITE_WAIT || params->scenario == EXPLORE_WRITE_SLEEP)
		h.config.tx_buffer_size = SMALL_RING;
	if (params->interrupt == EXPLORE_RX_FILL)
		h.config.rx_buffer_size = SMALL_RING;
	if (params->interrupt == EXPLORE_TICK && params->mode != PL011_TX_POLLED)
		h.config.rs485 = &no_delays; /* RS-485 needs a ring mode (pl011_init refuses) */
}

static void run_uart_handler(void *unused)
{
	(void)unused;
	pl011_irq_handler(&h.uart);
}

/* EXPLORE_RX_FILL: the ring 4 short of full, RX not paused (the reader has not read yet). The
 * handler runs as the interrupt: called from the thread, the model's own delivery (a latency
 * longer than a frame) would nest it inside itself, which no interrupt controller does. */
static void rx_fill_ring(void)
{
	if (params->interrupt != EXPLORE_RX_FILL)
		return;
	for (unsigned done = 0; done < RX_FILL_BEFORE; done += 4u) {
		for (unsigned i = 0; i < 4u; i++) /* at most a FIFO's worth between two handlers */
			pl011_model_rx_inject(h.model, 'r', 0, pl011_model_now_ns(h.model));
		pl011_model_advance(h.model, pl011_model_frame_ns(h.model));
		pl011_model_run_as_irq(h.model, run_uart_handler, NULL);
	}
	if (pl011_ring_count(&h.uart.rx.ring) != RX_FILL_BEFORE)
		fail("the RX ring holds %zu before the run", pl011_ring_count(&h.uart.rx.ring));
}

/*
 * EXPLORE_RX_FILL, at the end: IMSC masks RX exactly while the word says RX is paused (a stale
 * IMSC write unmasking it under the pause is an interrupt nobody clears), every character is
 * read or counted as discarded (a shutdown or re-init moves or counts the ring), and once the
 * reader has read, RX runs again.
 */
static void check_rx_fill(void)
{
	if (params->interrupt != EXPLORE_RX_FILL)
		return;
	uint32_t word = __atomic_load_n(&h.uart.imsc, __ATOMIC_SEQ_CST);
	uint32_t rx_bits = PL011_INT_RX | PL011_INT_RT;
	if ((pl011_model_peek(h.model, PL011_IMSC) & rx_bits) != (word & rx_bits))
		fail("IMSC 0x%x against the word 0x%x", pl011_model_peek(h.model, PL011_IMSC), word);
	uint8_t got[SMALL_RING];
	size_t received = 0;
	for (int round = 0; round < 8; round++) {
		int n;
		while ((n = pl011_read(&h.uart, got, sizeof got, PL011_NO_WAIT)) > 0)
			received += (size_t)n;
		pl011_model_advance(h.model, 4u * pl011_model_frame_ns(h.model));
	}
	struct pl011_stats stats;
	(void)pl011_get_stats(&h.uart, &stats);
	/* Characters injected while a shutdown had the UART disabled never arrived. */
	size_t arrived = (size_t)pl011_model_counters(h.model)->rx_received;
	uint32_t discarded = stats.rx_discarded + rx_discarded_by_shutdown;
	if (received + discarded != arrived)
		fail("RX: %zu read and %u discarded of %zu arrived", received, discarded, arrived);
	if ((pl011_model_peek(h.model, PL011_IMSC) & rx_bits) != rx_bits)
		fail("RX still masked after the reader read everything (IMSC 0x%x)",
		     pl011_model_peek(h.model, PL011_IMSC));
}

void explore_run(const struct explore_params *p, struct explore_result *r)
{
	params = p;
	result = r;
	memset(r, 0, sizeof *r);
	expected_len = 0;
	stream_position = 0;
	outer_written = inner_written = thread_panic_written = -1;
	in_outer = in_inner = callback_armed = checking = tick_armed = in_set_line = false;
	in_thread_panic = own_stop_writable = false;
	memset(&restart, 0, sizeof restart);
	tx_done_events = tx_space_events = 0;
	rx_discarded_by_shutdown = 0;
	setup();
	start_port();
	rx_fill_ring();
	invariants_reset(&invariants);
	pl011_model_set_preempt_hook(preemption_point, NULL);
	if (r->failure == NULL && p->two_cores)
		run_two_cores();
	else if (r->failure == NULL)
		run_scenario();
	pl011_model_set_preempt_hook(NULL, NULL);
	if (r->failure == NULL)
		check_final_state();
	harness_teardown(&h);
}
