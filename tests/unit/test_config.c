/* pl011_init validation: every bad field is refused with its code and touches nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

static struct harness h;

static int setup(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	harness_teardown(&h);
	return 0;
}

/* Each bad config (or strategy object, for pl011_init_port) must give `expected` and leave the
 * model untouched (no register access). */
static void expect_port_refused(const struct pl011_config *config,
				const struct pl011_tx_strategy *strategy, int expected,
				const char *what)
{
	uint64_t before = pl011_model_counters(h.model)->total_reads +
			  pl011_model_counters(h.model)->total_writes;
	int err = pl011_init_port(&h.uart, config, strategy);
	uint64_t after = pl011_model_counters(h.model)->total_reads +
			 pl011_model_counters(h.model)->total_writes;
	if (err != expected)
		fail_msg("%s: expected %s, got %s", what, pl011_error_name(expected),
			 pl011_error_name(err));
	if (after != before)
		fail_msg("%s: refused config still touched %llu registers", what,
			 (unsigned long long)(after - before));
}

/* pl011_init: pl011_init_port with the object config->tx_mode names. */
static void expect_refused(const struct pl011_config *config, int expected, const char *what)
{
	expect_port_refused(config, pl011_tx_strategy_for_mode(config->tx_mode), expected, what);
}

static void test_config_every_bad_field_is_refused(void **state)
{
	(void)state;
	struct pl011_config c;
	uint8_t odd_buffer[12];

#define REFUSE(field_change, code)                                                                  \
	do {                                                                                       \
		c = h.config;                                                                      \
		field_change;                                                                      \
		expect_refused(&c, code, #field_change);                                           \
	} while (0)

	REFUSE(c.base = 0, PL011_EINVAL);
	REFUSE(c.base = HARNESS_BASE + 2u, PL011_EINVAL);
	REFUSE(c.clock_hz = 0, PL011_EINVAL);
	REFUSE(c.baud = 0, PL011_EINVAL);
	REFUSE(c.baud = 4000000u, PL011_EBAUD);
	REFUSE(c.baud = 45u, PL011_EBAUD);
	REFUSE((c.clock_hz = 3000000u, c.baud_tolerance_ppm = 1000u), PL011_EBAUD);
	REFUSE(c.data_bits = 4, PL011_EINVAL);
	REFUSE(c.data_bits = 9, PL011_EINVAL);
	REFUSE(c.stop_bits = 0, PL011_EINVAL);
	REFUSE(c.stop_bits = 3, PL011_EINVAL);
	REFUSE(c.parity = (enum pl011_parity)5, PL011_EINVAL);
	REFUSE(c.tx_mode = (enum pl011_tx_mode)(PL011_TX_MEASURED + 1), PL011_EINVAL);
	REFUSE(c.rx_mode = (enum pl011_rx_mode)3, PL011_EINVAL);
	REFUSE(c.tx_trigger = (enum pl011_level)6, PL011_EINVAL);
	REFUSE(c.rx_trigger = (enum pl011_level)6, PL011_EINVAL);
	REFUSE(c.flags = 1u << 7, PL011_EINVAL);
	REFUSE(c.fifo_depth = 8u, PL011_EINVAL);
	REFUSE(c.fifo_depth = 24u, PL011_EINVAL);
	REFUSE(c.fifo_depth = 64u, PL011_EINVAL);
	REFUSE((c.tx_mode = PL011_TX_HALF_FIFO, c.tx_buffer = NULL), PL011_EINVAL);
	REFUSE((c.tx_mode = PL011_TX_HALF_FIFO, c.tx_buffer = odd_buffer,
		c.tx_buffer_size = sizeof odd_buffer),
	       PL011_EINVAL);
	REFUSE((c.tx_mode = PL011_TX_HYBRID, c.tx_buffer_size = 1), PL011_EINVAL);
	REFUSE((c.rx_mode = PL011_RX_LOW_LATENCY, c.rx_buffer = NULL), PL011_EINVAL);
	REFUSE((c.rx_mode = PL011_RX_FEW_IRQS, c.rx_buffer_size = 0), PL011_EINVAL);
#undef REFUSE
	assert_int_equal(pl011_init(NULL, &h.config), PL011_EINVAL);
	assert_int_equal(pl011_init(&h.uart, NULL), PL011_EINVAL);
}

/* docs/api.md: pl011_init_port's object "must be config.tx_mode's (NULL for
 * PL011_TX_POLLED), else PL011_EINVAL", and a refused call touches nothing, on a running port
 * too: it keeps running in its own mode. */
static void test_init_port_object_must_be_the_modes_else_einval(void **state)
{
	(void)state;
	struct pl011_config c = h.config;
	expect_port_refused(&c, &pl011_tx_hybrid, PL011_EINVAL, "POLLED with HYBRID's object");
	c.tx_mode = PL011_TX_HYBRID;
	expect_port_refused(&c, NULL, PL011_EINVAL, "HYBRID without an object");
	expect_port_refused(&c, &pl011_tx_measured, PL011_EINVAL, "HYBRID with MEASURED's object");
	c.tx_mode = PL011_TX_MEASURED;
	expect_port_refused(&c, &pl011_tx_half_fifo, PL011_EINVAL,
			    "MEASURED with HALF_FIFO's object");

	/* The mode's own object starts the port; a mismatched one leaves it running in it. */
	c.tx_mode = PL011_TX_HYBRID;
	assert_int_equal(pl011_init_port(&h.uart, &c, &pl011_tx_hybrid), 0);
	harness_route_irq(&h);
	struct pl011_config polled = h.config;
	expect_port_refused(&polled, &pl011_tx_hybrid, PL011_EINVAL,
			    "running: POLLED with HYBRID's");
	expect_port_refused(&c, &pl011_tx_poll_full, PL011_EINVAL,
			    "running: HYBRID with POLL_FULL's");
	/* More than a FIFO: the rest goes through the ring and the TX interrupt, as HYBRID's. */
	uint8_t bytes[200];
	harness_fill_random(bytes, sizeof bytes, 25u);
	assert_int_equal(pl011_write(&h.uart, bytes, sizeof bytes, PL011_WAIT_AUTO), sizeof bytes);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), sizeof bytes);
	assert_true(pl011_model_counters(h.model)->irq_dispatches > 0);
	assert_int_equal(pl011_restart_port(&h.uart, &polled, NULL), 0);
}

