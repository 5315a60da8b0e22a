/* cmocka tests of the behavioural PL011 model against facts from the PL011 TRM (ARM DDI 0183). */
#define _POSIX_C_SOURCE 200809L /* fork/waitpid for the abort test */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pl011_io.h"
#include "pl011_model.h"
#include "pl011_regs.h"

#define BASE 0x101F1000u
#define WCOST 10u /* default write cost */
#define RCOST 50u /* default read cost */

/*
 * Line times, worked out by hand from TRM 2.4.3 (one bit = 16 * (IBRD + FBRD/64) UARTCLK
 * cycles) with UARTCLK = 48 MHz and an 8N1 frame of 10 bits; the model rounds to the nearest ns.
 *  115,200: IBRD 26, FBRD 3: bit = 16 * 26.046875 / 48e6 = 8682.29 ns; frame 86822.9 -> 86823;
 *           32 bit periods = 277833.3 -> 277833.
 *  3 Mbaud: IBRD 1, FBRD 0: bit = 16 / 48e6 = 333.33 ns; frame 3333.3 -> 3333.
 */
#define F115 86823u
#define RT115 277833u
#define F3M 3333u
#define LCR_8N1_FIFO (PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN)
#define CR_ON (PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE)
#define CR_OFF (PL011_CR_TXE | PL011_CR_RXE)

static const unsigned triggers16[5] = {2, 4, 8, 12, 14}; /* 1/8 .. 7/8 of 16 */
static const unsigned triggers32[5] = {4, 8, 16, 24, 28}; /* 1/8 .. 7/8 of 32 */

/* ------------------------------------------------------------------ helpers */

static uint32_t rd(uint32_t off)
{
	return pl011_io_read(BASE + off);
}

static void wr(uint32_t off, uint32_t value)
{
	pl011_io_write(BASE + off, value);
}

static struct pl011_model *new_model_cfg(void **state, const struct pl011_model_config *cfg)
{
	pl011_model_destroy(*state);
	*state = pl011_model_create(cfg);
	return *state;
}

static struct pl011_model *new_model(void **state, unsigned depth)
{
	struct pl011_model_config cfg;
	pl011_model_default_config(&cfg);
	cfg.base = BASE;
	cfg.fifo_depth = depth;
	return new_model_cfg(state, &cfg);
}

static int teardown(void **state)
{
	pl011_model_destroy(*state);
	*state = NULL;
	return 0;
}

/* TRM 3.3.8 order: disabled, divisors, LCR_H last (latches), levels, enable. */
static void program(uint32_t ibrd, uint32_t fbrd, uint32_t lcr_h, uint32_t ifls, uint32_t cr)
{
	wr(PL011_CR, 0);
	wr(PL011_IBRD, ibrd);
	wr(PL011_FBRD, fbrd);
	wr(PL011_LCR_H, lcr_h);
	wr(PL011_IFLS, ifls);
	wr(PL011_CR, cr);
}

static uint64_t abs_diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Send 16 characters into an idle enabled UART and check each frame against the math. */
static void check_16_chars(struct pl011_model *m, uint64_t frame_ns, double exact_frame_ns)
{
	uint64_t t0 = pl011_model_now_ns(m);
	for (uint32_t i = 0; i < 16; i++)
		wr(PL011_DR, 'a' + i);
	pl011_model_advance(m, 20 * frame_ns);
	assert_int_equal(pl011_model_wire_len(m), 16);
	/* The first character starts when its DR write lands, then they run back to back. */
	assert_int_equal(pl011_model_wire_start_ns(m, 0), t0 + WCOST);
	for (size_t i = 0; i < 16; i++) {
		assert_int_equal(pl011_model_wire_byte(m, i), 'a' + i);
		if (i > 0)
			assert_int_equal(pl011_model_wire_start_ns(m, i), pl011_model_wire_end_ns(m, i - 1));
	}
	uint64_t span = pl011_model_wire_end_ns(m, 15) - pl011_model_wire_start_ns(m, 0);
	assert_int_equal(span, 16u * frame_ns);
	/* and within rounding (0.5 ns a frame) of the exact figure */
	assert_true(abs_diff(span, (uint64_t)(16.0 * exact_frame_ns + 0.5)) <= 8u);
}

/* ------------------------------------------------------------------ TX timing */

static void test_tx_16_chars_at_115200_8n1_take_16_frames_of_86823ns(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	check_16_chars(m, F115, 10.0 * 16.0 * (26.0 + 3.0 / 64.0) / 48e6 * 1e9);
	assert_int_equal(pl011_model_counters(m)->tx_wire_bytes, 16);
	assert_int_equal(pl011_model_counters(m)->tx_overflows, 0);
}

static void test_tx_16_chars_at_3mbaud_8n1_take_16_frames_of_3333ns(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(1, 0, LCR_8N1_FIFO, 0x12, CR_ON);
	check_16_chars(m, F3M, 10.0 * 16.0 / 48e6 * 1e9);
}

