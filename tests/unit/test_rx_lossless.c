/* Lossless RX on the model: back-pressure at a full ring, every overrun counted, init, shutdown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

static struct harness h;
static uint8_t data[1u << 18];
static uint8_t received[1u << 18];

static const enum pl011_rx_mode ring_modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};

static void start_with(enum pl011_rx_mode mode, size_t ring, uint64_t latency_ns, uint32_t baud,
		       uint32_t flags)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.irq_latency_ns = latency_ns;
	harness_setup_with(&h, &model_config);
	h.config.rx_mode = mode;
	h.config.rx_buffer_size = ring;
	h.config.baud = baud;
	h.config.flags = flags;
	assert_int_equal(harness_start(&h), 0);
}

static bool is_subsequence(const uint8_t *got, size_t n, const uint8_t *all, size_t total);

static size_t drain(uint8_t *out, size_t max)
{
	return harness_read_all(&h, out, max);
}

static struct pl011_stats stats_now(void)
{
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	return stats;
}

/* A reader that does not read while the ring fills: what does not fit waits in the FIFO. */
static void test_rx_full_ring_leaves_the_rest_in_the_fifo(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		start_with(ring_modes[m], 64, 1000u, 115200, 0);
		size_t total = 64 + 16;
		harness_fill_random(data, total, 5u);
		uint64_t last = pl011_model_rx_inject_stream(h.model, data, total,
							      pl011_model_now_ns(h.model));
		pl011_model_advance_to(h.model, last + 64u * pl011_model_bit_ns(h.model));
		assert_int_equal(pl011_model_rx_level(h.model), 16);
		/* Paused means quiet: RX and RT masked, no handler entries while nobody reads. */
		uint32_t entries = stats_now().irq_entries;
		pl011_model_advance(h.model, 10000000u);
		assert_int_equal(stats_now().irq_entries, entries);
		assert_int_equal(stats_now().rx_pauses, 1);
		/* Each read frees room, which lets the interrupt take the FIFO in again. */
		size_t got = 0;
		while (got < total) {
			size_t before = got;
			got += drain(received + got, sizeof received - got);
			pl011_model_advance(h.model, 100000u);
			if (got == before)
				break;
		}
		assert_int_equal(got, total);
		assert_memory_equal(received, data, total);
		assert_int_equal(pl011_model_counters(h.model)->rx_overruns, 0);
		assert_int_equal(stats_now().rx_overrun, 0);
		harness_teardown(&h);
	}
}

/* 20 characters while nobody takes them, then silence: 16 kept, 4 lost, one overrun counted,
 * although no later character carries DR.OE. */
static void test_rx_trailing_overrun_is_counted_in_every_mode(void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_POLLED, PL011_RX_LOW_LATENCY,
						   PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < 3; m++) {
		/* In the interrupt modes the handler comes only after all 20 arrived (5 ms). */
		start_with(modes[m], 4096, 5000000u, 115200, 0);
		harness_fill_random(data, 20, 9u);
		uint64_t last = pl011_model_rx_inject_stream(h.model, data, 20,
							      pl011_model_now_ns(h.model));
		pl011_model_advance_to(h.model, last + 6000000u);
		size_t got = drain(received, sizeof received);
		assert_int_equal(got, 16);
		assert_memory_equal(received, data, 16);
		assert_int_equal(pl011_model_counters(h.model)->rx_overruns, 4);
		assert_int_equal(stats_now().rx_overrun, 1);
		/* Reading again counts nothing more: one overrun, counted once. */
		assert_int_equal(drain(received, sizeof received), 0);
		assert_int_equal(stats_now().rx_overrun, 1);
		harness_teardown(&h);
	}
}

/* The board started the console polled; bytes that arrive before the example's pl011_restart
 * are in the FIFO, and the new ring mode gets them. */
static void test_rx_reinit_of_a_running_port_keeps_what_arrived(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		start_with(PL011_RX_POLLED, 4096, 1000u, 115200, 0);
		uint64_t last = pl011_model_rx_inject_stream(h.model, (const uint8_t *)"hello", 5,
							      pl011_model_now_ns(h.model));
		pl011_model_advance_to(h.model, last + 1000u);
		h.config.rx_mode = ring_modes[m];
		assert_int_equal(harness_restart(&h), 0);
		pl011_model_advance(h.model, 1000000u);
		assert_int_equal(drain(received, sizeof received), 5);
		assert_memory_equal(received, "hello", 5);
		assert_int_equal(stats_now().rx_discarded, 0);
		harness_teardown(&h);
	}
}

