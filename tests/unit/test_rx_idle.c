/* RX idle from the event timer on one core (docs/events.md, "RX idle"): the clocks a config
 * may give (exact, coarse, wrapping, stopped), bytes that no handler entry took (a restart's
 * carry, pl011_set_line's FIFO), characters with errors alone, and the one timer shared with
 * TX done and RS-485's DE release. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_io.h"
#include "pl011_regs.h"

#define MAX_SEEN 4096

static struct harness rh;
static size_t idle_events, data_events, done_events;
static uint64_t idle_at_ns[MAX_SEEN];
static uint64_t done_ns;
static uint32_t frozen_us;
static uint32_t coarse_step_us;

static void on_event(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	struct harness *h = context;
	if ((events & PL011_EVENT_RX_DATA) != 0)
		data_events++;
	if ((events & PL011_EVENT_RX_IDLE) != 0) {
		if (idle_events < MAX_SEEN)
			idle_at_ns[idle_events] = pl011_model_now_ns(h->model);
		idle_events++;
	}
	if ((events & PL011_EVENT_TX_DONE) != 0) {
		done_events++;
		done_ns = pl011_model_now_ns(h->model);
	}
}

/* An RTOS tick count times its period: include/pl011.h allows a clock that moves in steps. */
static uint32_t coarse_clock(void *model)
{
	uint32_t us = pl011_model_clock_us(model);
	return us - us % coarse_step_us;
}

/* Wraps at 2^32 us 3 ms after init. */
static uint32_t wrapping_clock(void *model)
{
	return pl011_model_clock_us(model) + (0xFFFFFFFFu - 3000u);
}

static uint32_t frozen_clock(void *model)
{
	(void)model;
	return frozen_us;
}

/* Moves until stop_us, then stays there. */
static uint32_t stop_us;
static uint32_t stopping_clock(void *model)
{
	uint32_t us = pl011_model_clock_us(model);
	return us < stop_us ? us : stop_us;
}

static void setup_rx(struct harness *h)
{
	idle_events = data_events = done_events = 0;
	done_ns = 0;
	harness_setup_timed_events(h, on_event);
}

static uint8_t data[4096];

/* A sender a little slower than the line, a character every 1.8 frames (never more than 0.8
 * frame of silence), 2,000 of them; then 40 frames of silence. Returns the RX_IDLE events given
 * before the last character; *after_ns: how long after it the last one came. */
static size_t idles_in_a_slow_stream(struct harness *h, uint64_t *after_ns)
{
	assert_int_equal(harness_start(h), 0);
	uint64_t now = pl011_model_now_ns(h->model);
	uint64_t frame = pl011_model_frame_ns(h->model);
	uint64_t last = now;
	for (size_t i = 0; i < 2000; i++) {
		last = now + frame + i * (frame * 18u / 10u);
		pl011_model_rx_inject(h->model, data[i], 0, last);
	}
	harness_advance_with_timer(h, last + 40u * frame);
	size_t mid = 0;
	for (size_t i = 0; i < idle_events && i < MAX_SEEN; i++)
		if (idle_at_ns[i] < last)
			mid++;
	*after_ns = idle_events != 0 ? idle_at_ns[idle_events - 1u] - last : 0;
	print_message("%zu ticks, %zu RX_IDLE, %zu before the last character, the last %llu ns "
		      "after it\n", harness_timer.ticks, idle_events, mid,
		      (unsigned long long)*after_ns);
	return mid;
}

/* None in the stream, one after it, no tick left: with the exact clock RX idle comes 5 frames
 * after the last character (within 10 us); with a clock of 1 ms steps, whose step reads as
 * 1,000 us of silence, the silence asked for is 5 frames plus the step (timed at init), so it
 * comes within 5 frames and two steps; a clock that wraps in the stream changes nothing. */
static void test_no_idle_in_a_stream_whatever_the_clock(void **state)
{
	(void)state;
	struct harness *h = &rh;
	uint64_t frame = 0, after = 0;

	setup_rx(h);
	assert_int_equal(idles_in_a_slow_stream(h, &after), 0);
	frame = pl011_model_frame_ns(h->model);
	assert_int_equal(idle_events, 1);
	assert_true(after >= 5u * frame && after <= 5u * frame + 10000u);
	assert_false(harness_timer.armed);
	harness_teardown(h);

	setup_rx(h);
	coarse_step_us = 1000u;
	h->config.clock = coarse_clock;
	h->config.clock_context = h->model;
	assert_int_equal(idles_in_a_slow_stream(h, &after), 0);
	assert_int_equal(idle_events, 1);
	assert_true(after >= 5u * frame && after <= 5u * frame + 2000000u + 10000u);
	assert_false(harness_timer.armed);
	harness_teardown(h);

	setup_rx(h);
	h->config.clock = wrapping_clock;
	h->config.clock_context = h->model;
	assert_int_equal(idles_in_a_slow_stream(h, &after), 0);
	assert_int_equal(idle_events, 1);
	assert_true(after >= 5u * frame && after <= 5u * frame + 10000u);
	assert_false(harness_timer.armed);
	harness_teardown(h);
}

