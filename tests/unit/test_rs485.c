/* RS-485 on the model: the driver enable on RTS brackets every send by its delays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

static struct harness h;
static uint8_t data[8192];
static uint8_t got[8192];
static struct pl011_rs485 rs485;

/* A write that preempts the tick at its point number `at` (the model's preemption points:
 * every register access and atomic point), once; 0 = none. */
static struct {
	unsigned at, points;
	bool in_tick, busy, done;
	int written;
} preempt;

static void preempt_point(void *context)
{
	(void)context;
	if (!preempt.in_tick || preempt.busy || preempt.done || ++preempt.points != preempt.at)
		return;
	preempt.busy = true;
	preempt.written = pl011_write(&h.uart, "xyz", 3, PL011_NO_WAIT);
	preempt.busy = false;
	preempt.done = true;
}

static void tick(void *uart)
{
	preempt.in_tick = true;
	pl011_event_tick(uart);
	preempt.in_tick = false;
}

static void advance_with_timer(uint64_t end_ns)
{
	harness_advance_with_timer(&h, end_ns);
}

static void configure(enum pl011_tx_mode tx, enum pl011_rx_mode rx, uint32_t flags,
		      uint32_t before_us, uint32_t after_us)
{
	memset(&harness_timer, 0, sizeof harness_timer);
	harness_timer.on_tick = tick;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = tx;
	h.config.rx_mode = rx;
	h.config.event_timer = harness_timer_arm;
	h.config.event_timer_context = &h;
	h.config.wait_hook = harness_timer_wait_step;
	h.config.wait_context = &h;
	rs485.driver = &pl011_rs485_driver;
	rs485.flags = flags;
	rs485.delay_before_us = before_us;
	rs485.delay_after_us = after_us;
	h.config.rs485 = &rs485;
}

static void start(enum pl011_tx_mode tx, enum pl011_rx_mode rx, uint32_t flags,
		  uint32_t before_us, uint32_t after_us)
{
	configure(tx, rx, flags, before_us, after_us);
	assert_int_equal(harness_start(&h), 0);
}

/* DE on the pin: "asserted" in the model is nUARTRTS low. */
static bool de_edge_on(size_t i, uint32_t flags)
{
	bool low = pl011_model_rts_edge_asserted(h.model, i);
	return (flags & PL011_RS485_DE_LOW) != 0 ? low : !low;
}

static bool de_now(uint32_t flags)
{
	bool low = pl011_model_rts(h.model);
	return (flags & PL011_RS485_DE_LOW) != 0 ? low : !low;
}

/* The documented bound on the release past the after-delay (docs/waiting.md): one frame for
 * the tick that sees the line idle, 1 us of rounding, two ticks' latency (up to 1 us each
 * here) and the ticks' own register accesses (a few us on the model's costs). */
static uint64_t release_slack_ns(void)
{
	return pl011_model_frame_ns(h.model) + 1000u + 2u * 1000u + 5000u;
}

/*
 * Every TX strategy, both polarities, several sends of different lengths, each after the line
 * went idle and DE was released: DE comes on at least the before-delay ahead of the first start
 * bit of the send and goes off no earlier than the after-delay past its last stop bit, and no
 * later than the bound; exactly one on and one off edge per send.
 */
