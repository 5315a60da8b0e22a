/* Bounds at their edges: huge bounds, coarse and frozen clocks, spin limits, very low rates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "harness.h"

/* A wait that never ends would hang the suite: count the wait's steps and stop the test. */
#define STEP_LIMIT 20000000u

static struct harness h;
static uint32_t fake_now_us;
static uint32_t fake_step_us;
static unsigned long steps;

static uint32_t fake_clock(void *context)
{
	(void)context;
	fake_now_us += fake_step_us;
	return fake_now_us;
}

static void counting_step(void *context)
{
	(void)context;
	if (++steps > STEP_LIMIT)
		fail_msg("a bounded wait took more than %u steps", STEP_LIMIT);
}

/* A polled port whose transmitter is stalled with a byte in the FIFO: flush can only time
 * out, after exactly as long as its bound says. */
static void start_stalled_port(pl011_clock_fn clock, uint32_t spins)
{
	harness_setup(&h, 48000000u, 16);
	h.config.clock = clock;
	h.config.spins_per_us = spins;
	h.config.wait_hook = counting_step;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_tx_stalled(h.model, true);
	assert_int_equal(pl011_write(&h.uart, "x", 1, PL011_NO_WAIT), 1);
	steps = 0;
}

static void test_a_bound_near_2_to_the_32_ends_with_a_coarse_clock(void **state)
{
	(void)state;
	/* Each step of the clock is a quarter of 2^32 us: the elapsed time wraps modulo 2^32
	 * after four steps, so a wait comparing it modulo 2^32 would never end. */
	fake_now_us = 0;
	fake_step_us = 0x40000000u;
	start_stalled_port(fake_clock, 0);
	assert_int_equal(pl011_flush(&h.uart, UINT32_MAX - 2u, NULL), PL011_ETIMEDOUT);
	assert_true(steps <= 8u);
	harness_teardown(&h);
}

static void test_a_frozen_clock_falls_back_to_the_iteration_bound(void **state)
{
	(void)state;
	fake_now_us = 1234;
	fake_step_us = 0;
	start_stalled_port(fake_clock, 0);
	assert_int_equal(pl011_flush(&h.uart, 1000u, NULL), PL011_ETIMEDOUT);
	/* A million steps to call the clock frozen, then 1000 us at one step per us. */
	assert_in_range(steps, 1000000u, 1001000u + 10u);
	harness_teardown(&h);
}

static void test_without_a_clock_a_bound_is_bound_times_spins_per_us_steps(void **state)
{
	(void)state;
	start_stalled_port(NULL, 10u);
	assert_int_equal(pl011_flush(&h.uart, 100u, NULL), PL011_ETIMEDOUT);
	assert_in_range(steps, 999u, 1001u);
	harness_teardown(&h);

	start_stalled_port(NULL, 0u); /* 0 means one step per microsecond */
	assert_int_equal(pl011_flush(&h.uart, 250u, NULL), PL011_ETIMEDOUT);
	assert_in_range(steps, 249u, 251u);
	harness_teardown(&h);
}

static void test_spins_per_us_above_the_maximum_is_refused(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.spins_per_us = UINT32_MAX;
	assert_int_equal(harness_start(&h), PL011_EINVAL);
	h.config.spins_per_us = PL011_SPINS_PER_US_MAX + 1u;
	assert_int_equal(harness_start(&h), PL011_EINVAL);
	h.config.spins_per_us = PL011_SPINS_PER_US_MAX;
	assert_int_equal(harness_start(&h), 0);
	harness_teardown(&h);
}

static void test_a_very_slow_frame_keeps_its_length_in_deadlines(void **state)
{
	(void)state;
	/* 1 MHz UART clock, 2 baud, 8N1: one frame is 10 bits = 5 s, beyond 32-bit nanoseconds. */
	harness_setup(&h, 1000000u, 16);
	h.config.clock_hz = 1000000u;
	h.config.baud = 2u;
	assert_int_equal(harness_start(&h), 0);
	uint32_t deadline = pl011_backlog_deadline_us(&h.uart, 0);
	/* (0 + 16) frames of 5 s, plus a quarter, plus 1 ms. */
	assert_in_range(deadline, 100000000u, 100001000u + 10u);
	/* 2^32 frames of 5 s overflow 64-bit nanoseconds: the deadline saturates instead. */
	assert_int_equal(pl011_backlog_deadline_us(&h.uart, SIZE_MAX), PL011_WAIT_AUTO - 1u);
	/* 3,689,348,815 frames of 5 s are 2^64 + 1,290,448,384 ns: wrapped, a 1.6 s deadline. */
	assert_int_equal(pl011_backlog_deadline_us(&h.uart, (size_t)3689348815u - 16u),
			 PL011_WAIT_AUTO - 1u);
	harness_teardown(&h);
}

static void test_the_backlog_deadline_saturates_for_any_backlog(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	assert_int_equal(harness_start(&h), 0);
	uint32_t empty = pl011_backlog_deadline_us(&h.uart, 0);
	assert_true(pl011_backlog_deadline_us(&h.uart, SIZE_MAX) >= empty);
	assert_int_equal(pl011_backlog_deadline_us(&h.uart, SIZE_MAX), PL011_WAIT_AUTO - 1u);
	assert_true(pl011_backlog_deadline_us(&h.uart, (size_t)UINT32_MAX) >= empty);
	assert_int_equal(pl011_backlog_deadline_us(NULL, 5), 1000u);
	harness_teardown(&h);
}

static void test_a_read_with_wait_auto_waits_the_backlog_deadline_of_its_length(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	assert_int_equal(harness_start(&h), 0);
	uint8_t buffer[64];
	uint64_t start = pl011_model_now_ns(h.model);
	assert_int_equal(pl011_read(&h.uart, buffer, sizeof buffer, PL011_WAIT_AUTO), 0);
	uint64_t waited_us = (pl011_model_now_ns(h.model) - start) / 1000u;
	uint32_t deadline = pl011_backlog_deadline_us(&h.uart, sizeof buffer);
	/* Simulated time: the wait ends within one step of its bound, not after 2^32 us. */
	assert_in_range(waited_us, deadline, deadline + 10u);
	harness_teardown(&h);
}

static void test_a_panic_write_on_a_port_not_started_is_refused(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	assert_int_equal(pl011_write_panic(&h.uart, "x", 1), PL011_ESHUTDOWN);
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_write_panic(&h.uart, "ok", 2), 2);
	assert_true(pl011_shutdown(&h.uart, PL011_WAIT_AUTO) >= 0);
	assert_int_equal(pl011_write_panic(&h.uart, "x", 1), PL011_ESHUTDOWN);
	assert_int_equal(pl011_model_wire_len(h.model), 2);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_a_bound_near_2_to_the_32_ends_with_a_coarse_clock, &h),
		HARNESS_TEST(test_a_frozen_clock_falls_back_to_the_iteration_bound, &h),
		HARNESS_TEST(test_without_a_clock_a_bound_is_bound_times_spins_per_us_steps, &h),
		HARNESS_TEST(test_spins_per_us_above_the_maximum_is_refused, &h),
		HARNESS_TEST(test_a_very_slow_frame_keeps_its_length_in_deadlines, &h),
		HARNESS_TEST(test_the_backlog_deadline_saturates_for_any_backlog, &h),
		HARNESS_TEST(test_a_read_with_wait_auto_waits_the_backlog_deadline_of_its_length, &h),
		HARNESS_TEST(test_a_panic_write_on_a_port_not_started_is_refused, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
