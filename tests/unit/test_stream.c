/* lib/pl011_stream.c on the model: what can be read or written now, reading a message or a
 * line within a bound, discarding input; in RX_POLLED and an interrupt RX mode alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static struct harness h;

static const enum pl011_rx_mode rx_modes[] = {PL011_RX_POLLED, PL011_RX_LOW_LATENCY};

static void start(enum pl011_rx_mode rx_mode, enum pl011_tx_mode tx_mode)
{
	harness_setup(&h, 24000000u, 16u);
	h.config.rx_mode = rx_mode;
	h.config.tx_mode = tx_mode;
	assert_int_equal(harness_start(&h), 0);
}

/* The bytes arrive one frame apart from now; returns when the last one is in. */
static uint64_t send(const char *text)
{
	return pl011_model_rx_inject_stream(h.model, (const uint8_t *)text, strlen(text),
					    pl011_model_now_ns(h.model));
}

/* ... and the receive timeout (32 bit periods after the last) has moved them to the ring. */
static void arrive(const char *text)
{
	pl011_model_advance_to(h.model, send(text) + 5u * pl011_model_frame_ns(h.model));
}

static void test_calls_refuse_null_and_a_port_not_started(void **state)
{
	(void)state;
	uint8_t byte;
	size_t got = 99;
	assert_int_equal(pl011_rx_available(NULL), PL011_EINVAL);
	assert_int_equal(pl011_tx_free(NULL), PL011_EINVAL);
	assert_int_equal(pl011_discard_input(NULL), PL011_EINVAL);
	assert_int_equal(pl011_read_exact(NULL, &byte, 1, 0, &got), PL011_EINVAL);
	assert_int_equal(got, 0);
	assert_int_equal(pl011_read_until(NULL, &byte, 1, '\n', 0, NULL), PL011_EINVAL);
	harness_setup(&h, 24000000u, 16u);
	assert_int_equal(pl011_rx_available(&h.uart), PL011_ESHUTDOWN);
	assert_int_equal(pl011_tx_free(&h.uart), PL011_ESHUTDOWN);
	assert_int_equal(pl011_discard_input(&h.uart), PL011_ESHUTDOWN);
	assert_int_equal(pl011_read_exact(&h.uart, &byte, 1, 0, NULL), PL011_ESHUTDOWN);
	assert_int_equal(pl011_read_until(&h.uart, &byte, 1, '\n', 0, NULL), PL011_ESHUTDOWN);
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_read_exact(&h.uart, NULL, 1, 0, NULL), PL011_EINVAL);
	harness_teardown(&h);
}

static void test_rx_available_counts_without_consuming(void **state)
{
	(void)state;
	/* Interrupt mode: the ring's count, and a read takes what it said. */
	start(PL011_RX_LOW_LATENCY, PL011_TX_POLLED);
	assert_int_equal(pl011_rx_available(&h.uart), 0);
	arrive("hello");
	assert_int_equal(pl011_rx_available(&h.uart), 5);
	assert_int_equal(pl011_rx_available(&h.uart), 5);
	char text[8] = {0};
	assert_int_equal(pl011_read(&h.uart, text, 2, PL011_NO_WAIT), 2);
	assert_int_equal(pl011_rx_available(&h.uart), 3);
	harness_teardown(&h);
	/* Polled: FR tells empty, some, or full. */
	start(PL011_RX_POLLED, PL011_TX_POLLED);
	assert_int_equal(pl011_rx_available(&h.uart), 0);
	arrive("ab");
	assert_int_equal(pl011_rx_available(&h.uart), 1);
	arrive("0123456789abcdef");
	assert_int_equal(pl011_rx_available(&h.uart), 16);
	assert_int_equal(pl011_read(&h.uart, text, 2, PL011_NO_WAIT), 2);
	assert_memory_equal(text, "ab", 2);
	harness_teardown(&h);
}

