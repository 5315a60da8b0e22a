/* The two-core and panic-path defects of issue 26, each reproduced on the model as it was found. */
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

/* ---- examples/smp's pattern at a real line rate ---- */

#define SMP_BYTES 3000u
#define SMP_QUEUE_CHUNK 61u
#define SMP_PANIC_CHUNK 13u

static unsigned smp_short_panics, smp_panic_calls, smp_short_writes, smp_late_writes;
static uint64_t smp_longest_short_us;

static void smp_wait_step(void *context)
{
	cores_idle_step(context, 2000u);
}

static uint32_t next_length(uint32_t *state, uint32_t max)
{
	return harness_random(state) % max + 1u;
}

/* Core 0 pl011_write in chunks of 1-61 (PL011_WAIT_AUTO), core 1 pl011_write_panic in chunks
 * of 1-13, as examples/smp does on three cores (there the interrupt has its own). */
static void smp_body(int core, void *context)
{
	(void)context;
	uint8_t chunk[SMP_QUEUE_CHUNK];
	uint32_t state = core == 0 ? 0x9E3779B9u : 0x2545F491u;
	uint32_t position = 0;
	while (position < SMP_BYTES) {
		uint32_t length = next_length(&state, core == 0 ? SMP_QUEUE_CHUNK : SMP_PANIC_CHUNK);
		if (length > SMP_BYTES - position)
			length = SMP_BYTES - position;
		for (uint32_t i = 0; i < length; i++)
			chunk[i] = (uint8_t)((core == 0 ? 'a' : 'A') + (position + i) % 26u);
		/* A write's own bound: the backlog deadline of what it finds queued plus its bytes
		 * (the panics' line time on the other core comes out of it). */
		uint64_t bound_us = pl011_backlog_deadline_us(&h.uart,
							      pl011_tx_queued(&h.uart) + length);
		uint64_t start_ns = pl011_model_now_ns(h.model);
		int n = core == 0 ? pl011_write(&h.uart, chunk, length, PL011_WAIT_AUTO)
				  : pl011_write_panic(&h.uart, chunk, length);
		uint64_t took_us = (pl011_model_now_ns(h.model) - start_ns) / 1000u;
		if (core == 0 && took_us > bound_us + 10u)
			smp_late_writes++;
		if (core == 0 && n != (int)length && took_us > smp_longest_short_us)
			smp_longest_short_us = took_us;
		if (core == 1) {
			smp_panic_calls++;
			if (n != (int)length)
				smp_short_panics++;
		} else if (n != (int)length) {
			smp_short_writes++;
		}
		position += n > 0 ? (uint32_t)n : length;
		if (pl011_model_irq_line(h.model) && core == 0)
			cores_yield();
	}
}

static void run_smp_pattern(enum pl011_tx_mode mode, uint32_t switch_one_in)
{
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = mode;
	h.config.wait_hook = smp_wait_step;
	assert_int_equal(harness_start(&h), 0);
	smp_short_panics = smp_panic_calls = smp_short_writes = smp_late_writes = 0;
	smp_longest_short_us = 0;
	struct cores_plan plan = {.switch_one_in = switch_one_in, .seed = 0x5339u};
	cores_run(&plan, smp_body, NULL);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	print_message("smp pattern, mode %d, 115200 baud, 4 KiB ring: %u of %u panic calls short, "
		      "%u writes short (the longest took %llu us), %u past their bound, %llu "
		      "overflows\n",
		      mode, smp_short_panics, smp_panic_calls, smp_short_writes,
		      (unsigned long long)smp_longest_short_us, smp_late_writes,
		      (unsigned long long)pl011_model_counters(h.model)->tx_overflows);
	/* A panic has TX before any writer: the writer's own bound (its backlog deadline) does
	 * not count the panics' line time, so some of its waits may run out; none of the
	 * panics' may. */
	assert_int_equal(smp_short_panics, 0);
	/* A writer that comes back short (POLLED, under back-to-back panics) does so at its
	 * bound, never later: it is bounded, not starved for ever (docs/waiting.md). */
	assert_int_equal(smp_late_writes, 0);
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	harness_teardown(&h);
}

/* The panic drained what a streaming writer kept queueing until its deadline and returned 0. */
static void test_smp_pattern_no_panic_is_short_with_measured(void **state)
{
	(void)state;
	run_smp_pattern(PL011_TX_MEASURED, 7);
}

/* The polled writer owned TX for its whole write: the panic waited out its bound. */
static void test_smp_pattern_no_panic_is_short_when_polled(void **state)
{
	(void)state;
	run_smp_pattern(PL011_TX_POLLED, 7);
}

/* ---- a same-core panic over a preempted owner ---- */

static unsigned hook_calls;
static bool counting_hook;
static uint64_t panic_took_ns;
static int panic_result;
static bool delivered;

static void counted_wait_step(void *context)
{
	if (counting_hook)
		hook_calls++;
	pl011_model_advance(context, 2000u);
}

static uint32_t always_core_0(void *context)
{
	(void)context;
	return 0;
}

static void panic_interrupt(void *context)
{
	(void)context;
	static const char message[] = "PANIC";
	uint64_t start = pl011_model_now_ns(h.model);
	counting_hook = true;
	panic_result = pl011_write_panic(&h.uart, message, 5);
	counting_hook = false;
	panic_took_ns = pl011_model_now_ns(h.model) - start;
}

