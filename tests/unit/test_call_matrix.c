/* Call-matrix explorer: every ordered pair of public calls, each on its own core, on the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "depth.h"
#include "harness.h"
#include "invariants.h"
#include "pl011_io.h"
#include "pl011_regs.h"

/*
 * Each core runs one call (or a loop of them) while the other runs another, interleaved at
 * the driver's register accesses and atomic operations (tests/unit/cores.c), with the
 * invariants of the TX protocol checked at every point and after the run. The bytes on the
 * wire tell the sources apart: the writer sends lowercase letters, a panic on core 0 digits
 * 0-4, one on core 1 digits 5-9.
 */
enum call {
	CALL_WRITE_WAIT,    /* 400 bytes in chunks of 1-61, PL011_WAIT_AUTO */
	CALL_WRITE_NO_WAIT, /* 400 bytes in chunks of 1-61, PL011_NO_WAIT, retried */
	CALL_FLUSH,         /* pl011_flush(PL011_WAIT_AUTO) */
	CALL_SHUTDOWN,      /* pl011_shutdown with a bound of 0, 300 us or PL011_WAIT_AUTO */
	CALL_REINIT,        /* pl011_restart of the running port */
	CALL_PANIC,         /* pl011_write_panic of 5 bytes, twice */
	CALL_SET_LINE,      /* pl011_set_line to half the baud, 8E1, PL011_WAIT_AUTO */
	CALL_HANDLER,       /* this core takes the UART interrupt while the other works */
	CALL_RX_PANIC,      /* the same, with RX characters whose callback panics */
	CALLS,
};

static const char *const call_names[CALLS] = {"write-wait", "write-nowait", "flush",
					      "shutdown", "reinit", "panic", "set-line",
					      "handler", "rx-panic"};

static const enum pl011_tx_mode modes[] = {PL011_TX_POLLED, PL011_TX_HALF_FIFO,
					   PL011_TX_POLL_FULL, PL011_TX_HYBRID,
					   PL011_TX_ADAPTIVE, PL011_TX_MEASURED};

#define RING_BYTES 256u
#define PRELOAD_BYTES 60u
#define WRITER_BYTES 200u
#define PANIC_BYTES 5u
#define PANICS_PER_CORE 2u
#define RX_CHARACTERS 4u
#define NO_WAIT_TRIES 3000u
/* A panic's duration is measured on the one clock both cores share, so the other core's
 * accesses and wait steps inside the panic's last step show too. */
#define SHARED_CLOCK_SLACK_US 40u

struct line {
	const char *name;
	uint32_t uartclk_hz;
	uint32_t baud;
};

/* A real line, and one faster than the CPU writes (as QEMU's, whose FIFO never fills). */
static const struct line lines[] = {{"115200", 48000000u, 115200u},
				    {"instant", 4000000000u, 250000000u}};

struct run {
	enum call call[2];
	/* A triple: the call each core runs after its first (CALLS: none). */
	enum call then[2];
	enum pl011_tx_mode mode;
	unsigned depth;
	const struct line *line;
	struct cores_plan plan;
};

static struct harness h;
static const struct run *run;
static char failure[300];
static bool failed;
static uint8_t expected[WRITER_BYTES + PRELOAD_BYTES];
static size_t accepted;
static int panic_written[2]; /* bytes the panics of each core reported */
/* What the panics of each core reported, in order: a short one is followed by a whole one. */
static uint8_t panic_stream[2][PANICS_PER_CORE * PANIC_BYTES];
/* While a panic runs on a core and owns nothing yet: the most its ring snapshot can be. */
static bool panic_entering[2];
static size_t panic_queued[2];
/* Posted Device writes in the model: off, on, or on with the barriers removed. */
enum posting { POSTING_OFF, POSTING_ON, POSTING_NO_BARRIERS };
static enum posting posting;
#define POSTED_OTHER_POINTS 6u
static bool port_stopped;     /* a shutdown ran; a restart follows the run */
/* A stop returned PL011_ESTALLED for a context it gave up waiting for (a stalled core): its
 * count may include up to a pass of bytes that left, and a panic up to one it counted. */
static bool stop_stalled;
/* What a shutdown had discarded before a pl011_init of the stopped port zeroed the counters. */
static uint32_t discarded_earlier;
/* Runs whose core stopped (cores_plan.stall_at), and whose stop then said PL011_ESTALLED. */
static unsigned long stalls_seen, stops_stalled;
static bool stall_seen;
/* The wire's length when the last pl011_init of the run returned 0 (SIZE_MAX: none). */
static size_t restart_mark;
/* A stopped core's runs: core 0's context held TX or wrote beside it when the last stop began. */
static bool engaged_at_stop;

static void note_engaged_at_stop(void)
{
	uint32_t word = __atomic_load_n(&h.uart.tx.owner, __ATOMIC_SEQ_CST);
	engaged_at_stop = ((word & 1u) != 0 && (word & 128u) == 0) || h.uart.tx.beside != 0;
}
/* POLLED: the characters the UART had taken when the first panic of each core asked the
 * writer for TX (RETRY), or SIZE_MAX; and whether that panic wrote. */
static size_t retry_mark[2];
static bool first_panic_wrote[2];
/* A panic's last pass (TX_PANIC): the ring's head at the last point, and its moves since. */
static bool last_pass_seen;
static uint32_t last_pass_head;
static unsigned last_pass_moves;
static bool checking;
static struct invariants invariants;
/* The model's interrupt latency where it dispatches the handler itself (no handler core). */
static uint64_t latency_ns = 1000u;
static uint8_t wire[1u << 14];

/* Whether the core runs the call, first or after its first. */
static bool core_runs(int core, enum call c)
{
	return run->call[core] == c || run->then[core] == c;
}

static bool any_core_runs(enum call c)
{
	return core_runs(0, c) || core_runs(1, c);
}

static void fail_run(const char *format, ...)
{
	if (failed)
		return;
	failed = true;
	va_list args;
	va_start(args, format);
	vsnprintf(failure, sizeof failure, format, args);
	va_end(args);
}

