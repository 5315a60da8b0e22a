/* cmocka tests of the driver in TX_POLLED / RX_POLLED mode against the behavioural PL011 model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011.h"
#include "pl011_io.h"
#include "pl011_model.h"
#include "pl011_regs.h"

#define BASE HARNESS_BASE
#define CLOCK_HZ 48000000u

/*
 * 115,200 baud from 48 MHz: 4 * 48e6 / 115200 = 1666.67 -> 1667 = 26 * 64 + 3, so IBRD 26,
 * FBRD 3 (TRM 2.4.3). One 8N1 frame = 10 * 16 * (26 + 3/64) / 48e6 s = 86822.9 ns.
 * 57,600 baud: 4 * 48e6 / 57600 = 3333.3 -> 3333 = 52 * 64 + 5: IBRD 52, FBRD 5.
 */
#define FRAME_115200_NS 86823u

/* The shared harness: its model and its 115,200 8N1 polled config, here without the wait
 * hook, so that a wait spins on FR as a caller without one would. */
static struct harness h;

static int setup_depth(void **state, unsigned depth)
{
	harness_setup(&h, CLOCK_HZ, depth);
	h.config.wait_hook = NULL;
	*state = &h;
	return 0;
}

static int setup16(void **state)
{
	return setup_depth(state, 16);
}

static int setup32(void **state)
{
	return setup_depth(state, 32);
}

static void polled_config(struct pl011_config *config, uint32_t baud)
{
	*config = h.config;
	config->baud = baud;
}

static void init_polled(uint32_t baud)
{
	struct pl011_config config;
	polled_config(&config, baud);
	assert_int_equal(harness_reinit(&h, &config), 0);
}

static uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* ------------------------------------------------------------------ (1) 4 KiB transfer */

static void test_polled_4k_write_arrives_exact_at_line_rate_no_overflow(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	static uint8_t data[4096];
	uint32_t seed = 0x1234567u;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)xorshift(&seed);
	init_polled(115200);

	assert_int_equal(pl011_write(&h.uart, data, sizeof(data), PL011_WAIT_AUTO), 4096);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);

	const struct pl011_model_counters *c = pl011_model_counters(m);
	assert_int_equal(c->tx_overflows, 0);
	assert_int_equal(pl011_model_wire_len(m), 4096);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(pl011_model_wire_byte(m, i), data[i]);
	/* flush said "all sent": the last stop bit has really left */
	assert_true(pl011_model_now_ns(m) >= pl011_model_wire_end_ns(m, 4095));
	assert_int_equal(pl011_model_tx_level(m), 0);
	assert_false(pl011_model_tx_shifting(m));

	/* 4096 frames of 10 * 16 * 26.046875 / 48e6 s = 355,626,667 ns, within one character */
	uint64_t busy = pl011_model_wire_end_ns(m, 4095) - pl011_model_wire_start_ns(m, 0);
	const uint64_t expected = 355626667u;
	uint64_t diff = busy > expected ? busy - expected : expected - busy;
	assert_true(diff <= FRAME_115200_NS);

	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.tx_bytes, 4096);
}

/* ------------------------------------------------------------------ (2) TRM order */

static void test_init_programs_in_trm_order_no_violation_even_when_reinit_running(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	const struct pl011_model_counters *c = pl011_model_counters(m);
	init_polled(115200);
	assert_int_equal(c->order_violations, 0);
	assert_int_equal(c->reprogram_while_shifting, 0);
	assert_int_equal(c->misuse, 0);

	/* Fill the FIFO (NO_WAIT takes what fits: 1 shifting + 16 queued), then re-init at
	 * 57,600 half-way through the first character. */
	static const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	int n = pl011_write(&h.uart, text, sizeof(text) - 1, PL011_NO_WAIT);
	assert_int_equal(n, 17);
	assert_int_equal(c->tx_overflows, 0);
	pl011_model_advance(m, FRAME_115200_NS / 2);
	init_polled(57600);
	assert_int_equal(c->order_violations, 0);
	assert_int_equal(c->reprogram_while_shifting, 0);
	assert_int_equal(c->tx_overflows, 0);
	/* the character in flight finished at the old rate */
	assert_true(pl011_model_wire_len(m) >= 1);
	assert_int_equal(pl011_model_wire_end_ns(m, 0) - pl011_model_wire_start_ns(m, 0),
			 FRAME_115200_NS);
	assert_int_equal(pl011_model_peek(m, PL011_IBRD), 52);
	assert_int_equal(pl011_model_peek(m, PL011_FBRD), 5);

	/* and the port works at the new rate: 10 * 16 * (52 + 5/64) / 48e6 s = 173593.75 ns */
	size_t before = pl011_model_wire_len(m);
	assert_int_equal(pl011_write(&h.uart, "OK", 2, PL011_WAIT_AUTO), 2);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_len(m), before + 2);
	assert_int_equal(pl011_model_wire_byte(m, before), 'O');
	assert_int_equal(pl011_model_wire_end_ns(m, before) - pl011_model_wire_start_ns(m, before),
			 173594u);
	assert_int_equal(c->order_violations, 0);
}