/* 0: deliver the panic at the first register access after the writer took TX; else once the
 * writer has this many characters in the FIFO. */
static unsigned deliver_at_level;

static void at_owned_point(void *context)
{
	(void)context;
	if (delivered || pl011_model_in_irq(h.model) || (h.uart.tx.owner & 1u) == 0 ||
	    pl011_model_tx_level(h.model) < deliver_at_level)
		return;
	delivered = true;
	pl011_model_run_as_irq(h.model, panic_interrupt, NULL);
}

static void preempt_owner_with_panic(uint32_t baud, unsigned depth, bool with_core_id)
{
	harness_setup(&h, 48000000u, depth);
	h.config.baud = baud;
	h.config.tx_mode = PL011_TX_MEASURED;
	h.config.wait_hook = counted_wait_step;
	if (with_core_id)
		h.config.core_id = always_core_0;
	assert_int_equal(harness_start(&h), 0);
	hook_calls = 0;
	delivered = false;
	pl011_model_set_preempt_hook(at_owned_point, NULL);
	assert_int_equal(pl011_write(&h.uart, "abcdefgh", 8, PL011_NO_WAIT), 8);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_true(delivered);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
}

/* Its wait for an owner that cannot run until it returns was 1.6 ms at 115,200 with a 16-deep
 * FIFO, 34.5 ms at 9,600 with a 32-deep one: with the core known it writes beside at once,
 * its five characters within (5 + 2) frames + 1 ms. */
static void test_same_core_panic_writes_beside_a_preempted_owner_at_once(void **state)
{
	(void)state;
	static const uint32_t bauds[] = {115200u, 9600u};
	static const unsigned depths[] = {16u, 32u};
	for (size_t i = 0; i < 2; i++) {
		preempt_owner_with_panic(bauds[i], depths[i], true);
		uint64_t frame_ns = pl011_model_frame_ns(h.model);
		print_message("same-core panic over a preempted owner, %u baud, FIFO %u: %llu us\n",
			      bauds[i], depths[i], (unsigned long long)(panic_took_ns / 1000u));
		assert_int_equal(panic_result, 5);
		assert_true(panic_took_ns <= 7u * frame_ns + 1000000u);
		harness_teardown(&h);
	}
}

/* docs/api.md: beside an owner the panic "writes one byte at a time, each only when the FIFO
 * is empty, and waits for the FIFO to empty again before returning, so the preempted owner
 * finds the FIFO no fuller than it left it": preempted with a full FIFO, no overflow, and
 * every byte on the wire. */
