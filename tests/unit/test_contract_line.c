/* Contract sentences of line control, events, RS-485 and the console, each checked through the public API and the model (issue 24). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_io.h"
#include "pl011_regs.h"

#define CLOCK_HZ 48000000u

static struct harness h;
static uint8_t text[8192];
static uint8_t wire[8192];
static struct pl011_rs485 bus;

/* What the event callback was given. */
static struct {
	size_t calls;
	size_t per_kind[7];
	size_t rx_data_of_zero; /* RX_DATA with the ring empty */
} seen;

static void on_event(struct pl011 *uart, uint32_t kinds, void *context)
{
	(void)context;
	seen.calls++;
	if ((kinds & PL011_EVENT_RX_DATA) != 0 && pl011_rx_available(uart) == 0)
		seen.rx_data_of_zero++;
	for (unsigned k = 0; k < 7u; k++)
		if ((kinds & (1u << k)) != 0)
			seen.per_kind[k]++;
}

/* The callback count of one kind (a single PL011_EVENT_* bit). */
static size_t events_of(uint32_t kind)
{
	for (unsigned k = 0; k < 7u; k++)
		if (kind == (1u << k))
			return seen.per_kind[k];
	fail();
	return 0;
}

/* The harness at 115,200 8N1, 48 MHz, a 16-deep FIFO, with the events, the timer on the
 * harness's one-shot timer (its waits run it too), and the given RX ring size; not started. */
static void prepare(enum pl011_tx_mode tx, enum pl011_rx_mode rx, uint32_t flags, uint32_t mask,
		    size_t rx_ring)
{
	memset(&seen, 0, sizeof seen);
	memset(&harness_timer, 0, sizeof harness_timer);
	harness_setup(&h, CLOCK_HZ, 16);
	h.config.tx_mode = tx;
	h.config.rx_mode = rx;
	h.config.flags = flags;
	h.config.rx_buffer_size = rx_ring;
	h.config.event_mask = mask;
	h.config.event_driver = &pl011_event_driver;
	h.config.event = mask != 0 ? on_event : NULL;
	h.config.event_timer = harness_timer_arm;
	h.config.event_timer_context = &h;
	h.config.wait_hook = harness_timer_wait_step;
	h.config.wait_context = &h;
}

static void start(enum pl011_tx_mode tx, enum pl011_rx_mode rx, uint32_t flags, uint32_t mask,
		  size_t rx_ring)
{
	prepare(tx, rx, flags, mask, rx_ring);
	assert_int_equal(harness_start(&h), 0);
}

static void advance_with_timer_ns(uint64_t ns)
{
	harness_advance_with_timer(&h, pl011_model_now_ns(h.model) + ns);
}

static uint64_t frame_ns(void)
{
	return pl011_model_frame_ns(h.model);
}

/* The line as it is, given back unchanged (RS-485 kept). */
static int set_same_line(void)
{
	struct pl011_line_config line;
	assert_int_equal(pl011_get_line(&h.uart, &line), 0);
	return pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO);
}

/* ---- PL011_FLAG_ADOPT_LINE ---- */

/*
 * docs/api.md, PL011_FLAG_ADOPT_LINE: "LCR_H only if its FIFOs were off (FEN set, the
 * format kept) or a TX FIFO that did not drain must be flushed." An adopted port whose
 * transmitter is stuck with bytes in its FIFO is shut down: the FIFO is flushed (FEN cleared),
 * not left to send them at the next start.
 */