static void test_de_brackets_every_send(void **state)
{
	(void)state;
	static const size_t sizes[] = {1, 2, 16, 17, 100, 3000};
	const uint32_t before_us = 50, after_us = 120;
	for (int mode = PL011_TX_HALF_FIFO; mode <= PL011_TX_MEASURED; mode++) {
		for (uint32_t flags = 0; flags <= PL011_RS485_DE_LOW; flags += PL011_RS485_DE_LOW) {
			start((enum pl011_tx_mode)mode, PL011_RX_POLLED, flags, before_us, after_us);
			assert_false(de_now(flags)); /* released from init */
			size_t edges = pl011_model_rts_edge_count(h.model);
			size_t total = 0;
			for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
				harness_fill_random(data, sizes[s], (uint32_t)mode * 31u + (uint32_t)s);
				assert_int_equal(pl011_write(&h.uart, data, sizes[s], PL011_WAIT_AUTO),
						 (int)sizes[s]);
				uint64_t end = pl011_model_now_ns(h.model) +
					       (sizes[s] + 20u) * pl011_model_frame_ns(h.model) +
					       (after_us + before_us) * 1000u * 2u;
				advance_with_timer(end);
				assert_int_equal(pl011_model_wire_len(h.model), total + sizes[s]);
				assert_int_equal(pl011_model_rts_edge_count(h.model), edges + 2u);
				assert_true(de_edge_on(edges, flags));
				assert_false(de_edge_on(edges + 1u, flags));
				uint64_t on = pl011_model_rts_edge_ns(h.model, edges);
				uint64_t off = pl011_model_rts_edge_ns(h.model, edges + 1u);
				uint64_t first = pl011_model_wire_start_ns(h.model, total);
				uint64_t last = pl011_model_wire_end_ns(h.model, total + sizes[s] - 1u);
				if (first < on + before_us * 1000u)
					fail_msg("mode %d flags %u, %zu bytes: start bit %llu ns after DE",
						 mode, flags, sizes[s], (unsigned long long)(first - on));
				if (off < last + after_us * 1000u)
					fail_msg("mode %d flags %u, %zu bytes: DE off %lld ns after stop",
						 mode, flags, sizes[s], (long long)(off - last));
				if (off > last + after_us * 1000u + release_slack_ns())
					fail_msg("mode %d flags %u, %zu bytes: DE off %llu ns late", mode,
						 flags, sizes[s],
						 (unsigned long long)(off - last - after_us * 1000u));
				assert_false(de_now(flags));
				edges += 2u;
				total += sizes[s];
			}
			harness_wire(&h, got, sizeof got);
			harness_teardown(&h);
		}
	}
}

/* A write that comes while the after-delay runs keeps DE on: one bracket for both sends. */
static void test_a_send_during_the_after_delay_keeps_de_on(void **state)
{
	(void)state;
	start(PL011_TX_HYBRID, PL011_RX_POLLED, 0, 10, 500);
	size_t edges = pl011_model_rts_edge_count(h.model); /* init drove DE released */
	assert_int_equal(pl011_write(&h.uart, "abc", 3, PL011_WAIT_AUTO), 3);
	advance_with_timer(pl011_model_now_ns(h.model) + 6u * pl011_model_frame_ns(h.model));
	assert_true(de_now(0)); /* the stop bit is out, the after-delay runs */
	assert_int_equal(pl011_write(&h.uart, "de", 2, PL011_WAIT_AUTO), 2);
	advance_with_timer(pl011_model_now_ns(h.model) + 2000000u);
	assert_int_equal(pl011_model_wire_len(h.model), 5);
	assert_int_equal(pl011_model_rts_edge_count(h.model), edges + 2u);
	assert_true(pl011_model_rts_edge_ns(h.model, edges + 1u) >=
		    pl011_model_wire_end_ns(h.model, 4) + 500000u);
	harness_teardown(&h);
}

/* Wire characters [from, to) each inside a bracket of `bus` read from edges [edge_from,
 * edge_to) only, DE off before the first of them: DE on from before_us ahead of the start bit
 * to after_us past the stop bit, with no edge between. */
static void expect_bracketed_by(const struct pl011_rs485 *bus, size_t from, size_t to,
				size_t edge_from, size_t edge_to, const char *what)
{
	for (size_t i = from; i < to; i++) {
		uint64_t start_ns = pl011_model_wire_start_ns(h.model, i);
		uint64_t end_ns = pl011_model_wire_end_ns(h.model, i);
		bool on = false;
		for (size_t e = edge_from; e < edge_to; e++) {
			uint64_t at = pl011_model_rts_edge_ns(h.model, e);
			if (at + bus->delay_before_us * 1000u <= start_ns)
				on = de_edge_on(e, bus->flags);
			else if (at < end_ns + bus->delay_after_us * 1000u)
				fail_msg("%s: character %zu has DE edge %zu inside its bracket", what, i,
					 e);
		}
		if (!on)
			fail_msg("%s: character %zu sent without its DE on", what, i);
	}
}

/* Every wire character lies inside a DE bracket of these settings, over the whole edge log. */
static void expect_every_character_bracketed(uint32_t flags, uint32_t before_us, uint32_t after_us)
{
	const struct pl011_rs485 bus = {&pl011_rs485_driver, flags, before_us, after_us};
	expect_bracketed_by(&bus, 0, pl011_model_wire_len(h.model), 0,
			    pl011_model_rts_edge_count(h.model), "every send");
}

