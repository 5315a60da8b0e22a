/* The early console (lib/pl011_early.c) on the model: programmed and used with no instance,
 * every bad input refused before a register is written, every wait bounded, a boot loader's
 * output let finish. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_io.h"
#include "pl011_regs.h"

#define CLOCK_HZ 24000000u
#define BASE HARNESS_BASE

static struct harness h;

static void setup(void)
{
	harness_setup(&h, CLOCK_HZ, 16u);
}

static uint64_t writes(void)
{
	return pl011_model_counters(h.model)->total_writes;
}

static void test_bad_input_is_refused_before_any_write(void **state)
{
	(void)state;
	setup();
	assert_int_equal(pl011_early_init(0, CLOCK_HZ, 115200), PL011_EINVAL);
	assert_int_equal(pl011_early_init(BASE + 2u, CLOCK_HZ, 115200), PL011_EINVAL);
	assert_int_equal(pl011_early_init(BASE, 0, 115200), PL011_EINVAL);
	assert_int_equal(pl011_early_init(BASE, CLOCK_HZ, 0), PL011_EINVAL);
	/* 4 * 24 MHz / 3 Mbaud = 32 < 64: IBRD would be 0. */
	assert_int_equal(pl011_early_init(BASE, CLOCK_HZ, 3000000u), PL011_EBAUD);
	/* 24 MHz / (16 * 65535.98) = 22.9 baud is below IBRD's range. */
	assert_int_equal(pl011_early_init(BASE, CLOCK_HZ, 22u), PL011_EBAUD);
	assert_int_equal(writes(), 0);
	assert_int_equal(pl011_early_getc(0), PL011_EINVAL);
	assert_int_equal(pl011_early_getc(BASE + 1u), PL011_EINVAL);
	assert_int_equal(pl011_early_write(BASE + 2u, "x", 1), PL011_EINVAL);
	/* Out of reset UARTEN is clear: nothing to read from, nothing written. */
	assert_int_equal(pl011_early_getc(BASE), PL011_ESHUTDOWN);
	assert_int_equal(pl011_early_write(BASE, "x", 1), PL011_ESHUTDOWN);
	assert_int_equal(writes(), 0);
	harness_teardown(&h);
}

/* A block whose PrimeCell ID is not the PL011's gets no write at all. */
static void test_a_block_that_is_no_pl011_is_left_alone(void **state)
{
	(void)state;
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = BASE;
	model_config.uartclk_hz = CLOCK_HZ;
	model_config.cell_id_flipped_bits = 0x100u; /* PCellID1 reads 0xF1, not 0xF0 */
	harness_setup_with(&h, &model_config);
	assert_int_equal(pl011_early_init(BASE, CLOCK_HZ, 115200), PL011_EINVAL);
	assert_int_equal(writes(), 0);
	harness_teardown(&h);
}

/* From reset: 8N1 at the divisors pl011_compute_baud gives, FIFOs on, interrupts masked; the
 * write's newline goes as CR LF, and the reads decode what DR says. */
static void test_init_programs_8n1_and_the_console_uses_it(void **state)
{
	(void)state;
	setup();
	struct pl011_model *m = h.model;
	struct pl011_baud baud;
	assert_int_equal(pl011_compute_baud(CLOCK_HZ, 115200, 0, &baud), 0);
	assert_int_equal(pl011_early_init(BASE, CLOCK_HZ, 115200), 0);
	assert_int_equal(pl011_model_peek(m, PL011_IMSC), 0);
	uint32_t on = PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE;
	assert_int_equal(pl011_model_peek(m, PL011_CR) & on, on);
	assert_int_equal(pl011_early_write(BASE, "hi\n", 3), 3);
	pl011_model_advance(m, 10u * pl011_model_frame_ns(m));
	assert_int_equal(pl011_model_wire_len(m), 4);
	static const char wire[] = "hi\r\n";
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(pl011_model_wire_byte(m, i), (uint8_t)wire[i]);
		assert_int_equal(pl011_model_wire_divisor(m, i), baud.ibrd * 64u + baud.fbrd);
		assert_int_equal(pl011_model_wire_lcr_h(m, i),
				 PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	}
	const struct pl011_model_counters *c = pl011_model_counters(m);
	assert_int_equal(c->order_violations, 0);
	assert_int_equal(c->reprogram_while_shifting, 0);
	assert_int_equal(c->tx_overflows, 0);
	assert_int_equal(c->misuse, 0);

	assert_int_equal(pl011_early_getc(BASE), PL011_EAGAIN);
	uint64_t now = pl011_model_now_ns(m), frame = pl011_model_frame_ns(m);
	pl011_model_rx_inject(m, 'k', 0, now + frame);
	pl011_model_rx_inject(m, 'f', PL011_DR_FE, now + 2u * frame);
	pl011_model_rx_inject(m, 'p', PL011_DR_PE, now + 3u * frame);
	pl011_model_rx_inject(m, 0, PL011_DR_BE | PL011_DR_FE, now + 4u * frame);
	pl011_model_rx_inject(m, 0xFF, 0, now + 5u * frame);
	pl011_model_advance(m, 6u * frame);
	assert_int_equal(pl011_early_getc(BASE), 'k');
	assert_int_equal(pl011_early_getc(BASE), PL011_EFRAMING);
	assert_int_equal(pl011_early_getc(BASE), PL011_EPARITY);
	assert_int_equal(pl011_early_getc(BASE), PL011_EBREAK);
	assert_int_equal(pl011_early_getc(BASE), 0xFF);
	assert_int_equal(pl011_early_getc(BASE), PL011_EAGAIN);
	assert_int_equal(c->rx_empty_reads, 0);
	/* A receiver turned off: nothing can arrive, so the read says so instead of EAGAIN. */
	pl011_io_write(BASE + PL011_CR, PL011_CR_UARTEN | PL011_CR_TXE);
	assert_int_equal(pl011_early_getc(BASE), PL011_ESHUTDOWN);
	assert_int_equal(pl011_early_write(BASE, "t", 1), 1);
	harness_teardown(&h);
}

