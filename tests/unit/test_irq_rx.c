/* Interrupt-driven RX on the model: error accounting, overrun, RT, loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

static struct harness h;
static uint8_t data[1u << 20];
static uint8_t received[1u << 20];

static void start(enum pl011_rx_mode mode, uint64_t latency_ns)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.irq_latency_ns = latency_ns;
	harness_setup_with(&h, &model_config);
	h.config.rx_mode = mode;
	assert_int_equal(harness_start(&h), 0);
}

static size_t drain(uint8_t *out, size_t max)
{
	return harness_read_all(&h, out, max);
}

static void test_irq_rx_errors_on_known_characters_are_counted_exactly(void **state)
{
	(void)state;
	for (int mode = PL011_RX_LOW_LATENCY; mode <= PL011_RX_FEW_IRQS; mode++) {
		start((enum pl011_rx_mode)mode, 1000u);
		uint64_t frame = pl011_model_frame_ns(h.model);
		uint64_t t = pl011_model_now_ns(h.model) + frame;
		/* 100 characters, 'A' + i % 26; errors on chosen ones. */
		unsigned framing = 0, parity = 0, breaks = 0;
		size_t good = 0;
		uint8_t expected[100];
		for (unsigned i = 0; i < 100; i++) {
			unsigned errors = 0;
			if (i % 17 == 3) {
				errors = PL011_DR_FE;
				framing++;
			} else if (i % 23 == 5) {
				errors = PL011_DR_PE;
				parity++;
			} else if (i == 50 || i == 90) {
				errors = PL011_DR_BE | PL011_DR_FE; /* a break also fails the stop bit */
				breaks++;
			} else {
				expected[good++] = (uint8_t)('A' + i % 26);
			}
			pl011_model_rx_inject(h.model, (uint8_t)('A' + i % 26), errors, t);
			t += frame;
		}
		pl011_model_advance_to(h.model, t + 64u * pl011_model_bit_ns(h.model));
		size_t got = drain(received, sizeof received);
		assert_int_equal(got, good);
		assert_memory_equal(received, expected, good);
		struct pl011_stats stats;
		pl011_get_stats(&h.uart, &stats);
		assert_int_equal(stats.rx_framing, framing);
		assert_int_equal(stats.rx_parity, parity);
		assert_int_equal(stats.rx_break, breaks);
		assert_int_equal(stats.rx_overrun, 0);
		assert_int_equal(stats.rx_bytes, good);
		harness_teardown(&h);
	}
}

/* 16-deep FIFO at 115,200: trigger 1/8 leaves 14 characters (1.2 ms) of room. */
static void run_overrun_case(uint64_t latency_ns, bool expect_overrun)
{
	start(PL011_RX_LOW_LATENCY, latency_ns);
	size_t total = 3000;
	harness_fill_random(data, total, 11u);
	/* Bursts of 40 characters with gaps, so a late interrupt finds a full FIFO. */
	uint64_t t = pl011_model_now_ns(h.model);
	for (size_t i = 0; i < total; i += 40) {
		t = pl011_model_rx_inject_stream(h.model, data + i, 40, t) + 10000000u;
	}
	size_t got = 0;
	while (pl011_model_now_ns(h.model) < t) {
		pl011_model_advance(h.model, 1000000u);
		got += drain(received + got, sizeof received - got);
	}
	struct pl011_stats stats;
	pl011_get_stats(&h.uart, &stats);
	uint64_t lost = pl011_model_counters(h.model)->rx_overruns;
	/* Every character is either received or lost to an overrun: nothing else. */
	assert_int_equal(got + lost, total);
	if (expect_overrun) {
		assert_true(lost > 0);
		assert_true(stats.rx_overrun > 0);
	} else {
		assert_int_equal(lost, 0);
		assert_int_equal(stats.rx_overrun, 0);
		assert_memory_equal(received, data, total);
	}
	harness_teardown(&h);
}

static void test_irq_rx_overrun_only_when_latency_exceeds_fifo_budget(void **state)
{
	(void)state;
	run_overrun_case(200000u, false);   /* 0.2 ms < 1.2 ms of room */
	run_overrun_case(3000000u, true);   /* 3 ms > 1.2 ms */
}

