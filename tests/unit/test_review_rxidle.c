/* Reviewer probes: RX idle from the event timer (lib/pl011_events.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

static struct harness rh;
static size_t idle_events;
static size_t data_events;
static uint64_t idle_at_ns[4096];
static uint32_t frozen_us;
static uint32_t coarse_step_us;

static void on_event(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	struct harness *h = context;
	if ((events & PL011_EVENT_RX_DATA) != 0)
		data_events++;
	if ((events & PL011_EVENT_RX_IDLE) != 0) {
		if (idle_events < 4096)
			idle_at_ns[idle_events] = pl011_model_now_ns(h->model);
		idle_events++;
	}
}

static uint32_t coarse_clock(void *model)
{
	uint32_t us = pl011_model_clock_us(model);
	return us - us % coarse_step_us;
}

static uint32_t wrapping_clock(void *model)
{
	return pl011_model_clock_us(model) + (0xFFFFFFFFu - 3000u);
}

static uint32_t frozen_clock(void *model)
{
	(void)model;
	return frozen_us;
}

static void setup_rx(struct harness *h, enum pl011_rx_mode mode)
{
	memset(&harness_timer, 0, sizeof harness_timer);
	idle_events = 0;
	data_events = 0;
	harness_setup(h, 24000000u, 16);
	h->config.tx_mode = PL011_TX_MEASURED;
	h->config.rx_mode = mode;
	h->config.event_mask = PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA | PL011_EVENT_TX_DONE;
	h->config.event = on_event;
	h->config.event_context = h;
	h->config.event_driver = &pl011_event_driver;
	h->config.event_timer = harness_timer_arm;
	h->config.event_timer_context = h;
	h->config.wait_hook = harness_timer_wait_step;
	h->config.wait_context = h;
}

static uint8_t data[4096];

/* Baseline: the exact model clock, a 40-byte burst, one RX_IDLE after it, ticks stop. */
static void test_baseline_one_idle(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h, PL011_RX_LOW_LATENCY);
	assert_int_equal(harness_start(h), 0);
	uint64_t now = pl011_model_now_ns(h->model);
	uint64_t last = pl011_model_rx_inject_stream(h->model, data, 40, now);
	harness_advance_with_timer(h, last + 100u * pl011_model_frame_ns(h->model));
	assert_int_equal(idle_events, 1);
	assert_false(harness_timer.armed);
	harness_teardown(h);
}

/* A stream whose sender is a little slower than the line (a character every 1.8 frames:
 * never more than 0.8 frame of silence); the RX_IDLE events given before its last byte. */
static size_t idles_mid_stream(struct harness *h)
{
	assert_int_equal(harness_start(h), 0);
	uint64_t now = pl011_model_now_ns(h->model);
	uint64_t frame = pl011_model_frame_ns(h->model);
	uint64_t last = now;
	for (size_t i = 0; i < 2000; i++) {
		last = now + frame + i * (frame * 18u / 10u);
		pl011_model_rx_inject(h->model, data[i], 0, last);
	}
	harness_advance_with_timer(h, last + 20u * frame);
	size_t mid = 0;
	for (size_t i = 0; i < idle_events && i < 4096; i++)
		if (idle_at_ns[i] < last)
			mid++;
	print_message("%zu ticks, %zu RX_IDLE in all, %zu before the last byte\n",
		      harness_timer.ticks, idle_events, mid);
	return mid;
}

/* Control: the exact clock, the same stream: no RX_IDLE in it. */
static void test_exact_clock_no_idle_mid_stream(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h, PL011_RX_LOW_LATENCY);
	assert_int_equal(idles_mid_stream(h), 0);
	assert_int_equal(idle_events, 1);
	harness_teardown(h);
}

/* A coarse clock (1 ms steps, as an RTOS tick count times 1000; include/pl011.h allows it,
 * and the MEASURED strategy times its step at init) during the same stream: the tick must not
 * find "5 frames of silence" (434 us at 115,200) in the middle of it. It does whenever a clock
 * step falls between the last drain's stamp and the tick. */
