/* Lossless RX on the model: back-pressure at a full ring, overruns counted, re-init and shutdown. */
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

static size_t drain(uint8_t *out, size_t max)
{
	size_t got = 0;
	for (;;) {
		int n = pl011_read(&h.uart, out + got, max - got, PL011_NO_WAIT);
		assert_true(n >= 0);
		if (n == 0)
			return got;
		got += (size_t)n;
	}
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

/* The board started the console polled; bytes that arrive before the example's pl011_init
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
		assert_int_equal(pl011_init(&h.uart, &h.config), 0);
		pl011_model_advance(h.model, 1000000u);
		assert_int_equal(drain(received, sizeof received), 5);
		assert_memory_equal(received, "hello", 5);
		harness_teardown(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_rx_full_ring_leaves_the_rest_in_the_fifo, &h),
		HARNESS_TEST(test_rx_trailing_overrun_is_counted_in_every_mode, &h),
		HARNESS_TEST(test_rx_reinit_of_a_running_port_keeps_what_arrived, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
