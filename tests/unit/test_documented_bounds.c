/* Each bound of docs/waiting.md met exactly: the wait runs out no later (and no earlier) than the page says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "harness.h"

/*
 * Every case holds the line with CTS, so that the wait can only end at its bound, and
 * compares the simulated time the call took with the bound computed here from the page's
 * formula: the backlog deadline of q bytes is (q + depth) frames plus a quarter plus 1 ms,
 * "n frames" is n frame times (each rounded up to 1/256 us) rounded up to a microsecond. The slack is what one more wait
 * step costs (the harness's 2 us step, an FR read, a clock read).
 */
#define SLACK_US 5u

static struct harness h;

/* The page's frame time: the frame's bits at the baud pl011_get_baud reports, rounded up to
 * 1/256 us. */
static uint64_t frame_256ths_us(void)
{
	struct pl011_baud baud;
	assert_int_equal(pl011_get_baud(&h.uart, &baud), 0);
	uint64_t bits = 1u + (h.config.data_bits != 0 ? h.config.data_bits : 8u) +
			(h.config.parity != PL011_PARITY_NONE ? 1u : 0u) +
			(h.config.stop_bits == 2 ? 2u : 1u);
	return (bits * 256000000u + baud.actual_baud - 1u) / baud.actual_baud;
}

static uint32_t frames_us(uint64_t frames)
{
	return (uint32_t)((frames * frame_256ths_us() + 255u) / 256u);
}

static uint32_t backlog_us(uint64_t queued)
{
	uint32_t us = frames_us(queued + (uint64_t)pl011_get_fifo_depth(&h.uart));
	return us + us / 4u + 1000u;
}

static void start_held(enum pl011_tx_mode mode, unsigned depth)
{
	harness_setup(&h, 48000000u, depth);
	h.config.tx_mode = mode;
	h.config.flags = PL011_FLAG_RTS_CTS;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_cts(h.model, false);
}

static uint64_t now_us(void)
{
	return pl011_model_now_ns(h.model) / 1000u;
}

static void expect_took(uint64_t start_us, uint64_t documented_us, const char *what)
{
	uint64_t took = now_us() - start_us;
	print_message("%s: took %llu us, docs/waiting.md says %llu us\n", what,
		      (unsigned long long)took, (unsigned long long)documented_us);
	if (took > documented_us + SLACK_US || took + SLACK_US < documented_us)
		fail_msg("%s: %llu us against the documented %llu us", what,
			 (unsigned long long)took, (unsigned long long)documented_us);
}

static const enum pl011_tx_mode modes[] = {PL011_TX_POLLED, PL011_TX_MEASURED};

/* pl011_write: PL011_WAIT_AUTO = the backlog deadline of (queued + len). */
static void test_write_waits_its_backlog_deadline(void **state)
{
	(void)state;
	static uint8_t data[HARNESS_TX_RING + 64u];
	for (size_t m = 0; m < 2; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16) {
			start_held(modes[m], depth);
			uint64_t start = now_us();
			int n = pl011_write(&h.uart, data, sizeof data, PL011_WAIT_AUTO);
			assert_true(n >= 0 && (size_t)n < sizeof data);
			expect_took(start, backlog_us(sizeof data), "pl011_write");
			harness_teardown(&h);
		}
}

/* A held MEASURED port with 40 bytes accepted; returns how many the ring holds. */
static size_t start_held_with_backlog(unsigned depth)
{
	start_held(PL011_TX_MEASURED, depth);
	assert_int_equal(pl011_write(&h.uart, "0123456789012345678901234567890123456789", 40,
				     PL011_NO_WAIT),
			 40);
	return pl011_tx_queued(&h.uart);
}

/* pl011_flush: PL011_WAIT_AUTO = the backlog deadline of the ring. */
static void test_flush_waits_its_backlog_deadline(void **state)
{
	(void)state;
	for (unsigned depth = 16; depth <= 32; depth += 16) {
		size_t queued = start_held_with_backlog(depth);
		uint64_t start = now_us();
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), PL011_ETIMEDOUT);
		expect_took(start, backlog_us(queued), "pl011_flush");
		harness_teardown(&h);
	}
}