static void test_coarse_clock_no_idle_mid_stream(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h, PL011_RX_LOW_LATENCY);
	coarse_step_us = 1000u;
	h->config.clock = coarse_clock;
	h->config.clock_context = h->model;
	assert_int_equal(idles_mid_stream(h), 0);
	harness_teardown(h);
}

/* A clock that stops (frozen): the tick can never see the silence; it must not tick forever. */
static void test_frozen_clock_ticks_stop(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h, PL011_RX_LOW_LATENCY);
	frozen_us = 12345u;
	h->config.clock = frozen_clock;
	h->config.clock_context = h->model;
	assert_int_equal(harness_start(h), 0);
	uint64_t now = pl011_model_now_ns(h->model);
	uint64_t last = pl011_model_rx_inject_stream(h->model, data, 40, now);
	harness_advance_with_timer(h, last + 2000u * pl011_model_frame_ns(h->model));
	print_message("frozen clock: %zu RX_IDLE, %zu ticks over 2000 frames, armed %d\n",
		      idle_events, harness_timer.ticks, harness_timer.armed);
	assert_true(harness_timer.ticks < 50u);
	harness_teardown(h);
}


/* Errors only after a burst that was given: a framing-error character (dropped by the driver)
 * is no byte received; "once per burst" (bytes received since the last RX idle) says no
 * second RX_IDLE. Whether one comes must not depend on whether the reader emptied the ring. */
static size_t idles_after_error_char(bool read_first, unsigned errors)
{
	struct harness *h = &rh;
	setup_rx(h, PL011_RX_LOW_LATENCY);
	assert_int_equal(harness_start(h), 0);
	uint64_t frame = pl011_model_frame_ns(h->model);
	uint64_t last = pl011_model_rx_inject_stream(h->model, data, 10, pl011_model_now_ns(h->model));
	harness_advance_with_timer(h, last + 20u * frame);
	assert_int_equal(idle_events, 1);
	if (read_first) {
		uint8_t out[16];
		assert_int_equal(pl011_read(&h->uart, out, sizeof out, 0), 10);
	}
	uint64_t now = pl011_model_now_ns(h->model);
	pl011_model_rx_inject(h->model, 0, errors, now + frame);
	harness_advance_with_timer(h, now + 40u * frame);
	size_t after = idle_events - 1u;
	print_message("error char 0x%x, ring %s: %zu RX_IDLE after it\n", errors,
		      read_first ? "read" : "unread", after);
	harness_teardown(h);
	return after;
}

static void test_framing_error_only_no_second_idle(void **state)
{
	(void)state;
	size_t read = idles_after_error_char(true, PL011_DR_FE);
	size_t unread = idles_after_error_char(false, PL011_DR_FE);
	assert_int_equal(read, 0);
	assert_int_equal(unread, 0);
}

static void test_break_only_no_second_idle(void **state)
{
	(void)state;
	size_t read = idles_after_error_char(true, PL011_DR_BE | PL011_DR_FE);
	size_t unread = idles_after_error_char(false, PL011_DR_BE | PL011_DR_FE);
	assert_int_equal(read, 0);
	assert_int_equal(unread, 0);
}

/* RX paused by a full ring (16 bytes) during a 40-byte burst; the reader drains the ring only
 * after the line went quiet. The burst's last bytes then come out of the FIFO: one RX_IDLE
 * must still come after the last byte was taken. */
static void test_paused_ring_idle_after_resume(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h, PL011_RX_LOW_LATENCY);
	h->config.rx_buffer_size = 16;
	assert_int_equal(harness_start(h), 0);
	uint64_t frame = pl011_model_frame_ns(h->model);
	uint64_t last = pl011_model_rx_inject_stream(h->model, data, 30, pl011_model_now_ns(h->model));
	harness_advance_with_timer(h, last + 20u * frame);
	size_t before = idle_events;
	size_t got = 0;
	uint8_t out[64];
	for (int i = 0; i < 20 && got < 30; i++) {
		int n = pl011_read(&h->uart, out + got, sizeof out - got, 0);
		assert_true(n >= 0);
		got += (size_t)n;
		harness_advance_with_timer(h, pl011_model_now_ns(h->model) + 3u * frame);
	}
	harness_advance_with_timer(h, pl011_model_now_ns(h->model) + 20u * frame);
	print_message("paused: %zu bytes read, %zu RX_IDLE before the reads, %zu in all, armed %d\n",
		      got, before, idle_events, harness_timer.armed);
	assert_int_equal(got, 30);
	assert_true(idle_events >= 1);
	assert_false(harness_timer.armed);
	harness_teardown(h);
}