static void test_adopted_line_flushes_a_tx_fifo_that_did_not_drain(void **state)
{
	(void)state;
	prepare(PL011_TX_POLLED, PL011_RX_POLLED, PL011_FLAG_ADOPT_LINE, 0, HARNESS_RX_RING);
	/* The firmware: 115,200 8N1 at 48 MHz (4 * 48e6 / 115200 = 1667 = 64 * 26 + 3). */
	const uint32_t lcr_h = PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN;
	pl011_io_write(HARNESS_BASE + PL011_IBRD, 26);
	pl011_io_write(HARNESS_BASE + PL011_FBRD, 3);
	pl011_io_write(HARNESS_BASE + PL011_LCR_H, lcr_h);
	pl011_io_write(HARNESS_BASE + PL011_CR, PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE);
	assert_int_equal(harness_start(&h), 0);
	/* Nothing stuck: the format is left as found. */
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	pl011_model_reset_counters(h.model);
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	assert_int_equal(pl011_model_counters(h.model)->writes[PL011_LCR_H / 4u], 0);
	assert_int_equal(pl011_model_peek(h.model, PL011_LCR_H), lcr_h);
	/* Started again, the transmitter stalls with 10 bytes in the FIFO. */
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_tx_stalled(h.model, true);
	assert_int_equal(pl011_write(&h.uart, "0123456789", 10, PL011_NO_WAIT), 10);
	assert_true(pl011_model_tx_level(h.model) > 0);
	/* The FIFO never drains: PL011_ESTALLED (docs/api.md), and the FIFO is flushed. */
	assert_int_equal(pl011_shutdown(&h.uart, 2000u), PL011_ESTALLED);
	assert_int_equal(pl011_model_tx_level(h.model), 0);
	assert_true(pl011_model_counters(h.model)->tx_fen_flushed > 0);
	harness_teardown(&h);
}

/* ---- pl011_get_line ---- */

/*
 * include/pl011.h, enum pl011_parity: PL011_PARITY_MARK "parity bit always 1 (stick parity,
 * TRM LCR_H.SPS)", and pl011_get_line reports the format in use: MARK (SPS, EPS clear) and
 * SPACE (SPS and EPS) are each sent as such and reported as what was set.
 */
static void test_get_line_reports_the_stick_parity_that_was_set(void **state)
{
	(void)state;
	start(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, 0, 0, HARNESS_RX_RING);
	const struct {
		enum pl011_parity parity;
		uint32_t lcr_h_bits;
	} cases[] = {
		{PL011_PARITY_MARK, PL011_LCR_H_PEN | PL011_LCR_H_SPS},
		{PL011_PARITY_SPACE, PL011_LCR_H_PEN | PL011_LCR_H_SPS | PL011_LCR_H_EPS},
	};
	const uint32_t parity_bits = PL011_LCR_H_PEN | PL011_LCR_H_SPS | PL011_LCR_H_EPS;
	for (size_t i = 0; i < 2; i++) {
		const struct pl011_line_config line = {.baud = 115200, .data_bits = 7,
						       .stop_bits = 1, .parity = cases[i].parity};
		assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), 0);
		size_t sent = pl011_model_wire_len(h.model);
		assert_int_equal(pl011_write(&h.uart, "p", 1, PL011_WAIT_AUTO), 1);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		assert_int_equal(pl011_model_wire_lcr_h(h.model, sent) & parity_bits,
				 cases[i].lcr_h_bits);
		struct pl011_line_config got;
		assert_int_equal(pl011_get_line(&h.uart, &got), 0);
		assert_int_equal(got.parity, cases[i].parity);
		assert_int_equal(got.data_bits, 7);
	}
	harness_teardown(&h);
}

/* ---- pl011_set_line: the RX FIFO's room, errors, the new frame time ---- */

/* Fill the RX ring with `queued` bytes (all taken in by the handler), then let one more
 * character arrive in the FIFO just now, too recently for the receive timeout to take it. */
static void ring_holds_and_fifo_has_one(size_t queued)
{
	harness_fill_random(text, queued, 9u);
	uint64_t last = pl011_model_rx_inject_stream(h.model, text, queued,
						     pl011_model_now_ns(h.model));
	pl011_model_advance_to(h.model, last + 10u * frame_ns());
	assert_int_equal(pl011_ring_count(&h.uart.rx.ring), queued);
	uint64_t at = pl011_model_now_ns(h.model) + frame_ns();
	pl011_model_rx_inject(h.model, 'z', 0, at);
	pl011_model_advance_to(h.model, at + 1000u);
	assert_int_equal(pl011_model_rx_level(h.model), 1);
}