static const uint8_t *panic_message(int core)
{
	static const uint8_t messages[2][PANIC_BYTES] = {{'0', '1', '2', '3', '4'},
							 {'5', '6', '7', '8', '9'}};
	return messages[core];
}

/* ---- the calls ---- */

static void writer(bool wait)
{
	uint32_t state = 0x9E3779B9u;
	size_t goal = PRELOAD_BYTES + WRITER_BYTES;
	unsigned tries = 0;
	while (accepted < goal && tries++ < NO_WAIT_TRIES) {
		size_t chunk = harness_random(&state) % 61u + 1u;
		if (chunk > goal - accepted)
			chunk = goal - accepted;
		invariants.writer_inside = true;
		int n = pl011_write(&h.uart, expected + accepted, chunk,
				    wait ? PL011_WAIT_AUTO : PL011_NO_WAIT);
		invariants.writer_inside = run->line == &lines[1];
		if (n < 0) {
			fail_run("pl011_write returned %s", pl011_error_name(n));
			return;
		}
		accepted += (size_t)n;
		if (wait && (size_t)n != chunk) {
			fail_run("pl011_write(PL011_WAIT_AUTO) took %d of %zu", n, chunk);
			return;
		}
	}
}

/* The panic's documented bound: TX ownership within depth frames + 100 us, then the backlog
 * deadline of what was queued at its entry and its own bytes, then its last pass or its wait
 * for the FIFO beside an owner ((depth + 2) frames + 1 ms). */
static uint64_t panic_bound_ns(size_t queued)
{
	unsigned depth = run->depth;
	uint64_t frame_ns = pl011_model_frame_ns(h.model);
	uint64_t us = (depth * frame_ns + 999u) / 1000u + 100u;
	us += pl011_backlog_deadline_us(&h.uart, queued + PANIC_BYTES);
	us += ((depth + 2u) * frame_ns + 999u) / 1000u + 1000u;
	return (us + SHARED_CLOCK_SLACK_US) * 1000u;
}

static void panic_once(int core)
{
	panic_queued[core] = h.uart.tx.ring.head - h.uart.tx.ring.tail;
	panic_entering[core] = true;
	uint64_t start = pl011_model_now_ns(h.model);
	bool first = panic_written[core] == 0 && !first_panic_wrote[core];
	int n = pl011_write_panic(&h.uart, panic_message(core), PANIC_BYTES);
	uint64_t took = pl011_model_now_ns(h.model) - start;
	if (first && n > 0)
		first_panic_wrote[core] = true;
	panic_entering[core] = false;
	size_t queued = panic_queued[core];
	/* During a line switch TX is held as by a shutdown: a panic is refused (docs/api.md). */
	if (n == PL011_ESHUTDOWN && !core_runs(1 - core, CALL_SHUTDOWN) &&
	    !core_runs(1 - core, CALL_REINIT) && !core_runs(1 - core, CALL_SET_LINE))
		fail_run("panic refused on a running port");
	if (n >= 0) {
		memcpy(panic_stream[core] + panic_written[core], panic_message(core), (size_t)n);
		panic_written[core] += n;
	}
	if (n >= 0 && n != (int)PANIC_BYTES && !port_stopped &&
	    !core_runs(1 - core, CALL_SHUTDOWN) && !core_runs(1 - core, CALL_REINIT))
		fail_run("panic on core %d returned %d of %u", core, n, PANIC_BYTES);
	if (took > panic_bound_ns(queued) && run->plan.stall_at == 0)
		fail_run("panic on core %d took %llu us, bound %llu us", core,
			 (unsigned long long)(took / 1000u),
			 (unsigned long long)(panic_bound_ns(queued) / 1000u));
}

static bool rx_panic_armed[2];

static void on_rx_data(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	(void)events;
	(void)context;
	int core = cores_current();
	if (!rx_panic_armed[core])
		return;
	rx_panic_armed[core] = false;
	panic_once(core);
}

static void idle_step(void)
{
	cores_idle_step(h.model, 2000u);
}

static void matrix_wait_hook(void *context)
{
	(void)context;
	idle_step();
}

/* Take the UART interrupt whenever its line is up, until the other core is done. */
static void take_interrupts(int core, bool rx_panics)
{
	unsigned panics = 0;
	while (!cores_finished(1 - core)) {
		if (rx_panics && panics < PANICS_PER_CORE && !rx_panic_armed[core]) {
			for (unsigned i = 0; i < RX_CHARACTERS; i++)
				pl011_model_rx_inject(h.model, 'r', 0, pl011_model_now_ns(h.model));
			rx_panic_armed[core] = true;
			panics++;
		}
		if (pl011_model_irq_line(h.model))
			pl011_irq_handler(&h.uart);
		else
			idle_step();
	}
}

/*
 * Where shutdown or init on a running port is with the owner word (docs/design.md's table:
 * shutdown takes it for good with STOPPED; "pl011_init frees the word once the port is
 * programmed again"): not inside the call, inside before the take, TX taken, the UART
 * disabled since, the UART enabled again after that.
 */
enum stop_phase { STOP_OUTSIDE, STOP_BEFORE_TAKE, STOP_TOOK_TX, STOP_DISABLED, STOP_PROGRAMMED };
static enum stop_phase stop_phase;

static void do_shutdown(void)
{
	static const uint32_t bounds[] = {0u, 300u, PL011_WAIT_AUTO};
	note_engaged_at_stop();
	stop_phase = STOP_BEFORE_TAKE;
	int n = pl011_shutdown(&h.uart, bounds[run->plan.seed % 3u]);
	stop_phase = STOP_OUTSIDE;
	if (n == PL011_ESTALLED && run->plan.stall_at != 0)
		stop_stalled = true;
	else if (n < 0 && n != PL011_ESHUTDOWN)
		fail_run("pl011_shutdown returned %s", pl011_error_name(n));
	port_stopped = true;
}