/* A write that comes during a tick (an interrupt of higher priority, at each point of the TX
 * done ticks and the release tick): while the release tick owns TX the write only queues, and
 * the tick's pass sends it, DE on again first. */
static void test_a_write_beside_the_release_tick_gets_de(void **state)
{
	(void)state;
	const uint32_t before_us = 30, after_us = 40;
	unsigned hits = 0;
	for (unsigned at = 1; at <= 120; at++) {
		start(PL011_TX_ADAPTIVE, PL011_RX_POLLED, 0, before_us, after_us);
		memset(&preempt, 0, sizeof preempt);
		pl011_model_set_preempt_hook(preempt_point, NULL);
		preempt.at = at; /* counted in the ticks only: TX done's, then the release's */
		assert_int_equal(pl011_write(&h.uart, "ab", 2, PL011_WAIT_AUTO), 2);
		advance_with_timer(pl011_model_now_ns(h.model) + 3000000u);
		pl011_model_set_preempt_hook(NULL, NULL);
		if (preempt.done) {
			hits++;
			assert_int_equal(preempt.written, 3);
			assert_int_equal(pl011_model_wire_len(h.model), 5);
		}
		assert_false(de_now(0));
		expect_every_character_bracketed(0, before_us, after_us);
		harness_teardown(&h);
	}
	assert_true(hits > 5);
}

/* RX off while sending: a byte that arrives during the send is not received, one after the
 * release is. */
static void test_rx_off_while_sending(void **state)
{
	(void)state;
	for (uint32_t rx_off = 0; rx_off <= PL011_RS485_RX_OFF; rx_off += PL011_RS485_RX_OFF) {
		start(PL011_TX_MEASURED, PL011_RX_LOW_LATENCY, rx_off, 20, 50);
		harness_fill_random(data, 64, 7);
		assert_int_equal(pl011_write(&h.uart, data, 64, PL011_WAIT_AUTO), 64);
		uint64_t frame = pl011_model_frame_ns(h.model);
		pl011_model_rx_inject(h.model, 'x', 0, pl011_model_now_ns(h.model) + 10u * frame);
		advance_with_timer(pl011_model_now_ns(h.model) + 80u * frame + 200000u);
		assert_int_equal(pl011_model_wire_len(h.model), 64);
		assert_false(de_now(rx_off));
		pl011_model_rx_inject(h.model, 'y', 0, pl011_model_now_ns(h.model) + frame);
		advance_with_timer(pl011_model_now_ns(h.model) + 60u * frame);
		int n = pl011_read(&h.uart, got, sizeof got, PL011_NO_WAIT);
		if (rx_off != 0) {
			assert_int_equal(n, 1);
			assert_int_equal(got[0], 'y');
			assert_int_equal(pl011_model_counters(h.model)->rx_dropped_disabled, 1);
		} else {
			assert_int_equal(n, 2);
			assert_memory_equal(got, "xy", 2);
		}
		harness_teardown(&h);
	}
}

