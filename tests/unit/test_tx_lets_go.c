/* On a line as fast as the CPU a long write keeps TX until someone waits for it, then lets go
 * within its pass limit, so a line switch or a panic beside it gets in; writes, stats and FR
 * counts as the model counts them. Two modelled cores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "harness.h"
#include "pl011_regs.h"

static struct harness H;

static void idle_step(void *context)
{
	cores_idle_step(context, 2000u);
}

static uint32_t core_of_caller(void *unused)
{
	(void)unused;
	return (uint32_t)cores_current() + 1u;
}

/* The port in `mode`, its waits stepping the model, each core its own tag. */
static void start_on_two_cores(enum pl011_tx_mode mode)
{
	H.config.tx_mode = mode;
	H.config.wait_hook = idle_step;
	H.config.wait_context = H.model;
	H.config.core_id = core_of_caller;
	assert_int_equal(harness_start(&H), 0);
}

#define BIG (64u * 1024u)
static uint8_t big[BIG];

struct line_run {
	struct harness *h;
	enum pl011_tx_mode mode;
	int write_result;
	int line_result;
	uint64_t line_start_ns, line_end_ns;
	uint32_t word_after_switch; /* tx.owner as pl011_set_line returned */
};

static void writer_and_line_switch(int core, void *context)
{
	struct line_run *run = context;
	struct harness *h = run->h;
	if (core == 0) {
		run->write_result = pl011_write(&h->uart, big, BIG, 100000u);
		return;
	}
	/* Core 1: once the writer is sending, switch the line to the same rate. */
	while (pl011_model_wire_len(h->model) < 200 && !cores_finished(0))
		cores_yield();
	struct pl011_line_config line = {
		.baud = h->config.baud,
		.data_bits = 8,
		.stop_bits = 1,
		.parity = PL011_PARITY_NONE,
	};
	run->line_start_ns = pl011_model_now_ns(h->model);
	run->line_result = pl011_set_line(&h->uart, &line, PL011_WAIT_AUTO);
	run->line_end_ns = pl011_model_now_ns(h->model);
}

/* lib/pl011_tx_owner.h's SWITCH_WAITS, HELD and OWNED bits of tx.owner. */
#define OWNER_OWNED 1u
#define OWNER_HELD 128u
#define OWNER_SWITCH_WAITS (1u << 16)

/* From each time the line switch asks an owner for TX (SWITCH_WAITS set while OWNED) to the
 * switch holding TX (HELD) or giving up: the most DR writes in between, at every point of
 * either core. */
static struct {
	bool asked;
	unsigned asks;
	uint64_t since_writes, most_writes;
} ask_watch;

static void ask_point(void *context)
{
	struct harness *h = context;
	uint32_t word = __atomic_load_n(&h->uart.tx.owner, __ATOMIC_RELAXED);
	uint64_t writes = pl011_model_counters(h->model)->writes[PL011_DR / 4u];
	if (!ask_watch.asked && (word & (OWNER_OWNED | OWNER_SWITCH_WAITS)) ==
				       (OWNER_OWNED | OWNER_SWITCH_WAITS)) {
		ask_watch.asked = true;
		ask_watch.asks++;
		ask_watch.since_writes = writes;
	} else if (ask_watch.asked && ((word & OWNER_HELD) != 0 || (word & OWNER_SWITCH_WAITS) == 0)) {
		ask_watch.asked = false;
		if (writes - ask_watch.since_writes > ask_watch.most_writes)
			ask_watch.most_writes = writes - ask_watch.since_writes;
	}
}

/*
 * docs/waiting.md: an owner asked for TX lets go within 2 x depth characters, a priming
 * pl011_write too, between its passes straight to the FIFO; docs/api.md (pl011_set_line,
 * "Beside it"): pl011_write on another core is safe. pl011_set_line takes TX as shutdown's
 * first wait does (2 frames + 1 ms), asking the owner with SWITCH_WAITS instead of STOPPED.
 * The bound checked, from the ask to the switch holding TX, is twice the pass limit: the idle
 * write's pass under way when the switch asks, then the ring pass that lets it in.
 */