static void test_frame_bits_follow_wlen_parity_and_stop_bits(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	/* 7 data + parity + 2 stop = 11 bits; 5 data, no parity, 1 stop = 7 bits (3 Mbaud). */
	program(1, 0, PL011_LCR_H_WLEN_7 | PL011_LCR_H_PEN | PL011_LCR_H_STP2 | PL011_LCR_H_FEN,
		0x12, CR_ON);
	wr(PL011_DR, 'x');
	pl011_model_advance(m, 10000);
	assert_int_equal(pl011_model_wire_end_ns(m, 0) - pl011_model_wire_start_ns(m, 0),
			 3667); /* 11 * 333.33 = 3666.7 */
	program(1, 0, PL011_LCR_H_WLEN_5 | PL011_LCR_H_FEN, 0x12, CR_ON);
	wr(PL011_DR, 'y');
	pl011_model_advance(m, 10000);
	assert_int_equal(pl011_model_wire_end_ns(m, 1) - pl011_model_wire_start_ns(m, 1),
			 2333); /* 7 * 333.33 = 2333.3 */
}

/* ------------------------------------------------------------------ TX interrupt */

static void test_txis_not_raised_by_enable_or_unmask_with_empty_fifo(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON); /* enable with an empty FIFO */
	assert_int_equal(rd(PL011_RIS) & PL011_INT_TX, 0);
	wr(PL011_IMSC, PL011_INT_TX); /* unmask with an empty FIFO */
	pl011_model_advance(m, 1000000);
	assert_int_equal(rd(PL011_RIS) & PL011_INT_TX, 0);
	assert_int_equal(rd(PL011_MIS), 0);
	assert_false(pl011_model_irq_line(m));
	/* disable and re-enable: still nothing */
	wr(PL011_CR, CR_OFF);
	wr(PL011_CR, CR_ON);
	pl011_model_advance(m, 1000000);
	assert_int_equal(pl011_model_ris(m), 0);
}

/*
 * Transition, not level: 9 characters into an idle 16-deep UART with the 1/2 trigger (8) put
 * one in the shifter and 8 in the FIFO: the level never goes above 8, so draining to 0 never
 * crosses it. 10 characters reach 9 and the drain to 8 raises TXRIS.
 */
static void test_txis_needs_level_above_trigger_first_9_chars_no_10_chars_yes(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(1, 0, LCR_8N1_FIFO, 0x12, CR_ON);
	wr(PL011_IMSC, PL011_INT_TX);
	for (unsigned i = 0; i < 9; i++)
		wr(PL011_DR, i);
	assert_int_equal(pl011_model_tx_level(m), 8);
	pl011_model_advance(m, 20u * F3M);
	assert_int_equal(pl011_model_wire_len(m), 9);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, 0);
	for (unsigned i = 0; i < 10; i++)
		wr(PL011_DR, i);
	assert_int_equal(pl011_model_tx_level(m), 9);
	pl011_model_advance(m, F3M);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, PL011_INT_TX);
}

/*
 * Fill the FIFO with the UART disabled, enable at t_en: the k-th character leaves the FIFO at
 * t_en + (k - 1) * F, leaving depth - k. TXRIS must appear exactly when the level first
 * reaches the trigger T (k = depth - T), not one ns before.
 */
static void check_tx_trigger(void **state, unsigned depth, uint32_t code, unsigned trigger)
{
	struct pl011_model *m = new_model(state, depth);
	program(1, 0, LCR_8N1_FIFO, code, CR_OFF);
	for (unsigned i = 0; i < depth; i++)
		wr(PL011_DR, i);
	assert_true(rd(PL011_FR) & PL011_FR_TXFF);
	wr(PL011_CR, CR_ON);
	uint64_t t_en = pl011_model_now_ns(m);
	uint64_t t_set = t_en + (uint64_t)(depth - trigger - 1u) * F3M;
	pl011_model_advance_to(m, t_set - 1);
	assert_int_equal(pl011_model_tx_level(m), trigger + 1u);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, 0);
	pl011_model_advance_to(m, t_set);
	assert_int_equal(pl011_model_tx_level(m), trigger);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, PL011_INT_TX);
	/* a write that takes the level above the trigger clears it (TRM 2.8) */
	wr(PL011_DR, 'z');
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, 0);
	/* draining through again sets it again; ICR clears it */
	pl011_model_advance(m, 2 * F3M);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, PL011_INT_TX);
	wr(PL011_ICR, PL011_INT_TX);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, 0);
}

static void test_txis_at_each_of_5_trigger_levels_16_deep(void **state)
{
	for (uint32_t code = 0; code < 5; code++)
		check_tx_trigger(state, 16, code, triggers16[code]);
}

static void test_txis_at_each_of_5_trigger_levels_32_deep(void **state)
{
	for (uint32_t code = 0; code < 5; code++)
		check_tx_trigger(state, 32, code, triggers32[code]);
}

static void test_tx_irq_broken_never_sets_txris(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	pl011_model_set_tx_irq_broken(m, true);
	program(1, 0, LCR_8N1_FIFO, 0x12, CR_OFF);
	for (unsigned i = 0; i < 16; i++)
		wr(PL011_DR, i);
	wr(PL011_CR, CR_ON);
	pl011_model_advance(m, 20 * F3M);
	assert_int_equal(pl011_model_wire_len(m), 16);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, 0);
}