static void test_panic_beside_an_owner_writes_only_into_an_empty_fifo(void **state)
{
	(void)state;
	static const char text[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN";
	for (unsigned depth = 16u; depth <= 32u; depth += 16u) {
		harness_setup(&h, 48000000u, depth);
		h.config.baud = 115200u;
		h.config.tx_mode = PL011_TX_MEASURED;
		h.config.core_id = always_core_0;
		assert_int_equal(harness_start(&h), 0);
		delivered = false;
		deliver_at_level = depth;
		pl011_model_set_preempt_hook(at_owned_point, NULL);
		int n = pl011_write(&h.uart, text, sizeof text - 1u, PL011_NO_WAIT);
		pl011_model_set_preempt_hook(NULL, NULL);
		deliver_at_level = 0;
		assert_true(delivered);
		assert_int_equal(n, (int)(sizeof text - 1u));
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		uint8_t wire[96];
		size_t len = harness_wire(&h, wire, sizeof wire);
		print_message("panic beside an owner with a full FIFO of %u: returned %d, %zu on the "
			      "wire, %llu overflows\n", depth, panic_result, len,
			      (unsigned long long)pl011_model_counters(h.model)->tx_overflows);
		assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
		assert_int_equal(panic_result, 5);
		assert_int_equal(len, sizeof text - 1u + 5u);
		harness_teardown(&h);
	}
}

/* config.wait_hook ("an RTOS yield") was called 769 times from interrupt context by one panic. */
static void test_panic_never_calls_the_wait_hook(void **state)
{
	(void)state;
	preempt_owner_with_panic(115200u, 16u, false);
	print_message("wait hook calls from inside the panic: %u\n", hook_calls);
	assert_int_equal(panic_result, 5);
	assert_int_equal(hook_calls, 0);
	harness_teardown(&h);
}

/* ---- a panic beside an owner on another core that was stopped ---- */

enum stall_phase { STALL_START, STALL_OWNER_RUNS, STALL_PANIC_RUNS, STALL_PANIC_WRITES,
		   STALL_OWNER_RESUMES, STALL_FREE };
static enum stall_phase stall_phase;
static uint64_t stall_since_ns, stall_resumed_points;
static int stall_panic_result;
/* Core 1 shuts down after its write; the panic resumes this many points after the take. */
static bool stall_then_shutdown;
static uint64_t stall_points_after_take;
/* 0: the panic stops as below; else at this point of its own with tx.beside's lower half
 * counting it (1 its look at STOPPED, 2 its place to write, 3 its FR read, 4 its look before
 * the byte, 5 its DR write, 6 its place given back). */
static unsigned stall_beside_point, stall_points_beside;

/*
 * Core 1 starts a write to an idle port and is stopped once it owns TX with two characters in
 * the FIFO; core 0's panic waits out its ownership bound, goes beside the owner, and is
 * stopped itself between the FR read that showed the FIFO empty and its DR write; core 1 then
 * resumes and fills what it may; then the panic writes.
 */
static void stall_at_point(void *context)
{
	(void)context;
	int core = cores_current();
	uint64_t now = pl011_model_now_ns(h.model);
	switch (stall_phase) {
	case STALL_START:
		stall_phase = STALL_OWNER_RUNS;
		cores_yield();
		break;
	case STALL_OWNER_RUNS:
		if (core == 1 && (h.uart.tx.owner & 1u) != 0 && pl011_model_tx_level(h.model) >= 2u) {
			stall_phase = STALL_PANIC_RUNS;
			stall_since_ns = now;
			cores_yield();
		}
		break;
	case STALL_PANIC_RUNS:
		if (stall_beside_point != 0) {
			if (core == 0 && !pl011_model_in_irq(h.model) &&
			    (h.uart.tx.beside & 0xFFFFu) != 0 &&
			    ++stall_points_beside == stall_beside_point) {
				stall_phase = STALL_OWNER_RESUMES;
				stall_resumed_points = 0;
				cores_yield();
			}
			break;
		}
		/* Past the panic's wait for the owner (16 frames + 100 us), with the FIFO drained:
		 * this point is the FR read that shows it empty, the next one the DR write. */
		if (core == 0 && now - stall_since_ns > 16u * pl011_model_frame_ns(h.model) + 150000u &&
		    pl011_model_tx_level(h.model) == 0)
			stall_phase = STALL_PANIC_WRITES;
		break;
	case STALL_PANIC_WRITES:
		if (core == 0) {
			stall_phase = STALL_OWNER_RESUMES;
			stall_resumed_points = 0;
			cores_yield();
		}
		break;
	case STALL_OWNER_RESUMES:
		if (stall_then_shutdown) {
			/* Core 1 finishes its write and shuts down; the panic resumes a few points
			 * after shutdown took TX, for good. */
			if (core == 1 && (h.uart.tx.owner & 17u) == 17u &&
			    ++stall_resumed_points > stall_points_after_take) {
				stall_phase = STALL_FREE;
				cores_yield();
			}
			break;
		}
		/* It fills what it may, or lets go at once (it found the panic beside it). */
		if ((core == 0 && cores_finished(1)) ||
		    (core == 1 && (++stall_resumed_points > 400u ||
				   pl011_model_tx_level(h.model) ==
					   (unsigned)pl011_get_fifo_depth(&h.uart)))) {
			stall_phase = STALL_FREE;
			cores_yield();
		}
		break;
	default:
		break;
	}
}

static void stall_body(int core, void *context)
{
	(void)context;
	if (core == 0)
		stall_panic_result = pl011_write_panic(&h.uart, "PANIC", 5);
	else
		(void)pl011_write(&h.uart, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", 52,
				  PL011_NO_WAIT);
	if (core == 1 && stall_then_shutdown)
		(void)pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
}

/* The case the header used to leave open: the resumed owner filled the FIFO between the
 * panic's look at FR and its write, and the panic's character overflowed it. */
static void test_panic_beside_a_stopped_owner_on_another_core_never_overflows(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_MEASURED;
	assert_int_equal(harness_start(&h), 0);
	stall_phase = STALL_START;
	struct cores_plan plan = {.first_slice = UINT64_MAX / 2u, .slice = UINT64_MAX / 2u,
				  .at_point = stall_at_point};
	cores_run(&plan, stall_body, NULL);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	print_message("panic beside a stopped owner on another core: phase %d reached, panic "
		      "returned %d, %llu overflows\n",
		      stall_phase, stall_panic_result,
		      (unsigned long long)pl011_model_counters(h.model)->tx_overflows);
	assert_int_equal(stall_phase, STALL_FREE);
	assert_int_equal(stall_panic_result, 5);
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	assert_int_equal(pl011_model_wire_len(h.model), 52u + 5u);
	harness_teardown(&h);
}

/* The panic beside a stopped owner stopped in turn (stall_at_point), the owner's core finishing
 * its write and shutting down, the panic resumed `points_after_take` points after shutdown
 * took TX; then the line left to drain. Returns the panic's characters on the wire. */
static size_t run_stall_then_shutdown(uint64_t points_after_take)
{
	stall_phase = STALL_START;
	stall_points_beside = 0;
	stall_then_shutdown = true;
	stall_points_after_take = points_after_take;
	struct cores_plan plan = {.first_slice = UINT64_MAX / 2u, .slice = UINT64_MAX / 2u,
				  .at_point = stall_at_point};
	cores_run(&plan, stall_body, NULL);
	stall_then_shutdown = false;
	pl011_model_advance(h.model, 40u * pl011_model_frame_ns(h.model));
	size_t panic_on_wire = 0;
	for (size_t b = 0; b < pl011_model_wire_len(h.model); b++) {
		uint8_t byte = pl011_model_wire_byte(h.model, b);
		panic_on_wire += byte >= 'A' && byte <= 'Z';
	}
	return panic_on_wire;
}

/* docs/api.md: every byte a panic reports "leaves the UART"; shutdown "waits for a panic
 * beside it to finish" (docs/design.md's table). The panic beside a stopped owner is itself
 * stopped before its DR write while the owner's core finishes its write and shuts down; it
 * resumes 1-200 points after shutdown took TX, while shutdown waits for it. */
static void test_shutdown_waits_for_a_panic_beside_the_owner(void **state)
{
	(void)state;
	static const uint64_t after[] = {1u, 5u, 20u, 60u, 200u};
	unsigned failures = 0;
	for (size_t i = 0; i < sizeof after / sizeof after[0]; i++) {
		harness_setup(&h, 48000000u, 16);
		h.config.tx_mode = PL011_TX_MEASURED;
		assert_int_equal(harness_start(&h), 0);
		size_t panic_on_wire = run_stall_then_shutdown(after[i]);
		bool bad = stall_phase != STALL_FREE || stall_panic_result < 0 ||
			   (size_t)stall_panic_result != panic_on_wire;
		print_message("panic beside an owner, shutdown %llu points after its take: phase "
			      "%d, panic returned %d, %zu on the wire%s\n",
			      (unsigned long long)after[i], stall_phase, stall_panic_result,
			      panic_on_wire, bad ? " FAIL" : "");
		failures += bad;
		harness_teardown(&h);
	}
	assert_int_equal(failures, 0);
}

/* The first wire character that DE (PL011_RS485_DE_LOW: asserted is nUARTRTS low) does not
 * bracket, on from before its start bit until after_us past its stop bit; the wire length when
 * none. */
static size_t first_character_outside_de(uint32_t after_us)
{
	size_t wire = pl011_model_wire_len(h.model);
	for (size_t i = 0; i < wire; i++) {
		uint64_t start_ns = pl011_model_wire_start_ns(h.model, i);
		uint64_t end_ns = pl011_model_wire_end_ns(h.model, i) + (uint64_t)after_us * 1000u;
		bool on = false;
		for (size_t e = 0; e < pl011_model_rts_edge_count(h.model); e++) {
			uint64_t at = pl011_model_rts_edge_ns(h.model, e);
			if (at <= start_ns)
				on = pl011_model_rts_edge_asserted(h.model, e);
			else if (at < end_ns)
				on = false;
		}
		if (!on)
			return i;
	}
	return wire;
}

static uint64_t last_rts_edge_ns(void)
{
	return pl011_model_rts_edge_ns(h.model, pl011_model_rts_edge_count(h.model) - 1u);
}

/* One run of the test below on an RS-485 port: whether every byte the panic counts is on the
 * wire inside DE (printed when not). */
static bool panic_at_shutdown_run(const struct pl011_rs485 *bus, unsigned point,
				  uint64_t points_after_take)
{
	memset(&harness_timer, 0, sizeof harness_timer);
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_MEASURED;
	/* Not run: TX done would not come, the ring holds bytes until shutdown. */
	h.config.event_timer = harness_timer_arm;
	h.config.event_timer_context = &h;
	h.config.rs485 = bus;
	assert_int_equal(harness_start(&h), 0);
	stall_beside_point = point;
	size_t panic_on_wire = run_stall_then_shutdown(points_after_take);
	stall_beside_point = 0;
	int n = stall_panic_result;
	bool lost = n == PL011_ESHUTDOWN ? panic_on_wire != 0 : n < 0 || (size_t)n != panic_on_wire;
	size_t wire = pl011_model_wire_len(h.model);
	size_t outside = first_character_outside_de(bus->delay_after_us);
	bool good = stall_phase == STALL_FREE && !lost && outside == wire;
	if (!good)
		print_message("panic stopped at its point %u beside the owner, resumed %llu points "
			      "after shutdown took TX: phase %d, returned %d, %zu on the wire\n",
			      point, (unsigned long long)points_after_take, stall_phase, n,
			      panic_on_wire);
	if (outside != wire)
		print_message("  wire character %zu of %zu ends at %llu ns, DE off at %llu ns\n",
			      outside, wire,
			      (unsigned long long)pl011_model_wire_end_ns(h.model, outside),
			      (unsigned long long)last_rts_edge_ns());
	harness_teardown(&h);
	return good;
}

/*
 * docs/events.md: a panic writes "with DE as it stands: on when a send is under way", and
 * shutdown "waits, once the last character left, delay_after_us + 1, then releases DE". The
 * stalled panic beside the owner above, on an RS-485 port, stopped at each of its points beside
 * the owner up to its DR write and the place it gives back after, and resumed 1-200 points
 * after shutdown took TX (within the wait shutdown gives it): every byte it counts is on the
 * wire, inside the owner's DE bracket. Shutdown's first wait for it is what keeps the bracket:
 * the second, in pl011_tx_disabling, comes after DE was released.
 */
static void test_shutdown_releases_de_only_after_a_panic_beside_the_owner(void **state)
{
	(void)state;
	static const uint64_t after[] = {1u, 5u, 20u, 60u, 200u};
	const struct pl011_rs485 bus = {
	    .driver = &pl011_rs485_driver, .flags = PL011_RS485_DE_LOW, .delay_after_us = 20};
	unsigned runs = 0, failures = 0;
	for (unsigned point = 1; point <= 6u; point++)
		for (size_t i = 0; i < sizeof after / sizeof after[0]; i++, runs++)
			failures += !panic_at_shutdown_run(&bus, point, after[i]);
	print_message("RS-485, panic beside the owner at shutdown: %u runs, %u failures\n", runs,
		      failures);
	assert_int_equal(failures, 0);
}

/* ---- the interrupt on the core of a panic writing beside the owner ---- */

enum nest_phase { NEST_OWNER_FILLS, NEST_PANIC_WAITS, NEST_OWNER_LETS_GO, NEST_LINE_MOVES };
static enum nest_phase nest_phase;
static int nest_panic_result;
static bool nest_in_handler;
static unsigned nest_handler_calls;

static uint32_t current_core(void *context)
{
	(void)context;
	return (uint32_t)cores_current();
}

static void nest_handler(void *context)
{
	(void)context;
	nest_handler_calls++;
	pl011_irq_handler(&h.uart);
}

/*
 * Core 0 writes to an idle port with CTS held off and is stopped once it owns TX with the FIFO
 * full; core 1's panic waits out its ownership bound and goes beside it; core 0 then lets go
 * (the FIFO full: before, it armed TXIM) and its write returns; CTS comes back, and the UART
 * interrupt, taken on core 1, preempts the panic there.
 */
static void nest_at_point(void *context)
{
	(void)context;
	int core = cores_current();
	switch (nest_phase) {
	case NEST_OWNER_FILLS:
		if (core == 0 && (h.uart.tx.owner & 1u) != 0 &&
		    pl011_model_tx_level(h.model) == (unsigned)pl011_get_fifo_depth(&h.uart)) {
			nest_phase = NEST_PANIC_WAITS;
			cores_yield();
		}
		break;
	case NEST_PANIC_WAITS:
		if (core == 1 && h.uart.tx.beside != 0) {
			nest_phase = NEST_OWNER_LETS_GO;
			cores_yield();
		}
		break;
	case NEST_OWNER_LETS_GO:
		if (cores_finished(0)) {
			nest_phase = NEST_LINE_MOVES;
			pl011_model_set_cts(h.model, true);
		}
		break;
	default:
		if (core == 1 && !nest_in_handler && pl011_model_irq_line(h.model)) {
			nest_in_handler = true;
			pl011_model_run_as_irq(h.model, nest_handler, NULL);
			nest_in_handler = false;
		}
		break;
	}
}

static void nest_body(int core, void *context)
{
	(void)context;
	if (core == 1)
		nest_panic_result = pl011_write_panic(&h.uart, "PANIC", 5);
	else
		(void)pl011_write(&h.uart, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", 52,
				  PL011_NO_WAIT);
}

/* The interrupt took the TX its owner had let go armed, polled (the write primed the FIFO),
 * and found the panic beside it, the context it preempted: it may write nothing and waited
 * for room that was there, for ever (the review's NEST=1 harness: "simulated time limit
 * passed"). An owner that finds a panic beside it now lets go masked, and the panic sends the
 * rest when it leaves. */
static void test_interrupt_over_a_panic_beside_the_owner_lets_it_finish(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL,
						   PL011_TX_HYBRID, PL011_TX_ADAPTIVE,
						   PL011_TX_MEASURED};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		struct pl011_model_config model_config;
		pl011_model_default_config(&model_config);
		model_config.base = HARNESS_BASE;
		model_config.fifo_depth = 16;
		model_config.time_limit_ns = 2000000000ull; /* a spinning driver fails in 2 s */
		harness_setup_with(&h, &model_config);
		h.config.tx_mode = modes[m];
		h.config.flags = PL011_FLAG_RTS_CTS;
		h.config.core_id = current_core;
		assert_int_equal(harness_start(&h), 0);
		pl011_model_set_irq_handler(h.model, NULL, NULL);
		pl011_model_set_cts(h.model, false);
		nest_phase = NEST_OWNER_FILLS;
		nest_panic_result = -100;
		nest_handler_calls = 0;
		struct cores_plan plan = {.first_slice = UINT64_MAX / 2u, .slice = UINT64_MAX / 2u,
					  .at_point = nest_at_point};
		cores_run(&plan, nest_body, NULL);
		/* Somebody sends the rest at once (the panic, as it left), not the flush's stall
		 * guard; and the owner did not leave TXIM armed over a latched cause it could not
		 * serve (the interrupt would come back at every point of the panic). */
		const char *stuck = harness_tx_stuck(&h);
		harness_route_irq(&h);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		print_message("interrupt over a panic beside the owner, mode %d: phase %d, panic "
			      "returned %d, %u handler calls on its core, %zu on the wire, %llu "
			      "overflows\n",
			      modes[m], nest_phase, nest_panic_result, nest_handler_calls,
			      pl011_model_wire_len(h.model),
			      (unsigned long long)pl011_model_counters(h.model)->tx_overflows);
		assert_int_equal(nest_phase, NEST_LINE_MOVES);
		assert_null(stuck);
		assert_true(nest_handler_calls <= 2u);
		assert_int_equal(nest_panic_result, 5);
		assert_int_equal(pl011_model_wire_len(h.model), 52u + 5u);
		assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
		assert_null(harness_tx_stuck(&h));
		harness_teardown(&h);
	}
}

