/* pl011_init validation: every bad field is refused with its code and touches nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_internal.h" /* PL011_RULE_COUNT: every rule has a case below */
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
	REFUSE(c.data_bits = 255, PL011_EINVAL);
	REFUSE(c.data_bits = 9, PL011_EINVAL);
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

/* The refusal and the untouched model for pl011_init_parts. */
static void expect_parts_refused(const struct pl011_config *config,
				 const struct pl011_parts *parts, const char *what)
{
	uint64_t before = pl011_model_counters(h.model)->total_reads +
			  pl011_model_counters(h.model)->total_writes;
	int err = pl011_init_parts(&h.uart, config, parts);
	uint64_t after = pl011_model_counters(h.model)->total_reads +
			 pl011_model_counters(h.model)->total_writes;
	if (err != PL011_EINVAL)
		fail_msg("%s: expected PL011_EINVAL, got %s", what, pl011_error_name(err));
	if (after != before)
		fail_msg("%s: refused config still touched %llu registers", what,
			 (unsigned long long)(after - before));
}

static void on_event(struct pl011 *uart, uint32_t events, void *context);

/* include/pl011_instance.h pl011_init_parts: a part the config needs missing (rx_ring for an
 * interrupt RX mode, check_rings for any ring, adopt with PL011_FLAG_ADOPT_LINE, events_rs485
 * with an event mask or RS-485) is PL011_EINVAL, nothing touched; a part named that the config
 * does not use is ignored. */
static void test_init_parts_a_missing_part_is_einval(void **state)
{
	(void)state;
	uint8_t rx_storage[64];
	const struct pl011_parts none = {0};
	const struct pl011_parts every = {
		.check_rings = pl011_check_rings,
		.rx_ring = &pl011_rx_ring_driver,
		.adopt = &pl011_adopt_driver,
	};
	const struct pl011_parts unchecked = {
		.rx_ring = &pl011_rx_ring_driver,
		.adopt = &pl011_adopt_driver,
	};
	struct pl011_config c = h.config;
	expect_parts_refused(&c, NULL, "no parts at all");
	c.rx_mode = PL011_RX_LOW_LATENCY;
	c.rx_buffer = rx_storage;
	c.rx_buffer_size = sizeof rx_storage;
	expect_parts_refused(&c, &none, "interrupt RX without the RX ring");
	expect_parts_refused(&c, &unchecked, "interrupt RX without the rings' rules");
	struct pl011_config adopted = h.config;
	adopted.flags |= PL011_FLAG_ADOPT_LINE;
	expect_parts_refused(&adopted, &none, "ADOPT_LINE without its part");
	struct pl011_config evented = h.config;
	evented.event_mask = PL011_EVENT_MODEM;
	evented.event = on_event;
	evented.event_driver = &pl011_event_driver;
	expect_parts_refused(&evented, &every, "an event mask without the events' part");
	static const struct pl011_rs485 rs485 = {.driver = &pl011_rs485_driver};
	struct pl011_config half_duplex = h.config;
	half_duplex.rs485 = &rs485;
	expect_parts_refused(&half_duplex, &every, "RS-485 without the events' part");

	/* Every part named for a polled config that adopts nothing: the line is the config's (not
	 * the registers' as found), RX stays polled (a byte on the wire is read from the FIFO). */
	assert_int_equal(pl011_init_parts(&h.uart, &h.config, &every), 0);
	struct pl011_baud want, got;
	assert_int_equal(pl011_compute_baud(h.config.clock_hz, h.config.baud, 0, &want), 0);
	assert_int_equal(pl011_get_baud(&h.uart, &got), 0);
	assert_int_equal(got.ibrd, want.ibrd);
	assert_int_equal(got.fbrd, want.fbrd);
	assert_int_equal(pl011_getc(&h.uart), PL011_EAGAIN);
	uint64_t t = pl011_model_now_ns(h.model);
	pl011_model_rx_inject(h.model, 'k', 0, t + 100000);
	pl011_model_advance_to(h.model, t + 100000);
	assert_int_equal(pl011_getc(&h.uart), 'k');
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

/* An instance that was never started holds garbage (a stack or a heap the firmware did not
 * clear): init starts from nothing of it. Its presence words included, or shutdown would wait
 * for a handler that is not there and return PL011_ESTALLED. */
static void test_config_init_of_a_garbage_instance_keeps_nothing_of_it(void **state)
{
	(void)state;
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	memset(&h.uart, 0x5A, sizeof h.uart);
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), 2);
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	assert_int_equal(harness_start(&h), 0);
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