/* ------------------------------------------------------------------ BUSY, depth, overflow */

static void test_busy_stays_set_with_txfe_until_last_stop_bit(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	uint64_t t0 = pl011_model_now_ns(m);
	wr(PL011_DR, 'A'); /* shifting from t0 + 10 */
	wr(PL011_DR, 'B'); /* waits in the FIFO until t0 + 10 + F */
	uint64_t last_end = t0 + WCOST + 2u * F115;
	/* the FR read samples after its 50 ns cost: sample at last_end - 1 */
	pl011_model_advance_to(m, last_end - 1 - RCOST);
	uint32_t fr = rd(PL011_FR);
	assert_int_equal(fr & (PL011_FR_BUSY | PL011_FR_TXFE | PL011_FR_TXFF),
			 PL011_FR_BUSY | PL011_FR_TXFE);
	fr = rd(PL011_FR); /* sampled at last_end + 49 */
	assert_int_equal(fr & (PL011_FR_BUSY | PL011_FR_TXFE), PL011_FR_TXFE);
	assert_int_equal(pl011_model_wire_end_ns(m, 1), last_end);
}

static void test_busy_set_by_fifo_data_even_with_uart_disabled(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_OFF);
	wr(PL011_DR, 'q');
	pl011_model_advance(m, 10u * F115);
	assert_int_equal(rd(PL011_FR) & (PL011_FR_BUSY | PL011_FR_TXFE), PL011_FR_BUSY);
	assert_int_equal(pl011_model_wire_len(m), 0);
}

static void check_depth(void **state, unsigned depth, uint32_t revision)
{
	struct pl011_model *m = new_model(state, depth);
	assert_int_equal(rd(PL011_PERIPHID0), 0x11);
	assert_int_equal(rd(PL011_PERIPHID1), 0x10);
	assert_int_equal(rd(PL011_PERIPHID2), (revision << 4) | 0x4);
	assert_int_equal(rd(PL011_PERIPHID3), 0x00);
	assert_int_equal(rd(PL011_CELLID0), 0x0D);
	assert_int_equal(rd(PL011_CELLID1), 0xF0);
	assert_int_equal(rd(PL011_CELLID2), 0x05);
	assert_int_equal(rd(PL011_CELLID3), 0xB1);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_OFF);
	for (unsigned i = 0; i + 1 < depth; i++)
		wr(PL011_DR, i);
	assert_int_equal(rd(PL011_FR) & PL011_FR_TXFF, 0);
	wr(PL011_DR, 0xEE);
	assert_int_equal(rd(PL011_FR) & PL011_FR_TXFF, PL011_FR_TXFF);
	assert_int_equal(pl011_model_counters(m)->tx_overflows, 0);
	wr(PL011_DR, 0xFF); /* one too many: dropped and counted */
	assert_int_equal(pl011_model_counters(m)->tx_overflows, 1);
	assert_int_equal(pl011_model_tx_level(m), depth);
}

static void test_periphid2_revision_1_means_16_deep_txff_after_16_writes(void **state)
{
	check_depth(state, 16, 1);
}

static void test_periphid2_revision_3_means_32_deep_txff_after_32_writes(void **state)
{
	check_depth(state, 32, 3);
}

static void test_reset_values_cr_0x300_ifls_0x12_fr_txfe_rxfe(void **state)
{
	new_model(state, 16);
	assert_int_equal(rd(PL011_CR), 0x300);
	assert_int_equal(rd(PL011_IFLS), 0x12);
	/* the model starts with the CTS input asserted (a connected, ready peer) */
	assert_int_equal(rd(PL011_FR) & (PL011_FR_TXFE | PL011_FR_RXFE | PL011_FR_BUSY |
					 PL011_FR_TXFF | PL011_FR_RXFF | PL011_FR_CTS),
			 PL011_FR_TXFE | PL011_FR_RXFE | PL011_FR_CTS);
	assert_int_equal(rd(PL011_IMSC), 0);
	assert_int_equal(rd(PL011_RIS), 0);
}

static void test_fen_0_gives_one_entry_holding_registers(void **state)
{
	struct pl011_model *m = new_model(state, 32);
	program(26, 3, PL011_LCR_H_WLEN_8, 0x12, CR_OFF);
	wr(PL011_DR, 1);
	assert_true(rd(PL011_FR) & PL011_FR_TXFF);
	wr(PL011_DR, 2);
	assert_int_equal(pl011_model_counters(m)->tx_overflows, 1);
	/* TX interrupt = holding register empty: set when the character moves to the shifter */
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, 0);
	wr(PL011_CR, CR_ON);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_TX, PL011_INT_TX);
	/* RX: the first character fills it (RXFF, RXRIS at 1), the second is an overrun */
	uint64_t t = pl011_model_now_ns(m);
	pl011_model_rx_inject(m, 'a', 0, t + 1000);
	pl011_model_rx_inject(m, 'b', 0, t + 2000);
	pl011_model_advance_to(m, t + 1000);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_RX, PL011_INT_RX);
	assert_true(pl011_model_peek(m, PL011_FR) & PL011_FR_RXFF);
	pl011_model_advance_to(m, t + 2000);
	assert_int_equal(pl011_model_counters(m)->rx_overruns, 1);
	assert_int_equal(rd(PL011_DR), 'a');
}