/* A running ring-mode port: the unread ring bytes and the FIFO's go to the new ring, the same
 * storage or another; to a polled port they cannot go, and are counted. */
static void test_rx_reinit_carries_the_ring_over_or_counts_it(void **state)
{
	(void)state;
	static uint8_t other_ring[256];
	for (int target = 0; target < 3; target++) {
		start_with(PL011_RX_FEW_IRQS, 64, 1000u, 115200, 0);
		harness_fill_random(data, 64 + 10, 23u);
		uint64_t last = pl011_model_rx_inject_stream(h.model, data, 64 + 10,
							      pl011_model_now_ns(h.model));
		pl011_model_advance_to(h.model, last + 1000u);
		assert_int_equal(pl011_model_rx_level(h.model), 10); /* 64 in the ring, 10 waiting */
		if (target == 1) {
			h.config.rx_buffer = other_ring;
			h.config.rx_buffer_size = sizeof other_ring;
		} else if (target == 2) {
			h.config.rx_mode = PL011_RX_POLLED;
		}
		assert_int_equal(harness_restart(&h), 0);
		pl011_model_advance(h.model, 1000000u);
		/* The same full ring has no room for the FIFO's 10; another of 256 takes all. */
		static const size_t kept[3] = {64, 64 + 10, 0};
		size_t got = drain(received, sizeof received);
		assert_int_equal(got, kept[target]);
		assert_memory_equal(received, data, got);
		assert_int_equal(stats_now().rx_discarded, 64 + 10 - kept[target]);
		harness_teardown(&h);
	}
}

/* Shutdown while the ring is full, the FIFO full and a sender without flow control goes on:
 * what was received and not read is counted, and so is every overrun event (a latch of OE,
 * however many characters it lost), also one that comes after shutdown masked the interrupt. */
static void test_rx_shutdown_counts_unread_bytes_and_late_overruns(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		start_with(ring_modes[m], 64, 1000u, 115200, 0);
		harness_fill_random(data, 400, 21u);
		pl011_model_rx_partner_start(h.model, data, 400, 0, false);
		pl011_model_advance(h.model, 100u * pl011_model_frame_ns(h.model));
		/* The TX FIFO full, so that shutdown waits 16 frames with every interrupt masked. */
		static const uint8_t line[16] = "0123456789abcdef";
		assert_int_equal(pl011_write(&h.uart, line, sizeof line, PL011_NO_WAIT), 16);
		assert_int_equal(pl011_shutdown(&h.uart, 0), 0);
		const struct pl011_model_counters *mc = pl011_model_counters(h.model);
		struct pl011_stats stats = stats_now();
		assert_int_equal(stats.rx_bytes, 64);
		assert_int_equal(stats.rx_discarded, 64 + 16);
		assert_int_equal(mc->rx_received, 64 + 16);
		/* Many characters lost, in one overrun event: OE stays masked while RX is paused,
		 * so its latch is never cleared under the pause (no interrupt per lost byte). */
		assert_true(mc->rx_overruns > 1);
		assert_true(mc->rx_overrun_events >= 1);
		assert_int_equal(stats.rx_overrun, mc->rx_overrun_events);
		harness_teardown(&h);
	}
}

/* ---- IMSC shared by TX and RX: the handler at every point of a resuming read ---- */

static uint64_t hook_point, hook_count;
static bool hook_delivered;

static void run_handler(void *context)
{
	pl011_irq_handler(context);
}

static unsigned hook_longest_chain;

/* The UART's handler once, at the thread's point number hook_point (its own points do not
 * count: the hook is called again from inside it); then, at every later point, again while
 * the line is up, as a CPU takes a level-sensitive line (at most 100 in a row: a storm). */
static void deliver_at_point(void *context)
{
	(void)context;
	if (pl011_model_in_irq(h.model))
		return;
	if (!hook_delivered) {
		if (hook_count++ != hook_point)
			return;
		hook_delivered = true;
		pl011_model_run_as_irq(h.model, run_handler, &h.uart);
	}
	unsigned chained = 0;
	while (pl011_model_irq_line(h.model) && chained < 100u) {
		pl011_model_run_as_irq(h.model, run_handler, &h.uart);
		chained++;
	}
	if (chained > hook_longest_chain)
		hook_longest_chain = chained;
}