/* A clock that does not move shows no silence: the timer's time counts instead. One RX_IDLE
 * after the burst, a few ticks, none left armed: with a clock stopped from the start, and with
 * one that stops in the middle of the burst. */
static void test_stopped_clock_idle_once_and_ticks_stop(void **state)
{
	(void)state;
	for (int midway = 0; midway < 2; midway++) {
		struct harness *h = &rh;
		setup_rx(h);
		frozen_us = 12345u;
		h->config.clock = midway ? stopping_clock : frozen_clock;
		h->config.clock_context = h->model;
		stop_us = UINT32_MAX;
		assert_int_equal(harness_start(h), 0);
		uint64_t frame = pl011_model_frame_ns(h->model);
		uint64_t now = pl011_model_now_ns(h->model);
		stop_us = (uint32_t)((now + 20u * frame) / 1000u);
		uint64_t last = pl011_model_rx_inject_stream(h->model, data, 40, now);
		harness_advance_with_timer(h, last + 2000u * frame);
		print_message("clock stopped %s: %zu RX_IDLE, %zu ticks over 2,000 frames\n",
			      midway ? "in the burst" : "from the start", idle_events,
			      harness_timer.ticks);
		assert_int_equal(idle_events, 1);
		assert_true(idle_at_ns[0] >= last + 5u * frame);
		assert_true(harness_timer.ticks < 20u);
		assert_false(harness_timer.armed);
		harness_teardown(h);
	}
}

/* A character with a framing error, or a break, after a burst that was given is no byte
 * received: no second RX_IDLE, whether the reader emptied the ring or not. */
static void test_errors_alone_are_no_burst(void **state)
{
	(void)state;
	static const unsigned errors[] = {PL011_DR_FE, PL011_DR_BE | PL011_DR_FE};
	for (size_t e = 0; e < 2; e++) {
		for (int read_first = 0; read_first < 2; read_first++) {
			struct harness *h = &rh;
			setup_rx(h);
			assert_int_equal(harness_start(h), 0);
			uint64_t frame = pl011_model_frame_ns(h->model);
			uint64_t last = pl011_model_rx_inject_stream(h->model, data, 10,
								     pl011_model_now_ns(h->model));
			harness_advance_with_timer(h, last + 20u * frame);
			assert_int_equal(idle_events, 1);
			if (read_first) {
				uint8_t out[16];
				assert_int_equal(pl011_read(&h->uart, out, sizeof out, 0), 10);
			}
			uint64_t now = pl011_model_now_ns(h->model);
			pl011_model_rx_inject(h->model, 0, errors[e], now + frame);
			harness_advance_with_timer(h, now + 40u * frame);
			assert_int_equal(idle_events, 1);
			assert_false(harness_timer.armed);
			harness_teardown(h);
		}
	}
}

/* pl011_restart (same config and storage: the ring is kept) after a burst's last drain, before
 * the tick that would end it: the burst's bytes are carried, and so is its RX idle, once. */
static void test_restart_carries_an_open_burst(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h);
	assert_int_equal(harness_start(h), 0);
	uint64_t frame = pl011_model_frame_ns(h->model);
	uint64_t last = pl011_model_rx_inject_stream(h->model, data, 40, pl011_model_now_ns(h->model));
	harness_advance_with_timer(h, last + frame / 2u);
	assert_int_equal(idle_events, 0);
	assert_int_equal(harness_restart(h), 0);
	uint64_t restarted = pl011_model_now_ns(h->model);
	harness_advance_with_timer(h, last + 50u * frame);
	assert_int_equal(pl011_rx_available(&h->uart), 40);
	assert_int_equal(idle_events, 1);
	assert_true(idle_at_ns[0] >= restarted + 5u * frame);
	assert_false(harness_timer.armed);
	/* A restart after the burst was given carries its bytes, not a second RX idle. */
	assert_int_equal(harness_restart(h), 0);
	harness_advance_with_timer(h, pl011_model_now_ns(h->model) + 50u * frame);
	assert_int_equal(idle_events, 1);
	harness_teardown(h);
}