static void set_line_beside_long_write(enum pl011_tx_mode mode, uint32_t seed, uint32_t one_in)
{
	harness_setup_instant_line(&H, 16);
	start_on_two_cores(mode);
	harness_fill_random(big, BIG, seed);
	struct line_run run = {.h = &H, .mode = mode, .line_result = 99};
	struct cores_plan plan = {.switch_one_in = one_in, .seed = seed, .at_point = ask_point,
				  .context = &H};
	memset(&ask_watch, 0, sizeof ask_watch);
	cores_run(&plan, writer_and_line_switch, &run);
	printf("  %s seed %u, a switch at 1 point in %u: write %d, set_line %d after %llu us, wire "
	       "%zu, overflows %llu\n",
	       harness_tx_mode_name(mode), seed, one_in, run.write_result, run.line_result,
	       (unsigned long long)((run.line_end_ns - run.line_start_ns) / 1000u),
	       pl011_model_wire_len(H.model),
	       (unsigned long long)pl011_model_counters(H.model)->tx_overflows);
	printf("  after run: queued %zu owner 0x%x imsc 0x%x ris 0x%x fifo %u shifting %d\n",
	       pl011_tx_queued(&H.uart), H.uart.tx.owner, pl011_model_peek(H.model, PL011_IMSC),
	       pl011_model_ris(H.model), pl011_model_tx_level(H.model),
	       (int)pl011_model_tx_shifting(H.model));
	int flushed = pl011_flush(&H.uart, PL011_WAIT_AUTO, NULL);
	printf("  flush %d: queued %zu owner 0x%x wire %zu\n", flushed, pl011_tx_queued(&H.uart),
	       H.uart.tx.owner, pl011_model_wire_len(H.model));
	assert_int_equal(flushed, 0);
	assert_int_equal(run.write_result, (int)BIG);
	assert_int_equal(pl011_model_wire_len(H.model), BIG);
	for (size_t i = 0; i < BIG; i++)
		assert_int_equal(pl011_model_wire_byte(H.model, i), big[i]);
	assert_int_equal(run.line_result, 0);
	printf("  asked %u times, at most %llu DR writes before the switch held TX\n", ask_watch.asks,
	       (unsigned long long)ask_watch.most_writes);
	assert_true(ask_watch.asks >= 1u);
	assert_true(ask_watch.most_writes <= 4u * 16u);
	assert_int_equal(H.uart.tx.owner & OWNER_SWITCH_WAITS, 0); /* the take cleared it */
	harness_teardown(&H);
}

/* Core 1 switches the line once core 0, the writer owning TX, has stopped. */
static void writer_stops_then_line_switch(int core, void *context)
{
	struct line_run *run = context;
	struct harness *h = run->h;
	if (core == 0) {
		run->write_result = pl011_write(&h->uart, big, 4096u, 100000u);
		return;
	}
	while (!cores_stalled(0) && !cores_finished(0))
		cores_yield();
	const struct pl011_line_config line = {
		.baud = h->config.baud, .data_bits = 8, .stop_bits = 1, .parity = PL011_PARITY_NONE};
	run->line_result = pl011_set_line(&h->uart, &line, PL011_WAIT_AUTO);
	run->word_after_switch = __atomic_load_n(&h->uart.tx.owner, __ATOMIC_RELAXED);
}

/*
 * docs/design.md, SWITCH_WAITS: the line switch "clears it when it owns TX or gives up". Beside
 * a writer whose core stopped while it owned TX, pl011_set_line gives up (PL011_ETIMEDOUT) and
 * leaves the word without its ask, else every later owner would let go at each pass for
 * nobody; the writer, once its core runs again, sends its whole write.
 */