/* ---- shutdown whose wait for TX runs out under a live owner ---- */

#define STOP_WRITE_BYTES 200u

enum stop_phase { STOP_OWNER_WRITES, STOP_SHUTDOWN_WAITS, STOP_BOTH_RUN };
static enum stop_phase stop_phase;
static uint64_t stop_stalled_ns;
static int stop_write_result;

/* Core 1's write is stopped once it owns TX with bytes in the ring and two characters in the
 * FIFO; core 0's shutdown runs past its wait for TX (2 frames + 1 ms); then both run, a point
 * each. */
static void stop_at_point(void *context)
{
	(void)context;
	int core = cores_current();
	uint64_t now = pl011_model_now_ns(h.model);
	switch (stop_phase) {
	case STOP_OWNER_WRITES:
		if (core == 1 && (h.uart.tx.owner & 1u) != 0 && h.uart.tx.ring.head != h.uart.tx.ring.tail &&
		    pl011_model_tx_level(h.model) >= 2u) {
			stop_phase = STOP_SHUTDOWN_WAITS;
			stop_stalled_ns = now;
			cores_yield();
		}
		break;
	case STOP_SHUTDOWN_WAITS:
		/* Past its wait for TX: it marked TX taken for good (STOPPED). */
		if (core == 0 && (h.uart.tx.owner & 16u) != 0 &&
		    now - stop_stalled_ns > 2u * pl011_model_frame_ns(h.model) + 1000000u)
			stop_phase = STOP_BOTH_RUN;
		break;
	default:
		cores_yield();
		break;
	}
}