/* pl011_shutdown with CTS held: the drain (the backlog deadline of the ring), the FIFO (the
 * backlog deadline of one byte), BUSY after disabling (2 frames). */
static void test_shutdown_with_cts_held_waits_what_the_page_adds_up(void **state)
{
	(void)state;
	for (unsigned depth = 16; depth <= 32; depth += 16) {
		size_t queued = start_held_with_backlog(depth);
		uint64_t documented = backlog_us(queued) + backlog_us(1) + frames_us(2) + 1u;
		uint64_t start = now_us();
		assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), PL011_ESTALLED);
		expect_took(start, documented, "pl011_shutdown, CTS held");
		harness_teardown(&h);
	}
}

/* pl011_write_panic owning TX: the backlog deadline of (queued at the call + len). */
static void test_panic_waits_its_backlog_deadline(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		start_held(modes[m], 16);
		size_t queued = 0;
		if (modes[m] != PL011_TX_POLLED) {
			assert_int_equal(pl011_write(&h.uart, "01234567890123456789012345", 26,
						     PL011_NO_WAIT),
					 26);
			queued = pl011_tx_queued(&h.uart);
		} else {
			assert_int_equal(pl011_write(&h.uart, "0123456789012345", 16, PL011_NO_WAIT),
					 16);
		}
		uint64_t start = now_us();
		assert_int_equal(pl011_write_panic(&h.uart, "PANIC", 5), 0);
		expect_took(start, backlog_us(queued + 5u), "pl011_write_panic");
		harness_teardown(&h);
	}
}

/* ---- a panic that finds another panic owning TX ---- */

#define FIRST_PANIC_BYTES 40u
#define LONG_FIRST_PANIC_BYTES 200u
#define SECOND_PANIC_BYTES 5u

static size_t first_len;

static bool first_owns;
static int second_result;
static uint64_t first_start_us, second_start_us, second_end_us;

static uint32_t current_core(void *context)
{
	(void)context;
	return (uint32_t)cores_current();
}

/* Core 0 runs alone until its panic owns TX, then the cores alternate at every point. */
static void alternate_once_owned(void *context)
{
	(void)context;
	if (!first_owns && (h.uart.tx.owner & 1u) == 0)
		return;
	first_owns = true;
	cores_yield();
}

static void two_panics_body(int core, void *context)
{
	(void)context;
	static uint8_t first[LONG_FIRST_PANIC_BYTES];
	if (core == 0) {
		memset(first, 'f', sizeof first);
		first_start_us = now_us();
		(void)pl011_write_panic(&h.uart, first, first_len);
		return;
	}
	second_start_us = now_us();
	second_result = pl011_write_panic(&h.uart, "PANIC", SECOND_PANIC_BYTES);
	second_end_us = now_us();
}

static void run_two_panics(enum pl011_tx_mode mode, unsigned depth, bool held, size_t first_bytes)
{
	first_len = first_bytes;
	harness_setup(&h, 48000000u, depth);
	h.config.tx_mode = mode;
	h.config.flags = PL011_FLAG_RTS_CTS;
	h.config.core_id = current_core;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_cts(h.model, !held);
	first_owns = false;
	second_result = -100;
	struct cores_plan plan = {.first_slice = UINT64_MAX / 2u, .slice = UINT64_MAX / 2u,
				  .at_point = alternate_once_owned};
	cores_run(&plan, two_panics_body, NULL);
	assert_true(first_owns);
}

/*
 * The second panic waits for the first one's deadline (the backlog deadline of its bytes),
 * then the ownership wait for its last pass, and then has a deadline of its own: at most
 * D_first + depth frames + 100 us + D_second from its call. With CTS held both deadlines run
 * out, so it also takes at least what is left of the first one's plus all of its own (it
 * spent its own deadline waiting for the first panic, and returned at once beside it).
 */