static void test_irq_rx_timeout_delivers_a_message_below_the_trigger(void **state)
{
	(void)state;
	start(PL011_RX_FEW_IRQS, 1000u); /* trigger 3/4 = 12 characters */
	const char *message = "hello";
	uint64_t last = pl011_model_rx_inject_stream(h.model, (const uint8_t *)message, 5,
						      pl011_model_now_ns(h.model));
	/* Before 32 bit periods of silence nothing is delivered... */
	pl011_model_advance_to(h.model, last + 20u * pl011_model_bit_ns(h.model));
	assert_int_equal(drain(received, sizeof received), 0);
	/* ...after them, all of it, in one read. */
	pl011_model_advance_to(h.model, last + 40u * pl011_model_bit_ns(h.model));
	assert_int_equal(pl011_read(&h.uart, received, sizeof received, PL011_NO_WAIT), 5);
	assert_memory_equal(received, message, 5);
	struct pl011_stats stats;
	pl011_get_stats(&h.uart, &stats);
	assert_true(stats.irq_rt >= 1);
	assert_int_equal(stats.irq_rx, 0);
	harness_teardown(&h);
}

static void test_irq_rx_callback_sees_each_drain(void **state);

static size_t callback_calls;
static size_t callback_last_available;

static void on_receive(struct pl011 *uart, uint32_t events, void *context)
{
	(void)context;
	assert_int_equal(events, PL011_EVENT_RX_DATA);
	callback_calls++;
	callback_last_available = (size_t)pl011_rx_available(uart);
}

static void test_irq_rx_callback_sees_each_drain(void **state)
{
	(void)state;
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	harness_setup_with(&h, &model_config);
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.event_mask = PL011_EVENT_RX_DATA;
	h.config.event = on_receive;
	h.config.event_driver = &pl011_event_driver;
	callback_calls = 0;
	assert_int_equal(harness_start(&h), 0);
	uint64_t last = pl011_model_rx_inject_stream(h.model, (const uint8_t *)"abc", 3,
						      pl011_model_now_ns(h.model));
	pl011_model_advance_to(h.model, last + 40u * pl011_model_bit_ns(h.model));
	assert_true(callback_calls >= 1);
	assert_int_equal(callback_last_available, 3);
	harness_teardown(&h);
}

static void test_irq_loopback_talks_to_itself_1mib_without_loss(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_ADAPTIVE};
	for (size_t m = 0; m < 2; m++) {
		struct pl011_model_config model_config;
		pl011_model_default_config(&model_config);
		model_config.base = HARNESS_BASE;
		harness_setup_with(&h, &model_config);
		h.config.baud = 3000000u;
		h.config.flags = PL011_FLAG_LOOPBACK;
		h.config.tx_mode = modes[m];
		h.config.rx_mode = PL011_RX_FEW_IRQS;
		assert_int_equal(harness_start(&h), 0);
		size_t total = 1u << 20;
		harness_fill_random(data, total, 77u);
		size_t sent = 0, got = 0;
		while (got < total) {
			int n = pl011_write(&h.uart, data + sent, total - sent, PL011_NO_WAIT);
			assert_true(n >= 0);
			sent += (size_t)n;
			pl011_model_advance(h.model, 200000u);
			got += drain(received + got, total - got);
			assert_true(pl011_model_now_ns(h.model) < 10000000000ull);
		}
		assert_memory_equal(received, data, total);
		struct pl011_stats stats;
		pl011_get_stats(&h.uart, &stats);
		assert_int_equal(stats.rx_discarded + stats.rx_overrun + stats.rx_framing, 0);
		assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
		harness_teardown(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_irq_rx_errors_on_known_characters_are_counted_exactly, &h),
		HARNESS_TEST(test_irq_rx_overrun_only_when_latency_exceeds_fifo_budget, &h),
		HARNESS_TEST(test_irq_rx_timeout_delivers_a_message_below_the_trigger, &h),
		HARNESS_TEST(test_irq_rx_callback_sees_each_drain, &h),
		HARNESS_TEST(test_irq_loopback_talks_to_itself_1mib_without_loss, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