static void stop_body(int core, void *context)
{
	(void)context;
	static uint8_t data[STOP_WRITE_BYTES];
	if (core == 0) {
		while (stop_phase == STOP_OWNER_WRITES)
			cores_yield();
		(void)pl011_shutdown(&h.uart, 0u);
		return;
	}
	memset(data, 'w', sizeof data);
	stop_write_result = pl011_write(&h.uart, data, sizeof data, PL011_NO_WAIT);
}

/* Every accepted byte on the wire or counted discarded, never both: the shutdown counted the
 * whole ring as discarded when its wait ran out, and the owner, which was only slow, went on
 * sending what was counted. Now STOPPED tells it to stop at its next burst and let go, and the
 * shutdown takes the ring from it. */
static void test_shutdown_under_a_live_owner_never_counts_a_sent_byte(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL,
						   PL011_TX_HYBRID, PL011_TX_ADAPTIVE,
						   PL011_TX_MEASURED};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16) {
			harness_setup(&h, 48000000u, depth);
			h.config.tx_mode = modes[m];
			assert_int_equal(harness_start(&h), 0);
			stop_phase = STOP_OWNER_WRITES;
			stop_write_result = -100;
			struct cores_plan plan = {.first_slice = UINT64_MAX / 2u,
						  .slice = UINT64_MAX / 2u, .at_point = stop_at_point};
			cores_run(&plan, stop_body, NULL);
			struct pl011_stats stats;
			assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
			size_t wire = pl011_model_wire_len(h.model);
			print_message("shutdown under a live owner, mode %d, FIFO %u: accepted %d, on the "
				      "wire %zu, discarded %u\n",
				      modes[m], depth, stop_write_result, wire, stats.tx_discarded);
			assert_int_equal(stop_phase, STOP_BOTH_RUN);
			assert_int_equal(stop_write_result, (int)STOP_WRITE_BYTES);
			assert_int_equal(stats.tx_fifo_abandoned, 0);
			assert_int_equal(wire + stats.tx_discarded, STOP_WRITE_BYTES);
			harness_teardown(&h);
		}
}