/* A port started, and one character in its FIFO that no handler has taken yet (below the
 * trigger, before the receive timeout); returns the frame time. */
static uint64_t start_with_a_character_waiting(struct harness *h, uint8_t value)
{
	setup_rx(h);
	assert_int_equal(harness_start(h), 0);
	uint64_t frame = pl011_model_frame_ns(h->model);
	uint64_t now = pl011_model_now_ns(h->model);
	pl011_model_rx_inject(h->model, value, 0, now + frame);
	harness_advance_with_timer(h, now + frame + frame / 2u);
	assert_int_equal(pl011_model_rx_level(h->model), 1);
	assert_int_equal(pl011_rx_available(&h->uart), 0);
	assert_int_equal(data_events + idle_events, 0);
	return frame;
}

/* pl011_set_line while a character waits in the FIFO (below the trigger, before the receive
 * timeout): the line switch moves it into the ring and flushes the FIFO, so no timeout comes
 * and no handler takes it. Its RX_DATA and its RX_IDLE come all the same. */
static void test_set_line_gives_the_fifo_bytes_it_takes(void **state)
{
	(void)state;
	struct harness *h = &rh;
	uint64_t frame = start_with_a_character_waiting(h, 0x55);
	struct pl011_line_config line;
	pl011_get_line(&h->uart, &line);
	assert_int_equal(pl011_set_line(&h->uart, &line, PL011_WAIT_AUTO), 0);
	assert_int_equal(data_events, 1);
	uint64_t switched = pl011_model_now_ns(h->model);
	harness_advance_with_timer(h, switched + 50u * frame);
	assert_int_equal(pl011_rx_available(&h->uart), 1);
	assert_int_equal(idle_events, 1);
	assert_true(idle_at_ns[0] <= switched + 5u * frame + 10000u);
	assert_false(harness_timer.armed);
	harness_teardown(h);
}

/* pl011_restart while a character waits in the FIFO (below the trigger, before the receive
 * timeout), with no burst open: the stop takes it from the FIFO, the new run carries it, and
 * its RX_IDLE comes in the new run, though no handler of either run took it. */
static void test_restart_gives_the_fifo_bytes_its_stop_takes(void **state)
{
	(void)state;
	struct harness *h = &rh;
	uint64_t frame = start_with_a_character_waiting(h, 0x5A);
	assert_int_equal(harness_restart(h), 0);
	uint64_t restarted = pl011_model_now_ns(h->model);
	harness_advance_with_timer(h, restarted + 50u * frame);
	uint8_t got = 0;
	assert_int_equal(pl011_read(&h->uart, &got, 1, PL011_NO_WAIT), 1);
	assert_int_equal(got, 0x5A);
	assert_int_equal(idle_events, 1);
	assert_true(idle_at_ns[0] >= restarted);
	assert_false(harness_timer.armed);
	harness_teardown(h);
}

/* Characters a boot loader's UART received before pl011_init: the start's flush moves them into
 * the ring, where no handler saw them. Their RX_IDLE comes all the same, once, after init. */
static void test_init_gives_the_fifo_bytes_a_boot_loader_left(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h);
	struct pl011_baud baud;
	assert_int_equal(pl011_compute_baud(h->config.clock_hz, h->config.baud, 0, &baud), 0);
	pl011_io_write(HARNESS_BASE + PL011_CR, 0);
	pl011_io_write(HARNESS_BASE + PL011_IBRD, baud.ibrd);
	pl011_io_write(HARNESS_BASE + PL011_FBRD, baud.fbrd);
	pl011_io_write(HARNESS_BASE + PL011_LCR_H, PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	pl011_io_write(HARNESS_BASE + PL011_CR, PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE);
	uint64_t frame = pl011_model_frame_ns(h->model);
	uint64_t last = pl011_model_rx_inject_stream(h->model, data, 3, pl011_model_now_ns(h->model));
	pl011_model_advance_to(h->model, last + frame);
	assert_int_equal(pl011_model_rx_level(h->model), 3);
	assert_int_equal(harness_start(h), 0);
	uint64_t started = pl011_model_now_ns(h->model);
	harness_advance_with_timer(h, started + 50u * frame);
	assert_int_equal(pl011_rx_available(&h->uart), 3);
	assert_int_equal(idle_events, 1);
	assert_true(idle_at_ns[0] >= started);
	assert_false(harness_timer.armed);
	harness_teardown(h);
}

/* ---- the one timer of TX done, RS-485's release and RX idle, on one core ---- */

static struct pl011_rs485 bus = {
	.driver = &pl011_rs485_driver,
	.flags = 0,
	.delay_before_us = 20,
	.delay_after_us = 300,
};