/* Bad input: a documented error and nothing changed. */
static void test_unsupported_combinations_change_nothing(void **state)
{
	(void)state;
	start(PL011_TX_HYBRID, PL011_RX_LOW_LATENCY, 0, 10, 10);
	struct pl011_rs485 bad_settings[5] = {
		{.driver = &pl011_rs485_driver, .delay_before_us = PL011_RS485_DELAY_MAX_US + 1u},
		{.driver = &pl011_rs485_driver, .delay_after_us = PL011_RS485_DELAY_MAX_US + 1u},
		{.driver = &pl011_rs485_driver, .flags = 1u << 2},
		{.driver = &pl011_rs485_driver},
		{.driver = NULL}, /* settings that do not name the code that drives DE */
	};
	struct pl011_config bad[8];
	for (int i = 0; i < 8; i++)
		bad[i] = h.config;
	for (int i = 0; i < 3; i++)
		bad[i].rs485 = &bad_settings[i];
	bad[3].flags |= PL011_FLAG_RTS_CTS; /* hardware flow control owns RTS */
	bad[4].event_timer = NULL;          /* TX done, which ends a send, needs the timer */
	bad[5].tx_mode = PL011_TX_POLLED;   /* ... and the ring */
	bad[6].rs485 = &bad_settings[3];
	bad[6].flags |= PL011_FLAG_RTS_CTS;
	bad[7].rs485 = &bad_settings[4];
	uint64_t writes = pl011_model_counters(h.model)->total_writes;
	for (int i = 0; i < 8; i++)
		assert_int_equal(pl011_init(&h.uart, &bad[i]), PL011_EINVAL);
	/* RTS by hand while DE drives it, and flow control on a running RS-485 port. */
	assert_int_equal(pl011_set_modem_lines(&h.uart, PL011_MODEM_RTS, PL011_MODEM_RTS),
			 PL011_EBUSY);
	struct pl011_line_config line;
	assert_int_equal(pl011_get_line(&h.uart, &line), 0);
	line.flow_control = true;
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), PL011_EINVAL);
	assert_int_equal(pl011_model_counters(h.model)->total_writes, writes);
	/* DTR by hand is fine, and keeps DE as it is. */
	assert_int_equal(pl011_set_modem_lines(&h.uart, PL011_MODEM_DTR, PL011_MODEM_DTR), 0);
	assert_true((pl011_model_peek(h.model, PL011_CR) & PL011_CR_DTR) != 0);
	assert_false(de_now(0));
	/* Still running with the old config, DE still working. */
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	assert_true(de_now(0));
	advance_with_timer(pl011_model_now_ns(h.model) + 2000000u);
	assert_false(de_now(0));
	assert_int_equal(pl011_model_wire_len(h.model), 2);
	assert_true((pl011_model_peek(h.model, PL011_CR) & PL011_CR_DTR) != 0);
	harness_teardown(&h);
}

/* docs/waiting.md: each delay at most PL011_RS485_DELAY_MAX_US; the largest is kept to. */
static void test_the_largest_delays_are_kept(void **state)
{
	(void)state;
	start(PL011_TX_HALF_FIFO, PL011_RX_POLLED, 0, PL011_RS485_DELAY_MAX_US,
	      PL011_RS485_DELAY_MAX_US);
	size_t edges = pl011_model_rts_edge_count(h.model);
	assert_int_equal(pl011_write(&h.uart, "z", 1, PL011_WAIT_AUTO), 1);
	advance_with_timer(pl011_model_now_ns(h.model) + 30000000u);
	assert_int_equal(pl011_model_rts_edge_count(h.model), edges + 2u);
	uint64_t on = pl011_model_rts_edge_ns(h.model, edges);
	uint64_t off = pl011_model_rts_edge_ns(h.model, edges + 1u);
	uint64_t max_ns = PL011_RS485_DELAY_MAX_US * 1000u;
	assert_true(pl011_model_wire_start_ns(h.model, 0) >= on + max_ns);
	/* The before-delay is a bounded wait: no more than the bound and a wait step. */
	assert_true(pl011_model_wire_start_ns(h.model, 0) <= on + max_ns + 20000u);
	assert_true(off >= pl011_model_wire_end_ns(h.model, 0) + max_ns);
	assert_true(off <= pl011_model_wire_end_ns(h.model, 0) + max_ns + release_slack_ns());
	harness_teardown(&h);
}

/* Shutdown releases DE after the after-delay, with the last byte out. */
static void test_shutdown_releases_de(void **state)
{
	(void)state;
	start(PL011_TX_POLL_FULL, PL011_RX_POLLED, PL011_RS485_DE_LOW, 5, 200);
	assert_int_equal(pl011_write(&h.uart, data, 40, PL011_WAIT_AUTO), 40);
	assert_true(de_now(PL011_RS485_DE_LOW));
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	assert_false(de_now(PL011_RS485_DE_LOW));
	assert_int_equal(pl011_model_wire_len(h.model), 40);
	size_t n = pl011_model_rts_edge_count(h.model);
	assert_true(pl011_model_rts_edge_ns(h.model, n - 1u) >=
		    pl011_model_wire_end_ns(h.model, 39) + 200000u);
	harness_teardown(&h);
}

/* ---- RS-485 changed by pl011_set_line on a running port ---- */