static void test_set_line_beside_a_stopped_writer_withdraws_its_ask(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_MEASURED};
	for (size_t m = 0; m < 2; m++) {
		harness_setup_instant_line(&H, 16);
		start_on_two_cores(modes[m]);
		harness_fill_random(big, BIG, 11);
		struct line_run run = {.h = &H, .mode = modes[m], .line_result = 99};
		struct cores_plan plan = {.first_slice = 1000000u, .slice = 1000000u,
					  .stall_at = 300u, .stall_core = 0};
		cores_run(&plan, writer_stops_then_line_switch, &run);
		printf("  %s: set_line %d beside the stopped writer, word 0x%x then; write %d\n",
		       harness_tx_mode_name(modes[m]), run.line_result, run.word_after_switch,
		       run.write_result);
		assert_int_equal(run.line_result, PL011_ETIMEDOUT);
		assert_int_equal(run.word_after_switch & OWNER_SWITCH_WAITS, 0);
		assert_int_equal(H.uart.tx.owner & OWNER_SWITCH_WAITS, 0);
		assert_int_equal(run.write_result, 4096);
		assert_int_equal(pl011_flush(&H.uart, PL011_WAIT_AUTO, NULL), 0);
		assert_int_equal(pl011_model_wire_len(H.model), 4096u);
		harness_teardown(&H);
	}
}

static void test_set_line_beside_a_long_write_poll_full(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 3; seed++)
		set_line_beside_long_write(PL011_TX_POLL_FULL, seed, 4u);
}

static void test_set_line_beside_a_long_write_half_fifo(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 3; seed++)
		set_line_beside_long_write(PL011_TX_HALF_FIFO, seed, 4u);
	/* Rare switches: the owner that let go at its pass limit waits for the switch to take TX
	 * (tx_let_waiter_in); were it to own again at once, the switch would seldom find TX free
	 * in the few points between. */
	for (uint32_t seed = 1; seed <= 3; seed++)
		set_line_beside_long_write(PL011_TX_HALF_FIFO, seed, 64u);
}

/* The longest run of DR writes under one continuous ownership of TX (OWNED set), seen at every
 * preemption point the model offers (each register access and atomic point). */
struct span_watch {
	struct harness *h;
	bool owned;
	uint64_t since_writes, since_ns;
	uint64_t max_writes, max_ns;
};
static struct span_watch watch;

static uint64_t dr_writes(void)
{
	return pl011_model_counters(watch.h->model)->writes[PL011_DR / 4u];
}

static void span_point(void *unused)
{
	(void)unused;
	bool owned = (__atomic_load_n(&watch.h->uart.tx.owner, __ATOMIC_RELAXED) & 1u) != 0;
	if (owned && !watch.owned) {
		watch.since_writes = dr_writes();
		watch.since_ns = pl011_model_now_ns(watch.h->model);
	} else if (!owned && watch.owned) {
		uint64_t w = dr_writes() - watch.since_writes;
		uint64_t ns = pl011_model_now_ns(watch.h->model) - watch.since_ns;
		if (w > watch.max_writes)
			watch.max_writes = w;
		if (ns > watch.max_ns)
			watch.max_ns = ns;
	}
	watch.owned = owned;
}

/*
 * docs/waiting.md: a priming pl011_write on an idle transmitter, asked by nobody, keeps TX for
 * its whole write (no release and take per pass: their cost per byte is what QEMU's -icount
 * measures); the bound once asked is set_line_beside_long_write's.
 */
static void long_write_span(enum pl011_tx_mode mode)
{
	harness_setup_instant_line(&H, 16);
	H.config.tx_mode = mode;
	assert_int_equal(harness_start(&H), 0);
	harness_fill_random(big, BIG, 7);
	memset(&watch, 0, sizeof watch);
	watch.h = &H;
	pl011_model_set_preempt_hook(span_point, NULL);
	int n = pl011_write(&H.uart, big, BIG, 100000u);
	span_point(NULL);
	pl011_model_set_preempt_hook(NULL, NULL);
	printf("  %s: write %d, longest ownership %llu DR writes, %llu us\n",
	       harness_tx_mode_name(mode), n, (unsigned long long)watch.max_writes,
	       (unsigned long long)(watch.max_ns / 1000u));
	assert_int_equal(n, (int)BIG);
	assert_int_equal(watch.max_writes, BIG);
	harness_teardown(&H);
}

static void test_a_long_write_asked_by_nobody_keeps_tx(void **state)
{
	(void)state;
	long_write_span(PL011_TX_POLL_FULL);
	long_write_span(PL011_TX_MEASURED);
}

/* ---- a writer on core 0, a panic on core 1 (claims 2 and 3) ---- */