static void do_reinit(void)
{
	struct pl011_stats before;
	(void)pl011_get_stats(&h.uart, &before);
	bool was_stopped = port_stopped;
	if (!was_stopped)
		note_engaged_at_stop();
	stop_phase = STOP_BEFORE_TAKE;
	int err = harness_restart(&h);
	stop_phase = STOP_OUTSIDE;
	if (err == PL011_ESTALLED && run->plan.stall_at != 0) {
		/* A context of the old run is still inside: stopped, started after the run. */
		stop_stalled = true;
		port_stopped = true;
	} else if (err != 0) {
		fail_run("pl011_restart returned %s", pl011_error_name(err));
	} else if (was_stopped) {
		/* A shutdown before it on this core: started again, with zeroed counters. */
		port_stopped = false;
		discarded_earlier += before.tx_discarded;
	}
	if (err == 0)
		restart_mark = pl011_model_wire_len(h.model);
}

/* Beside a writer the drain may never end, beside a panic that owns TX the hold may not come:
 * both PL011_ETIMEDOUT, with nothing changed. */
static unsigned long set_line_done, set_line_timed_out;

static void do_set_line(void)
{
	const struct pl011_line_config line = {.baud = run->line->baud / 2u, .data_bits = 8,
					       .stop_bits = 1, .parity = PL011_PARITY_EVEN};
	int err = pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO);
	if (err != 0 && err != PL011_ETIMEDOUT)
		fail_run("pl011_set_line returned %s", pl011_error_name(err));
	if (err == 0)
		set_line_done++;
	else
		set_line_timed_out++;
}

static void run_call(int core, enum call call)
{
	switch (call) {
	case CALL_WRITE_WAIT:
		writer(true);
		break;
	case CALL_WRITE_NO_WAIT:
		writer(false);
		break;
	case CALL_FLUSH: {
		int err = pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL);
		if (err != 0 && err != PL011_ESHUTDOWN && err != PL011_ETIMEDOUT)
			fail_run("pl011_flush returned %s", pl011_error_name(err));
		break;
	}
	case CALL_SHUTDOWN:
		do_shutdown();
		break;
	case CALL_REINIT:
		do_reinit();
		break;
	case CALL_PANIC:
		for (unsigned i = 0; i < PANICS_PER_CORE; i++)
			panic_once(core);
		break;
	case CALL_SET_LINE:
		do_set_line();
		break;
	case CALL_HANDLER:
		take_interrupts(core, false);
		break;
	default:
		take_interrupts(core, true);
		break;
	}
}

static void core_body(int core, void *unused)
{
	(void)unused;
	run_call(core, run->call[core]);
	if (run->then[core] != CALLS && !failed)
		run_call(core, run->then[core]);
}

/* ---- invariants ---- */

#define OWNER_OWNED 1u /* lib/pl011_tx.c's bits of tx.owner */
#define OWNER_RETRY 2u /* TX_RETRY */
#define OWNER_LAST_PASS 8u /* TX_PANIC */
#define OWNER_STOPPED 16u /* TX_STOPPED */
#define OWNER_PANIC 32u /* TX_PANIC_OWNER */
#define OWNER_HELD 128u /* TX_HELD: shutdown, init or the line switch owns it */

/* Once shutdown or init took TX for good, the word stays taken until the UART was disabled
 * and programmed again: a panic that passed its state check before the stop would otherwise
 * own TX, and write, under a UART being reprogrammed. */
/* docs/api.md: "While a panic on another core makes its last pass, a write queues nothing
 * new". A writer that looked at the word just before the pass began may still queue the
 * chunk it looked for: one move of the ring's head, no more. */
static void check_last_pass_holds_writers(uint32_t word)
{
	uint32_t head = (uint32_t)h.uart.tx.ring.head;
	if ((word & OWNER_LAST_PASS) == 0) {
		last_pass_seen = false;
		return;
	}
	if (!last_pass_seen) {
		last_pass_seen = true;
		last_pass_moves = 0;
	} else if (head != last_pass_head && ++last_pass_moves > 1u) {
		fail_run("the ring's head moved %u times in a panic's last pass", last_pass_moves);
	}
	last_pass_head = head;
}

/* docs/api.md: "in POLLED mode the writer lets it in at its next byte": from the panic's
 * request (RETRY) to its first character, at most one of the writer's. */
static void check_polled_writer_lets_panic_in(size_t wire_len)
{
	for (int core = 0; core < 2; core++) {
		if (retry_mark[core] == SIZE_MAX || !first_panic_wrote[core])
			continue;
		const uint8_t *message = panic_message(core);
		size_t letters = 0;
		for (size_t i = retry_mark[core]; i < wire_len; i++) {
			if (wire[i] >= message[0] && wire[i] <= message[PANIC_BYTES - 1u])
				break;
			if (wire[i] >= 'a' && wire[i] <= 'z')
				letters++;
		}
		/* With posted writes one more: the writer's DR write before the request may land
		 * after it (its next FR read, before its next DR write, lands it). */
		if (letters > (posting == POSTING_OFF ? 1u : 2u))
			fail_run("POLLED: the writer sent %zu characters after the panic on core %d "
				 "asked for TX", letters, core);
	}
}

static void check_stop_holds_tx(uint32_t word)
{
	bool enabled = (pl011_model_peek(h.model, PL011_CR) & PL011_CR_UARTEN) != 0;
	switch (stop_phase) {
	case STOP_BEFORE_TAKE:
		if ((word & (OWNER_OWNED | OWNER_STOPPED | OWNER_HELD)) ==
		    (OWNER_OWNED | OWNER_STOPPED | OWNER_HELD))
			stop_phase = STOP_TOOK_TX;
		break;
	case STOP_TOOK_TX:
	case STOP_DISABLED:
		if ((word & OWNER_OWNED) == 0)
			fail_run("TX freed (word 0x%x) before the UART was programmed again", word);
		if (stop_phase == STOP_TOOK_TX && !enabled)
			stop_phase = STOP_DISABLED;
		else if (stop_phase == STOP_DISABLED && enabled)
			stop_phase = STOP_PROGRAMMED;
		break;
	default:
		break;
	}
}