static void test_tx_free_is_the_rings_room_or_the_fifos(void **state)
{
	(void)state;
	start(PL011_RX_POLLED, PL011_TX_HALF_FIFO);
	assert_int_equal(pl011_tx_free(&h.uart), HARNESS_TX_RING);
	static uint8_t block[HARNESS_TX_RING + 64];
	memset(block, 'x', sizeof block);
	int n = pl011_write(&h.uart, block, sizeof block, PL011_NO_WAIT);
	assert_true(n > 0);
	assert_int_equal((size_t)pl011_tx_free(&h.uart) + pl011_tx_queued(&h.uart),
			 HARNESS_TX_RING);
	assert_int_equal(pl011_tx_free(&h.uart), 0);
	harness_teardown(&h);
	start(PL011_RX_POLLED, PL011_TX_POLLED);
	assert_int_equal(pl011_tx_free(&h.uart), 16);
	assert_int_equal(pl011_write(&h.uart, block, 20, PL011_NO_WAIT) > 0, 1);
	int after = pl011_tx_free(&h.uart);
	assert_true(after == 0 || after == 1);
	harness_teardown(&h);
}

static void test_read_exact_waits_for_all_or_says_timed_out(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		start(rx_modes[m], PL011_TX_POLLED);
		/* Ten bytes over ten frames: a plain read would return the first few. */
		(void)send("0123456789");
		char text[16] = {0};
		size_t got = 0;
		assert_int_equal(pl011_read_exact(&h.uart, text, 10, PL011_WAIT_AUTO, &got), 10);
		assert_int_equal(got, 10);
		assert_memory_equal(text, "0123456789", 10);
		/* Four of six within the bound: ETIMEDOUT, the four stored and counted. */
		arrive("wxyz");
		memset(text, 0, sizeof text);
		got = 0;
		uint64_t before = pl011_model_now_ns(h.model);
		assert_int_equal(pl011_read_exact(&h.uart, text, 6, 2000u, &got), PL011_ETIMEDOUT);
		assert_true(pl011_model_now_ns(h.model) - before >= 2000000u);
		assert_int_equal(got, 4);
		assert_memory_equal(text, "wxyz", 4);
		/* No wait: all that is there is not all that was asked. */
		arrive("ab");
		assert_int_equal(pl011_read_exact(&h.uart, text, 3, PL011_NO_WAIT, &got),
				 PL011_ETIMEDOUT);
		assert_int_equal(got, 2);
		assert_int_equal(pl011_read_exact(&h.uart, text, 0, PL011_NO_WAIT, &got), 0);
		harness_teardown(&h);
	}
}

static void test_read_until_stops_at_the_delimiter(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		start(rx_modes[m], PL011_TX_POLLED);
		arrive("ab\ncd\n");
		char line[16] = {0};
		size_t got = 0;
		assert_int_equal(pl011_read_until(&h.uart, line, sizeof line, '\n', 1000u, &got), 3);
		assert_memory_equal(line, "ab\n", 3);
		assert_int_equal(got, 3);
		/* Nothing after the delimiter was taken. */
		assert_int_equal(pl011_read_until(&h.uart, line, sizeof line, '\n', 1000u, NULL), 3);
		assert_memory_equal(line, "cd\n", 3);
		/* A buffer that fills first: len bytes, no delimiter, the rest left. */
		arrive("efgh\n");
		assert_int_equal(pl011_read_until(&h.uart, line, 2, '\n', 1000u, NULL), 2);
		assert_memory_equal(line, "ef", 2);
		assert_int_equal(pl011_read_until(&h.uart, line, sizeof line, '\n', 1000u, NULL), 3);
		assert_memory_equal(line, "gh\n", 3);
		/* No delimiter within the bound. */
		arrive("ij");
		got = 0;
		assert_int_equal(pl011_read_until(&h.uart, line, sizeof line, '\n', 3000u, &got),
				 PL011_ETIMEDOUT);
		assert_int_equal(got, 2);
		assert_memory_equal(line, "ij", 2);
		harness_teardown(&h);
	}
}

static void test_discard_input_throws_away_what_was_received(void **state)
{
	(void)state;
	for (size_t m = 0; m < 2; m++) {
		start(rx_modes[m], PL011_TX_POLLED);
		assert_int_equal(pl011_discard_input(&h.uart), 0);
		arrive("0123456789");
		assert_int_equal(pl011_discard_input(&h.uart), 10);
		assert_int_equal(pl011_rx_available(&h.uart), 0);
		char text[4];
		assert_int_equal(pl011_read(&h.uart, text, sizeof text, PL011_NO_WAIT), 0);
		/* Later input is read as usual. */
		arrive("k");
		assert_int_equal(pl011_read(&h.uart, text, sizeof text, PL011_NO_WAIT), 1);
		assert_int_equal(text[0], 'k');
		harness_teardown(&h);
	}
}