#define PANIC_LEN 40u
static uint8_t panic_msg[PANIC_LEN];

/* The writer's bytes below 128, the panic's above, so the wire tells them apart. */
static void fill_payloads(uint32_t seed)
{
	uint32_t st = seed;
	for (size_t i = 0; i < BIG; i++)
		big[i] = (uint8_t)(harness_random(&st) & 0x7Fu);
	for (size_t i = 0; i < PANIC_LEN; i++)
		panic_msg[i] = (uint8_t)(0x80u | (harness_random(&st) & 0x7Fu));
}

struct panic_run {
	struct harness *h;
	size_t len;
	uint64_t panic_after_wire;
	int write_result, panic_result;
};

static int core_of_now(void)
{
	return cores_current();
}

static void writer_and_panic(int core, void *context)
{
	struct panic_run *run = context;
	struct harness *h = run->h;
	if (core == 0) {
		run->write_result = pl011_write(&h->uart, big, run->len, 1000000u);
		return;
	}
	while (pl011_model_wire_len(h->model) < run->panic_after_wire && !cores_finished(0))
		cores_yield();
	run->panic_result = pl011_write_panic(&h->uart, panic_msg, PANIC_LEN);
}

/* The wire: the writer's first write_result bytes in order, the panic's bytes in one piece. */
static void check_wire(const struct harness *h, const struct panic_run *run)
{
	size_t wire = pl011_model_wire_len(h->model);
	size_t w = 0, p = 0, first_p = SIZE_MAX, last_p = 0;
	for (size_t i = 0; i < wire; i++) {
		uint8_t b = pl011_model_wire_byte(h->model, i);
		if (b >= 128) {
			assert_true(p < PANIC_LEN);
			assert_int_equal(b, panic_msg[p]);
			p++;
			if (first_p == SIZE_MAX)
				first_p = i;
			last_p = i;
		} else {
			assert_true(w < run->len);
			assert_int_equal(b, big[w]);
			w++;
		}
	}
	assert_int_equal(w, (size_t)run->write_result);
	assert_int_equal(p, (size_t)run->panic_result);
	if (p != 0)
		assert_int_equal(last_p - first_p + 1u, p);
}

static void writer_beside_panic(enum pl011_tx_mode mode, bool instant, uint32_t seed,
				unsigned switch_one_in, bool posted)
{
	if (instant)
		harness_setup_instant_line(&H, 16);
	else {
		harness_setup(&H, 48000000u, 16);
		H.config.baud = 3000000u;
	}
	start_on_two_cores(mode);
	fill_payloads(seed);
	struct panic_run run = {.h = &H, .len = 2048, .panic_after_wire = 10u + seed % 300u};
	struct cores_plan plan = {.switch_one_in = switch_one_in, .seed = seed};
	if (posted)
		pl011_model_set_posted_writes(core_of_now, 8, false);
	cores_run(&plan, writer_and_panic, &run);
	if (posted)
		pl011_model_set_posted_writes(NULL, 0, false);
	assert_int_equal(pl011_flush(&H.uart, PL011_WAIT_AUTO, NULL), 0);
	uint32_t unowned = H.uart.tx.unowned_bytes;
	if (run.write_result != (int)run.len || run.panic_result != (int)PANIC_LEN || unowned != 0 ||
	    pl011_model_counters(H.model)->tx_overflows != 0)
		printf("  %s %s seed %u 1/%u%s: write %d panic %d beside %u overflows %llu\n",
		       harness_tx_mode_name(mode), instant ? "instant" : "3M", seed, switch_one_in,
		       posted ? " posted" : "", run.write_result, run.panic_result, unowned,
		       (unsigned long long)pl011_model_counters(H.model)->tx_overflows);
	assert_int_equal(pl011_model_counters(H.model)->tx_overflows, 0);
	check_wire(&H, &run);
	assert_int_equal(run.panic_result, (int)PANIC_LEN);
	assert_int_equal(run.write_result, (int)run.len);
	harness_teardown(&H);
}