/* Queue `n` bytes (no wait: what the FIFO does not take is still queued when the caller goes
 * on). */
static void queue_bytes(size_t n, uint32_t seed)
{
	harness_fill_random(data, n, seed);
	assert_int_equal(pl011_write(&h.uart, data, n, PL011_NO_WAIT), (int)n);
	if (n > 32u)
		assert_true(pl011_tx_queued(&h.uart) > 0);
}

static int set_rs485(const struct pl011_rs485 *bus, bool off)
{
	struct pl011_line_config line;
	assert_int_equal(pl011_get_line(&h.uart, &line), 0);
	assert_null(line.rs485); /* given back as it is, RS-485 is kept */
	assert_false(line.rs485_off);
	line.rs485 = bus;
	line.rs485_off = off;
	return pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO);
}

/*
 * On a running port with bytes queued each time: RS-485 turned on, its polarity and delays
 * changed, turned off. The bytes queued before each call leave under the settings before it
 * (none of them bracketed by the new ones: the edges they see end before the call returns),
 * every send after it is bracketed by the new settings, and off means no DE edge at all and RTS
 * free for pl011_set_modem_lines again.
 */
static void test_set_line_changes_rs485_on_a_running_port(void **state)
{
	(void)state;
	const struct pl011_rs485 first = {.driver = &pl011_rs485_driver,
					  .flags = PL011_RS485_RX_OFF,
					  .delay_before_us = 30,
					  .delay_after_us = 80};
	const struct pl011_rs485 second = {.driver = &pl011_rs485_driver,
					   .flags = PL011_RS485_DE_LOW,
					   .delay_before_us = 150,
					   .delay_after_us = 300};
	for (int mode = PL011_TX_HALF_FIFO; mode <= PL011_TX_MEASURED; mode++) {
		configure((enum pl011_tx_mode)mode, PL011_RX_LOW_LATENCY, 0, 0, 0);
		h.config.rs485 = NULL;
		assert_int_equal(harness_start(&h), 0);
		uint64_t frame = pl011_model_frame_ns(h.model);
		uint64_t settle = 3000u * frame + 2000000u;

		/* Off -> first, 40 bytes queued: they leave before the switch, with RTS untouched. */
		size_t edges = pl011_model_rts_edge_count(h.model);
		queue_bytes(40, 1);
		assert_int_equal(set_rs485(&first, false), 0);
		assert_int_equal(pl011_model_wire_len(h.model), 40);
		assert_int_equal(pl011_tx_queued(&h.uart), 0);
		/* At most the switch's own edge (init's RTS asserted -> DE released). */
		size_t on_first = pl011_model_rts_edge_count(h.model);
		assert_true(on_first <= edges + 1u);
		for (size_t e = edges; e < on_first; e++)
			assert_true(pl011_model_rts_edge_ns(h.model, e) >=
				    pl011_model_wire_end_ns(h.model, 39));
		assert_false(de_now(first.flags));
		assert_int_equal(pl011_set_modem_lines(&h.uart, PL011_MODEM_RTS, 0), PL011_EBUSY);
		queue_bytes(100, 2);
		advance_with_timer(pl011_model_now_ns(h.model) + settle);
		assert_int_equal(pl011_model_wire_len(h.model), 140);
		assert_false(de_now(first.flags));

		/* first -> second, 60 bytes queued and DE on: they leave under the first settings,
		 * whose after-delay set_line waits out before the switch. */
		queue_bytes(60, 3);
		assert_true(de_now(first.flags));
		assert_int_equal(set_rs485(&second, false), 0);
		assert_int_equal(pl011_model_wire_len(h.model), 200);
		size_t on_second = pl011_model_rts_edge_count(h.model);
		expect_bracketed_by(&first, 40, 200, on_first, on_second, "first");
		assert_true(pl011_model_rts_edge_ns(h.model, on_second - 1u) >=
			    pl011_model_wire_end_ns(h.model, 199) + first.delay_after_us * 1000u);
		assert_false(de_now(second.flags));
		queue_bytes(17, 4);
		advance_with_timer(pl011_model_now_ns(h.model) + settle);
		queue_bytes(3, 5); /* a second send under the same settings */
		advance_with_timer(pl011_model_now_ns(h.model) + settle);
		assert_int_equal(pl011_model_wire_len(h.model), 220);

		/* second -> off, 30 bytes queued: bracketed by the second settings, then no edge. */
		queue_bytes(30, 6);
		assert_int_equal(set_rs485(NULL, true), 0);
		assert_int_equal(pl011_model_wire_len(h.model), 250);
		size_t off = pl011_model_rts_edge_count(h.model);
		expect_bracketed_by(&second, 200, 250, on_second, off, "second");
		assert_true(pl011_model_rts(h.model)); /* RTS asserted, as pl011_init leaves it */
		size_t after_off = pl011_model_rts_edge_count(h.model);
		advance_with_timer(pl011_model_now_ns(h.model) + settle); /* a tick still due */
		size_t arms = harness_timer.arms;
		queue_bytes(50, 7);
		advance_with_timer(pl011_model_now_ns(h.model) + settle);
		assert_int_equal(pl011_model_wire_len(h.model), 300);
		assert_int_equal(pl011_model_rts_edge_count(h.model), after_off);
		assert_int_equal(harness_timer.arms, arms); /* TX done no longer wanted: no tick */
		assert_int_equal(pl011_set_modem_lines(&h.uart, PL011_MODEM_RTS, 0), 0);
		assert_false(pl011_model_rts(h.model));
		harness_teardown(&h);
	}
}