static void check_point(void *unused)
{
	(void)unused;
	if (checking || failed)
		return;
	const struct pl011_ring *ring = &h.uart.tx.ring;
	uint32_t word = __atomic_load_n(&h.uart.tx.owner, __ATOMIC_SEQ_CST);
	int core = cores_current();
	if (panic_entering[core]) {
		size_t queued = ring->head - ring->tail;
		if (queued > panic_queued[core])
			panic_queued[core] = queued;
		if ((word & OWNER_OWNED) != 0 && (word & OWNER_PANIC) != 0)
			panic_entering[core] = false;
	}
	check_stop_holds_tx(word);
	check_last_pass_holds_writers(word);
	if (run->mode == PL011_TX_POLLED && panic_entering[core] && (word & OWNER_RETRY) != 0 &&
	    retry_mark[core] == SIZE_MAX &&
	    !first_panic_wrote[core] && panic_written[core] == 0)
		retry_mark[core] = pl011_model_wire_len(h.model) + pl011_model_tx_level(h.model) +
				   (pl011_model_tx_shifting(h.model) ? 1u : 0u);
	stall_seen |= cores_stalled(0) || cores_stalled(1);
	if (stop_stalled && (pl011_model_peek(h.model, PL011_CR) & PL011_CR_UARTEN) == 0)
		invariants.overflows_excused = pl011_model_counters(h.model)->tx_overflows;
	const char *broken = invariants_check_point(&invariants, &h, core, 0);
	if (broken != NULL)
		fail_run("%s", broken);
}

static size_t count_panic(int core, size_t wire_len)
{
	const uint8_t *message = panic_message(core);
	size_t count = 0;
	for (size_t i = 0; i < wire_len; i++) {
		if (wire[i] < message[0] || wire[i] > message[PANIC_BYTES - 1u])
			continue;
		if (count >= (size_t)panic_written[core] || wire[i] != panic_stream[core][count])
			fail_run("panic of core %d: byte %zu differs on the wire", core, count);
		count++;
	}
	return count;
}

static void check_after_run(void)
{
	checking = true;
	struct pl011_stats stats;
	/* Let everything in flight leave, then look. */
	if (!port_stopped && pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL) != 0)
		fail_run("final flush timed out with %zu queued", pl011_tx_queued(&h.uart));
	pl011_model_advance(h.model, pl011_model_frame_ns(h.model) * (2u * run->depth + 4u));
	(void)pl011_get_stats(&h.uart, &stats);
	if (!port_stopped) {
		const char *stuck = harness_tx_stuck(&h);
		if (stuck != NULL)
			fail_run("%s", stuck);
		if (pl011_model_peek(h.model, PL011_IMSC) & PL011_INT_TX)
			fail_run("TXIM armed with nothing to send");
	} else if (pl011_model_peek(h.model, PL011_IMSC) != 0) {
		fail_run("stopped port with IMSC 0x%x", pl011_model_peek(h.model, PL011_IMSC));
	}
	/* Every accepted byte on the wire once, in order, or counted discarded: never both. */
	size_t wire_len = harness_wire(&h, wire, sizeof wire);
	size_t letters = 0;
	for (size_t i = 0; i < wire_len && i < sizeof wire; i++) {
		if (wire[i] < 'a' || wire[i] > 'z')
			continue;
		if (letters >= accepted || wire[i] != expected[letters]) {
			fail_run("writer byte %zu differs on the wire ('%c')", letters, wire[i]);
			break;
		}
		letters++;
	}
	/* PL011_ESTALLED: the count was taken under an owner that may have written a pass
	 * (2 x depth) it had yet to take from the ring. */
	size_t both = stop_stalled ? 2u * run->depth : 0u;
	size_t discarded = (size_t)stats.tx_discarded + discarded_earlier;
	if (letters + discarded < accepted || letters + discarded > accepted + both)
		fail_run("wire %zu + discarded %zu != accepted %zu", letters, discarded, accepted);
	/* Nobody writes after a re-init in these runs: the old run's bytes went before it or
	 * were counted, none after it. */
	for (size_t i = restart_mark; i < wire_len && i < sizeof wire; i++)
		if (wire[i] >= 'a' && wire[i] <= 'z') {
			fail_run("writer byte '%c' of the old run after the restart", wire[i]);
			break;
		}
	/* With a core stopped (core 1 never panics there): a panic on core 0 that held TX or
	 * wrote beside it when the stop began is a context of the old run, and writes nothing
	 * after the restart. */
	for (size_t i = restart_mark; run->plan.stall_at != 0 && engaged_at_stop && i < wire_len &&
				       i < sizeof wire;
	     i++)
		if (wire[i] >= '0' && wire[i] <= '4') {
			fail_run("the panic of the old run wrote '%c' after the restart", wire[i]);
			break;
		}
	check_polled_writer_lets_panic_in(wire_len);
	for (int core = 0; core < 2; core++) {
		size_t seen = count_panic(core, wire_len);
		size_t lost = seen <= (size_t)panic_written[core] ? (size_t)panic_written[core] - seen
								   : SIZE_MAX;
		if (lost != 0 && !(stop_stalled && lost == 1u))
			fail_run("panic of core %d reported %d bytes, the wire shows %zu", core,
				 panic_written[core], seen);
	}
	if (port_stopped || any_core_runs(CALL_REINIT)) {
		/* Restarted: nothing of the old run may come out before the new run's data. */
		checking = true;
		if (port_stopped && harness_start(&h) != 0)
			fail_run("restart failed");
		size_t before = pl011_model_wire_len(h.model);
		if (pl011_write(&h.uart, "zz", 2, PL011_WAIT_AUTO) != 2 ||
		    pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL) != 0)
			fail_run("a write after the restart failed");
		size_t after = pl011_model_wire_len(h.model);
		if (after != before + 2u || pl011_model_wire_byte(h.model, before) != 'z')
			fail_run("after the restart the wire shows %zu bytes, first '%c'",
				 after - before,
				 after > before ? pl011_model_wire_byte(h.model, before) : '-');
	}
	if (pl011_model_counters(h.model)->tx_overflows > invariants.overflows_excused)
		fail_run("%llu TX FIFO overflows",
			 (unsigned long long)pl011_model_counters(h.model)->tx_overflows);
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	if (any_core_runs(CALL_SET_LINE) &&
	    (c->order_violations != 0 || c->reprogram_while_shifting != 0 ||
	     c->tx_fen_flushed != 0 || c->rx_fen_flushed != 0))
		fail_run("line switch: %llu order violations, %llu reprogrammed while shifting, "
			 "%llu TX and %llu RX bytes flushed",
			 (unsigned long long)c->order_violations,
			 (unsigned long long)c->reprogram_while_shifting,
			 (unsigned long long)c->tx_fen_flushed, (unsigned long long)c->rx_fen_flushed);
	checking = false;
}