static void test_panic_waits_for_another_panic_within_that_ones_deadline(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16) {
			run_two_panics(modes[m], depth, true, FIRST_PANIC_BYTES);
			uint64_t first_deadline = backlog_us(FIRST_PANIC_BYTES);
			uint64_t own = backlog_us(SECOND_PANIC_BYTES);
			uint64_t documented = first_deadline + frames_us(depth) + 100u + own;
			uint64_t took = second_end_us - second_start_us;
			uint64_t least = first_start_us + first_deadline - second_start_us + own;
			print_message("panic behind a panic, mode %d, FIFO %u: took %llu us, at "
				      "least %llu, docs/waiting.md says at most %llu us\n",
				      modes[m], depth, (unsigned long long)took,
				      (unsigned long long)least, (unsigned long long)documented);
			assert_int_equal(second_result, 0);
			assert_true(took <= documented + SLACK_US);
			assert_true(took + SLACK_US >= least);
			harness_teardown(&h);
		}
}

/* The line moving: the second panic sends all its bytes after the first one's (it returned 0
 * of 5 at 115,200 behind a 200-byte panic: review finding F4). */
static void test_panic_behind_a_longer_panic_sends_all_its_bytes(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		run_two_panics(modes[m], 16, false, LONG_FIRST_PANIC_BYTES);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		print_message("panic behind a panic, mode %d, line moving: returned %d, %zu on the "
			      "wire\n",
			      modes[m], second_result, pl011_model_wire_len(h.model));
		assert_int_equal(second_result, (int)SECOND_PANIC_BYTES);
		assert_int_equal(pl011_model_wire_len(h.model),
				 LONG_FIRST_PANIC_BYTES + SECOND_PANIC_BYTES);
		harness_teardown(&h);
	}
}

/* pl011_read: PL011_WAIT_AUTO = the backlog deadline of len, for the first byte. */
static void test_read_waits_its_backlog_deadline(void **state)
{
	(void)state;
	start_held(PL011_TX_POLLED, 16);
	uint8_t buffer[10];
	uint64_t start = now_us();
	assert_int_equal(pl011_read(&h.uart, buffer, sizeof buffer, PL011_WAIT_AUTO), 0);
	expect_took(start, backlog_us(sizeof buffer), "pl011_read");
	harness_teardown(&h);
}

/* pl011_send_break: the drain, then max(duration, 2 frames). */
static void test_send_break_holds_the_line_its_duration(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	assert_int_equal(harness_start(&h), 0);
	uint64_t start = now_us();
	assert_int_equal(pl011_send_break(&h.uart, 1u), 0);
	expect_took(start, frames_us(2), "pl011_send_break, 1 us asked");
	start = now_us();
	assert_int_equal(pl011_send_break(&h.uart, 5000u), 0);
	expect_took(start, 5000u, "pl011_send_break, 5 ms asked");
	harness_teardown(&h);
}

/* pl011_set_line: PL011_WAIT_AUTO = the backlog deadline of the ring for the drain (CTS held:
 * it runs out, nothing changed); on a drained port with flow control the switch adds its
 * 2 frames of RTS held off (the partner's character in flight). */
static void test_set_line_waits_its_backlog_deadline_then_two_frames(void **state)
{
	(void)state;
	const struct pl011_line_config line = {.baud = 230400, .data_bits = 8, .stop_bits = 1,
					       .flow_control = true};
	for (unsigned depth = 16; depth <= 32; depth += 16) {
		size_t queued = start_held_with_backlog(depth);
		uint64_t start = now_us();
		assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), PL011_ETIMEDOUT);
		expect_took(start, backlog_us(queued), "pl011_set_line, CTS held");
		pl011_model_set_cts(h.model, true);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		start = now_us();
		uint64_t documented = frames_us(2) + 1u; /* at the old line, 115,200 8N1 */
		assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), 0);
		expect_took(start, documented, "pl011_set_line, drained, flow control");
		harness_teardown(&h);
	}
}

/* RS-485 (docs/waiting.md, "RS-485"): a timer that never fires, so DE stays asserted until
 * shutdown releases it. */
static void timer_never(uint32_t delay_us, void *context)
{
	(void)delay_us;
	(void)context;
}

static void start_rs485(const struct pl011_rs485 *rs485)
{
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_HYBRID;
	h.config.event_timer = timer_never;
	h.config.rs485 = rs485;
	assert_int_equal(harness_start(&h), 0);
}

/* The before-delay: a write to an idle line asserts DE and waits delay_before_us + 1 before
 * its first DR write; the largest delay, PL011_RS485_DELAY_MAX_US. */