/*
 * docs/api.md, pl011_set_line: PL011_EBUSY when "the ring has no room for a FIFO's worth
 * while the FIFO holds bytes". Exactly a FIFO's worth of room (16 of a 64-byte ring) is room:
 * the change goes through and the FIFO's byte joins the ring, in order.
 */
static void test_set_line_moves_the_fifo_into_exactly_a_fifos_worth_of_ring(void **state)
{
	(void)state;
	start(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, 0, 0, 64);
	ring_holds_and_fifo_has_one(64u - 16u);
	const struct pl011_line_config line = {.baud = 57600, .data_bits = 8, .stop_bits = 1};
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), 0);
	uint8_t got[64];
	size_t n = harness_read_all(&h, got, sizeof got);
	assert_int_equal(n, 64u - 16u + 1u);
	assert_memory_equal(got, text, 64u - 16u);
	assert_int_equal(got[n - 1u], 'z');
	harness_teardown(&h);
}

/*
 * docs/api.md, pl011_set_line: "Errors, each with the line, the rings and the counters as
 * before: ... PL011_EBUSY (... once RTS is deasserted, the ring has no room for a FIFO's worth
 * while the FIFO holds bytes". With flow control, the refusal gives RTS back to the hardware:
 * CR as before, nUARTRTS asserted again, and the partner may go on sending.
 */
static void test_set_line_refused_for_the_fifo_gives_rts_back_to_flow_control(void **state)
{
	(void)state;
	start(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, PL011_FLAG_RTS_CTS, 0, 64);
	ring_holds_and_fifo_has_one(64u - 15u);
	uint32_t cr = pl011_model_peek(h.model, PL011_CR);
	assert_true((cr & PL011_CR_RTSEN) != 0);
	assert_true(pl011_model_rts(h.model));
	const struct pl011_line_config line = {.baud = 57600, .data_bits = 8, .stop_bits = 1,
					       .flow_control = true};
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), PL011_EBUSY);
	assert_int_equal(pl011_model_peek(h.model, PL011_CR), cr);
	assert_true(pl011_model_rts(h.model));
	/* The receive timeout takes the FIFO's byte; read, and the change goes through. */
	pl011_model_advance(h.model, 10u * frame_ns());
	uint8_t got[64];
	size_t n = harness_read_all(&h, got, sizeof got);
	assert_int_equal(n, 64u - 15u + 1u);
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), 0);
	harness_teardown(&h);
}

/*
 * docs/api.md, pl011_backlog_deadline_us: "(queued + depth) frames at the programmed baud
 * and frame, plus a quarter, plus 1000": after pl011_set_line to 9,600 baud the deadline is
 * that of 9,600, and a flush with PL011_WAIT_AUTO of what was queued at it succeeds.
 */
static void test_backlog_deadline_follows_the_line_set(void **state)
{
	(void)state;
	start(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, 0, 0, HARNESS_RX_RING);
	const struct pl011_line_config slow = {.baud = 9600, .data_bits = 8, .stop_bits = 2};
	assert_int_equal(pl011_set_line(&h.uart, &slow, PL011_WAIT_AUTO), 0);
	struct pl011_line_config got;
	assert_int_equal(pl011_get_line(&h.uart, &got), 0);
	/* 116 frames of 11 bits: at least 116 * 11e6 / baud microseconds. */
	uint64_t at_least = 116u * 11u * 1000000u / got.baud;
	assert_true(pl011_backlog_deadline_us(&h.uart, 100) >= at_least + at_least / 4u);
	assert_true(pl011_backlog_deadline_us(&h.uart, 100) <= (at_least + 2u) * 5u / 4u + 1002u);
	memset(text, 'w', 100);
	assert_int_equal(pl011_write(&h.uart, text, 100, PL011_NO_WAIT), 100);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), 100);
	harness_teardown(&h);
}