static void setup_run(const struct run *r)
{
	run = r;
	failed = false;
	accepted = 0;
	panic_written[0] = panic_written[1] = 0;
	rx_panic_armed[0] = rx_panic_armed[1] = false;
	panic_entering[0] = panic_entering[1] = false;
	port_stopped = false;
	stop_stalled = false;
	stall_seen = false;
	restart_mark = SIZE_MAX;
	engaged_at_stop = false;
	discarded_earlier = 0;
	stop_phase = STOP_OUTSIDE;
	retry_mark[0] = retry_mark[1] = SIZE_MAX;
	first_panic_wrote[0] = first_panic_wrote[1] = false;
	last_pass_seen = false;
	checking = false;
	invariants_reset(&invariants);
	/* Inside pl011_write a writer may be between its queueing and its look at the owner
	 * word (writer() marks it); on the instant line an owner may let go at its pass limit. */
	invariants.writer_inside = r->line == &lines[1];
	for (size_t i = 0; i < sizeof expected; i++)
		expected[i] = (uint8_t)('a' + i % 26u);
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.fifo_depth = r->depth;
	model_config.uartclk_hz = r->line->uartclk_hz;
	model_config.irq_latency_ns = latency_ns;
	harness_setup_with(&h, &model_config);
	h.config.baud = r->line->baud;
	h.config.tx_mode = r->mode;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.event_mask = PL011_EVENT_RX_DATA;
	h.config.event = on_rx_data;
	h.config.event_driver = &pl011_event_driver;
	h.config.tx_buffer_size = RING_BYTES;
	h.config.wait_hook = matrix_wait_hook;
	if (harness_start(&h) != 0)
		fail_run("pl011_init failed");
	/* A backlog for the panics and the shutdowns to meet. */
	int n = pl011_write(&h.uart, expected, PRELOAD_BYTES, PL011_NO_WAIT);
	accepted = n > 0 ? (size_t)n : 0u;
	/* Only a core that takes the interrupt takes it; otherwise it preempts whichever core
	 * runs when it comes (the model's own dispatch). */
	bool handler_core = r->call[0] >= CALL_HANDLER || r->call[1] >= CALL_HANDLER;
	if (handler_core)
		pl011_model_set_irq_handler(h.model, NULL, NULL);
}

/* Returns whether the run failed (and prints it). */
static bool explore_pair(const struct run *r)
{
	if (getenv("CALL_MATRIX_TRACE") != NULL)
		fprintf(stderr, "%s | %s, mode %d, depth %u, %s, one-in %u seed %u slices %llu/%llu\n",
			call_names[r->call[0]], call_names[r->call[1]], r->mode, r->depth,
			r->line->name, r->plan.switch_one_in, r->plan.seed,
			(unsigned long long)r->plan.first_slice, (unsigned long long)r->plan.slice);
	setup_run(r);
	if (!failed) {
		struct cores_plan plan = r->plan;
		plan.at_point = check_point;
		if (posting != POSTING_OFF)
			pl011_model_set_posted_writes(cores_current, POSTED_OTHER_POINTS,
						      posting == POSTING_NO_BARRIERS);
		cores_run(&plan, core_body, NULL);
		pl011_model_set_posted_writes(NULL, 0, false);
		harness_route_irq(&h);
		check_after_run();
		stalls_seen += stall_seen;
		stops_stalled += stop_stalled;
	}
	harness_teardown(&h);
	return failed;
}

struct tally {
	unsigned long runs, failures, pair_failures;
	unsigned pairs;
};

/* Prints the first two failures of each pair. */
static void report(const struct run *r, struct tally *tally)
{
	tally->runs++;
	if (!explore_pair(r))
		return;
	tally->failures++;
	if (tally->pair_failures++ < 2)
		print_message("FAIL %s | %s, mode %d, depth %u, %s line, one-in %u seed %u slices "
			      "%llu/%llu: %s\n",
			      call_names[r->call[0]], call_names[r->call[1]], r->mode, r->depth,
			      r->line->name, r->plan.switch_one_in, r->plan.seed,
			      (unsigned long long)r->plan.first_slice,
			      (unsigned long long)r->plan.slice, failure);
}

static bool is_writer(enum call c)
{
	return c == CALL_WRITE_WAIT || c == CALL_WRITE_NO_WAIT;
}

static bool stops(enum call c)
{
	return c == CALL_SHUTDOWN || c == CALL_REINIT;
}

static bool is_handler(enum call c)
{
	return c == CALL_HANDLER || c == CALL_RX_PANIC;
}

/* The pairs docs/api.md allows: one writer at a time; shutdown and init are the port's
 * owner's calls, never beside a writer or each other, and init (which clears the instance)
 * never beside a flush; one interrupt handler. */
static bool excludes(enum call stop, enum call other)
{
	return is_writer(other) || stops(other) || (stop == CALL_REINIT && other == CALL_FLUSH);
}

static bool allowed(enum call a, enum call b)
{
	if (is_writer(a) && is_writer(b))
		return false;
	/* pl011_set_line: not beside init, shutdown or another pl011_set_line. */
	if ((a == CALL_SET_LINE && (b == CALL_SET_LINE || stops(b))) ||
	    (b == CALL_SET_LINE && stops(a)))
		return false;
	if ((stops(a) && excludes(a, b)) || (stops(b) && excludes(b, a)))
		return false;
	return !(is_handler(a) && is_handler(b));
}