static void test_polled_writer_lets_a_panic_in(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 40; seed++) {
		writer_beside_panic(PL011_TX_POLLED, true, seed, 1u + seed % 5u, seed % 2u == 0);
		writer_beside_panic(PL011_TX_POLLED, false, seed, 1u + seed % 5u, seed % 2u == 0);
	}
}

static void test_idle_write_lets_a_panic_in(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_POLL_FULL, PL011_TX_HALF_FIFO,
						   PL011_TX_MEASURED};
	for (uint32_t seed = 1; seed <= 40; seed++)
		for (size_t m = 0; m < 3; m++) {
			writer_beside_panic(modes[m], true, seed, 1u + seed % 5u, seed % 2u == 0);
			writer_beside_panic(modes[m], false, seed, 1u + seed % 5u, seed % 2u == 0);
		}
}

/* Core 0 (the writer, owning TX) stopped at its point stall_at: the panic on core 1 waits it
 * out and writes beside it, one character into an empty FIFO at a time. */
static unsigned beside_runs;
static void stalled_owner_beside_panic(enum pl011_tx_mode mode, uint64_t stall_at, bool posted,
				       unsigned other_points)
{
	harness_setup(&H, 48000000u, 16);
	H.config.baud = 3000000u;
	start_on_two_cores(mode);
	fill_payloads((uint32_t)stall_at);
	struct panic_run run = {.h = &H, .len = 300, .panic_after_wire = 0};
	struct cores_plan plan = {.first_slice = stall_at + 5u, .slice = 1000000u,
				  .stall_at = stall_at, .stall_core = 0};
	if (posted)
		pl011_model_set_posted_writes(core_of_now, other_points, false);
	cores_run(&plan, writer_and_panic, &run);
	if (posted)
		pl011_model_set_posted_writes(NULL, 0, false);
	(void)pl011_flush(&H.uart, PL011_WAIT_AUTO, NULL);
	uint64_t overflows = pl011_model_counters(H.model)->tx_overflows;
	if (overflows != 0)
		printf("  %s stall_at %llu posted %d/%u: write %d panic %d beside %u overflows %llu\n",
		       harness_tx_mode_name(mode), (unsigned long long)stall_at, posted, other_points,
		       run.write_result, run.panic_result, H.uart.tx.unowned_bytes,
		       (unsigned long long)overflows);
	if (H.uart.tx.unowned_bytes != 0)
		beside_runs++;
	assert_int_equal(overflows, 0);
	/* In order each, the panic's possibly split by the writer's characters (docs/api.md). */
	size_t wire = pl011_model_wire_len(H.model), w = 0, p = 0;
	for (size_t i = 0; i < wire; i++) {
		uint8_t b = pl011_model_wire_byte(H.model, i);
		if (b >= 128)
			assert_int_equal(b, panic_msg[p++]);
		else
			assert_int_equal(b, big[w++]);
	}
	assert_int_equal(w, (size_t)run.write_result);
	assert_int_equal(p, (size_t)run.panic_result);
	harness_teardown(&H);
}

static void test_panic_beside_a_stopped_owner(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_POLLED, PL011_TX_POLL_FULL,
						   PL011_TX_HALF_FIFO, PL011_TX_MEASURED};
	for (size_t m = 0; m < 4; m++)
		for (uint64_t at = 1; at <= 160; at++) {
			stalled_owner_beside_panic(modes[m], at, false, 0);
			stalled_owner_beside_panic(modes[m], at, true, 4);
			stalled_owner_beside_panic(modes[m], at, true, 1000);
		}
	printf("  runs with a panic beside: %u of %u\n", beside_runs, 4u * 160u * 3u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_panic_beside_a_stopped_owner, &H),
		HARNESS_TEST(test_polled_writer_lets_a_panic_in, &H),
		HARNESS_TEST(test_idle_write_lets_a_panic_in, &H),
		HARNESS_TEST(test_a_long_write_asked_by_nobody_keeps_tx, &H),
		HARNESS_TEST(test_set_line_beside_a_stopped_writer_withdraws_its_ask, &H),
		HARNESS_TEST(test_set_line_beside_a_long_write_poll_full, &H),
		HARNESS_TEST(test_set_line_beside_a_long_write_half_fifo, &H),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