/* The write of a preemption point after the drain: CTS goes off and 8 bytes are written, so
 * that if the FIFO was primed before the hold it cannot drain. */
static struct {
	unsigned points_left;
	bool counting, busy;
	int result;
} primer;

static void prime_at_point(void *context)
{
	(void)context;
	if (primer.busy || primer.points_left == 0)
		return;
	if (!primer.counting) {
		if (h.uart.tx.ring.head != h.uart.tx.ring.tail || pl011_model_tx_level(h.model) != 0 ||
		    pl011_model_tx_shifting(h.model))
			return;
		primer.counting = true;
	}
	if (--primer.points_left != 0)
		return;
	primer.busy = true;
	pl011_model_set_cts(h.model, false);
	primer.result = pl011_write(&h.uart, "primed!!", 8, PL011_NO_WAIT);
	primer.busy = false;
}

/*
 * docs/api.md, pl011_set_line: "PL011_ETIMEDOUT (TX did not drain within bound_us, or its
 * owner did not let go ...)", "each with the line, the rings and the counters as before". A
 * writer primes the FIFO between the drain and the hold and CTS stops it: the change times out,
 * and TX is given back: once CTS returns, those bytes and the next ones are sent.
 */
static void test_set_line_timed_out_on_a_primed_fifo_gives_tx_back(void **state)
{
	(void)state;
	const struct pl011_line_config line = {.baud = 57600, .data_bits = 8, .stop_bits = 1,
					       .flow_control = true};
	unsigned timed_out = 0;
	for (unsigned n = 1; n <= 40; n++) {
		start(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, PL011_FLAG_RTS_CTS, 0,
		      HARNESS_RX_RING);
		primer.points_left = n;
		primer.counting = false;
		primer.result = -100;
		pl011_model_set_preempt_hook(prime_at_point, NULL);
		int err = pl011_set_line(&h.uart, &line, 5000u);
		pl011_model_set_preempt_hook(NULL, NULL);
		pl011_model_set_cts(h.model, true);
		if (err == PL011_ETIMEDOUT && primer.result == 8) {
			timed_out++;
			assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
			assert_int_equal(pl011_write(&h.uart, "after", 5, PL011_WAIT_AUTO), 5);
			assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
			size_t len = harness_wire(&h, wire, sizeof wire);
			assert_int_equal(len, 13);
			assert_memory_equal(wire, "primed!!after", 13);
		}
		harness_teardown(&h);
	}
	print_message("a primed FIFO stopped by CTS: %u of 40 points timed the change out\n",
		      timed_out);
	assert_true(timed_out > 0);
}

/* ---- pl011_set_modem_lines ---- */

/*
 * docs/api.md, pl011_set_modem_lines: "Set the outputs in `mask` ... to `values`; the
 * others keep their state": a DTR bit in values with only RTS in mask leaves DTR as it was.
 */
static void test_modem_lines_outside_the_mask_keep_their_state(void **state)
{
	(void)state;
	start(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, 0, 0, HARNESS_RX_RING);
	assert_int_equal((uint32_t)pl011_get_modem_status(&h.uart) & PL011_MODEM_DTR, 0);
	assert_int_equal(pl011_set_modem_lines(&h.uart, PL011_MODEM_RTS,
					       PL011_MODEM_RTS | PL011_MODEM_DTR),
			 0);
	assert_int_equal(pl011_model_peek(h.model, PL011_CR) & PL011_CR_DTR, 0);
	assert_int_equal((uint32_t)pl011_get_modem_status(&h.uart) & (PL011_MODEM_DTR | PL011_MODEM_RTS),
			 PL011_MODEM_RTS);
	assert_int_equal(pl011_set_modem_lines(&h.uart, PL011_MODEM_DTR, PL011_MODEM_DTR), 0);
	assert_int_equal(pl011_set_modem_lines(&h.uart, PL011_MODEM_RTS, 0), 0);
	assert_int_equal(pl011_model_peek(h.model, PL011_CR) & (PL011_CR_DTR | PL011_CR_RTS),
			 PL011_CR_DTR);
	harness_teardown(&h);
}