/* A sender that never stops: the discard ends after the ring and one FIFO. */
static void test_discard_input_ends_under_a_sender_that_keeps_sending(void **state)
{
	(void)state;
	start(PL011_RX_POLLED, PL011_TX_POLLED);
	static uint8_t flood[4096];
	memset(flood, 'f', sizeof flood);
	(void)pl011_model_rx_inject_stream(h.model, flood, sizeof flood,
					   pl011_model_now_ns(h.model));
	pl011_model_advance(h.model, 20u * pl011_model_frame_ns(h.model));
	int discarded = pl011_discard_input(&h.uart);
	assert_true(discarded >= 1 && discarded <= 16);
	harness_teardown(&h);
}

/* A ring holding more than a FIFO's worth, and the FIFO full behind it (the RX interrupt
 * paused on a full ring): the discard empties both, all of it counted. */
static void test_discard_input_empties_a_full_ring_and_the_fifo(void **state)
{
	(void)state;
	start(PL011_RX_LOW_LATENCY, PL011_TX_POLLED);
	size_t ring = h.uart.rx.ring.size;
	size_t depth = h.uart.line.fifo_depth;
	assert_true(ring > 2u * depth);
	static uint8_t burst[8192];
	memset(burst, 'b', sizeof burst);
	assert_true(ring + depth <= sizeof burst);
	uint64_t last = pl011_model_rx_inject_stream(h.model, burst, ring + depth,
						     pl011_model_now_ns(h.model));
	pl011_model_advance_to(h.model, last + 40u * pl011_model_frame_ns(h.model));
	assert_int_equal(pl011_rx_available(&h.uart), ring);
	assert_int_equal(pl011_discard_input(&h.uart), (int)(ring + depth));
	assert_int_equal(pl011_rx_available(&h.uart), 0);
	assert_int_equal(pl011_model_rx_level(h.model), 0);
	harness_teardown(&h);
}

/* pl011_early_write: no instance; a UART nobody enabled is refused, a stalled one is bounded. */
static void test_early_write_needs_no_instance_and_is_bounded(void **state)
{
	(void)state;
	harness_setup(&h, 24000000u, 16u);
	assert_int_equal(pl011_early_write(0, "x", 1), PL011_EINVAL);
	assert_int_equal(pl011_early_write(HARNESS_BASE, NULL, 1), PL011_EINVAL);
	assert_int_equal(pl011_early_write(HARNESS_BASE, "x", 1), PL011_ESHUTDOWN);
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_early_write(HARNESS_BASE, "a\nb", 3), 3);
	pl011_model_advance(h.model, 10u * pl011_model_frame_ns(h.model));
	uint8_t wire[64];
	assert_int_equal(harness_wire(&h, wire, sizeof wire), 4);
	assert_memory_equal(wire, "a\r\nb", 4);
	/* A transmitter that never sends: the FIFO's 16 go, then the wait runs out. */
	pl011_model_set_tx_stalled(h.model, true);
	static const char text[] = "0123456789abcdefghij";
	assert_int_equal(pl011_early_write(HARNESS_BASE, text, 20), 16);
	assert_int_equal(pl011_early_write(HARNESS_BASE, text, 20), PL011_ETIMEDOUT);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_calls_refuse_null_and_a_port_not_started,
					  harness_teardown_fixture),
		cmocka_unit_test(test_rx_available_counts_without_consuming),
		cmocka_unit_test(test_tx_free_is_the_rings_room_or_the_fifos),
		cmocka_unit_test(test_read_exact_waits_for_all_or_says_timed_out),
		cmocka_unit_test(test_read_until_stops_at_the_delimiter),
		cmocka_unit_test(test_discard_input_throws_away_what_was_received),
		cmocka_unit_test(test_discard_input_ends_under_a_sender_that_keeps_sending),
		cmocka_unit_test(test_discard_input_empties_a_full_ring_and_the_fifo),
		cmocka_unit_test_teardown(test_early_write_needs_no_instance_and_is_bounded,
					  harness_teardown_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