static void test_clearing_fen_flushes_both_fifos(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_OFF);
	for (unsigned i = 0; i < 5; i++)
		wr(PL011_DR, i);
	wr(PL011_LCR_H, PL011_LCR_H_WLEN_8); /* FEN off */
	assert_int_equal(pl011_model_tx_level(m), 0);
	assert_int_equal(pl011_model_counters(m)->tx_fen_flushed, 5);
	assert_int_equal(rd(PL011_FR) & (PL011_FR_BUSY | PL011_FR_TXFE), PL011_FR_TXFE);
}

/* ------------------------------------------------------------------ LCR_H latching, order */

static void test_ibrd_write_alone_changes_nothing_until_lcr_h_latches(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_OFF);
	wr(PL011_IBRD, 1); /* 3 Mbaud in the holding registers only */
	wr(PL011_FBRD, 0);
	assert_int_equal(rd(PL011_IBRD), 1);
	wr(PL011_CR, CR_ON);
	wr(PL011_DR, 'a');
	pl011_model_advance(m, 2 * F115);
	assert_int_equal(pl011_model_wire_end_ns(m, 0) - pl011_model_wire_start_ns(m, 0), F115);
	wr(PL011_CR, CR_OFF);
	wr(PL011_LCR_H, LCR_8N1_FIFO); /* TRM 3.3.7: this write latches IBRD/FBRD */
	wr(PL011_CR, CR_ON);
	wr(PL011_DR, 'b');
	pl011_model_advance(m, 2 * F115);
	assert_int_equal(pl011_model_wire_end_ns(m, 1) - pl011_model_wire_start_ns(m, 1), F3M);
	assert_int_equal(pl011_model_counters(m)->order_violations, 0);
}

static void test_order_violation_when_divisor_or_lcr_h_changes_while_uarten(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	const struct pl011_model_counters *c = pl011_model_counters(m);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	assert_int_equal(c->order_violations, 0);
	wr(PL011_IBRD, 26); /* same value: allowed */
	wr(PL011_LCR_H, LCR_8N1_FIFO | PL011_LCR_H_BRK); /* only BRK: allowed */
	pl011_model_advance(m, 500000);
	wr(PL011_LCR_H, LCR_8N1_FIFO);
	assert_int_equal(c->order_violations, 0);
	assert_int_equal(pl011_model_break_count(m), 1);
	assert_int_equal(pl011_model_break_end_ns(m, 0) - pl011_model_break_start_ns(m, 0),
			 500000 + WCOST);
	wr(PL011_IBRD, 1); /* changes while enabled */
	assert_int_equal(c->order_violations, 1);
	wr(PL011_LCR_H, LCR_8N1_FIFO); /* latches the changed divisor while enabled */
	assert_int_equal(c->order_violations, 2);
	wr(PL011_LCR_H, LCR_8N1_FIFO | PL011_LCR_H_PEN); /* frame change while enabled */
	assert_int_equal(c->order_violations, 3);
	wr(PL011_CR, CR_OFF);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON); /* the TRM order: no new violation */
	assert_int_equal(c->order_violations, 3);
}

static void test_lcr_h_change_while_char_shifts_is_counted_even_disabled(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	const struct pl011_model_counters *c = pl011_model_counters(m);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	wr(PL011_DR, 'a');
	wr(PL011_CR, CR_OFF); /* disabled, but 'a' is still shifting */
	wr(PL011_LCR_H, LCR_8N1_FIFO); /* same value: fine */
	wr(PL011_LCR_H, PL011_LCR_H_WLEN_8); /* FEN flush before the character is done */
	assert_int_equal(c->reprogram_while_shifting, 1);
	assert_int_equal(c->order_violations, 0);
	pl011_model_advance(m, F115);
	wr(PL011_LCR_H, LCR_8N1_FIFO); /* after the stop bit: fine */
	assert_int_equal(c->reprogram_while_shifting, 1);
}

static void test_cr_write_while_busy_is_counted(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	assert_int_equal(pl011_model_counters(m)->cr_writes_while_busy, 0);
	wr(PL011_DR, 'a');
	wr(PL011_CR, CR_ON);
	assert_int_equal(pl011_model_counters(m)->cr_writes_while_busy, 1);
}

static void test_disable_mid_char_completes_it_and_holds_the_rest(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	uint64_t t0 = pl011_model_now_ns(m);
	wr(PL011_DR, 'a');
	wr(PL011_DR, 'b');
	wr(PL011_DR, 'c');
	pl011_model_advance(m, F115 / 2);
	wr(PL011_CR, CR_OFF);
	pl011_model_advance(m, 10u * F115);
	assert_int_equal(pl011_model_wire_len(m), 1);
	assert_int_equal(pl011_model_wire_end_ns(m, 0), t0 + WCOST + F115);
	assert_int_equal(rd(PL011_FR) & PL011_FR_BUSY, PL011_FR_BUSY);
	wr(PL011_CR, CR_ON);
	uint64_t t_on = pl011_model_now_ns(m);
	pl011_model_advance(m, 3u * F115);
	assert_int_equal(pl011_model_wire_len(m), 3);
	assert_int_equal(pl011_model_wire_start_ns(m, 1), t_on);
	assert_int_equal(pl011_model_wire_byte(m, 2), 'c');
}