/* ---- events ---- */

/*
 * docs/api.md, PL011_EVENT_ERROR: "Interrupt RX modes"; docs/events.md: a kind its mode
 * cannot give makes pl011_init return PL011_EINVAL. ERROR with RX_POLLED is refused, nothing
 * written.
 */
static void test_error_event_needs_an_interrupt_rx_mode(void **state)
{
	(void)state;
	prepare(PL011_TX_HALF_FIFO, PL011_RX_POLLED, 0, PL011_EVENT_ERROR, HARNESS_RX_RING);
	assert_int_equal(harness_start(&h), PL011_EINVAL);
	assert_int_equal(pl011_model_counters(h.model)->total_writes, 0);
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	assert_int_equal(harness_start(&h), 0);
	harness_teardown(&h);
}

/* Queue bytes with CTS held off until the TX ring holds exactly `queued`. */
static void queue_exactly(size_t queued)
{
	memset(text, 's', sizeof text);
	while (pl011_tx_queued(&h.uart) < queued) {
		size_t more = queued - pl011_tx_queued(&h.uart);
		assert_true(pl011_write(&h.uart, text, more, PL011_NO_WAIT) > 0);
	}
	assert_int_equal(pl011_tx_queued(&h.uart), queued);
}

/*
 * docs/api.md, PL011_EVENT_TX_SPACE: "A TX interrupt refill raised the TX ring's free
 * space from below half the ring to at least half". A ring whose free space is exactly half
 * when its drain begins never crosses: no TX_SPACE; one byte more queued: exactly one.
 */
static void test_tx_space_only_for_a_rise_from_below_half(void **state)
{
	(void)state;
	const size_t half = HARNESS_TX_RING / 2u;
	for (size_t extra = 0; extra < 2; extra++) {
		start(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, PL011_FLAG_RTS_CTS,
		      PL011_EVENT_TX_SPACE, HARNESS_RX_RING);
		pl011_model_set_cts(h.model, false);
		queue_exactly(half + extra);
		pl011_model_set_cts(h.model, true);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		assert_int_equal(events_of(PL011_EVENT_TX_SPACE), extra);
		harness_teardown(&h);
	}
}

/*
 * docs/api.md, PL011_EVENT_RX_DATA: "The interrupt drained received bytes and the RX ring
 * holds some". A character with a framing error is counted and dropped: ERROR, but no
 * RX_DATA; a good one after it gives RX_DATA, with the ring holding it.
 */
static void test_rx_data_only_when_the_ring_holds_bytes(void **state)
{
	(void)state;
	prepare(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, 0, PL011_EVENT_RX_DATA | PL011_EVENT_ERROR,
		HARNESS_RX_RING);
	assert_int_equal(harness_start(&h), 0);
	pl011_model_rx_inject(h.model, 'e', PL011_DR_FE, pl011_model_now_ns(h.model) + frame_ns());
	pl011_model_advance(h.model, 20u * frame_ns());
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.rx_framing, 1);
	assert_int_equal(events_of(PL011_EVENT_ERROR), 1);
	assert_int_equal(events_of(PL011_EVENT_RX_DATA), 0);
	pl011_model_rx_inject(h.model, 'g', 0, pl011_model_now_ns(h.model) + frame_ns());
	pl011_model_advance(h.model, 20u * frame_ns());
	assert_int_equal(events_of(PL011_EVENT_RX_DATA), 1);
	assert_int_equal(seen.rx_data_of_zero, 0);
	assert_int_equal(pl011_getc(&h.uart), 'g');
	harness_teardown(&h);
}