struct port_snapshot {
	struct pl011_stats stats;
	size_t tx_queued, rx_available, edges;
	uint64_t writes;
	uint32_t cr, imsc;
	struct pl011_rs485 settings;
	bool rs485_on;
};

static void take_port_snapshot(struct port_snapshot *s)
{
	memset(s, 0, sizeof *s);
	assert_int_equal(pl011_get_stats(&h.uart, &s->stats), 0);
	s->tx_queued = pl011_tx_queued(&h.uart);
	s->rx_available = pl011_ring_count(&h.uart.rx.ring);
	s->edges = pl011_model_rts_edge_count(h.model);
	s->writes = pl011_model_counters(h.model)->total_writes;
	s->cr = pl011_model_peek(h.model, PL011_CR);
	s->imsc = pl011_model_peek(h.model, PL011_IMSC);
	s->rs485_on = h.uart.events.rs485_driver != NULL;
	if (s->rs485_on)
		s->settings = h.uart.events.rs485;
}

static void expect_port_unchanged(const struct port_snapshot *before, const char *what)
{
	struct port_snapshot now;
	take_port_snapshot(&now);
	if (memcmp(&before->stats, &now.stats, sizeof now.stats) != 0)
		fail_msg("%s: a counter moved", what);
	if (before->tx_queued != now.tx_queued || before->rx_available != now.rx_available)
		fail_msg("%s: a ring changed", what);
	if (before->writes != now.writes || before->cr != now.cr || before->imsc != now.imsc ||
	    before->edges != now.edges)
		fail_msg("%s: a register was written", what);
	if (before->rs485_on != now.rs485_on ||
	    memcmp(&before->settings, &now.settings, sizeof now.settings) != 0)
		fail_msg("%s: the RS-485 settings changed", what);
}

/* Every refused RS-485 change: PL011_EINVAL, with bytes queued both ways and nothing changed
 * (registers, rings, counters, settings); the port then still sends with its old settings. */
