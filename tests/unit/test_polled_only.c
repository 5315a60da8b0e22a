/* PL011_INTERRUPTS 0 (mk/host.mk builds this program and the driver so): a polled port does
 * everything a polled port does, and every interrupt feature is refused with PL011_EINVAL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

/* Built with PL011_INTERRUPTS 1 (every other flavour, tools/coverage.py and tools/mutate.py
 * build every program with the default), the same configs check the other side: they start. */

static struct harness h;

static size_t wire_text(char *out, size_t max)
{
	size_t len = harness_wire(&h, (uint8_t *)out, max - 1u);
	out[len < max ? len : max - 1u] = '\0';
	return len;
}

/* Init, write, read, line change, panic write, restart and shutdown, with IMSC 0 throughout
 * (the harness aborts if the model ever raises the interrupt). */
static void test_a_polled_port_does_it_all(void **state)
{
	(void)state;
	harness_setup(&h, 24000000u, 16);
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_write(&h.uart, "hello, ", 7, PL011_WAIT_AUTO), 7);
	assert_int_equal(pl011_write_panic(&h.uart, "panic", 5), 5);
	assert_int_equal(pl011_model_peek(h.model, PL011_IMSC), 0);

	static const uint8_t sent[] = "ok?";
	uint64_t now = pl011_model_now_ns(h.model);
	(void)pl011_model_rx_inject_stream(h.model, sent, 3, now);
	uint8_t got[3];
	size_t n = 0;
	while (n < 3) {
		int r = pl011_read(&h.uart, got + n, 3 - n, PL011_WAIT_AUTO);
		assert_true(r > 0);
		n += (size_t)r;
	}
	assert_memory_equal(got, sent, 3);
	assert_int_equal(pl011_getc(&h.uart), PL011_EAGAIN);

	struct pl011_line_config line = {.baud = 9600, .data_bits = 8, .stop_bits = 1};
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), 0);
	struct pl011_baud baud;
	assert_int_equal(pl011_get_baud(&h.uart, &baud), 0);
	assert_int_equal(baud.ibrd, 156); /* 24 MHz / (16 x 9600) = 156.25 */
	assert_int_equal(pl011_write(&h.uart, "A", 1, PL011_WAIT_AUTO), 1);
	assert_int_equal(harness_restart(&h), 0);
	assert_int_equal(pl011_write(&h.uart, "B", 1, PL011_WAIT_AUTO), 1);
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	assert_int_equal(pl011_model_peek(h.model, PL011_IMSC), 0);

	char wire[32];
	assert_int_equal(wire_text(wire, sizeof wire), 14);
	assert_string_equal(wire, "hello, panicAB");
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.tx_bytes, 14);
	assert_int_equal(stats.tx_discarded, 0);
	/* The panic's bytes and the restart's carry-over of counters, as in the full build. */
	assert_int_equal(pl011_write(&h.uart, "x", 1, PL011_NO_WAIT), PL011_ESHUTDOWN);
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_write(&h.uart, "C", 1, PL011_WAIT_AUTO), 1);
	harness_teardown(&h);
}

/* A shutdown with bytes the FIFO cannot send (CTS held off) reports them and stops within its
 * bound; the next init starts the port again. */
static void test_a_stalled_shutdown_reports_and_the_port_starts_again(void **state)
{
	(void)state;
	harness_setup(&h, 24000000u, 16);
	h.config.flags = PL011_FLAG_RTS_CTS;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_cts(h.model, false);
	uint8_t bytes[8];
	harness_fill_random(bytes, sizeof bytes, 3u);
	assert_int_equal(pl011_write(&h.uart, bytes, sizeof bytes, PL011_NO_WAIT), 8);
	assert_int_equal(pl011_shutdown(&h.uart, 0), PL011_ESTALLED);
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.tx_fifo_abandoned, 1);
	pl011_model_set_cts(h.model, true);
	h.config.flags = 0;
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	harness_teardown(&h);
}

/* A restart of a polled port counts what its RX FIFO held as a shutdown does: discarded (and
 * its errors), never as bytes received; the same in both builds. */