/* A send of tx_len bytes and an RX burst of rx_len starting offset_q quarter frames after the
 * write: TX done once, within a frame + 10 us of the last stop bit; DE released no earlier
 * than delay_after past it; an RX idle after the burst; no tick left armed. */
static void one_case(bool rs485, enum pl011_tx_mode mode, size_t tx_len, size_t rx_len,
		     uint64_t offset_q)
{
	struct harness *h = &rh;
	setup_rx(h);
	h->config.tx_mode = mode;
	h->config.rs485 = rs485 ? &bus : NULL;
	assert_int_equal(harness_start(h), 0);
	uint64_t frame = pl011_model_frame_ns(h->model);
	harness_advance_with_timer(h, pl011_model_now_ns(h->model) + 10u * frame);
	uint64_t t0 = pl011_model_now_ns(h->model);
	uint64_t rx_last = pl011_model_rx_inject_stream(h->model, data, rx_len,
							t0 + offset_q * frame / 4u);
	assert_int_equal(pl011_write(&h->uart, data, tx_len, PL011_NO_WAIT), (int)tx_len);
	harness_advance_with_timer(h, t0 + 200u * frame);
	size_t wire = pl011_model_wire_len(h->model);
	assert_int_equal(wire, tx_len);
	uint64_t stop = pl011_model_wire_end_ns(h->model, wire - 1u);
	bool ok = true;
	if (done_events != 1 || done_ns < stop || done_ns > stop + frame + 10000u) {
		print_message("tx %zu rx %zu at %llu/4: TX_DONE %zu, %lld ns after the stop bit\n",
			      tx_len, rx_len, (unsigned long long)offset_q, done_events,
			      (long long)(done_ns - stop));
		ok = false;
	}
	if (idle_events < 1 || idle_at_ns[idle_events - 1u] < rx_last) {
		print_message("tx %zu rx %zu at %llu/4: %zu RX_IDLE, the last before the burst's end\n",
			      tx_len, rx_len, (unsigned long long)offset_q, idle_events);
		ok = false;
	}
	size_t edges = pl011_model_rts_edge_count(h->model);
	if (rs485 && (edges == 0 ||
		      pl011_model_rts_edge_ns(h->model, edges - 1u) < stop + bus.delay_after_us * 1000u)) {
		print_message("tx %zu rx %zu at %llu/4: DE released before the after-delay\n",
			      tx_len, rx_len, (unsigned long long)offset_q);
		ok = false;
	}
	if (harness_timer.armed) {
		print_message("tx %zu rx %zu at %llu/4: a tick still armed\n", tx_len, rx_len,
			      (unsigned long long)offset_q);
		ok = false;
	}
	harness_teardown(h);
	assert_true(ok);
}

static void sweep(bool rs485, enum pl011_tx_mode mode)
{
	static const size_t tx_lens[] = {1, 3, 20};
	static const size_t rx_lens[] = {1, 2, 3, 17};
	for (size_t t = 0; t < sizeof tx_lens / sizeof tx_lens[0]; t++)
		for (size_t r = 0; r < sizeof rx_lens / sizeof rx_lens[0]; r++)
			for (uint64_t q = 0; q < 4u * (tx_lens[t] + 8u); q++)
				one_case(rs485, mode, tx_lens[t], rx_lens[r], q);
}

static void test_tx_done_within_its_bound_beside_rx_bursts(void **state)
{
	(void)state;
	sweep(false, PL011_TX_MEASURED);
	sweep(false, PL011_TX_HALF_FIFO);
}

static void test_rs485_release_not_early_beside_rx_bursts(void **state)
{
	(void)state;
	sweep(true, PL011_TX_MEASURED);
}

int main(void)
{
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7u + 1u);
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_no_idle_in_a_stream_whatever_the_clock, &rh),
		HARNESS_TEST(test_stopped_clock_idle_once_and_ticks_stop, &rh),
		HARNESS_TEST(test_errors_alone_are_no_burst, &rh),
		HARNESS_TEST(test_restart_carries_an_open_burst, &rh),
		HARNESS_TEST(test_set_line_gives_the_fifo_bytes_it_takes, &rh),
		HARNESS_TEST(test_restart_gives_the_fifo_bytes_its_stop_takes, &rh),
		HARNESS_TEST(test_init_gives_the_fifo_bytes_a_boot_loader_left, &rh),
		HARNESS_TEST(test_tx_done_within_its_bound_beside_rx_bursts, &rh),
		HARNESS_TEST(test_rs485_release_not_early_beside_rx_bursts, &rh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