static void test_set_line_refuses_bad_rs485_and_changes_nothing(void **state)
{
	(void)state;
	static const struct pl011_rs485 good = {
		.driver = &pl011_rs485_driver, .delay_before_us = 10, .delay_after_us = 10};
	static const struct pl011_rs485 bad[] = {
		{.driver = &pl011_rs485_driver, .delay_before_us = PL011_RS485_DELAY_MAX_US + 1u},
		{.driver = &pl011_rs485_driver, .delay_after_us = PL011_RS485_DELAY_MAX_US + 1u},
		{.driver = &pl011_rs485_driver, .flags = 1u << 2},
		{.driver = NULL, .delay_before_us = 10},
	};
	for (int on = 0; on <= 1; on++) {
		start(PL011_TX_HYBRID, PL011_RX_LOW_LATENCY, 0, 20, 40);
		if (on == 0)
			assert_int_equal(set_rs485(NULL, true), 0);
		queue_bytes(300, 9);
		pl011_model_rx_inject(h.model, 'r', 0, pl011_model_now_ns(h.model));
		advance_with_timer(pl011_model_now_ns(h.model) + 10u * pl011_model_frame_ns(h.model));
		assert_true(pl011_tx_queued(&h.uart) > 0);
		assert_int_equal(pl011_ring_count(&h.uart.rx.ring), 1);
		struct port_snapshot before;
		take_port_snapshot(&before);
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			assert_int_equal(set_rs485(&bad[i], false), PL011_EINVAL);
			expect_port_unchanged(&before, "settings out of range");
		}
		assert_int_equal(set_rs485(&good, true), PL011_EINVAL);
		expect_port_unchanged(&before, "settings and off together");
		struct pl011_line_config line;
		assert_int_equal(pl011_get_line(&h.uart, &line), 0);
		line.flow_control = true;
		line.rs485 = &good; /* turned on with flow control */
		assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), PL011_EINVAL);
		expect_port_unchanged(&before, "with flow control");
		if (on != 0) {
			line.rs485 = NULL; /* kept on, flow control turned on */
			assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), PL011_EINVAL);
			expect_port_unchanged(&before, "kept with flow control");
		}
		/* The config's own gaps: no timer to end a send, no ring for polled TX. */
		harness_live_config(&h)->event_timer = NULL;
		assert_int_equal(set_rs485(&good, false), PL011_EINVAL);
		harness_live_config(&h)->event_timer = harness_timer_arm;
		expect_port_unchanged(&before, "no event_timer");
		advance_with_timer(pl011_model_now_ns(h.model) + 320u * pl011_model_frame_ns(h.model) +
				   2000000u);
		assert_int_equal(pl011_model_wire_len(h.model), 300);
		if (on != 0)
			expect_every_character_bracketed(0, 20, 40);
		else
			assert_int_equal(pl011_model_rts_edge_count(h.model), before.edges);
		harness_teardown(&h);
	}
	/* Polled TX: no ring whose emptying ends a send. */
	configure(PL011_TX_POLLED, PL011_RX_POLLED, 0, 0, 0);
	h.config.rs485 = NULL;
	assert_int_equal(harness_start(&h), 0);
	struct port_snapshot before;
	take_port_snapshot(&before);
	assert_int_equal(set_rs485(&good, false), PL011_EINVAL);
	expect_port_unchanged(&before, "polled TX");
	harness_teardown(&h);
}

/* The port runs the RS-485 of its last line change, not its config's: turned off by
 * pl011_set_line, flow control may come on; turned on, it may not (config.rs485 NULL). */
static void test_set_line_checks_against_the_rs485_it_runs_not_the_config(void **state)
{
	(void)state;
	start(PL011_TX_HYBRID, PL011_RX_LOW_LATENCY, 0, 20, 40);
	assert_int_equal(set_rs485(NULL, true), 0);
	struct pl011_line_config line;
	assert_int_equal(pl011_get_line(&h.uart, &line), 0);
	line.flow_control = true;
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), 0);
	assert_true(pl011_model_peek(h.model, PL011_CR) & PL011_CR_RTSEN);
	harness_teardown(&h);

	configure(PL011_TX_HYBRID, PL011_RX_LOW_LATENCY, 0, 20, 40);
	h.config.rs485 = NULL;
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(set_rs485(&rs485, false), 0);
	assert_int_equal(pl011_get_line(&h.uart, &line), 0);
	line.flow_control = true;
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), PL011_EINVAL);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_de_brackets_every_send, &h),
		HARNESS_TEST(test_a_send_during_the_after_delay_keeps_de_on, &h),
		HARNESS_TEST(test_a_write_beside_the_release_tick_gets_de, &h),
		HARNESS_TEST(test_rx_off_while_sending, &h),
		HARNESS_TEST(test_unsupported_combinations_change_nothing, &h),
		HARNESS_TEST(test_the_largest_delays_are_kept, &h),
		HARNESS_TEST(test_shutdown_releases_de, &h),
		HARNESS_TEST(test_set_line_changes_rs485_on_a_running_port, &h),
		HARNESS_TEST(test_set_line_refuses_bad_rs485_and_changes_nothing, &h),
		HARNESS_TEST(test_set_line_checks_against_the_rs485_it_runs_not_the_config, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