/* The (field, rule) pairs pl011_config_check reported, each once. */
struct seen_rules {
	const char *field[PL011_RULE_COUNT];
	const char *rule[PL011_RULE_COUNT];
	size_t count;
};

static void note_rule(struct seen_rules *seen, const struct pl011_config_fault *fault)
{
	for (size_t i = 0; i < seen->count; i++)
		if (strcmp(seen->field[i], fault->field) == 0 && strcmp(seen->rule[i], fault->rule) == 0)
			return;
	assert_true(seen->count < PL011_RULE_COUNT);
	seen->field[seen->count] = fault->field;
	seen->rule[seen->count] = fault->rule;
	seen->count++;
}

/* pl011_init_port (the config's own object when `by_mode`) refuses with `expected` and writes
 * nothing (reads nothing either unless `reads`), and pl011_config_check (_port) returns the
 * same code naming `field` and a rule. */
static void expect_fault(struct pl011 *uart, const struct pl011_config *config,
			 const struct pl011_tx_strategy *strategy, bool by_mode, bool reads,
			 int expected, const char *field, const char *what, struct seen_rules *seen)
{
	const struct pl011_model_counters *counters = pl011_model_counters(h.model);
	uint64_t reads_before = counters->total_reads, writes_before = counters->total_writes;
	if (by_mode)
		strategy = pl011_tx_strategy_for_mode(config->tx_mode);
	int err = pl011_init_port(uart, config, strategy);
	if (err != expected)
		fail_msg("%s: pl011_init expected %s, got %s", what, pl011_error_name(expected),
			 pl011_error_name(err));
	if (counters->total_writes != writes_before)
		fail_msg("%s: refused config still wrote %llu registers", what,
			 (unsigned long long)(counters->total_writes - writes_before));
	if (!reads && counters->total_reads != reads_before)
		fail_msg("%s: refused config read %llu registers", what,
			 (unsigned long long)(counters->total_reads - reads_before));
	struct pl011_config_fault fault = {NULL, NULL};
	int checked = by_mode ? pl011_config_check(uart, config, &fault)
			      : pl011_config_check_port(uart, config, strategy, &fault);
	if (checked != expected)
		fail_msg("%s: pl011_config_check expected %s, got %s", what,
			 pl011_error_name(expected), pl011_error_name(checked));
	if (fault.field == NULL || strcmp(fault.field, field) != 0)
		fail_msg("%s: field \"%s\", expected \"%s\"", what,
			 fault.field != NULL ? fault.field : "(NULL)", field);
	assert_non_null(fault.rule);
	assert_true(strlen(fault.rule) > 3);
	note_rule(seen, &fault);
}

static void on_event(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	(void)events;
	(void)context;
}

static void on_timer(uint32_t delay_us, void *context)
{
	(void)delay_us;
	(void)context;
}

/* Every rule of docs/configuration.md: the code pl011_init returns for it, and the field
 * pl011_config_check names (issue 37: 30 mistakes, one PL011_EINVAL, no way to tell which). */