/* A paused RX (ring full, 10 characters in the FIFO) and a TX cause latched whose refill empties
 * the TX ring, so the handler disarms TXIM: delivered between the reader's swap of the IMSC word
 * and its write, the two updates cross. Returns whether the point was reached. */
static bool run_resume_with_handler_at(uint64_t point)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.irq_latency_ns = 1000000000u; /* the model's own dispatch comes much later */
	harness_setup_with(&h, &model_config);
	h.config.baud = 3000000u;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.rx_buffer_size = 64;
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	assert_int_equal(harness_start(&h), 0);
	harness_fill_random(data, 74, 31u);
	for (size_t i = 0; i < 74; i += 16) {
		size_t n = 74 - i < 16 ? 74 - i : 16;
		uint64_t last = pl011_model_rx_inject_stream(h.model, data + i, n,
							      pl011_model_now_ns(h.model));
		pl011_model_advance_to(h.model, last + 1000u);
		pl011_model_run_as_irq(h.model, run_handler, &h.uart);
	}
	assert_int_equal(stats_now().rx_pauses, 1);
	assert_int_equal(pl011_model_rx_level(h.model), 10);
	static const uint8_t line[20] = "abcdefghijklmnopqrst";
	assert_int_equal(pl011_write(&h.uart, line, sizeof line, PL011_NO_WAIT), 20);
	pl011_model_advance(h.model, 40000u); /* TX cause latched, nobody dispatched */

	hook_point = point;
	hook_count = 0;
	hook_delivered = false;
	hook_longest_chain = 0;
	pl011_model_set_preempt_hook(deliver_at_point, NULL);
	size_t got = drain(received, sizeof received);
	pl011_model_set_preempt_hook(NULL, NULL);
	bool delivered = hook_delivered;
	/* A stale IMSC write by the reader (TXIM as it was before the handler disarmed it) must
	 * not keep the TX cause calling the handler while the reader cannot run. */
	if (hook_longest_chain > 2u)
		print_message("the handler at point %llu of the read, then called %u times in a row\n",
			      (unsigned long long)point, hook_longest_chain);
	assert_true(hook_longest_chain <= 2u);
	assert_null(harness_tx_stuck(&h));
	for (int step = 0; step < 6 && (got < 74 || pl011_model_wire_len(h.model) < 20); step++) {
		pl011_model_advance(h.model, 1100000000u);
		got += drain(received + got, sizeof received - got);
	}
	assert_int_equal(got, 74);
	assert_memory_equal(received, data, 74);
	uint8_t wire[32];
	assert_int_equal(harness_wire(&h, wire, sizeof wire), 20);
	assert_memory_equal(wire, line, 20);
	/* TX done and disarmed, RX resumed: the register says what the word says. */
	assert_int_equal(pl011_model_peek(h.model, PL011_IMSC),
			 PL011_INT_RX | PL011_INT_RT | PL011_INT_ERRORS);
	assert_int_equal(h.uart.imsc, PL011_INT_RX | PL011_INT_RT | PL011_INT_ERRORS);
	harness_teardown(&h);
	return delivered;
}

static void test_rx_resume_against_the_handler_at_every_point(void **state)
{
	(void)state;
	uint64_t point = 0;
	while (run_resume_with_handler_at(point))
		point++;
	print_message("      the handler delivered at each of %llu points of the resuming read\n",
		      (unsigned long long)point);
	assert_true(point > 10);
}

/* ---- IMSC shared by TX and RX: the RX pause at every point of a write priming TX ----
 *
 * A writer that primes an idle transmitter arms TXIM through the IMSC word: it loads the word,
 * writes IMSC, looks again. The RX interrupt, taken between its load and its write, fills the
 * ring and pauses RX (RX and RT masked); the writer's write then puts its stale value, RX
 * unmasked, in IMSC. The handler, called at once by the level-sensitive line, must mask RX
 * again: a handler that leaves IMSC as it found it is called again and again (an NVIC
 * tail-chains it), and the writer, whose next look would repair IMSC, never runs again.
 * Modelled by deliver_at_point: the handler at the n-th point of the write, then at every
 * later point, while the line is up, re-entered as a CPU would.
 */