/*
 * docs/api.md, PL011_EVENT_ERROR: "A framing or parity error or an overrun was counted".
 * A 16-byte ring nobody reads, no flow control: the FIFO fills behind it and overruns; the
 * overruns alone (no framing or parity error) give ERROR, when the read that resumes RX
 * unmasks the overrun the pause kept latched.
 */
static void test_error_event_for_an_overrun(void **state)
{
	(void)state;
	start(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, 0, PL011_EVENT_ERROR, 16);
	harness_fill_random(text, 40, 3u);
	uint64_t last = pl011_model_rx_inject_stream(h.model, text, 40, pl011_model_now_ns(h.model));
	pl011_model_advance_to(h.model, last + 10u * frame_ns());
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.rx_overrun, 0); /* OE masked with RX for the pause */
	assert_int_equal(events_of(PL011_EVENT_ERROR), 0);
	uint8_t got[16];
	assert_int_equal(pl011_read(&h.uart, got, sizeof got, PL011_NO_WAIT), 16);
	pl011_model_advance(h.model, 10u * frame_ns());
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.rx_overrun, 1);
	assert_int_equal(stats.rx_framing + stats.rx_parity, 0);
	assert_true(events_of(PL011_EVENT_ERROR) > 0);
	harness_teardown(&h);
}

/* ---- RS-485 with events ---- */

static void start_rs485(uint32_t flags, uint32_t after_us, uint32_t mask)
{
	prepare(PL011_TX_HALF_FIFO, PL011_RX_LOW_LATENCY, 0, mask, HARNESS_RX_RING);
	bus = (struct pl011_rs485){.driver = &pl011_rs485_driver,
				   .flags = flags,
				   .delay_before_us = 0,
				   .delay_after_us = after_us};
	h.config.rs485 = &bus;
	assert_int_equal(harness_start(&h), 0);
}

/* DE on the pin, without PL011_RS485_DE_LOW: asserted is nUARTRTS high. */
static bool de_on(void)
{
	return !pl011_model_rts(h.model);
}

/* Advance until TX done was given for the send under way (the drain's end tick). */
static void advance_to_tx_done(size_t done_before)
{
	for (unsigned us = 0; events_of(PL011_EVENT_TX_DONE) == done_before; us++) {
		assert_true(us < 100000u);
		advance_with_timer_ns(1000u);
	}
}

/*
 * docs/api.md, PL011_EVENT_TX_DONE: "once per drain"; docs/events.md: only bytes written
 * since the ring last emptied open a drain. On an RS-485 port the release tick's pass sends
 * nothing: each send gives TX done once, however long the line then stays idle.
 */
static void test_tx_done_once_per_drain_beside_the_rs485_release(void **state)
{
	(void)state;
	start_rs485(0, 50, PL011_EVENT_TX_DONE);
	for (size_t send = 1; send <= 3; send++) {
		assert_int_equal(pl011_write(&h.uart, "abc", 3, PL011_NO_WAIT), 3);
		advance_with_timer_ns(20u * 1000000u);
		assert_int_equal(events_of(PL011_EVENT_TX_DONE), send);
		assert_false(de_on());
	}
	harness_teardown(&h);
}

/*
 * docs/events.md: "pl011_set_line that leaves RS-485 as it is keeps the DE bits as they are (a
 * release still due comes after it)". Called within the after-delay of a send (RX_OFF): DE is
 * still on and the receiver still off when it returns, and both are released later.
 */