/* ---- the holding register of a port stopped without FIFOs ---- */

/* A character left in the holding register of a stopped port (FEN already clear, so clearing
 * it again flushed nothing) came out after the next start before that run's data: "Pok". */
static void test_restart_flushes_the_holding_register_of_a_stopped_port(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_MEASURED;
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	size_t before = pl011_model_wire_len(h.model);
	/* A late write from a core that was stopped in the middle of a panic. */
	pl011_io_write(HARNESS_BASE + PL011_DR, 'P');
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), before + 2u);
	assert_int_equal(pl011_model_wire_byte(h.model, before), 'o');
	harness_teardown(&h);
}

/* ---- pl011_restart of a running port beside an RX handler running on the other core ---- */

#define RESTART_RX_BYTES 200u
#define RESTART_SEEDS 300u

static bool restart_done;

/* Time passes in the restart's waits without handing the core over: only the schedule's
 * points switch, so the handler can be caught anywhere in its drain. */
static void restart_wait_step(void *context)
{
	pl011_model_advance(context, 2000u);
}
static uint32_t restart_frames;
static uint8_t restart_ring[2][HARNESS_RX_RING];

/* Core 0 restarts the port a few frames into a burst; core 1 takes the interrupt (draining
 * the burst into the RX ring) until the restart is over. */