/* Returns whether the point was reached. */
static bool run_prime_with_rx_pause_at(enum pl011_tx_mode tx_mode, uint64_t point)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.irq_latency_ns = 1000000000u; /* dispatched only by the hook */
	harness_setup_with(&h, &model_config);
	h.config.baud = 3000000u;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.rx_buffer_size = 64;
	h.config.tx_mode = tx_mode;
	assert_int_equal(harness_start(&h), 0);
	/* 60 in the ring, not paused; then 10 more in the FIFO, more than the ring can take. */
	harness_fill_random(data, 70, 41u);
	for (size_t i = 0; i < 60; i += 15) {
		uint64_t last = pl011_model_rx_inject_stream(h.model, data + i, 15,
							      pl011_model_now_ns(h.model));
		pl011_model_advance_to(h.model, last + 1000u);
		pl011_model_run_as_irq(h.model, run_handler, &h.uart);
	}
	assert_int_equal(stats_now().rx_pauses, 0);
	uint64_t last = pl011_model_rx_inject_stream(h.model, data + 60, 10,
						      pl011_model_now_ns(h.model));
	pl011_model_advance_to(h.model, last + 1000u);

	hook_point = point;
	hook_count = 0;
	hook_delivered = false;
	hook_longest_chain = 0;
	static const uint8_t line[40] = "abcdefghijklmnopqrstuvwxyz0123456789ABCD";
	pl011_model_set_preempt_hook(deliver_at_point, NULL);
	int wrote = pl011_write(&h.uart, line, sizeof line, PL011_NO_WAIT);
	pl011_model_set_preempt_hook(NULL, NULL);
	bool delivered = hook_delivered;
	if (hook_longest_chain > 2u)
		print_message("%s: the handler at point %llu of the write, then called %u times in a "
			      "row by a line it could not clear\n",
			      harness_tx_mode_name(tx_mode), (unsigned long long)point,
			      hook_longest_chain);
	assert_true(hook_longest_chain <= 2u);
	assert_int_equal(wrote, (int)sizeof line);
	/* Everything arrives once the reader reads, and the wire has the line. */
	harness_route_irq(&h);
	size_t got = 0;
	for (int step = 0; step < 6 && (got < 70 || pl011_model_wire_len(h.model) < sizeof line);
	     step++) {
		pl011_model_advance(h.model, 1100000000u);
		got += drain(received + got, sizeof received - got);
	}
	assert_int_equal(got, 70);
	assert_memory_equal(received, data, 70);
	harness_teardown(&h);
	return delivered;
}

static void test_rx_pause_against_a_write_priming_tx_at_every_point(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL,
						   PL011_TX_HYBRID, PL011_TX_ADAPTIVE,
						   PL011_TX_MEASURED};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		uint64_t point = 0;
		while (run_prime_with_rx_pause_at(modes[m], point))
			point++;
		print_message("      %s: the RX pause at each of %llu points of the priming write\n",
			      harness_tx_mode_name(modes[m]), (unsigned long long)point);
		assert_true(point > 10);
	}
}

/* ---- no interrupt per lost character: OE is masked while RX is paused ----
 *
 * A sender without flow control goes on while the reader stalls with the ring full: every
 * character that finds the FIFO full is lost. Counting each as it happens would take an
 * interrupt per character (about 300,000 a second at 3 Mbaud) from the CPU the reader needs to
 * catch up. The pause masks OE with RX and RT; RIS keeps the latch, and the resume's unmask
 * brings one OE interrupt that counts the pause's overrun event.
 */