static void test_config_refused_reinit_keeps_the_running_port(void **state)
{
	(void)state;
	assert_int_equal(harness_start(&h), 0);
	struct pl011_config bad = h.config;
	bad.data_bits = 9;
	assert_int_equal(pl011_init(&h.uart, &bad), PL011_EINVAL);
	/* A good one too: pl011_init starts, pl011_restart restarts. */
	assert_int_equal(pl011_init(&h.uart, &h.config), PL011_EBUSY);
	/* Still running with the old settings: a write goes out. */
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), 2);
}

static void test_config_unstarted_instance_refuses_io(void **state)
{
	(void)state;
	struct pl011 fresh;
	uint8_t byte = 0;
	memset(&fresh, 0, sizeof fresh);
	assert_int_equal(pl011_write(&fresh, &byte, 1, 0), PL011_ESHUTDOWN);
	assert_int_equal(pl011_read(&fresh, &byte, 1, 0), PL011_ESHUTDOWN);
	assert_int_equal(pl011_putc(&fresh, 'x'), PL011_ESHUTDOWN);
	assert_int_equal(pl011_getc(&fresh), PL011_ESHUTDOWN);
	assert_int_equal(pl011_flush(&fresh, 0, NULL), PL011_ESHUTDOWN);
	assert_int_equal(pl011_shutdown(&fresh, 0), PL011_ESHUTDOWN);
	assert_int_equal(pl011_send_break(&fresh, 100), PL011_ESHUTDOWN);
	assert_int_equal(pl011_write_panic(&fresh, &byte, 1), PL011_ESHUTDOWN);
	assert_int_equal(pl011_get_fifo_depth(&fresh), PL011_ESHUTDOWN);
	struct pl011_baud baud;
	assert_int_equal(pl011_get_baud(&fresh, &baud), PL011_ESHUTDOWN);
	assert_int_equal(pl011_get_fifo_depth(NULL), PL011_EINVAL);
	/* An interrupt for a port that is not started is ignored without touching anything. */
	pl011_irq_handler(&fresh);
	pl011_irq_handler(NULL);
	assert_int_equal(pl011_model_counters(h.model)->total_reads, 0);
}