static void test_a_restart_counts_the_fifo_as_a_shutdown_does(void **state)
{
	(void)state;
	harness_setup(&h, 24000000u, 16);
	assert_int_equal(harness_start(&h), 0);
	for (int round = 0; round < 2; round++) {
		uint64_t frame = pl011_model_frame_ns(h.model);
		uint64_t now = pl011_model_now_ns(h.model);
		for (unsigned i = 0; i < 5; i++)
			pl011_model_rx_inject(h.model, (uint8_t)('a' + i), 0, now + (i + 1u) * frame);
		pl011_model_rx_inject(h.model, 'z', PL011_DR_FE, now + 6u * frame);
		pl011_model_advance(h.model, 7u * frame);
		assert_int_equal(pl011_model_rx_level(h.model), 6);
		struct pl011_stats before, after;
		assert_int_equal(pl011_get_stats(&h.uart, &before), 0);
		if (round == 0)
			assert_int_equal(harness_restart(&h), 0);
		else
			assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
		assert_int_equal(pl011_get_stats(&h.uart, &after), 0);
		assert_int_equal(after.rx_discarded - before.rx_discarded, 5);
		assert_int_equal(after.rx_framing - before.rx_framing, 1);
		assert_int_equal(after.rx_bytes, before.rx_bytes);
	}
	harness_teardown(&h);
}

struct refused {
	const char *label;
	void (*edit)(struct pl011_config *config);
	const char *field; /* the polled-only build's fault */
};

static struct pl011_rs485 bus = {.driver = NULL};

static void edit_tx_half_fifo(struct pl011_config *c) { c->tx_mode = PL011_TX_HALF_FIFO; }
static void edit_tx_measured(struct pl011_config *c) { c->tx_mode = PL011_TX_MEASURED; }
static void edit_rx_low_latency(struct pl011_config *c) { c->rx_mode = PL011_RX_LOW_LATENCY; }
static void edit_rx_few_irqs(struct pl011_config *c) { c->rx_mode = PL011_RX_FEW_IRQS; }
static void edit_events(struct pl011_config *c) { c->event_mask = PL011_EVENT_RX_DATA; }
static void edit_rs485(struct pl011_config *c) { c->rs485 = &bus; }

static const struct refused refused[] = {
	{"tx HALF_FIFO", edit_tx_half_fifo, "tx_mode"},
	{"tx MEASURED", edit_tx_measured, "tx_mode"},
	{"rx LOW_LATENCY", edit_rx_low_latency, "rx_mode"},
	{"rx FEW_IRQS", edit_rx_few_irqs, "rx_mode"},
	{"events", edit_events, "event_mask"},
	{"rs485", edit_rs485, "rs485"},
};

/* Each interrupt feature: PL011_EINVAL before any register write, its field named, and the
 * polled config starts afterwards. With interrupts, the modes start. */
static void test_interrupt_features_are_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		harness_setup(&h, 24000000u, 16);
		struct pl011_config config = h.config;
		refused[i].edit(&config);
		struct pl011_config_fault fault = {0};
		int checked = pl011_config_check(&h.uart, &config, &fault);
		int started = harness_init(&h, &config);
#if PL011_INTERRUPTS
		if (config.event_mask == 0 && config.rs485 == NULL) {
			if (started != 0 || checked != 0)
				fail_msg("%s: init %d, check %d with interrupts", refused[i].label,
					 started, checked);
			assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
		}
#else
		if (started != PL011_EINVAL || checked != PL011_EINVAL ||
		    fault.field == NULL || strcmp(fault.field, refused[i].field) != 0)
			fail_msg("%s: init %d, check %d, field %s", refused[i].label, started,
				 checked, fault.field != NULL ? fault.field : "(none)");
		assert_int_equal(pl011_model_peek(h.model, PL011_CR), 0x300); /* reset value */
		assert_int_equal(pl011_write(&h.uart, "x", 1, PL011_NO_WAIT), PL011_ESHUTDOWN);
		assert_int_equal(harness_start(&h), 0);
		assert_int_equal(pl011_write(&h.uart, "y", 1, PL011_WAIT_AUTO), 1);
#endif
		harness_teardown(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_a_polled_port_does_it_all, &h),
		HARNESS_TEST(test_a_stalled_shutdown_reports_and_the_port_starts_again, &h),
		HARNESS_TEST(test_a_restart_counts_the_fifo_as_a_shutdown_does, &h),
		HARNESS_TEST(test_interrupt_features_are_refused, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