static void test_rx_pause_takes_no_interrupt_per_lost_character(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		start_with(ring_modes[m], 64, 1000u, 3000000u, 0);
		harness_fill_random(data, 20000, 23u);
		pl011_model_rx_partner_start(h.model, data, 20000, 0, false);
		/* 20 ms without a read: about 5,800 characters arrive, 64 + 16 find room. */
		pl011_model_advance(h.model, 20000000u);
		const struct pl011_model_counters *mc = pl011_model_counters(h.model);
		struct pl011_stats stats = stats_now();
		print_message("      %s: %llu characters lost in %llu overrun events, %u handler "
			      "entries, %u error causes\n",
			      m == 0 ? "LOW_LATENCY" : "FEW_IRQS",
			      (unsigned long long)mc->rx_overruns,
			      (unsigned long long)mc->rx_overrun_events, stats.irq_entries,
			      stats.irq_error);
		assert_true(mc->rx_overruns > 5000u);
		assert_true(stats.irq_entries < 40u);
		assert_true(stats.irq_error <= 2u);
		/* The reader catches up: the pause's overrun is counted once, as the model saw it. */
		size_t got = 0;
		for (int step = 0; step < 1000 && pl011_model_rx_partner_sent(h.model) < 20000; step++) {
			got += drain(received + got, sizeof received - got);
			pl011_model_advance(h.model, 100000u);
		}
		pl011_model_advance(h.model, 1000000u);
		got += drain(received + got, sizeof received - got);
		stats = stats_now();
		print_message("      then read: %zu received, %u overruns counted, the model saw %llu\n",
			      got, stats.rx_overrun, (unsigned long long)mc->rx_overrun_events);
		assert_true(stats.rx_overrun >= 1u);
		assert_int_equal(stats.rx_overrun, mc->rx_overrun_events);
		assert_int_equal(got + mc->rx_overruns, 20000);
		assert_true(is_subsequence(received, got, data, 20000));
		harness_teardown(&h);
	}
}

/* ---- the model's RX line partner ---- */

static void test_model_partner_stops_at_the_watermark_after_the_character_in_flight(void **state)
{
	(void)state;
	start_with(PL011_RX_POLLED, 4096, 1000u, 115200, PL011_FLAG_RTS_CTS);
	/* Polled mode keeps the reset-time trigger of init: 1/8 of 16 = 2 entries. */
	unsigned watermark = 2;
	harness_fill_random(data, 100, 13u);
	uint64_t frame = pl011_model_frame_ns(h.model);
	pl011_model_rx_partner_start(h.model, data, 100, 0, true);
	pl011_model_advance(h.model, 50u * frame);
	/* RTS drops as the watermark-th character gets in; that one was the last started. */
	assert_int_equal(pl011_model_rx_level(h.model), watermark);
	assert_false(pl011_model_rts(h.model));
	assert_int_equal(pl011_model_rx_partner_sent(h.model), watermark);
	/* Reading one takes the FIFO below the watermark: RTS again, one more character. */
	assert_true(pl011_getc(&h.uart) >= 0);
	assert_true(pl011_model_rts(h.model));
	pl011_model_advance(h.model, 3u * frame);
	assert_int_equal(pl011_model_rx_partner_sent(h.model), watermark + 1);
	assert_int_equal(pl011_model_counters(h.model)->rx_overruns, 0);
	harness_teardown(&h);
}

static void test_model_partner_without_rts_overruns_the_fifo(void **state)
{
	(void)state;
	start_with(PL011_RX_POLLED, 4096, 1000u, 115200, PL011_FLAG_RTS_CTS);
	harness_fill_random(data, 40, 17u);
	pl011_model_rx_partner_start(h.model, data, 40, 0, false);
	pl011_model_advance(h.model, 41u * pl011_model_frame_ns(h.model));
	assert_int_equal(pl011_model_rx_partner_sent(h.model), 40);
	assert_int_equal(pl011_model_counters(h.model)->rx_overruns, 40 - 16);
	assert_int_equal(pl011_model_counters(h.model)->rx_overrun_events, 1);
	harness_teardown(&h);
}

/* ---- a sender at line rate against a reader that stalls for 10 ms at random ---- */

struct stall_case {
	uint32_t baud;
	size_t ring;
	enum pl011_rx_mode mode;
	bool rts_cts;
	size_t bytes;
};

/* Whether got[0..n) is data[0..total) with bytes left out (and how many are left out). */
static bool is_subsequence(const uint8_t *got, size_t n, const uint8_t *all, size_t total)
{
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		while (j < total && all[j] != got[i])
			j++;
		if (j == total)
			return false;
		j++;
	}
	return true;
}