static void test_set_line_keeping_rs485_keeps_de_until_its_release(void **state)
{
	(void)state;
	start_rs485(PL011_RS485_RX_OFF, 5000, PL011_EVENT_TX_DONE);
	assert_int_equal(pl011_write(&h.uart, "abc", 3, PL011_NO_WAIT), 3);
	advance_to_tx_done(0);
	assert_true(de_on());
	assert_int_equal(pl011_model_peek(h.model, PL011_CR) & PL011_CR_RXE, 0);
	assert_int_equal(set_same_line(), 0);
	assert_true(de_on());
	assert_int_equal(pl011_model_peek(h.model, PL011_CR) & PL011_CR_RXE, 0);
	advance_with_timer_ns(10u * 1000000u);
	assert_false(de_on());
	assert_true((pl011_model_peek(h.model, PL011_CR) & PL011_CR_RXE) != 0);
	harness_teardown(&h);
}

/* At the n-th preemption point of a call, the core is held up until the timer is due, and the
 * timer's interrupt comes there. */
static struct {
	unsigned points_left;
	bool busy;
} late_tick;

static void tick_at_point(void *context)
{
	(void)context;
	if (late_tick.busy || late_tick.points_left == 0 || --late_tick.points_left != 0)
		return;
	late_tick.busy = true;
	if (harness_timer.armed)
		harness_advance_with_timer(&h, harness_timer.due_ns);
	late_tick.busy = false;
}

/*
 * docs/events.md: "An owner busy elsewhere makes the tick look again a frame later". The
 * release tick comes at each point of a pl011_set_line (which holds TX for part of it): DE is
 * released all the same, within a few frames after the change.
 */
static void test_rs485_release_waits_for_an_owner_busy_elsewhere(void **state)
{
	(void)state;
	unsigned held_over = 0;
	for (unsigned n = 1; n <= 80; n++) {
		start_rs485(0, 60, PL011_EVENT_TX_DONE);
		assert_int_equal(pl011_write(&h.uart, "abc", 3, PL011_NO_WAIT), 3);
		advance_to_tx_done(0);
		assert_true(de_on());
		size_t ticks = harness_timer.ticks;
		late_tick.points_left = n;
		pl011_model_set_preempt_hook(tick_at_point, NULL);
		assert_int_equal(set_same_line(), 0);
		pl011_model_set_preempt_hook(NULL, NULL);
		/* The release tick ran inside the change and left DE on: it found TX held. */
		if (harness_timer.ticks > ticks && de_on())
			held_over++;
		advance_with_timer_ns(3u * frame_ns() + 10000u);
		assert_false(de_on());
		harness_teardown(&h);
	}
	print_message("the release tick inside pl011_set_line: %u of 80 points found TX held\n",
		      held_over);
	assert_true(held_over > 0);
}

/* ---- the console ---- */

/* The transmitter of the console tests stalls until unstall_ns: a preemption point (a register
 * access of the waiting writer) at or after it lets it run again. */
static uint64_t unstall_ns;

static void unstall_at_point(void *context)
{
	(void)context;
	if (unstall_ns != 0 && pl011_model_now_ns(h.model) >= unstall_ns) {
		pl011_model_set_tx_stalled(h.model, false);
		unstall_ns = 0;
	}
}

/* A stalled transmitter takes the TX ring and the FIFO: after that, nothing. */
static void fill_stalled_leaving(size_t free_places)
{
	pl011_model_set_tx_stalled(h.model, true);
	size_t room = HARNESS_TX_RING + 16u;
	memset(text, 'a', sizeof text);
	assert_int_equal(pl011_write(&h.uart, text, room - free_places, PL011_NO_WAIT),
			 (int)(room - free_places));
}

/*
 * docs/api.md, pl011_write_console: "each "\n" goes out as "\r\n"". Its "\r" takes the
 * last free place, its "\n" waits for room that comes within the bound: the wire gets "\r\n",
 * not "\r" twice.
 */