static void test_config_null_arguments(void **state)
{
	(void)state;
	struct pl011_stats stats;
	struct pl011_baud baud;
	uint8_t byte = 0;
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_write(NULL, &byte, 1, 0), PL011_EINVAL);
	assert_int_equal(pl011_write(&h.uart, NULL, 1, 0), PL011_EINVAL);
	assert_int_equal(pl011_write(&h.uart, NULL, 0, 0), 0);
	assert_int_equal(pl011_read(&h.uart, NULL, 1, 0), PL011_EINVAL);
	assert_int_equal(pl011_read(NULL, &byte, 1, 0), PL011_EINVAL);
	assert_int_equal(pl011_putc(NULL, 'x'), PL011_EINVAL);
	assert_int_equal(pl011_getc(NULL), PL011_EINVAL);
	assert_int_equal(pl011_flush(NULL, 0, NULL), PL011_EINVAL);
	assert_int_equal(pl011_shutdown(NULL, 0), PL011_EINVAL);
	assert_int_equal(pl011_get_stats(NULL, &stats), PL011_EINVAL);
	assert_int_equal(pl011_get_stats(&h.uart, NULL), PL011_EINVAL);
	assert_int_equal(pl011_get_baud(&h.uart, NULL), PL011_EINVAL);
	assert_int_equal(pl011_get_baud(&h.uart, &baud), 0);
	assert_int_equal(baud.ibrd, 26);
	assert_int_equal(pl011_write_panic(NULL, &byte, 1), PL011_EINVAL);
	assert_int_equal(pl011_send_break(NULL, 1), PL011_EINVAL);
	assert_string_equal(pl011_error_name(PL011_ETIMEDOUT), "PL011_ETIMEDOUT");
	assert_string_equal(pl011_error_name(PL011_EINVAL), "PL011_EINVAL");
	assert_string_equal(pl011_error_name(PL011_EBAUD), "PL011_EBAUD");
	assert_string_equal(pl011_error_name(PL011_EAGAIN), "PL011_EAGAIN");
	assert_string_equal(pl011_error_name(PL011_ESHUTDOWN), "PL011_ESHUTDOWN");
	assert_string_equal(pl011_error_name(PL011_EFRAMING), "PL011_EFRAMING");
	assert_string_equal(pl011_error_name(PL011_EPARITY), "PL011_EPARITY");
	assert_string_equal(pl011_error_name(PL011_EBREAK), "PL011_EBREAK");
	assert_string_equal(pl011_error_name(PL011_ESTALLED), "PL011_ESTALLED");
	assert_string_equal(pl011_error_name(-12345), "unknown");
	/* "print the result" prints success for 0 and for a count */
	assert_string_equal(pl011_error_name(0), "success");
	assert_string_equal(pl011_error_name(12345), "success");
}

static void test_config_line_settings_reach_lcr_h(void **state)
{
	(void)state;
	static const struct {
		uint8_t data_bits, stop_bits;
		enum pl011_parity parity;
		uint32_t lcr_h;
	} table[] = {
		{8, 1, PL011_PARITY_NONE, PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN},
		{7, 1, PL011_PARITY_EVEN, PL011_LCR_H_WLEN_7 | PL011_LCR_H_FEN | PL011_LCR_H_PEN | PL011_LCR_H_EPS},
		{6, 2, PL011_PARITY_ODD, PL011_LCR_H_WLEN_6 | PL011_LCR_H_FEN | PL011_LCR_H_PEN | PL011_LCR_H_STP2},
		{5, 1, PL011_PARITY_MARK, PL011_LCR_H_WLEN_5 | PL011_LCR_H_FEN | PL011_LCR_H_PEN | PL011_LCR_H_SPS},
		{8, 2, PL011_PARITY_SPACE,
		 PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN | PL011_LCR_H_PEN | PL011_LCR_H_SPS | PL011_LCR_H_EPS | PL011_LCR_H_STP2},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		h.config.data_bits = table[i].data_bits;
		h.config.stop_bits = table[i].stop_bits;
		h.config.parity = table[i].parity;
		assert_int_equal(harness_restart(&h), 0);
		assert_int_equal(pl011_model_peek(h.model, PL011_LCR_H), table[i].lcr_h);
		/* Frame: start + data + parity + stop bits, at 115,200 (actual 115,177) baud. */
		uint64_t bits = 1u + table[i].data_bits + (table[i].parity != PL011_PARITY_NONE) +
				table[i].stop_bits;
		uint64_t expected_ns = bits * 16u * 1000000000u * (26u * 64u + 3u) / 64u / 48000000u;
		uint64_t frame_ns = pl011_model_frame_ns(h.model);
		assert_true(frame_ns + 1u >= expected_ns && frame_ns <= expected_ns + 1u);
	}
	assert_int_equal(pl011_model_counters(h.model)->order_violations, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_config_every_bad_field_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_refused_reinit_keeps_the_running_port, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_init_port_object_must_be_the_modes_else_einval, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_config_unstarted_instance_refuses_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_null_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_line_settings_reach_lcr_h, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