static void test_config_check_names_the_field_of_every_rule(void **state)
{
	(void)state;
	static struct seen_rules seen;
	memset(&seen, 0, sizeof seen);
	struct pl011_config c;
	struct pl011_rs485 bus;
	uint8_t odd_buffer[12];
	const struct pl011_rs485 good_bus = {.driver = &pl011_rs485_driver};

#define FAULT(change, code, field)                                                                 \
	do {                                                                                       \
		c = h.config;                                                                      \
		bus = good_bus;                                                                    \
		change;                                                                            \
		expect_fault(&h.uart, &c, NULL, true, false, code, field, #change, &seen);         \
	} while (0)
/* The events and RS-485 cases start from an interrupt TX and RX config that serves them. */
#define RING_FAULT(change, code, field)                                                            \
	FAULT((c.tx_mode = PL011_TX_HYBRID, c.rx_mode = PL011_RX_LOW_LATENCY,                      \
	       c.event_timer = on_timer, change),                                                  \
	      code, field)

	FAULT(c.base = 0, PL011_EINVAL, "base");
	FAULT(c.base = HARNESS_BASE + 2u, PL011_EINVAL, "base");
	FAULT(c.clock_hz = 0, PL011_EINVAL, "clock_hz");
	FAULT((c.flags = PL011_FLAG_ADOPT_LINE, c.clock_hz = 0, c.baud = 0), PL011_EINVAL, "baud");
	FAULT(c.baud = 0, PL011_EINVAL, "baud");
	FAULT(c.data_bits = 9, PL011_EINVAL, "data_bits");
	FAULT(c.stop_bits = 3, PL011_EINVAL, "stop_bits");
	FAULT(c.parity = (enum pl011_parity)5, PL011_EINVAL, "parity");
	FAULT(c.tx_mode = (enum pl011_tx_mode)(PL011_TX_MEASURED + 1), PL011_EINVAL, "tx_mode");
	FAULT(c.rx_mode = (enum pl011_rx_mode)3, PL011_EINVAL, "rx_mode");
	FAULT(c.tx_trigger = (enum pl011_level)6, PL011_EINVAL, "tx_trigger");
	FAULT(c.rx_trigger = (enum pl011_level)6, PL011_EINVAL, "rx_trigger");
	FAULT(c.flags = 1u << 7, PL011_EINVAL, "flags");
	FAULT(c.fifo_depth = 24u, PL011_EINVAL, "fifo_depth");
	FAULT(c.flags = PL011_FLAG_NO_ID, PL011_EINVAL, "fifo_depth");
	FAULT(c.spins_per_us = PL011_SPINS_PER_US_MAX + 1u, PL011_EINVAL, "spins_per_us");
	FAULT((c.tx_mode = PL011_TX_HALF_FIFO, c.tx_buffer = NULL), PL011_EINVAL, "tx_buffer");
	FAULT((c.tx_mode = PL011_TX_HALF_FIFO, c.tx_buffer = odd_buffer,
	       c.tx_buffer_size = sizeof odd_buffer),
	      PL011_EINVAL, "tx_buffer_size");
	FAULT((c.rx_mode = PL011_RX_FEW_IRQS, c.rx_buffer = NULL), PL011_EINVAL, "rx_buffer");
	FAULT((c.rx_mode = PL011_RX_FEW_IRQS, c.rx_buffer_size = 1), PL011_EINVAL,
	      "rx_buffer_size");
	/* The rings: one storage for both (the user's 155 bytes never sent), a partial overlap,
	 * either ring over the instance. */
	FAULT((c.tx_mode = PL011_TX_MEASURED, c.rx_mode = PL011_RX_LOW_LATENCY,
	       c.rx_buffer = c.tx_buffer),
	      PL011_EINVAL, "rx_buffer");
	FAULT((c.tx_mode = PL011_TX_MEASURED, c.rx_mode = PL011_RX_LOW_LATENCY,
	       c.rx_buffer = h.tx_storage + 2048, c.rx_buffer_size = 4096),
	      PL011_EINVAL, "rx_buffer");
	FAULT((c.tx_mode = PL011_TX_MEASURED, c.rx_mode = PL011_RX_LOW_LATENCY,
	       c.tx_buffer = h.rx_storage + 4094, c.tx_buffer_size = 2),
	      PL011_EINVAL, "rx_buffer");
	FAULT((c.tx_mode = PL011_TX_HYBRID, c.tx_buffer = (uint8_t *)&h.uart, c.tx_buffer_size = 64),
	      PL011_EINVAL, "tx_buffer");
	FAULT((c.rx_mode = PL011_RX_LOW_LATENCY,
	       c.rx_buffer = (uint8_t *)&h.uart + sizeof h.uart - 1u, c.rx_buffer_size = 2),
	      PL011_EINVAL, "rx_buffer");
	/* Events. */
	FAULT(c.event_mask = PL011_EVENT_MODEM, PL011_EINVAL, "event_driver");
	RING_FAULT((c.event_driver = &pl011_event_driver, c.event = on_event,
		    c.event_mask = PL011_EVENT_ALL + 1u),
		   PL011_EINVAL, "event_mask");
	RING_FAULT((c.event_driver = &pl011_event_driver, c.event_mask = PL011_EVENT_ERROR),
		   PL011_EINVAL, "event");
	RING_FAULT((c.event_driver = &pl011_event_driver, c.event = on_event,
		    c.tx_mode = PL011_TX_POLLED, c.event_mask = PL011_EVENT_TX_SPACE),
		   PL011_EINVAL, "event_mask");
	RING_FAULT((c.event_driver = &pl011_event_driver, c.event = on_event,
		    c.rx_mode = PL011_RX_POLLED, c.event_mask = PL011_EVENT_RX_IDLE),
		   PL011_EINVAL, "event_mask");
	RING_FAULT((c.event_driver = &pl011_event_driver, c.event = on_event, c.event_timer = NULL,
		    c.event_mask = PL011_EVENT_TX_DONE),
		   PL011_EINVAL, "event_timer");
	/* RS-485. */
	RING_FAULT((c.rs485 = &bus, bus.driver = NULL), PL011_EINVAL, "rs485->driver");
	RING_FAULT((c.rs485 = &bus, bus.flags = 1u << 2), PL011_EINVAL, "rs485->flags");
	RING_FAULT((c.rs485 = &bus, bus.delay_before_us = PL011_RS485_DELAY_MAX_US + 1u),
		   PL011_EINVAL, "rs485->delay_before_us");
	RING_FAULT((c.rs485 = &bus, bus.delay_after_us = PL011_RS485_DELAY_MAX_US + 1u),
		   PL011_EINVAL, "rs485->delay_after_us");
	RING_FAULT((c.rs485 = &bus, c.flags = PL011_FLAG_RTS_CTS), PL011_EINVAL, "flags");
	RING_FAULT((c.rs485 = &bus, c.tx_mode = PL011_TX_POLLED), PL011_EINVAL, "tx_mode");
	RING_FAULT((c.rs485 = &bus, c.event_timer = NULL), PL011_EINVAL, "event_timer");
	/* The rate. */
	FAULT(c.baud = 4000000u, PL011_EBAUD, "baud");
	FAULT((c.clock_hz = 3000000u, c.baud_tolerance_ppm = 1000u), PL011_EBAUD, "baud");
#undef RING_FAULT
#undef FAULT

	/* The ones that read registers: an adopted line nobody programmed (IBRD 0), and a block
	 * that is not a PL011 (below, its own model). */
	c = h.config;
	c.flags = PL011_FLAG_ADOPT_LINE;
	expect_fault(&h.uart, &c, NULL, true, true, PL011_EBAUD, "flags", "adopt, IBRD 0", &seen);
	struct pl011_model_config other;
	pl011_model_default_config(&other);
	other.base = HARNESS_BASE + 0x10000u;
	other.cell_id_flipped_bits = 0xFFu;
	struct pl011_model *not_uart = pl011_model_create(&other);
	c = h.config;
	c.base = other.base;
	expect_fault(&h.uart, &c, NULL, true, true, PL011_EINVAL, "base", "PCellID0 wrong", &seen);
	pl011_model_destroy(not_uart);
	/* The object pl011_init_port is given, and the NULL pointers. */
	c = h.config;
	expect_fault(&h.uart, &c, &pl011_tx_hybrid, false, false, PL011_EINVAL, "tx_mode",
		     "POLLED with HYBRID's object", &seen);
	expect_fault(NULL, &h.config, NULL, true, false, PL011_EINVAL, "uart", "NULL uart", &seen);
	struct pl011_config_fault fault;
	assert_int_equal(pl011_init(&h.uart, NULL), PL011_EINVAL);
	assert_int_equal(pl011_config_check(&h.uart, NULL, &fault), PL011_EINVAL);
	assert_string_equal(fault.field, "config");
	note_rule(&seen, &fault);

	/* Every rule was met, each once: a rule added without a case here fails. */
	assert_int_equal(seen.count, PL011_RULE_COUNT - 1u);
	/* A good config: 0, both strings empty, and fault may be NULL. */
	assert_int_equal(pl011_config_check(&h.uart, &h.config, &fault), 0);
	assert_string_equal(fault.field, "");
	assert_string_equal(fault.rule, "");
	assert_int_equal(pl011_config_check(&h.uart, &h.config, NULL), 0);
	c = h.config;
	c.data_bits = 9;
	assert_int_equal(pl011_config_check(&h.uart, &c, NULL), PL011_EINVAL);
	assert_int_equal(pl011_model_counters(h.model)->total_writes, 0);
}

/* 0 data bits and 0 stop bits are 8N1 (the Pico SDK's uart_init and embassy's default), on
 * LCR_H, on the wire and in pl011_get_line; also through pl011_set_line. */
static void test_config_zero_data_and_stop_bits_mean_8n1(void **state)
{
	(void)state;
	h.config.data_bits = 0;
	h.config.stop_bits = 0;
	assert_int_equal(harness_start(&h), 0);
	assert_int_equal(pl011_model_peek(h.model, PL011_LCR_H),
			 PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	assert_int_equal(pl011_write(&h.uart, "\xA5", 1, PL011_WAIT_AUTO), 1);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), 1);
	assert_int_equal(pl011_model_wire_byte(h.model, 0), 0xA5);
	assert_int_equal(pl011_model_wire_lcr_h(h.model, 0), PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	struct pl011_line_config line;
	assert_int_equal(pl011_get_line(&h.uart, &line), 0);
	assert_int_equal(line.data_bits, 8);
	assert_int_equal(line.stop_bits, 1);

	/* Through pl011_set_line: 7E2 first, then 0 and 0 back to 8 data bits, 1 stop bit. */
	line.data_bits = 7;
	line.stop_bits = 2;
	line.parity = PL011_PARITY_EVEN;
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), 0);
	uint32_t format = PL011_LCR_H_WLEN_MASK | PL011_LCR_H_STP2;
	assert_int_equal(pl011_model_peek(h.model, PL011_LCR_H) & format,
			 PL011_LCR_H_WLEN_7 | PL011_LCR_H_STP2);
	line.data_bits = 0;
	line.stop_bits = 0;
	line.parity = PL011_PARITY_NONE;
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), 0);
	assert_int_equal(pl011_model_peek(h.model, PL011_LCR_H),
			 PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	assert_int_equal(pl011_get_line(&h.uart, &line), 0);
	assert_int_equal(line.data_bits, 8);
	assert_int_equal(line.stop_bits, 1);
	line.data_bits = 9;
	assert_int_equal(pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO), PL011_EINVAL);
}