static void restart_body(int core, void *context)
{
	struct pl011_model *model = context;
	if (core == 1) {
		while (!restart_done) {
			if (pl011_model_irq_line(model))
				pl011_irq_handler(&h.uart);
			else
				pl011_model_advance(model, 500u);
			pl011_io_atomic_point(); /* a point to switch at */
		}
		return;
	}
	uint64_t until = pl011_model_now_ns(model) + (uint64_t)restart_frames * 86806u + restart_frames * 397u;
	while (pl011_model_now_ns(model) < until) {
		pl011_model_advance(model, 300u);
		pl011_io_atomic_point();
	}
	/* The same storage (the bytes stay) or a ring of its own (they are copied over). */
	h.config.rx_buffer = restart_ring[restart_frames % 2u];
	int err = harness_restart(&h);
	restart_done = true;
	if (err != 0)
		print_message("pl011_restart returned %s\n", pl011_error_name(err));
	assert_int_equal(err, 0);
}

/* Every byte of the burst in the new run's ring at most once and in order: a handler that
 * went on draining into the ring init re-initialised would commit into it a byte it read
 * before (out of order or twice), or write through a zeroed ring (a crash). */
static void test_restart_waits_for_a_handler_on_another_core(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_POLLED, PL011_TX_HALF_FIFO,
						   PL011_TX_MEASURED};
	unsigned runs = 0, failures = 0;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (uint32_t seed = 1; seed <= RESTART_SEEDS; seed++) {
			harness_setup(&h, 48000000u, seed % 2u ? 16u : 32u);
			h.config.tx_mode = modes[m];
			h.config.rx_mode = PL011_RX_LOW_LATENCY;
			h.config.rx_buffer = restart_ring[0];
			h.config.rx_buffer_size = sizeof restart_ring[0];
			h.config.wait_hook = restart_wait_step;
			assert_int_equal(harness_start(&h), 0);
			pl011_model_set_irq_handler(h.model, NULL, NULL);
			uint8_t burst[RESTART_RX_BYTES];
			for (uint32_t i = 0; i < RESTART_RX_BYTES; i++)
				burst[i] = (uint8_t)i;
			(void)pl011_model_rx_inject_stream(h.model, burst, RESTART_RX_BYTES,
							   pl011_model_now_ns(h.model));
			restart_done = false;
			restart_frames = 1u + seed % 20u;
			struct cores_plan plan = {.switch_one_in = 3u + seed % 17u, .seed = seed};
			cores_run(&plan, restart_body, h.model);
			harness_route_irq(&h);
			uint8_t got[RESTART_RX_BYTES + 1u];
			int n = pl011_read(&h.uart, got, sizeof got, PL011_NO_WAIT);
			bool bad = n < 0;
			for (int i = 0; i < n && !bad; i++)
				bad = got[i] >= RESTART_RX_BYTES || (i > 0 && got[i] <= got[i - 1]);
			if (bad && failures++ < 3)
				print_message("restart beside the handler, mode %d, seed %u: %d bytes, "
					      "out of order, twice or never sent\n",
					      modes[m], seed, n);
			if (getenv("RESTART_TRACE") != NULL)
				print_message("mode %d seed %u: %d bytes, first %d, rx_discarded %u\n", modes[m], seed, n, n > 0 ? got[0] : -1, h.uart.stats.rx_discarded);
			runs++;
			harness_teardown(&h);
		}
	print_message("restart beside an RX handler on the other core: %u runs, %u failures\n",
		      runs, failures);
	assert_int_equal(failures, 0);
}

/* ---- a long write on a line as fast as the CPU, a panic on the other core ---- */

#define LONG_WRITE_BYTES 4000u
#define LONG_WRITE_SEEDS 20u

static int long_write_panic_result;

/* One seeded two-core run on a line faster than the CPU writes (as QEMU's), FIFO 16 or 32. */
static void run_on_instant_line(enum pl011_tx_mode mode, uint32_t seed, pl011_wait_fn wait_hook,
				void (*body)(int core, void *context))
{
	harness_setup_instant_line(&h, seed % 2u ? 16u : 32u);
	h.config.tx_mode = mode;
	h.config.wait_hook = wait_hook;
	assert_int_equal(harness_start(&h), 0);
	long_write_panic_result = -1;
	struct cores_plan plan = {.switch_one_in = 3u + seed % 7u, .seed = seed};
	cores_run(&plan, body, h.model);
}

#if !PL011_SINGLE_CORE /* the panic is on a second core: a one-core owner gives it no time */
static uint8_t long_write_data[LONG_WRITE_BYTES];

static void long_write_body(int core, void *context)
{
	struct pl011_model *model = context;
	if (core == 0) {
		(void)pl011_write(&h.uart, long_write_data, LONG_WRITE_BYTES, PL011_WAIT_AUTO);
		return;
	}
	for (uint32_t i = 0; i < 20u; i++) {
		pl011_model_advance(model, 50u);
		pl011_io_atomic_point();
	}
	long_write_panic_result = pl011_write_panic(&h.uart, "01234", 5);
}

/* The panic's five bytes on the wire in order and together: an owner that never sees TXFF
 * must still let go within a pass (2 x depth characters), not hold TX for its whole write
 * and make the panic write beside it, between the owner's characters. */