/* pl011_restart (same config, same storage: the ring is kept) just after a burst's last
 * drain, before the tick that would end it: its bytes are in the ring. Is RX_IDLE given? */
static void test_restart_with_burst_open(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h, PL011_RX_LOW_LATENCY);
	assert_int_equal(harness_start(h), 0);
	uint64_t frame = pl011_model_frame_ns(h->model);
	uint64_t last = pl011_model_rx_inject_stream(h->model, data, 40, pl011_model_now_ns(h->model));
	harness_advance_with_timer(h, last + frame / 2u);
	assert_int_equal(idle_events, 0);
	assert_int_equal(harness_restart(h), 0);
	harness_advance_with_timer(h, last + 50u * frame);
	print_message("restart with a burst open: %zu RX_IDLE, %zu RX_DATA, %d bytes in the ring\n",
		      idle_events, data_events, pl011_rx_available(&h->uart));
	assert_int_equal(pl011_rx_available(&h->uart), 40);
	assert_int_equal(idle_events, 1);
	harness_teardown(h);
}


/* pl011_set_line while a 1-character burst waits in the FIFO (below the trigger, RT not yet
 * come): the line switch moves it into the ring and the FEN flush empties the FIFO, so RT
 * never comes; nothing counted it as a drain either. Is RX_IDLE given? */
static void test_set_line_takes_a_burst_from_the_fifo(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h, PL011_RX_LOW_LATENCY);
	assert_int_equal(harness_start(h), 0);
	uint64_t frame = pl011_model_frame_ns(h->model);
	uint64_t now = pl011_model_now_ns(h->model);
	pl011_model_rx_inject(h->model, 0x55, 0, now + frame);
	harness_advance_with_timer(h, now + frame + frame / 2u);
	assert_int_equal(pl011_model_rx_level(h->model), 1);
	struct pl011_line_config line;
	pl011_get_line(&h->uart, &line);
	assert_int_equal(pl011_set_line(&h->uart, &line, PL011_WAIT_AUTO), 0);
	harness_advance_with_timer(h, pl011_model_now_ns(h->model) + 50u * frame);
	print_message("set_line with a character in the FIFO: %zu RX_IDLE, %zu RX_DATA, "
		      "%d bytes in the ring\n", idle_events, data_events, pl011_rx_available(&h->uart));
	assert_int_equal(pl011_rx_available(&h->uart), 1);
	assert_int_equal(idle_events, 1);
	harness_teardown(h);
}


/* Guard: a clock that wraps at 2^32 us in the middle of a burst (3 ms after init): the stream
 * above gets none in it and one after it. */
static void test_wrapping_clock_one_idle(void **state)
{
	(void)state;
	struct harness *h = &rh;
	setup_rx(h, PL011_RX_LOW_LATENCY);
	h->config.clock = wrapping_clock;
	h->config.clock_context = h->model;
	assert_int_equal(idles_mid_stream(h), 0);
	assert_int_equal(idle_events, 1);
	harness_teardown(h);
}

int main(void)
{
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7u + 1u);
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_baseline_one_idle, &rh),
		HARNESS_TEST(test_exact_clock_no_idle_mid_stream, &rh),
		HARNESS_TEST(test_coarse_clock_no_idle_mid_stream, &rh),
		HARNESS_TEST(test_wrapping_clock_one_idle, &rh),
		HARNESS_TEST(test_frozen_clock_ticks_stop, &rh),
		HARNESS_TEST(test_framing_error_only_no_second_idle, &rh),
		HARNESS_TEST(test_break_only_no_second_idle, &rh),
		HARNESS_TEST(test_paused_ring_idle_after_resume, &rh),
		HARNESS_TEST(test_restart_with_burst_open, &rh),
		HARNESS_TEST(test_set_line_takes_a_burst_from_the_fifo, &rh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