/* ------------------------------------------------------------------ RX */

static void check_rx_trigger(void **state, unsigned depth, uint32_t code, unsigned trigger)
{
	struct pl011_model *m = new_model(state, depth);
	program(1, 0, LCR_8N1_FIFO, code << 3, CR_ON);
	uint8_t data[32];
	for (unsigned i = 0; i < depth; i++)
		data[i] = (uint8_t)i;
	uint64_t s = pl011_model_now_ns(m) + 1000;
	pl011_model_rx_inject_stream(m, data, trigger, s);
	/* character i arrives when its stop bit ends: s + (i + 1) * F */
	pl011_model_advance_to(m, s + (uint64_t)trigger * F3M - 1);
	assert_int_equal(pl011_model_rx_level(m), trigger - 1u);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_RX, 0);
	pl011_model_advance_to(m, s + (uint64_t)trigger * F3M);
	assert_int_equal(pl011_model_rx_level(m), trigger);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_RX, PL011_INT_RX);
	assert_int_equal(rd(PL011_DR), 0); /* reading below the level clears it */
	assert_int_equal(pl011_model_ris(m) & PL011_INT_RX, 0);
}

static void test_rxis_at_each_of_5_trigger_levels_16_and_32_deep(void **state)
{
	for (uint32_t code = 0; code < 5; code++) {
		check_rx_trigger(state, 16, code, triggers16[code]);
		check_rx_trigger(state, 32, code, triggers32[code]);
	}
}

static void test_rt_after_32_bit_periods_not_before(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON); /* RX trigger 8: one char stays below it */
	pl011_model_rx_inject(m, 'x', 0, 100000);
	pl011_model_advance_to(m, 100000 + RT115 - 1);
	assert_int_equal(pl011_model_ris(m), 0);
	pl011_model_advance_to(m, 100000 + RT115);
	assert_int_equal(pl011_model_ris(m), PL011_INT_RT);
	wr(PL011_ICR, PL011_INT_RT);
	assert_int_equal(pl011_model_ris(m), 0);
	/* a second arrival restarts the 32-bit window */
	uint64_t t2 = pl011_model_now_ns(m) + 50000;
	pl011_model_rx_inject(m, 'y', 0, t2);
	pl011_model_advance_to(m, t2 + RT115 - 1);
	assert_int_equal(pl011_model_ris(m), 0);
	pl011_model_advance_to(m, t2 + RT115);
	assert_int_equal(pl011_model_ris(m), PL011_INT_RT);
	/* emptying the FIFO clears it */
	assert_int_equal(rd(PL011_DR), 'x');
	assert_int_equal(pl011_model_ris(m), PL011_INT_RT);
	assert_int_equal(rd(PL011_DR), 'y');
	assert_int_equal(pl011_model_ris(m), 0);
}

static void test_overrun_loses_new_char_sets_oe_next_char_carries_oe(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(1, 0, LCR_8N1_FIFO, 0x12, CR_ON);
	uint8_t data[17];
	for (unsigned i = 0; i < 17; i++)
		data[i] = (uint8_t)(0x40 + i);
	uint64_t last = pl011_model_rx_inject_stream(m, data, 17, pl011_model_now_ns(m));
	pl011_model_advance_to(m, last);
	assert_int_equal(pl011_model_rx_level(m), 16);
	assert_int_equal(pl011_model_counters(m)->rx_overruns, 1);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_OE, PL011_INT_OE);
	assert_int_equal(rd(PL011_RSR_ECR) & PL011_RSR_OE, PL011_RSR_OE);
	assert_true(rd(PL011_FR) & PL011_FR_RXFF);
	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(rd(PL011_DR), 0x40 + i); /* the FIFO was kept, no flags */
	pl011_model_rx_inject(m, 'N', 0, pl011_model_now_ns(m) + 100);
	pl011_model_advance(m, 200);
	assert_int_equal(rd(PL011_DR), 'N' | PL011_DR_OE);
	wr(PL011_RSR_ECR, 0);
	assert_int_equal(rd(PL011_RSR_ECR), 0);
}

static void test_error_chars_set_fe_pe_be_ris_and_rsr_after_read(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	uint64_t t = pl011_model_now_ns(m);
	pl011_model_rx_inject(m, 'f', PL011_DR_FE, t + 1000);
	pl011_model_rx_inject(m, 'p', PL011_DR_PE, t + 2000);
	pl011_model_rx_inject(m, 0, PL011_DR_BE | PL011_DR_FE, t + 3000);
	pl011_model_advance_to(m, t + 3000);
	assert_int_equal(pl011_model_ris(m), PL011_INT_FE | PL011_INT_PE | PL011_INT_BE);
	assert_int_equal(rd(PL011_DR), 'f' | PL011_DR_FE);
	assert_int_equal(rd(PL011_RSR_ECR), PL011_RSR_FE);
	wr(PL011_RSR_ECR, 0);
	assert_int_equal(rd(PL011_DR), 'p' | PL011_DR_PE);
	assert_int_equal(rd(PL011_RSR_ECR), PL011_RSR_PE);
	assert_int_equal(rd(PL011_DR), PL011_DR_BE | PL011_DR_FE);
	wr(PL011_ICR, PL011_INT_ALL);
	assert_int_equal(rd(PL011_RIS), 0);
	/* an empty FIFO read returns the last value and is counted */
	assert_int_equal(rd(PL011_DR), PL011_DR_BE | PL011_DR_FE);
	assert_int_equal(pl011_model_counters(m)->rx_empty_reads, 1);
}