/* The run's calls in every strategy, FIFO 16 and 32, on both lines. */
static void each_regime(struct run *r, void (*schedules)(struct run *r, struct tally *tally),
			struct tally *tally)
{
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16)
			for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
				r->mode = modes[m];
				r->depth = depth;
				r->line = &lines[l];
				schedules(r, tally);
			}
}

static void for_each_pair(void (*schedules)(struct run *r, struct tally *tally),
			  const char *name)
{
	struct tally tally = {0, 0, 0, 0};
	struct run r;
	memset(&r, 0, sizeof r);
	r.then[0] = r.then[1] = CALLS;
	set_line_done = set_line_timed_out = 0;
	for (unsigned a = 0; a < CALLS; a++)
		for (unsigned b = 0; b < CALLS; b++) {
			if (!allowed((enum call)a, (enum call)b))
				continue;
			tally.pairs++;
			tally.pair_failures = 0;
			r.call[0] = (enum call)a;
			r.call[1] = (enum call)b;
			each_regime(&r, schedules, &tally);
		}
	print_message("call matrix, %s: %u ordered pairs of %d calls, %lu runs, %lu failures\n",
		      name, tally.pairs, CALLS, tally.runs, tally.failures);
	print_message("call matrix, %s: pl011_set_line switched %lu times, timed out %lu\n", name,
		      set_line_done, set_line_timed_out);
	assert_int_equal(tally.failures, 0);
	/* Most switches must happen, or the pairs prove nothing about the switch. */
	assert_true(set_line_done > set_line_timed_out);
}

/* make test (PL011_TEST_DEPTH=quick): each case (pair or triple, strategy, depth, line) under
 * one seeded schedule of four and one scripted of six, the choice moving from case to case
 * (the dense pairs below stay whole: a stride over their first slices missed the windows
 * they are for). */
static uint64_t quick_turn;

static void seeded(struct run *r, struct tally *tally)
{
	static const uint32_t one_in[] = {2, 60};
	memset(&r->plan, 0, sizeof r->plan);
	quick_turn++;
	for (size_t i = 0; i < sizeof one_in / sizeof one_in[0]; i++)
		for (uint32_t seed = 1; seed <= 2; seed++) {
			if (!depth_pick(i * 2u + seed, quick_turn, 4u))
				continue;
			r->plan.switch_one_in = one_in[i];
			r->plan.seed = seed * 2654435761u + (uint32_t)i;
			report(r, tally);
		}
}

static void scripted(struct run *r, struct tally *tally)
{
	static const uint64_t first[] = {3, 40, 300};
	static const uint64_t slice[] = {5, 50};
	memset(&r->plan, 0, sizeof r->plan);
	quick_turn++;
	for (size_t f = 0; f < sizeof first / sizeof first[0]; f++)
		for (size_t s = 0; s < sizeof slice / sizeof slice[0]; s++) {
			if (!depth_pick(f * 2u + s, quick_turn, 6u))
				continue;
			r->plan.first_slice = first[f];
			r->plan.slice = slice[s];
			r->plan.seed = (uint32_t)(f * 2u + s);
			report(r, tally);
		}
}

/* Zero latency: the pairs without a handler core, where the model's interrupt preempts
 * whichever core runs, and a cause left latched re-enters at once (tests/unit/invariants.h). */
static void seeded_at_zero_latency(struct run *r, struct tally *tally)
{
	if (is_handler(r->call[0]) || is_handler(r->call[1]))
		return;
	latency_ns = 0;
	seeded(r, tally);
	latency_ns = 1000u;
}

/* Posted writes: the pairs that hand TX over between cores while it streams, seeded. */
static unsigned long posted_pairs(void)
{
	static const enum call calls[] = {CALL_WRITE_WAIT, CALL_PANIC, CALL_HANDLER};
	struct tally tally = {0, 0, 0, 0};
	struct run r;
	memset(&r, 0, sizeof r);
	r.then[0] = r.then[1] = CALLS;
	for (size_t a = 0; a < 3; a++)
		for (size_t b = 0; b < 3; b++) {
			if (!allowed(calls[a], calls[b]))
				continue;
			tally.pairs++;
			tally.pair_failures = 0;
			r.call[0] = calls[a];
			r.call[1] = calls[b];
			for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
				for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
					r.mode = modes[m];
					r.depth = 16;
					r.line = &lines[l];
					seeded(&r, &tally);
				}
		}
	print_message("call matrix, posted writes%s: %u pairs, %lu runs, %lu failures\n",
		      posting == POSTING_NO_BARRIERS ? " without the barriers" : "", tally.pairs,
		      tally.runs, tally.failures);
	return tally.failures;
}

static void test_call_matrix_with_posted_writes(void **state)
{
	(void)state;
	posting = POSTING_ON;
	unsigned long failures = posted_pairs();
	posting = POSTING_OFF;
	assert_int_equal(failures, 0);
}

/* The same runs must catch the barriers' removal, or they prove nothing about them. */
static void test_call_matrix_catches_the_barriers_removed(void **state)
{
	(void)state;
	posting = POSTING_NO_BARRIERS;
	unsigned long failures = posted_pairs();
	posting = POSTING_OFF;
	assert_true(failures > 0);
}

static void test_call_matrix_under_seeded_schedules(void **state)
{
	(void)state;
	for_each_pair(seeded, "seeded schedules");
}

static void test_call_matrix_at_zero_interrupt_latency(void **state)
{
	(void)state;
	for_each_pair(seeded_at_zero_latency, "seeded schedules, zero latency");
}

static void test_call_matrix_under_scripted_slices(void **state)
{
	(void)state;
	for_each_pair(scripted, "scripted slices");
}