static void test_long_write_on_an_instant_line_lets_a_panic_in(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL,
						   PL011_TX_HYBRID, PL011_TX_MEASURED};
	for (uint32_t i = 0; i < LONG_WRITE_BYTES; i++)
		long_write_data[i] = (uint8_t)('a' + i % 26u);
	unsigned runs = 0, failures = 0;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (uint32_t seed = 1; seed <= LONG_WRITE_SEEDS; seed++) {
			run_on_instant_line(modes[m], seed, restart_wait_step, long_write_body);
			(void)pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL);
			size_t wire = pl011_model_wire_len(h.model);
			size_t first = SIZE_MAX, found = 0;
			bool together = true;
			for (size_t i = 0; i < wire; i++) {
				uint8_t byte = pl011_model_wire_byte(h.model, i);
				if (byte < '0' || byte > '4')
					continue;
				if (first == SIZE_MAX)
					first = i;
				together = together && i == first + found && byte == '0' + found;
				found++;
			}
			bool bad = long_write_panic_result != 5 || found != 5u || !together;
			if (bad && failures++ < 3)
				print_message("long write, mode %d, seed %u: panic returned %d, %zu of its "
					      "bytes on the wire, %s\n",
					      modes[m], seed, long_write_panic_result, found,
					      together ? "together" : "split by the writer's");
			runs++;
			harness_teardown(&h);
		}
	print_message("long write on an instant line beside a panic: %u runs, %u failures\n", runs,
		      failures);
	assert_int_equal(failures, 0);
}
#endif

/* ---- a long panic on an instant line, shutdown on the other core ---- */

#define LONG_PANIC_BYTES 30000u
#define LONG_PANIC_SEEDS 20u

static uint8_t long_panic_data[LONG_PANIC_BYTES];

static void long_panic_body(int core, void *context)
{
	struct pl011_model *model = context;
	if (core == 1) {
		long_write_panic_result = pl011_write_panic(&h.uart, long_panic_data,
							    LONG_PANIC_BYTES);
		return;
	}
	for (uint32_t i = 0; i < 40u; i++) {
		pl011_model_advance(model, 50u);
		pl011_io_atomic_point();
	}
	(void)pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
}

/* What a panic returns left the UART: the count equals its bytes on the wire, though the
 * shutdown beside it on the other core disabled the UART (a panic that noticed the shutdown
 * only in a wait for room, which never comes on this line, counted bytes that shutdown's
 * disable cut off). */
static void test_panic_beside_shutdown_on_an_instant_line_counts_what_left(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_POLLED, PL011_TX_HALF_FIFO,
						   PL011_TX_MEASURED};
	for (uint32_t i = 0; i < LONG_PANIC_BYTES; i++)
		long_panic_data[i] = (uint8_t)('0' + i % 10u);
	unsigned runs = 0, failures = 0;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (uint32_t seed = 1; seed <= LONG_PANIC_SEEDS; seed++) {
			run_on_instant_line(modes[m], seed, NULL, long_panic_body);
			size_t wire = pl011_model_wire_len(h.model);
			size_t sent = 0;
			for (size_t i = 0; i < wire; i++) {
				uint8_t byte = pl011_model_wire_byte(h.model, i);
				sent += byte >= '0' && byte <= '9';
			}
			int n = long_write_panic_result;
			bool bad = n == PL011_ESHUTDOWN ? sent != 0 : n < 0 || (size_t)n != sent;
			if (bad && failures++ < 3)
				print_message("panic beside shutdown, mode %d, seed %u: returned %d, %zu "
					      "on the wire\n",
					      modes[m], seed, n, sent);
			runs++;
			harness_teardown(&h);
		}
	print_message("long panic beside shutdown on an instant line: %u runs, %u failures\n", runs,
		      failures);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_smp_pattern_no_panic_is_short_with_measured, &h),
		HARNESS_TEST(test_smp_pattern_no_panic_is_short_when_polled, &h),
		HARNESS_TEST(test_same_core_panic_writes_beside_a_preempted_owner_at_once, &h),
		HARNESS_TEST(test_panic_never_calls_the_wait_hook, &h),
		HARNESS_TEST(test_panic_beside_an_owner_writes_only_into_an_empty_fifo, &h),
		HARNESS_TEST(test_panic_beside_a_stopped_owner_on_another_core_never_overflows, &h),
		HARNESS_TEST(test_shutdown_waits_for_a_panic_beside_the_owner, &h),
		HARNESS_TEST(test_shutdown_releases_de_only_after_a_panic_beside_the_owner, &h),
		HARNESS_TEST(test_interrupt_over_a_panic_beside_the_owner_lets_it_finish, &h),
		HARNESS_TEST(test_shutdown_under_a_live_owner_never_counts_a_sent_byte, &h),
		HARNESS_TEST(test_restart_flushes_the_holding_register_of_a_stopped_port, &h),
		HARNESS_TEST(test_restart_waits_for_a_handler_on_another_core, &h),
#if !PL011_SINGLE_CORE
		HARNESS_TEST(test_long_write_on_an_instant_line_lets_a_panic_in, &h),
#endif
		HARNESS_TEST(test_panic_beside_shutdown_on_an_instant_line_counts_what_left, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