static void test_console_newline_finished_after_a_wait_is_cr_lf(void **state)
{
	(void)state;
	start(PL011_TX_HYBRID, PL011_RX_POLLED, 0, 0, HARNESS_RX_RING);
	fill_stalled_leaving(1);
	/* The "\r\n" write waits out its 2 ms with one byte taken; then the transmitter runs. */
	unstall_ns = pl011_model_now_ns(h.model) + 2100000u;
	pl011_model_set_preempt_hook(unstall_at_point, NULL);
	int n = pl011_write_console(&h.uart, "\n", 1, 2000u);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_int_equal(n, 1);
	assert_int_equal(unstall_ns, 0);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	size_t len = harness_wire(&h, wire, sizeof wire);
	assert_int_equal(len, HARNESS_TX_RING + 16u + 1u);
	assert_memory_equal(wire + len - 3u, "a\r\n", 3);
	harness_teardown(&h);
}

/*
 * docs/api.md, pl011_write_console: "a "\n" counts once both its bytes were accepted; one
 * that ran out after its "\r" is not counted". Room for "b" and "\r" only: 1 is returned, and
 * the wire ends in "b\r".
 */
static void test_console_newline_cut_after_its_cr_is_not_counted(void **state)
{
	(void)state;
	start(PL011_TX_HYBRID, PL011_RX_POLLED, 0, 0, HARNESS_RX_RING);
	fill_stalled_leaving(2);
	assert_int_equal(pl011_write_console(&h.uart, "b\nc", 3, PL011_NO_WAIT), 1);
	pl011_model_set_tx_stalled(h.model, false);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	size_t len = harness_wire(&h, wire, sizeof wire);
	assert_int_equal(len, HARNESS_TX_RING + 16u);
	assert_memory_equal(wire + len - 3u, "ab\r", 3);
	harness_teardown(&h);
}

/*
 * include/pl011.h, pl011_puts: "pl011_write_console of a NUL-terminated string, with
 * PL011_WAIT_AUTO": a string longer than the TX ring waits for room and is sent whole.
 */
static void test_puts_waits_for_room_like_write_console_with_wait_auto(void **state)
{
	(void)state;
	start(PL011_TX_HALF_FIFO, PL011_RX_POLLED, 0, 0, HARNESS_RX_RING);
	const size_t len = HARNESS_TX_RING + 1000u;
	memset(text, 'q', len);
	text[len] = '\0';
	assert_int_equal(pl011_puts(&h.uart, (const char *)text), (int)len);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), len);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_adopted_line_flushes_a_tx_fifo_that_did_not_drain, &h),
		HARNESS_TEST(test_get_line_reports_the_stick_parity_that_was_set, &h),
		HARNESS_TEST(test_set_line_moves_the_fifo_into_exactly_a_fifos_worth_of_ring, &h),
		HARNESS_TEST(test_set_line_refused_for_the_fifo_gives_rts_back_to_flow_control, &h),
		HARNESS_TEST(test_backlog_deadline_follows_the_line_set, &h),
		HARNESS_TEST(test_set_line_timed_out_on_a_primed_fifo_gives_tx_back, &h),
		HARNESS_TEST(test_modem_lines_outside_the_mask_keep_their_state, &h),
		HARNESS_TEST(test_error_event_needs_an_interrupt_rx_mode, &h),
		HARNESS_TEST(test_tx_space_only_for_a_rise_from_below_half, &h),
		HARNESS_TEST(test_rx_data_only_when_the_ring_holds_bytes, &h),
		HARNESS_TEST(test_error_event_for_an_overrun, &h),
		HARNESS_TEST(test_tx_done_once_per_drain_beside_the_rs485_release, &h),
		HARNESS_TEST(test_set_line_keeping_rs485_keeps_de_until_its_release, &h),
		HARNESS_TEST(test_rs485_release_waits_for_an_owner_busy_elsewhere, &h),
		HARNESS_TEST(test_console_newline_finished_after_a_wait_is_cr_lf, &h),
		HARNESS_TEST(test_console_newline_cut_after_its_cr_is_not_counted, &h),
		HARNESS_TEST(test_puts_waits_for_room_like_write_console_with_wait_auto, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