/* What a boot loader leaves: the UART programmed and enabled, our driver not started. */
static void boot_loader_enable(uint32_t ibrd, uint32_t fbrd, uint32_t lcr_h)
{
	pl011_io_write(BASE + PL011_CR, 0);
	pl011_io_write(BASE + PL011_IBRD, ibrd);
	pl011_io_write(BASE + PL011_FBRD, fbrd);
	pl011_io_write(BASE + PL011_LCR_H, lcr_h);
	pl011_io_write(BASE + PL011_CR, PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE);
}

/*
 * A boot loader left the UART running at 9,600 with a character on the wire; the first
 * pl011_init (instance STOPPED) must still let that character finish before it flushes and
 * reprograms (TRM 3.3.8). This failed while pl011_init budgeted its wait as two frames at the
 * *new* rate (174 us at 115,200); a 9,600 frame takes 1042 us. pl011_init now reads the old
 * rate back from IBRD/FBRD/LCR_H.
 */
static void test_first_init_waits_for_boot_loader_char_at_slower_rate(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	/* 4 * 48e6 / 9600 = 20000 = 312 * 64 + 32 */
	boot_loader_enable(312, 32, PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	pl011_io_write(BASE + PL011_DR, 'B');
	pl011_model_advance(m, 100000); /* 0.1 ms into a 1.04 ms frame */
	init_polled(115200);
	assert_int_equal(pl011_model_counters(m)->reprogram_while_shifting, 0);
	/* The boot loader's character made it out whole. */
	assert_int_equal(pl011_model_wire_len(m), 1);
	assert_int_equal(pl011_model_wire_byte(m, 0), 'B');
}

/*
 * The boot loader's FIFO full at 9,600 (sixteen characters queued, one more shifting) when
 * pl011_init starts at 115,200: all seventeen leave whole, at the boot loader's rate, before
 * the FIFO is flushed. Timing them at the new rate would flush all but two.
 */
static void hand_over_full_boot_loader_fifo(uint32_t lcr_h)
{
	struct pl011_model *m = h.model;
	boot_loader_enable(312, 32, lcr_h);
	for (unsigned i = 0; i < 17u; i++)
		pl011_io_write(BASE + PL011_DR, 'a' + i);
	assert_int_equal(pl011_model_tx_level(m), 16);
	assert_true(pl011_model_peek(m, PL011_FR) & PL011_FR_TXFF);
	init_polled(115200);
	const struct pl011_model_counters *c = pl011_model_counters(m);
	assert_int_equal(c->tx_overflows, 0);
	assert_int_equal(c->tx_fen_flushed, 0);
	assert_int_equal(c->reprogram_while_shifting, 0);
	assert_int_equal(pl011_model_wire_len(m), 17);
	for (unsigned i = 0; i < 17u; i++)
		assert_int_equal(pl011_model_wire_byte(m, i), 'a' + i);
	/* The driver's own output follows at the new rate. */
	assert_int_equal(pl011_write(&h.uart, "Z", 1, PL011_WAIT_AUTO), 1);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_wire_byte(m, 17), 'Z');
	assert_int_equal(pl011_model_wire_end_ns(m, 17) - pl011_model_wire_start_ns(m, 17),
			 FRAME_115200_NS);
}