/*
 * pl011_init on core 0, then a panic (or a write) on core 1 the moment TX is free, with posted
 * Device writes: init's last register writes (the FEN set and clear of the quiesce, the line,
 * CR, IMSC) may still be in flight when core 1 takes TX, and unless init orders them before
 * freeing TX, its FEN clear lands after core 1's first DR write and flushes it. Core 0 goes on
 * with work that touches no register (its steps still pass: the model's points, which land
 * core 1's writes), the cores alternating every 1 to 3 points; init's writes stay in flight
 * for 6, 8 or 16 of core 1's points (the panic's first DR write lands after about 7).
 */
static const unsigned init_posted_points[] = {6u, 8u, 16u};
static bool init_done;
static int init_result, after_init_result;
static bool after_init_writes;
static const uint8_t after_init_bytes[PANIC_BYTES] = {'P', 'A', 'N', 'I', 'C'};

static void init_then_panic_body(int core, void *context)
{
	(void)context;
	if (core == 0) {
		init_result = harness_start(&h);
		init_done = true;
		while (!cores_finished(1))
			pl011_io_atomic_point();
		return;
	}
	while (!init_done)
		cores_yield();
	after_init_result = after_init_writes
				    ? pl011_write(&h.uart, after_init_bytes, PANIC_BYTES, PL011_NO_WAIT)
				    : pl011_write_panic(&h.uart, after_init_bytes, PANIC_BYTES);
}

static void test_init_orders_its_writes_before_freeing_tx(void **state)
{
	(void)state;
	unsigned runs = 0, lost = 0;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++)
			for (unsigned k = 0; k < 18u; k++) {
				int writes = (int)(k % 2u);
				unsigned in_flight = init_posted_points[k / 2u % 3u];
				harness_setup(&h, lines[l].uartclk_hz, 16);
				h.config.baud = lines[l].baud;
				h.config.tx_mode = modes[m];
				h.config.rx_mode = PL011_RX_LOW_LATENCY;
				after_init_writes = writes != 0;
				init_done = false;
				init_result = after_init_result = -100;
				const struct cores_plan plan = {.first_slice = 1,
								.slice = 1u + k / 6u};
				pl011_model_set_posted_writes(cores_current, in_flight, false);
				cores_run(&plan, init_then_panic_body, NULL);
				pl011_model_set_posted_writes(NULL, 0, false);
				assert_int_equal(init_result, 0);
				assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
				runs++;
				uint8_t got[2u * PANIC_BYTES];
				size_t len = harness_wire(&h, got, sizeof got);
				if (after_init_result != (int)PANIC_BYTES || len != PANIC_BYTES ||
				    memcmp(got, after_init_bytes, PANIC_BYTES) != 0 ||
				    pl011_model_counters(h.model)->tx_fen_flushed != 0) {
					print_message("%s after init, mode %d, %s line, slices of %u, "
						      "writes in flight for %u points: returned %d, wire "
						      "has %zu bytes, %llu flushed by FEN\n",
						      writes ? "write" : "panic", modes[m],
						      lines[l].name, (unsigned)plan.slice, in_flight,
						      after_init_result, len,
						      (unsigned long long)pl011_model_counters(h.model)
							      ->tx_fen_flushed);
					lost++;
				}
				harness_teardown(&h);
			}
	print_message("init then a panic or a write on the other core, posted writes: %u runs, "
		      "%u lost a byte\n",
		      runs, lost);
	assert_int_equal(lost, 0);
}

enum strategies { ALL_STRATEGIES, POLLED_ONLY, RING_STRATEGIES };

/* Dense scripted schedules for one ordered pair: every first slice up to `firsts` points, then
 * alternation every 1, 3, 7 or 20 points, the strategies chosen, FIFO 16, both lines. */
static unsigned long dense_pair(enum call a, enum call b, uint64_t firsts, enum strategies which)
{
	static const uint64_t slices[] = {1, 3, 7, 20};
	struct tally tally = {0, 0, 0, 0};
	struct run r;
	memset(&r, 0, sizeof r);
	r.then[0] = r.then[1] = CALLS;
	r.call[0] = a;
	r.call[1] = b;
	r.depth = 16;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++)
			for (uint64_t f = 1; f <= firsts; f++) {
				if ((which == POLLED_ONLY && modes[m] != PL011_TX_POLLED) ||
				    (which == RING_STRATEGIES && modes[m] == PL011_TX_POLLED))
					break;
				for (size_t s = 0; s < sizeof slices / sizeof slices[0]; s++) {
					r.mode = modes[m];
					r.line = &lines[l];
					r.plan.first_slice = f;
					r.plan.slice = slices[s];
					r.plan.seed = (uint32_t)(f + s);
					report(&r, &tally);
				}
			}
	print_message("call matrix, dense %s | %s: %lu runs, %lu failures\n", call_names[a],
		      call_names[b], tally.runs, tally.failures);
	return tally.failures;
}

/* docs/design.md's table: shutdown takes the owner word for good, and "pl011_init frees the
 * word once the port is programmed again" (check_stop_holds_tx at every point), with a panic
 * on the other core that passed its state check before the stop. */
static void test_init_frees_the_owner_word_once_programmed(void **state)
{
	(void)state;
	unsigned long failures = dense_pair(CALL_PANIC, CALL_REINIT, 40, ALL_STRATEGIES);
	failures += dense_pair(CALL_REINIT, CALL_PANIC, 40, ALL_STRATEGIES);
	assert_int_equal(failures, 0);
}

/* docs/api.md: "in POLLED mode the writer lets it in at its next byte" (checked from the
 * panic's request to its first character on the wire). */
static void test_polled_writer_lets_a_panic_in_at_its_next_byte(void **state)
{
	(void)state;
	unsigned long failures = dense_pair(CALL_PANIC, CALL_WRITE_WAIT, 20, POLLED_ONLY);
	failures += dense_pair(CALL_WRITE_WAIT, CALL_PANIC, 20, POLLED_ONLY);
	assert_int_equal(failures, 0);
}

/* docs/api.md: "While a panic on another core makes its last pass, a write queues nothing
 * new" (the ring's head at every point of the pass). */