/* The user's case: one storage for the TX and the RX ring was accepted, and under a flood the
 * host got back bytes it never sent. Refused now by pl011_init and by pl011_restart, a running
 * port left running on its own rings. */
static void test_config_overlapping_rings_refused_by_init_and_restart(void **state)
{
	(void)state;
	struct pl011_config c = h.config;
	c.tx_mode = PL011_TX_HYBRID;
	c.rx_mode = PL011_RX_LOW_LATENCY;
	c.rx_buffer = c.tx_buffer;
	c.rx_buffer_size = c.tx_buffer_size;
	expect_refused(&c, PL011_EINVAL, "TX ring = RX ring");
	h.config.tx_mode = PL011_TX_HYBRID;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	assert_int_equal(harness_start(&h), 0);
	uint64_t writes = pl011_model_counters(h.model)->total_writes;
	assert_int_equal(pl011_restart(&h.uart, &c), PL011_EINVAL);
	assert_int_equal(pl011_model_counters(h.model)->total_writes, writes);
	/* The port runs on as it was: bytes sent come back through its own RX ring. */
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(h.model), 2);
	/* A ring its mode does not use is not looked at: polled TX with a leftover tx_buffer
	 * inside the RX ring is fine. */
	c.tx_mode = PL011_TX_POLLED;
	c.tx_buffer = h.rx_storage + 16;
	assert_int_equal(pl011_config_check(&h.uart, &c, NULL), 0);
	c.tx_mode = PL011_TX_HYBRID;
	c.tx_buffer = h.tx_storage;
	/* Storage of its own for each: both fine, each ring next to the other. */
	c.rx_buffer = h.rx_storage;
	c.tx_buffer_size = 2048;
	c.tx_buffer = h.tx_storage + 2048;
	assert_int_equal(harness_reinit(&h, &c), 0);
}