static void test_first_init_hands_over_a_full_boot_loader_fifo_without_loss(void **state)
{
	(void)state;
	hand_over_full_boot_loader_fifo(PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
}

/* The same with two stop bits and parity: the boot loader's frame is 12 bits, not 10. */
static void test_a_boot_loader_fifo_with_longer_frames_is_timed_by_its_own_frame(void **state)
{
	(void)state;
	hand_over_full_boot_loader_fifo(PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN | PL011_LCR_H_STP2 |
					PL011_LCR_H_PEN);
}

/*
 * A boot loader that disabled the UART with a character still shifting out: disabling lets
 * that character finish (TRM 3.3.8), so pl011_init must wait for BUSY to clear before it
 * reprograms the line, even though there is nothing queued to wait for.
 */
static void test_first_init_waits_for_a_character_shifting_out_of_a_disabled_uart(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	boot_loader_enable(26, 3, PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	pl011_io_write(BASE + PL011_DR, 'D');
	pl011_model_advance(m, 20000); /* 20 us into an 87 us frame */
	pl011_io_write(BASE + PL011_CR, 0);
	assert_true(pl011_model_tx_shifting(m));
	init_polled(115200);
	assert_int_equal(pl011_model_counters(m)->reprogram_while_shifting, 0);
	assert_int_equal(pl011_model_wire_len(m), 1);
	assert_int_equal(pl011_model_wire_byte(m, 0), 'D');
}

/* ------------------------------------------------------------------ (3) registers */

static void test_registers_after_init_8n1_115200(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	init_polled(115200);
	assert_int_equal(pl011_model_peek(m, PL011_IBRD), 26);
	assert_int_equal(pl011_model_peek(m, PL011_FBRD), 3);
	assert_int_equal(pl011_model_peek(m, PL011_LCR_H), PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	/* and LCR_H latched them: the line runs 8N1 at 26 + 3/64 */
	assert_int_equal(pl011_model_frame_ns(m), FRAME_115200_NS);
	/* default levels: TX 1/2 (code 2); RX for a non-FEW_IRQS mode 1/8 (code 0) */
	assert_int_equal(pl011_model_peek(m, PL011_IFLS), 0x02);
	assert_int_equal(pl011_model_peek(m, PL011_CR),
			 PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE | PL011_CR_RTS);
	assert_int_equal(pl011_model_peek(m, PL011_IMSC), 0); /* polled: no interrupts */
	assert_int_equal(pl011_get_fifo_depth(&h.uart), 16);
	struct pl011_baud baud;
	assert_int_equal(pl011_get_baud(&h.uart, &baud), 0);
	assert_int_equal(baud.ibrd, 26);
	assert_int_equal(baud.fbrd, 3);
}

static void test_registers_after_init_7o2_explicit_levels_32_deep(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	struct pl011_config config;
	polled_config(&config, 115200);
	config.clock_hz = 24000000u; /* the model's UARTCLK is 48 MHz, but the registers are
					 what is checked: 4 * 24e6 / 115200 = 833.3 -> 833 = 13/1 */
	config.data_bits = 7;
	config.stop_bits = 2;
	config.parity = PL011_PARITY_ODD;
	config.tx_trigger = PL011_LEVEL_3_4;
	config.rx_trigger = PL011_LEVEL_1_4;
	assert_int_equal(harness_init(&h, &config), 0);
	assert_int_equal(pl011_model_peek(m, PL011_IBRD), 13);
	assert_int_equal(pl011_model_peek(m, PL011_FBRD), 1);
	assert_int_equal(pl011_model_peek(m, PL011_LCR_H),
			 PL011_LCR_H_WLEN_7 | PL011_LCR_H_PEN | PL011_LCR_H_STP2 | PL011_LCR_H_FEN);
	assert_int_equal(pl011_model_peek(m, PL011_IFLS), 3u | (1u << 3));
	assert_int_equal(pl011_get_fifo_depth(&h.uart), 32);
	assert_int_equal(pl011_model_counters(m)->order_violations, 0);
}

/* ------------------------------------------------------------------ (4) getc */

static void test_getc_returns_bytes_eagain_and_error_codes(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	init_polled(115200);
	assert_int_equal(pl011_getc(&h.uart), PL011_EAGAIN);

	uint64_t t = pl011_model_now_ns(m);
	pl011_model_rx_inject(m, 'h', 0, t + 100000);
	pl011_model_rx_inject(m, 0xFF, 0, t + 200000);
	pl011_model_rx_inject(m, 'f', PL011_DR_FE, t + 300000);
	pl011_model_rx_inject(m, 'p', PL011_DR_PE, t + 400000);
	pl011_model_rx_inject(m, 0, PL011_DR_BE | PL011_DR_FE, t + 500000);
	pl011_model_rx_inject(m, 'z', 0, t + 600000);
	pl011_model_advance_to(m, t + 600000);

	assert_int_equal(pl011_getc(&h.uart), 'h');
	assert_int_equal(pl011_getc(&h.uart), 0xFF);
	assert_int_equal(pl011_getc(&h.uart), PL011_EFRAMING);
	assert_int_equal(pl011_getc(&h.uart), PL011_EPARITY);
	assert_int_equal(pl011_getc(&h.uart), PL011_EBREAK);
	assert_int_equal(pl011_getc(&h.uart), 'z');
	assert_int_equal(pl011_getc(&h.uart), PL011_EAGAIN);

	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.rx_bytes, 3);
	assert_int_equal(stats.rx_framing, 1);
	assert_int_equal(stats.rx_parity, 1);
	assert_int_equal(stats.rx_break, 1);
	assert_int_equal(pl011_model_counters(m)->rx_empty_reads, 0);
}

static void test_getc_returns_char_after_overrun_and_counts_it(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	init_polled(115200);
	uint8_t burst[17];
	for (unsigned i = 0; i < 17; i++)
		burst[i] = (uint8_t)('A' + i);
	uint64_t last = pl011_model_rx_inject_stream(m, burst, 17, pl011_model_now_ns(m));
	pl011_model_advance_to(m, last); /* the 17th is lost */
	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(pl011_getc(&h.uart), 'A' + i);
	pl011_model_rx_inject(m, '!', 0, pl011_model_now_ns(m) + 1000);
	pl011_model_advance(m, 2000);
	assert_int_equal(pl011_getc(&h.uart), '!'); /* OE does not spoil the character */
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.rx_overrun, 1);
	assert_int_equal(stats.rx_bytes, 17);
}

/* ------------------------------------------------------------------ (5) read */

static void test_read_returns_everything_available_in_one_call(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	init_polled(115200);
	uint8_t in[12];
	for (unsigned i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(0xA0 + i);
	uint64_t last = pl011_model_rx_inject_stream(m, in, sizeof(in), pl011_model_now_ns(m));
	pl011_model_advance_to(m, last);
	uint8_t out[64];
	memset(out, 0, sizeof(out));
	assert_int_equal(pl011_read(&h.uart, out, sizeof(out), PL011_NO_WAIT), 12);
	assert_memory_equal(out, in, sizeof(in));
	assert_int_equal(pl011_read(&h.uart, out, sizeof(out), PL011_NO_WAIT), 0);
}

static void test_read_skips_bad_chars_and_stops_at_len(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	init_polled(115200);
	uint64_t t = pl011_model_now_ns(m);
	pl011_model_rx_inject(m, 'a', 0, t + 1000);
	pl011_model_rx_inject(m, 'x', PL011_DR_FE, t + 2000);
	pl011_model_rx_inject(m, 'b', 0, t + 3000);
	pl011_model_rx_inject(m, 'c', 0, t + 4000);
	pl011_model_advance_to(m, t + 4000);
	uint8_t out[2];
	assert_int_equal(pl011_read(&h.uart, out, 2, PL011_NO_WAIT), 2);
	assert_int_equal(out[0], 'a');
	assert_int_equal(out[1], 'b');
	assert_int_equal(pl011_read(&h.uart, out, 2, PL011_NO_WAIT), 1);
	assert_int_equal(out[0], 'c');
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.rx_framing, 1);
}

static void test_read_waits_for_first_byte_within_bound(void **state)
{
	(void)state;
	struct pl011_model *m = h.model;
	init_polled(115200);
	uint8_t out[8];
	/* nothing comes: returns 0 after the bound (a microsecond clock can end it up to 1 us
	 * early: the start is truncated to whole microseconds) */
	uint64_t t0 = pl011_model_now_ns(m);
	assert_int_equal(pl011_read(&h.uart, out, sizeof(out), 2000), 0);
	assert_true(pl011_model_now_ns(m) - t0 >= 1999000u);
	assert_true(pl011_model_now_ns(m) - t0 < 2100000u);
	/* a byte arriving after 500 us ends the wait right away */
	uint64_t t1 = pl011_model_now_ns(m);
	pl011_model_rx_inject(m, 'w', 0, t1 + 500000);
	assert_int_equal(pl011_read(&h.uart, out, sizeof(out), 10000), 1);
	assert_int_equal(out[0], 'w');
	assert_true(pl011_model_now_ns(m) - t1 < 510000u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_polled_4k_write_arrives_exact_at_line_rate_no_overflow, setup16, harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(
			test_init_programs_in_trm_order_no_violation_even_when_reinit_running, setup16,
			harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(
			test_first_init_waits_for_boot_loader_char_at_slower_rate, setup16, harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(
			test_first_init_hands_over_a_full_boot_loader_fifo_without_loss, setup16,
			harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(
			test_a_boot_loader_fifo_with_longer_frames_is_timed_by_its_own_frame, setup16,
			harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(
			test_first_init_waits_for_a_character_shifting_out_of_a_disabled_uart, setup16,
			harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(test_registers_after_init_8n1_115200, setup16, harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(test_registers_after_init_7o2_explicit_levels_32_deep,
						setup32, harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(test_getc_returns_bytes_eagain_and_error_codes, setup16,
						harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(test_getc_returns_char_after_overrun_and_counts_it,
						setup16, harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(test_read_returns_everything_available_in_one_call,
						setup16, harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(test_read_skips_bad_chars_and_stops_at_len, setup16,
						harness_teardown_fixture),
		cmocka_unit_test_setup_teardown(test_read_waits_for_first_byte_within_bound, setup16,
						harness_teardown_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