static void test_rx_dropped_while_rxe_or_uarten_clear(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, PL011_CR_UARTEN | PL011_CR_TXE);
	pl011_model_rx_inject(m, 'a', 0, 1000000);
	pl011_model_advance_to(m, 1000000);
	assert_int_equal(pl011_model_rx_level(m), 0);
	assert_int_equal(pl011_model_counters(m)->rx_dropped_disabled, 1);
}

static void test_loopback_tx_char_arrives_in_rx_at_its_stop_bit(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(1, 0, LCR_8N1_FIFO, 0x00, CR_ON | PL011_CR_LBE); /* RX trigger 2 */
	uint64_t t0 = pl011_model_now_ns(m);
	wr(PL011_DR, 'L');
	wr(PL011_DR, 'B');
	uint64_t end1 = t0 + WCOST + 2u * F3M;
	pl011_model_advance_to(m, end1 - 1);
	assert_int_equal(pl011_model_rx_level(m), 1);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_RX, 0);
	pl011_model_advance_to(m, end1);
	assert_int_equal(pl011_model_rx_level(m), 2);
	assert_int_equal(pl011_model_ris(m) & PL011_INT_RX, PL011_INT_RX);
	assert_int_equal(pl011_model_peek(m, PL011_DR), 'L'); /* peek does not pop */
	assert_int_equal(rd(PL011_DR), 'L');
	assert_int_equal(rd(PL011_DR), 'B');
	assert_int_equal(pl011_model_wire_len(m), 2); /* also recorded on the wire */
}

/* ------------------------------------------------------------------ stall, CTS, underrun */

static void test_tx_stalled_keeps_busy_and_sends_nothing(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	pl011_model_set_tx_stalled(m, true);
	wr(PL011_DR, 'a');
	wr(PL011_DR, 'b');
	pl011_model_advance(m, 1000000000u);
	assert_int_equal(pl011_model_wire_len(m), 0);
	assert_int_equal(rd(PL011_FR) & (PL011_FR_BUSY | PL011_FR_TXFE), PL011_FR_BUSY);
	pl011_model_set_tx_stalled(m, false);
	uint64_t t = pl011_model_now_ns(m);
	pl011_model_advance(m, 2u * F115);
	assert_int_equal(pl011_model_wire_len(m), 2);
	assert_int_equal(pl011_model_wire_start_ns(m, 0), t);
}

static void test_cts_deasserted_blocks_tx_only_with_ctsen(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	pl011_model_set_cts(m, false);
	assert_int_equal(rd(PL011_FR) & PL011_FR_CTS, 0);
	wr(PL011_DR, 'a'); /* CTSEn clear: goes anyway */
	pl011_model_advance(m, 2u * F115);
	assert_int_equal(pl011_model_wire_len(m), 1);
	wr(PL011_CR, CR_ON | PL011_CR_CTSEN);
	wr(PL011_DR, 'b');
	pl011_model_advance(m, 10u * F115);
	assert_int_equal(pl011_model_wire_len(m), 1);
	pl011_model_set_cts(m, true);
	assert_int_equal(rd(PL011_FR) & PL011_FR_CTS, PL011_FR_CTS);
	pl011_model_advance(m, 2u * F115);
	assert_int_equal(pl011_model_wire_len(m), 2);
}

static size_t probe_value;

static size_t backlog_probe(void *context)
{
	(void)context;
	return probe_value;
}

static void test_underrun_counted_while_driver_has_backlog(void **state)
{
	struct pl011_model *m = new_model(state, 16);
	pl011_model_set_backlog_probe(m, backlog_probe, NULL);
	program(26, 3, LCR_8N1_FIFO, 0x12, CR_ON);
	probe_value = 0;
	wr(PL011_DR, 'a');
	pl011_model_advance(m, 2u * F115);
	assert_int_equal(pl011_model_counters(m)->underruns, 0); /* nothing waiting: no underrun */
	probe_value = 5;
	uint64_t t0 = pl011_model_now_ns(m);
	wr(PL011_DR, 'b'); /* starts at t0 + 10, ends at t0 + 10 + F */
	pl011_model_advance(m, F115 + 40000);
	assert_int_equal(pl011_model_counters(m)->underruns, 1);
	uint64_t t1 = pl011_model_now_ns(m);
	wr(PL011_DR, 'c'); /* starts at t1 + 10 */
	assert_int_equal(pl011_model_counters(m)->underrun_idle_ns,
			 (t1 + WCOST) - (t0 + WCOST + F115));
	probe_value = 0;
}