/* The user's other case: a base that is the system controller, not a UART (QEMU versatilepb's
 * at 0x10000000), was programmed as one. Its PCellID is checked first: refused, nothing
 * written. PL011_FLAG_NO_ID skips the check, with fifo_depth given. */
static void test_config_block_that_is_not_a_pl011_refused_before_any_write(void **state)
{
	(void)state;
	struct pl011_model_config other;
	pl011_model_default_config(&other);
	other.base = HARNESS_BASE + 0x10000u;
	other.fifo_depth = 32;
	static const uint32_t wrong[] = {0xFFu, 0xFF00u, 0xFF0000u, 0xFF000000u, 0xB105F00Du};
	struct pl011 port;
	memset(&port, 0, sizeof port);
	struct pl011_config c = h.config;
	c.base = other.base;
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
		other.cell_id_flipped_bits = wrong[i];
		struct pl011_model *model = pl011_model_create(&other);
		c.clock_context = model;
		c.wait_hook = NULL;
		assert_int_equal(pl011_init(&port, &c), PL011_EINVAL);
		const struct pl011_model_counters *counters = pl011_model_counters(model);
		assert_int_equal(counters->total_writes, 0);
		/* The four PCellID reads, nothing else. */
		assert_int_equal(counters->total_reads, 4);
		for (uint32_t offset = PL011_CELLID0; offset <= PL011_CELLID3; offset += 4u)
			assert_int_equal(counters->reads[offset / 4u], 1);
		struct pl011_config_fault fault;
		assert_int_equal(pl011_config_check(&port, &c, &fault), PL011_EINVAL);
		assert_string_equal(fault.field, "base");
		/* Adopting the line: the ID first, so no register of it is read as a UART's. */
		struct pl011_config adopt = c;
		adopt.flags = PL011_FLAG_ADOPT_LINE;
		uint64_t reads = counters->total_reads;
		assert_int_equal(pl011_init(&port, &adopt), PL011_EINVAL);
		assert_int_equal(counters->total_reads - reads, 4);
		assert_int_equal(counters->total_writes, 0);

		/* The opt-out: no ID check, the depth from the config. */
		struct pl011_config no_id = c;
		no_id.flags = PL011_FLAG_NO_ID;
		no_id.fifo_depth = 32;
		assert_int_equal(pl011_init(&port, &no_id), 0);
		assert_int_equal(pl011_get_fifo_depth(&port), 32);
		assert_int_equal(counters->reads[PL011_PERIPHID2 / 4u], 0);
		assert_int_equal(pl011_write(&port, "id", 2, PL011_WAIT_AUTO), 2);
		assert_int_equal(pl011_flush(&port, PL011_WAIT_AUTO, NULL), 0);
		assert_int_equal(pl011_model_wire_len(model), 2);
		assert_true(pl011_shutdown(&port, PL011_WAIT_AUTO) >= 0);
		pl011_model_destroy(model);
	}
	/* The PL011's own ID passes, the flag or not. */
	assert_int_equal(harness_start(&h), 0);
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
		cmocka_unit_test_setup_teardown(test_init_parts_a_missing_part_is_einval, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_config_init_of_a_garbage_instance_keeps_nothing_of_it,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_null_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_line_settings_reach_lcr_h, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_check_names_the_field_of_every_rule, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_config_zero_data_and_stop_bits_mean_8n1, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_config_overlapping_rings_refused_by_init_and_restart,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_block_that_is_not_a_pl011_refused_before_any_write,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