static void test_writes_queue_nothing_during_a_panics_last_pass(void **state)
{
	(void)state;
	unsigned long failures = dense_pair(CALL_PANIC, CALL_WRITE_WAIT, 8, RING_STRATEGIES);
	failures += dense_pair(CALL_WRITE_NO_WAIT, CALL_PANIC, 8, RING_STRATEGIES);
	assert_int_equal(failures, 0);
}

/*
 * Issue 33: a context of an older run. Core 0's call (two panics, an RX callback that panics,
 * the handler) stops at its point n (a core halted by a debugger or a hypervisor; on one core,
 * a lower-priority task preempted by a higher one's whole call) while core 1 shuts the port
 * down and starts it again, or re-initialises it; then core 0 runs on. The stop says
 * PL011_ESTALLED when it gave up on core 0, init waits for core 0 or refuses (nothing
 * touched), and nothing of the old run leaves after the restart.
 */
static void test_call_matrix_a_context_of_an_older_run(void **state)
{
	(void)state;
	static const enum call contexts[] = {CALL_PANIC, CALL_RX_PANIC, CALL_HANDLER};
	static const enum call stops[][2] = {{CALL_SHUTDOWN, CALL_REINIT}, {CALL_REINIT, CALLS}};
	static const uint64_t stall_at[] = {1, 2, 3, 5, 8, 12, 18, 27, 40, 60, 90, 135, 200};
	struct tally tally = {0, 0, 0, 0};
	struct run r;
	memset(&r, 0, sizeof r);
	r.depth = 16;
	stalls_seen = stops_stalled = 0;
	for (size_t c = 0; c < sizeof contexts / sizeof contexts[0]; c++)
		for (size_t t = 0; t < sizeof stops / sizeof stops[0]; t++) {
			tally.pair_failures = 0;
			r.call[0] = contexts[c];
			r.then[0] = CALLS;
			r.call[1] = stops[t][0];
			r.then[1] = stops[t][1];
			for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
				for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++)
					for (size_t k = 0; k < sizeof stall_at / sizeof stall_at[0]; k++) {
						r.mode = modes[m];
						r.line = &lines[l];
						memset(&r.plan, 0, sizeof r.plan);
						r.plan.first_slice = UINT64_MAX;
						r.plan.slice = UINT64_MAX;
						r.plan.seed = (uint32_t)k;
						r.plan.stall_at = stall_at[k];
						r.plan.stall_core = 0;
						report(&r, &tally);
					}
		}
	print_message("call matrix, a context of an older run: %lu runs (a core stopped in %lu, "
		      "the stop said PL011_ESTALLED in %lu), %lu failures\n",
		      tally.runs, stalls_seen, stops_stalled, tally.failures);
	assert_int_equal(tally.failures, 0);
	/* The schedules must reach the case, or they prove nothing about it. */
	assert_true(stops_stalled > tally.runs / 4u);
}

static void seeded_and_scripted(struct run *r, struct tally *tally)
{
	seeded(r, tally);
	scripted(r, tally);
}

/*
 * Selected triples: core 0 runs a streaming write and then a second call (the port's owner
 * shuts down, re-initialises, panics or switches the line once its writer is done, while the
 * other core's call may still run), core 1 a third; seeded and scripted schedules, every
 * strategy, FIFO 16 and 32, both lines, the same invariants at every point and after.
 */
static void test_call_matrix_selected_triples(void **state)
{
	(void)state;
	static const enum call triples[][3] = {
		{CALL_WRITE_WAIT, CALL_SHUTDOWN, CALL_PANIC},
		{CALL_WRITE_WAIT, CALL_REINIT, CALL_HANDLER},
		{CALL_WRITE_WAIT, CALL_PANIC, CALL_PANIC},
		{CALL_WRITE_WAIT, CALL_PANIC, CALL_RX_PANIC},
		{CALL_WRITE_WAIT, CALL_SET_LINE, CALL_PANIC},
	};
	struct tally all = {0, 0, 0, 0};
	struct run r;
	memset(&r, 0, sizeof r);
	set_line_done = set_line_timed_out = 0;
	for (size_t t = 0; t < sizeof triples / sizeof triples[0]; t++) {
		struct tally tally = {0, 0, 0, 0};
		r.call[0] = triples[t][0];
		r.then[0] = triples[t][1];
		r.call[1] = triples[t][2];
		r.then[1] = CALLS;
		each_regime(&r, seeded_and_scripted, &tally);
		print_message("call matrix, triple %s then %s | %s: %lu runs, %lu failures\n",
			      call_names[triples[t][0]], call_names[triples[t][1]],
			      call_names[triples[t][2]], tally.runs, tally.failures);
		all.runs += tally.runs;
		all.failures += tally.failures;
	}
	print_message("call matrix, triples: %zu triples, %lu runs, %lu failures; pl011_set_line "
		      "switched %lu times, timed out %lu\n",
		      sizeof triples / sizeof triples[0], all.runs, all.failures, set_line_done,
		      set_line_timed_out);
	assert_int_equal(all.failures, 0);
	assert_true(set_line_done > set_line_timed_out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_matrix_selected_triples),
		cmocka_unit_test(test_init_frees_the_owner_word_once_programmed),
		cmocka_unit_test(test_polled_writer_lets_a_panic_in_at_its_next_byte),
		cmocka_unit_test(test_writes_queue_nothing_during_a_panics_last_pass),
		cmocka_unit_test(test_call_matrix_under_seeded_schedules),
		cmocka_unit_test(test_call_matrix_under_scripted_slices),
		cmocka_unit_test(test_call_matrix_at_zero_interrupt_latency),
		cmocka_unit_test(test_call_matrix_with_posted_writes),
		cmocka_unit_test(test_call_matrix_catches_the_barriers_removed),
		cmocka_unit_test(test_init_orders_its_writes_before_freeing_tx),
		cmocka_unit_test(test_call_matrix_a_context_of_an_older_run),
	};
	/* CALL_MATRIX_ONLY=<pattern>: one test of this program (a check of a new test, a mutant). */
	if (getenv("CALL_MATRIX_ONLY") != NULL)
		cmocka_set_test_filter(getenv("CALL_MATRIX_ONLY"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