static void test_rs485_before_delay_waits_its_bound(void **state)
{
	(void)state;
	static const struct pl011_rs485 rs485 = {.driver = &pl011_rs485_driver,
						 .delay_before_us = PL011_RS485_DELAY_MAX_US};
	start_rs485(&rs485);
	uint64_t start = now_us();
	assert_int_equal(pl011_write(&h.uart, "a", 1, PL011_NO_WAIT), 1);
	expect_took(start, PL011_RS485_DELAY_MAX_US + 1u, "rs485 before-delay");
	pl011_model_advance(h.model, 2u * pl011_model_frame_ns(h.model));
	assert_true(pl011_model_wire_start_ns(h.model, 0) / 1000u >= start + PL011_RS485_DELAY_MAX_US);
	harness_teardown(&h);
}

/* Shutdown with DE asserted and the line drained: the after-delay + 1, then DE released. */
static void test_rs485_shutdown_waits_the_after_delay(void **state)
{
	(void)state;
	static const struct pl011_rs485 rs485 = {.driver = &pl011_rs485_driver,
						 .delay_after_us = PL011_RS485_DELAY_MAX_US};
	start_rs485(&rs485);
	assert_int_equal(pl011_write(&h.uart, "a", 1, PL011_NO_WAIT), 1);
	pl011_model_advance(h.model, 4u * pl011_model_frame_ns(h.model));
	assert_false(pl011_model_rts(h.model)); /* DE asserted: pin high */
	uint64_t start = now_us();
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	expect_took(start, PL011_RS485_DELAY_MAX_US + 1u, "rs485 shutdown after-delay");
	assert_true(pl011_model_rts(h.model)); /* released: pin low */
	harness_teardown(&h);
}

/* pl011_set_line changing RS-485 with DE still asserted: the old after-delay + 1 (then the
 * switch's own register accesses and its two-frame BUSY wait, which the drained line ends at
 * once), and DE released under the new settings. */
static void test_rs485_set_line_waits_the_old_after_delay(void **state)
{
	(void)state;
	static const struct pl011_rs485 rs485 = {.driver = &pl011_rs485_driver,
						 .delay_after_us = PL011_RS485_DELAY_MAX_US};
	static const struct pl011_rs485 low = {.driver = &pl011_rs485_driver,
					       .flags = PL011_RS485_DE_LOW};
	start_rs485(&rs485);
	assert_int_equal(pl011_write(&h.uart, "a", 1, PL011_NO_WAIT), 1);
	pl011_model_advance(h.model, 4u * pl011_model_frame_ns(h.model));
	assert_false(pl011_model_rts(h.model)); /* DE asserted: pin high */
	struct pl011_line_config line;
	assert_int_equal(pl011_get_line(&h.uart, &line), 0);
	line.rs485 = &low;
	uint64_t start = now_us();
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), 0);
	expect_took(start, PL011_RS485_DELAY_MAX_US + 1u, "rs485 set_line after-delay");
	assert_false(pl011_model_rts(h.model)); /* DE_LOW released: pin high */
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_write_waits_its_backlog_deadline, &h),
		HARNESS_TEST(test_flush_waits_its_backlog_deadline, &h),
		HARNESS_TEST(test_shutdown_with_cts_held_waits_what_the_page_adds_up, &h),
		HARNESS_TEST(test_panic_waits_its_backlog_deadline, &h),
		HARNESS_TEST(test_panic_waits_for_another_panic_within_that_ones_deadline, &h),
		HARNESS_TEST(test_panic_behind_a_longer_panic_sends_all_its_bytes, &h),
		HARNESS_TEST(test_read_waits_its_backlog_deadline, &h),
		HARNESS_TEST(test_send_break_holds_the_line_its_duration, &h),
		HARNESS_TEST(test_set_line_waits_its_backlog_deadline_then_two_frames, &h),
		HARNESS_TEST(test_rs485_before_delay_waits_its_bound, &h),
		HARNESS_TEST(test_rs485_shutdown_waits_the_after_delay, &h),
		HARNESS_TEST(test_rs485_set_line_waits_the_old_after_delay, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