/* ------------------------------------------------------------------ IRQ delivery */

struct irq_log {
	unsigned calls;
	uint64_t body_ns[300];
	uint32_t mis[300];
	unsigned clear_after; /* leave the cause set for this many calls */
};

static struct irq_log irq_log;
static struct pl011_model *irq_model;

static void rx_handler(void *context)
{
	struct irq_log *log = context;
	unsigned n = log->calls++;
	if (n < 300) {
		log->body_ns[n] = pl011_model_now_ns(irq_model);
		log->mis[n] = rd(PL011_MIS);
	}
	if (log->calls > log->clear_after)
		(void)rd(PL011_DR);
}

/* FEN off: each received character raises RXRIS at once (TRM 2.8, holding register full). */
static struct pl011_model *irq_setup(void **state, const struct pl011_model_config *cfg)
{
	struct pl011_model *m = new_model_cfg(state, cfg);
	irq_model = m;
	memset(&irq_log, 0, sizeof(irq_log));
	program(26, 3, PL011_LCR_H_WLEN_8, 0x12, CR_ON);
	wr(PL011_IMSC, PL011_INT_RX);
	pl011_model_set_irq_handler(m, rx_handler, &irq_log);
	return m;
}

static void default_cfg(struct pl011_model_config *cfg)
{
	pl011_model_default_config(cfg);
	cfg->base = BASE;
}

static void test_irq_dispatched_after_latency_not_before_handler_sees_mis(void **state)
{
	struct pl011_model_config cfg;
	default_cfg(&cfg); /* latency 1000, entry 300, read 50 */
	struct pl011_model *m = irq_setup(state, &cfg);
	pl011_model_rx_inject(m, 'i', 0, 10000);
	pl011_model_advance_to(m, 10999);
	assert_int_equal(irq_log.calls, 0);
	assert_true(pl011_model_irq_line(m));
	pl011_model_advance(m, 1);
	assert_int_equal(irq_log.calls, 1);
	assert_int_equal(irq_log.body_ns[0], 10000 + 1000 + 300);
	assert_int_equal(irq_log.mis[0], PL011_INT_RX);
	assert_false(pl011_model_irq_line(m));
	/* thread time 11000, plus the handler: entry 300 + MIS read 50 + DR read 50 */
	assert_int_equal(pl011_model_now_ns(m), 11400);
	assert_int_equal(pl011_model_counters(m)->irq_dispatches, 1);
	assert_int_equal(pl011_model_counters(m)->irq_cpu_ns, 400);
	pl011_model_advance(m, 1000000);
	assert_int_equal(irq_log.calls, 1);
}

static void test_irq_level_still_asserted_redispatches_after_latency(void **state)
{
	struct pl011_model_config cfg;
	default_cfg(&cfg);
	struct pl011_model *m = irq_setup(state, &cfg);
	irq_log.clear_after = 1; /* the first call leaves RXRIS set */
	pl011_model_rx_inject(m, 'i', 0, 10000);
	pl011_model_advance_to(m, 20000);
	assert_int_equal(irq_log.calls, 2);
	assert_int_equal(irq_log.body_ns[0], 11300);
	/* first handler returns at 11350; line still high: next dispatch 1000 later, +300 entry */
	assert_int_equal(irq_log.body_ns[1], 11350 + 1000 + 300);
}

static void test_irq_preempts_thread_between_register_accesses(void **state)
{
	struct pl011_model_config cfg;
	default_cfg(&cfg);
	struct pl011_model *m = irq_setup(state, &cfg);
	pl011_model_rx_inject(m, 'i', 0, 10000);
	pl011_model_advance_to(m, 10990);
	uint32_t fr = rd(PL011_FR); /* dispatch due at 11000, inside this read's 50 ns */
	assert_int_equal(irq_log.calls, 1);
	assert_true(fr & PL011_FR_RXFE); /* the handler drained it before the read landed */
	assert_int_equal(pl011_model_now_ns(m), 10990 + 50 + 400);
}

#define LAT_N 200

static void collect_latencies(void **state, uint32_t seed, uint64_t out[LAT_N])
{
	struct pl011_model_config cfg;
	default_cfg(&cfg);
	cfg.latency_seed = seed;
	cfg.latency_jitter_ns = 50000;
	struct pl011_model *m = irq_setup(state, &cfg);
	for (unsigned i = 0; i < LAT_N; i++)
		pl011_model_rx_inject(m, (uint8_t)i, 0, 100000u * (i + 1u));
	pl011_model_advance_to(m, 100000u * (LAT_N + 1u));
	assert_int_equal(irq_log.calls, LAT_N);
	for (unsigned i = 0; i < LAT_N; i++)
		out[i] = irq_log.body_ns[i] - 300u - 100000u * (i + 1u);
}