static void run_stalling_reader(const struct stall_case *c, uint32_t seed)
{
	start_with(c->mode, c->ring, 1000u, c->baud, c->rts_cts ? PL011_FLAG_RTS_CTS : 0u);
	harness_fill_random(data, c->bytes, seed);
	pl011_model_rx_partner_start(h.model, data, c->bytes, 0, c->rts_cts);
	uint32_t random = seed;
	size_t got = 0;
	unsigned stalls = 0;
	uint64_t idle_since = 0;
	for (;;) {
		/* Every 50 us the reader takes everything; 1 time in 50 it stalls 10 ms first. */
		if (harness_random(&random) % 50u == 0) {
			pl011_model_advance(h.model, 10000000u);
			stalls++;
		}
		pl011_model_advance(h.model, 50000u);
		size_t before = got;
		got += drain(received + got, sizeof received - got);
		bool done = pl011_model_rx_partner_sent(h.model) == c->bytes && got == before;
		if (!done) {
			idle_since = pl011_model_now_ns(h.model);
			continue;
		}
		/* All sent and nothing new: done once RT has had its time (32 bits + latency). */
		if (pl011_model_now_ns(h.model) - idle_since > 2000000u)
			break;
	}
	const struct pl011_model_counters *mc = pl011_model_counters(h.model);
	struct pl011_stats stats = stats_now();
	print_message("      %7lu baud ring %4zu %s %s: %zu of %zu, %u stalls, %u pauses, "
		      "%llu lost in %llu overruns, %u counted\n",
		      (unsigned long)c->baud, c->ring,
		      c->mode == PL011_RX_LOW_LATENCY ? "LOW_LATENCY" : "FEW_IRQS   ",
		      c->rts_cts ? "RTS/CTS" : "none   ", got, c->bytes, stalls, stats.rx_pauses,
		      (unsigned long long)mc->rx_overruns, (unsigned long long)mc->rx_overrun_events,
		      stats.rx_overrun);
	assert_true(stalls > 0);
	assert_int_equal(stats.rx_discarded, 0);
	if (c->rts_cts) {
		assert_int_equal(got, c->bytes);
		assert_memory_equal(received, data, c->bytes);
		assert_int_equal(mc->rx_overruns, 0);
		assert_int_equal(stats.rx_overrun, 0);
	} else {
		/* Only hardware overruns lose data, and every one of them is counted. */
		assert_int_equal(got + mc->rx_overruns, c->bytes);
		assert_true(is_subsequence(received, got, data, c->bytes));
		assert_int_equal(stats.rx_overrun, mc->rx_overrun_events);
	}
	/* A ring smaller than what a stall brings in must have pushed back. */
	if (c->ring == 64)
		assert_true(stats.rx_pauses > 0);
	harness_teardown(&h);
}

static void test_rx_stalling_reader_loses_nothing_with_rts_cts_counts_overruns_without(void **state)
{
	(void)state;
	static const uint32_t bauds[] = {3000000u, 115200u};
	static const size_t rings[] = {64, 4096};
	uint32_t seed = 1;
	for (size_t b = 0; b < 2; b++)
		for (size_t r = 0; r < 2; r++)
			for (size_t m = 0; m < 2; m++)
				for (int flow = 1; flow >= 0; flow--) {
					struct stall_case c = {bauds[b], rings[r], ring_modes[m],
							       flow != 0,
							       bauds[b] == 115200u ? 8192u : 65536u};
					run_stalling_reader(&c, seed++);
				}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_rx_full_ring_leaves_the_rest_in_the_fifo, &h),
		HARNESS_TEST(test_rx_trailing_overrun_is_counted_in_every_mode, &h),
		HARNESS_TEST(test_rx_reinit_of_a_running_port_keeps_what_arrived, &h),
		HARNESS_TEST(test_rx_reinit_carries_the_ring_over_or_counts_it, &h),
		HARNESS_TEST(test_rx_shutdown_counts_unread_bytes_and_late_overruns, &h),
		HARNESS_TEST(test_rx_resume_against_the_handler_at_every_point, &h),
		HARNESS_TEST(test_rx_pause_against_a_write_priming_tx_at_every_point, &h),
		HARNESS_TEST(test_rx_pause_takes_no_interrupt_per_lost_character, &h),
		HARNESS_TEST(test_model_partner_stops_at_the_watermark_after_the_character_in_flight, &h),
		HARNESS_TEST(test_model_partner_without_rts_overruns_the_fifo, &h),
		HARNESS_TEST(test_rx_stalling_reader_loses_nothing_with_rts_cts_counts_overruns_without, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