/* What a boot loader leaves: the UART programmed and enabled at another rate. */
static void boot_loader_enable(uint32_t ibrd, uint32_t fbrd)
{
	pl011_io_write(BASE + PL011_CR, 0);
	pl011_io_write(BASE + PL011_IBRD, ibrd);
	pl011_io_write(BASE + PL011_FBRD, fbrd);
	pl011_io_write(BASE + PL011_LCR_H, PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
	pl011_io_write(BASE + PL011_IMSC, PL011_INT_RX | PL011_INT_RT);
	pl011_io_write(BASE + PL011_CR, PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE);
}

/* A boot loader's full FIFO at 9,600 (16 queued, one shifting): all 17 leave whole at its
 * rate before the flush and the new divisors, and what is received meanwhile is dropped. */
static void test_init_lets_a_boot_loaders_output_finish(void **state)
{
	(void)state;
	setup();
	struct pl011_model *m = h.model;
	boot_loader_enable(156, 16); /* 4 * 24 MHz / 9,600 = 10,000 = 156 * 64 + 16 */
	for (unsigned i = 0; i < 17u; i++)
		pl011_io_write(BASE + PL011_DR, 'a' + i);
	assert_int_equal(pl011_model_tx_level(m), 16);
	pl011_model_rx_inject(m, 'r', 0, pl011_model_now_ns(m) + pl011_model_frame_ns(m));
	assert_int_equal(pl011_early_init(BASE, CLOCK_HZ, 115200), 0);
	const struct pl011_model_counters *c = pl011_model_counters(m);
	assert_int_equal(c->tx_fen_flushed, 0);
	assert_int_equal(c->reprogram_while_shifting, 0);
	assert_int_equal(c->order_violations, 0);
	assert_int_equal(pl011_model_wire_len(m), 17);
	for (unsigned i = 0; i < 17u; i++) {
		assert_int_equal(pl011_model_wire_byte(m, i), 'a' + i);
		assert_int_equal(pl011_model_wire_divisor(m, i), 156u * 64u + 16u);
	}
	assert_int_equal(pl011_early_getc(BASE), PL011_EAGAIN);
	assert_int_equal(pl011_model_peek(m, PL011_IMSC), 0);
	assert_int_equal(pl011_early_write(BASE, "Z", 1), 1);
	pl011_model_advance(m, 2u * pl011_model_frame_ns(m));
	assert_int_equal(pl011_model_wire_len(m), 18);
	assert_int_equal(pl011_model_wire_byte(m, 17), 'Z');
	assert_int_equal(pl011_model_wire_divisor(m, 17), 13u * 64u + 1u); /* 833.3 = 13 * 64 + 1 */
	harness_teardown(&h);
}

/* A boot loader that disabled the UART with a character still shifting out: disabling lets it
 * finish (TRM 3.3.8), and the init waits for BUSY before it flushes and reprograms. */
static void test_init_waits_for_a_character_shifting_out_of_a_disabled_uart(void **state)
{
	(void)state;
	setup();
	struct pl011_model *m = h.model;
	boot_loader_enable(156, 16);
	pl011_io_write(BASE + PL011_DR, 'B');
	pl011_model_advance(m, pl011_model_frame_ns(m) / 10u);
	pl011_io_write(BASE + PL011_CR, 0);
	assert_true(pl011_model_tx_shifting(m));
	assert_int_equal(pl011_early_init(BASE, CLOCK_HZ, 115200), 0);
	assert_int_equal(pl011_model_counters(m)->reprogram_while_shifting, 0);
	assert_int_equal(pl011_model_wire_len(m), 1);
	assert_int_equal(pl011_model_wire_byte(m, 0), 'B');
	harness_teardown(&h);
}

/* A transmitter that never sends (CTS held off): the init's waits end after their reads, the
 * FIFO is flushed, and the port is programmed all the same. */
static void test_init_is_bounded_when_the_old_output_never_leaves(void **state)
{
	(void)state;
	setup();
	struct pl011_model *m = h.model;
	boot_loader_enable(156, 16);
	pl011_io_write(BASE + PL011_DR, 'x');
	pl011_model_set_tx_stalled(m, true);
	pl011_io_write(BASE + PL011_DR, 'y');
	uint64_t fr_before = pl011_model_counters(m)->reads[PL011_FR / 4u];
	assert_int_equal(pl011_early_init(BASE, CLOCK_HZ, 115200), 0);
	uint64_t fr_reads = pl011_model_counters(m)->reads[PL011_FR / 4u] - fr_before;
	assert_true(fr_reads <= 2u * PL011_EARLY_SPINS);
	assert_int_equal(pl011_model_tx_level(m), 0);
	assert_int_equal(pl011_model_peek(m, PL011_IBRD), 13);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_bad_input_is_refused_before_any_write, &h),
		HARNESS_TEST(test_a_block_that_is_no_pl011_is_left_alone, &h),
		HARNESS_TEST(test_init_programs_8n1_and_the_console_uses_it, &h),
		HARNESS_TEST(test_init_lets_a_boot_loaders_output_finish, &h),
		HARNESS_TEST(test_init_waits_for_a_character_shifting_out_of_a_disabled_uart, &h),
		HARNESS_TEST(test_init_is_bounded_when_the_old_output_never_leaves, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