static void test_seeded_latency_is_reproducible_and_bounded(void **state)
{
	static uint64_t a[LAT_N], b[LAT_N], c[LAT_N];
	collect_latencies(state, 42, a);
	collect_latencies(state, 42, b);
	collect_latencies(state, 43, c);
	unsigned differ = 0, above_min = 0;
	for (unsigned i = 0; i < LAT_N; i++) {
		assert_int_equal(a[i], b[i]);
		assert_in_range(a[i], 1000, 1000 + 50000);
		differ += a[i] != c[i];
		above_min += a[i] > 1000 + 500; /* median jitter is J/100 = 500 */
	}
	assert_true(differ > LAT_N / 2);
	assert_in_range(above_min, LAT_N / 4, 3 * LAT_N / 4);
}

static unsigned nest_depth, nest_max;

/* A long handler: it spends 5 us (more than the latency) with the line still asserted. */
static void slow_handler(void *context)
{
	(void)context;
	if (++nest_depth > nest_max)
		nest_max = nest_depth;
	irq_log.calls++;
	pl011_model_advance(irq_model, 5000);
	assert_true(pl011_model_in_irq(irq_model));
	(void)rd(PL011_DR);
	nest_depth--;
}

static void test_irq_not_nested_while_handler_runs(void **state)
{
	struct pl011_model_config cfg;
	default_cfg(&cfg);
	struct pl011_model *m = irq_setup(state, &cfg);
	pl011_model_set_irq_handler(m, slow_handler, NULL);
	nest_depth = nest_max = 0;
	pl011_model_rx_inject(m, 'i', 0, 10000);
	pl011_model_advance_to(m, 30000);
	assert_int_equal(irq_log.calls, 1);
	assert_int_equal(nest_max, 1);
	assert_false(pl011_model_in_irq(m));
	assert_int_equal(pl011_model_counters(m)->irq_cpu_ns, 300 + 50);
}

static void test_irq_cancelled_when_line_drops_before_latency(void **state)
{
	struct pl011_model_config cfg;
	default_cfg(&cfg);
	struct pl011_model *m = irq_setup(state, &cfg);
	pl011_model_rx_inject(m, 'i', 0, 10000);
	pl011_model_advance_to(m, 10500);
	assert_int_equal(rd(PL011_DR), 'i'); /* polled away: the level-sensitive line drops */
	pl011_model_advance(m, 100000);
	assert_int_equal(irq_log.calls, 0);
	assert_int_equal(pl011_model_counters(m)->irq_dispatches, 0);
}

/* ------------------------------------------------------------------ misuse */

static void test_access_outside_every_model_aborts(void **state)
{
	new_model(state, 16);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		(void)pl011_io_read(BASE + 0x1000u);
		_exit(0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_teardown(name, teardown)
		T(test_tx_16_chars_at_115200_8n1_take_16_frames_of_86823ns),
		T(test_tx_16_chars_at_3mbaud_8n1_take_16_frames_of_3333ns),
		T(test_frame_bits_follow_wlen_parity_and_stop_bits),
		T(test_txis_not_raised_by_enable_or_unmask_with_empty_fifo),
		T(test_txis_needs_level_above_trigger_first_9_chars_no_10_chars_yes),
		T(test_txis_at_each_of_5_trigger_levels_16_deep),
		T(test_txis_at_each_of_5_trigger_levels_32_deep),
		T(test_tx_irq_broken_never_sets_txris),
		T(test_busy_stays_set_with_txfe_until_last_stop_bit),
		T(test_busy_set_by_fifo_data_even_with_uart_disabled),
		T(test_periphid2_revision_1_means_16_deep_txff_after_16_writes),
		T(test_periphid2_revision_3_means_32_deep_txff_after_32_writes),
		T(test_reset_values_cr_0x300_ifls_0x12_fr_txfe_rxfe),
		T(test_fen_0_gives_one_entry_holding_registers),
		T(test_clearing_fen_flushes_both_fifos),
		T(test_ibrd_write_alone_changes_nothing_until_lcr_h_latches),
		T(test_order_violation_when_divisor_or_lcr_h_changes_while_uarten),
		T(test_lcr_h_change_while_char_shifts_is_counted_even_disabled),
		T(test_cr_write_while_busy_is_counted),
		T(test_disable_mid_char_completes_it_and_holds_the_rest),
		T(test_rxis_at_each_of_5_trigger_levels_16_and_32_deep),
		T(test_rt_after_32_bit_periods_not_before),
		T(test_overrun_loses_new_char_sets_oe_next_char_carries_oe),
		T(test_error_chars_set_fe_pe_be_ris_and_rsr_after_read),
		T(test_rx_dropped_while_rxe_or_uarten_clear),
		T(test_loopback_tx_char_arrives_in_rx_at_its_stop_bit),
		T(test_tx_stalled_keeps_busy_and_sends_nothing),
		T(test_cts_deasserted_blocks_tx_only_with_ctsen),
		T(test_underrun_counted_while_driver_has_backlog),
		T(test_irq_dispatched_after_latency_not_before_handler_sees_mis),
		T(test_irq_level_still_asserted_redispatches_after_latency),
		T(test_irq_preempts_thread_between_register_accesses),
		T(test_seeded_latency_is_reproducible_and_bounded),
		T(test_irq_not_nested_while_handler_runs),
		T(test_irq_cancelled_when_line_drops_before_latency),
		T(test_access_outside_every_model_aborts),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
