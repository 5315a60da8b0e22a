/* Sentences of include/pl011.h and docs/ that no other test pinned, one test each, named after the sentence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_io.h"
#include "pl011_regs.h"

/*
 * Each test quotes the sentence it holds the driver to, and fails when that sentence stops
 * being true, whatever change in lib/ made it so (docs/testing.md maps every sentence to its
 * test). The model plays the hardware; times are simulated.
 */
static struct harness h;

static void reg_write(uint32_t offset, uint32_t value)
{
	pl011_io_write(HARNESS_BASE + offset, value);
}

/*
 * docs/api.md, pl011_init: "let output already in the FIFO finish (up to depth + 1 frames
 * at the rate the registers hold, for a boot loader's last words), disable, wait for BUSY to
 * clear (two frames)"; docs/waiting.md: "(depth + 1) frames at the slower of the old and new
 * rate", then "2 frames at the slower rate". A boot loader at 9,600 baud with CTS flow control
 * left its FIFO full with CTS held off: nothing can leave, so init takes both bounds whole,
 * (depth + 3) frames of the boot loader's rate, within a wait step.
 */
static void test_contract_init_gives_boot_output_depth_plus_one_frames_then_two_for_busy(
	void **state)
{
	(void)state;
	for (unsigned depth = 16; depth <= 32; depth += 16) {
		harness_setup(&h, 48000000u, depth);
		/* 4 * 48e6 / 9600 = 20000 = 312 * 64 + 32 */
		reg_write(PL011_CR, 0);
		reg_write(PL011_IBRD, 312);
		reg_write(PL011_FBRD, 32);
		reg_write(PL011_LCR_H, PL011_LCR_H_WLEN_8 | PL011_LCR_H_FEN);
		reg_write(PL011_CR, PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE | PL011_CR_CTSEN);
		pl011_model_set_cts(h.model, false);
		for (unsigned i = 0; i < depth; i++)
			reg_write(PL011_DR, 'a');
		uint64_t frame_ns = pl011_model_frame_ns(h.model);
		uint64_t start = pl011_model_now_ns(h.model);
		assert_int_equal(harness_start(&h), 0);
		uint64_t took_us = (pl011_model_now_ns(h.model) - start) / 1000u;
		uint64_t bound_us = (depth + 3u) * frame_ns / 1000u;
		print_message("depth %u: init took %llu us, (depth + 3) frames at 9,600 = %llu us\n",
			      depth, (unsigned long long)took_us, (unsigned long long)bound_us);
		if (took_us + 20u < bound_us || took_us > bound_us + 20u)
			fail_msg("init took %llu us, the documented bounds add up to %llu us",
				 (unsigned long long)took_us, (unsigned long long)bound_us);
		harness_teardown(&h);
	}
}

/*
 * docs/api.md, pl011_irq_handler: "RX and RT drain the FIFO into the RX ring (bounded)",
 * "At most 4 passes over MIS"; docs/waiting.md: "each RX drain reads at most 2 x depth
 * characters". On a line faster than the CPU reads, the FIFO refills as fast as it is read:
 * one handler entry still reads at most 4 x 2 x depth characters.
 */
static void test_contract_one_handler_entry_reads_at_most_four_drains_of_two_fifos(void **state)
{
	(void)state;
	static const enum pl011_rx_mode rx_modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};
	static uint8_t stream[3000];
	memset(stream, 'r', sizeof stream);
	for (size_t m = 0; m < 2; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16) {
			harness_setup_instant_line(&h, depth);
			h.config.rx_mode = rx_modes[m];
			assert_int_equal(harness_start(&h), 0);
			pl011_model_set_irq_handler(h.model, NULL, NULL);
			(void)pl011_model_rx_inject_stream(h.model, stream, sizeof stream,
							   pl011_model_now_ns(h.model));
			pl011_model_advance(h.model, 200u * pl011_model_frame_ns(h.model));
			const struct pl011_model_counters *c = pl011_model_counters(h.model);
			uint64_t before = c->reads[PL011_DR / 4u];
			pl011_irq_handler(&h.uart);
			uint64_t read = c->reads[PL011_DR / 4u] - before;
			print_message("RX mode %d, depth %u: one entry read %llu characters (at most "
				      "%u)\n",
				      rx_modes[m], depth, (unsigned long long)read, 8u * depth);
			assert_true(read > 0);
			if (read > 8u * depth)
				fail_msg("one handler entry read %llu characters, at most %u",
					 (unsigned long long)read, 8u * depth);
			harness_teardown(&h);
		}
}

/*
 * include/pl011.h, struct pl011_stats: "rx_overrun: FIFO overruns (OE), each losing at least
 * one byte"; pl011_irq_handler: "errors are cleared and counted (OE as an overrun)". The
 * character that carries the overrun flag may itself be bad (here a framing error): the
 * overrun is counted all the same, once, and the bad character once, in every RX mode.
 */
static void test_contract_an_overrun_is_counted_even_on_a_bad_character(void **state)
{
	(void)state;
	static const enum pl011_rx_mode rx_modes[] = {PL011_RX_POLLED, PL011_RX_LOW_LATENCY,
						      PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < 3; m++) {
		harness_setup(&h, 48000000u, 16u);
		h.config.rx_mode = rx_modes[m];
		assert_int_equal(harness_start(&h), 0);
		pl011_model_set_irq_handler(h.model, NULL, NULL);
		uint64_t frame = pl011_model_frame_ns(h.model);
		uint64_t now = pl011_model_now_ns(h.model);
		for (unsigned i = 0; i < 17u; i++) /* 16 fill the FIFO, the 17th is lost */
			pl011_model_rx_inject(h.model, (uint8_t)('a' + i), 0, now + (i + 1u) * frame);
		pl011_model_advance(h.model, 18u * frame);
		assert_int_equal(pl011_model_counters(h.model)->rx_overruns, 1);
		uint8_t out[32];
		size_t got = 0;
		if (rx_modes[m] == PL011_RX_POLLED) {
			int c = pl011_getc(&h.uart); /* room for the next character */
			assert_int_equal(c, 'a');
			got = 1;
		} else {
			pl011_irq_handler(&h.uart);
		}
		/* The next character to enter the FIFO carries OE; it has a framing error too. */
		now = pl011_model_now_ns(h.model);
		pl011_model_rx_inject(h.model, 'X', PL011_DR_FE, now + frame);
		pl011_model_advance(h.model, 2u * frame);
		if (rx_modes[m] != PL011_RX_POLLED)
			pl011_irq_handler(&h.uart);
		for (int n; (n = pl011_read(&h.uart, out, sizeof out, PL011_NO_WAIT)) > 0;)
			got += (size_t)n;
		struct pl011_stats stats;
		assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
		print_message("RX mode %d: %zu good bytes, rx_overrun %u, rx_framing %u\n",
			      rx_modes[m], got, stats.rx_overrun, stats.rx_framing);
		assert_int_equal(got, 16);
		assert_int_equal(stats.rx_overrun, 1);
		assert_int_equal(stats.rx_framing, 1);
		harness_teardown(&h);
	}
}

/*
 * docs/api.md, pl011_backlog_deadline_us: "(queued + depth) frames at the programmed baud
 * and frame, plus a quarter, plus 1000". The frame is bits / actual_baud, within 1 ns (the
 * driver keeps it in whole nanoseconds: it truncates, where docs/design.md speaks of "up to
 * 1 ns of rounding" added); checked up to a million frames, for five rates and six frames
 * (every parity, MARK and SPACE included: struct pl011_line, "start + data + parity + stop").
 */
static void test_contract_the_backlog_deadline_is_its_frames_plus_a_quarter_plus_1_ms(
	void **state)
{
	(void)state;
	static const uint32_t bauds[] = {9600u, 115200u, 921600u, 3000000u, 1234567u};
	/* every parity: MARK and SPACE send a parity bit too (stick parity, TRM LCR_H.SPS) */
	static const uint8_t data_bits[] = {8u, 7u, 5u, 8u, 8u, 6u};
	static const enum pl011_parity parities[] = {PL011_PARITY_NONE, PL011_PARITY_EVEN,
						     PL011_PARITY_NONE, PL011_PARITY_ODD,
						     PL011_PARITY_MARK, PL011_PARITY_SPACE};
	static const uint8_t stop_bits[] = {1u, 2u, 2u, 1u, 1u, 2u};
	static const size_t queued[] = {0u, 1000u, 1000000u};
	for (size_t b = 0; b < sizeof bauds / sizeof bauds[0]; b++)
		for (size_t f = 0; f < sizeof parities / sizeof parities[0]; f++) {
			harness_setup(&h, 48000000u, 16u);
			h.config.baud = bauds[b];
			h.config.data_bits = data_bits[f];
			h.config.parity = parities[f];
			h.config.stop_bits = stop_bits[f];
			assert_int_equal(harness_start(&h), 0);
			struct pl011_baud baud;
			assert_int_equal(pl011_get_baud(&h.uart, &baud), 0);
			unsigned bits = 1u + data_bits[f] + (parities[f] != PL011_PARITY_NONE) +
					stop_bits[f];
			double frame_ns = bits * 1e9 / baud.actual_baud;
			for (size_t q = 0; q < 3; q++) {
				double frames = (double)(queued[q] + 16u);
				/* The driver's frame time is rounded up to 1/256 us
				 * (docs/waiting.md). */
				double low = frames * (frame_ns - 1.0) / 1000.0;
				double high = frames * (frame_ns + 1.0 + 1000.0 / 256.0) / 1000.0;
				low = low + low / 4.0 + 1000.0;
				high = high + high / 4.0 + 1000.0;
				uint32_t got = pl011_backlog_deadline_us(&h.uart, queued[q]);
				if ((double)got + 1.0 < low || (double)got > high + 2.0)
					fail_msg("%u baud, %u bits, %zu queued: deadline %u us, the "
						 "frames need %.1f .. %.1f",
						 bauds[b], bits, queued[q], got, low, high);
			}
			harness_teardown(&h);
		}
}

/*
 * include/pl011_instance.h, struct pl011_line: "irq_passes: MIS reads per handler entry at most: 4
 * above a 1/2 TX trigger"; pl011_irq_handler: "At most 4 passes over MIS". At 3/4 and 7/8 a
 * refill carries only 4 or 2 characters; on a line faster than the CPU they are gone before
 * the handler returns, the cause is latched again, and the same entry serves it again, up to
 * 4 times, never more.
 */
static uint64_t most_mis_reads;

static void counting_handler(void *context)
{
	(void)context;
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	uint64_t before = c->reads[PL011_MIS / 4u];
	pl011_irq_handler(&h.uart);
	uint64_t reads = c->reads[PL011_MIS / 4u] - before;
	if (reads > most_mis_reads)
		most_mis_reads = reads;
}

static void test_contract_above_a_half_trigger_the_handler_makes_up_to_four_passes(void **state)
{
	(void)state;
	static const enum pl011_level levels[] = {PL011_LEVEL_3_4, PL011_LEVEL_7_8};
	static uint8_t data[2000];
	memset(data, 'x', sizeof data);
	for (size_t l = 0; l < 2; l++) {
		harness_setup_instant_line(&h, 16u);
		h.config.tx_mode = PL011_TX_HALF_FIFO;
		h.config.tx_trigger = levels[l];
		assert_int_equal(harness_start(&h), 0);
		pl011_model_set_irq_handler(h.model, counting_handler, NULL);
		most_mis_reads = 0;
		/* Fill the ring first, with the interrupt held off, so that every byte goes out
		 * through refills. */
		pl011_model_set_tx_stalled(h.model, true);
		assert_int_equal(pl011_write(&h.uart, data, sizeof data, PL011_NO_WAIT),
				 (int)sizeof data);
		pl011_model_set_tx_stalled(h.model, false);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		print_message("trigger %d: at most %llu MIS reads in one entry\n", levels[l],
			      (unsigned long long)most_mis_reads);
		assert_int_equal(pl011_model_wire_len(h.model), sizeof data);
		if (most_mis_reads < 2u || most_mis_reads > 4u)
			fail_msg("trigger %d: %llu MIS reads in one entry, 2 to 4 expected", levels[l],
				 (unsigned long long)most_mis_reads);
		harness_teardown(&h);
	}
}

/*
 * docs/waiting.md, the stall guard: "If it [the ring's read index] has not moved for
 * (depth + 2) frame times while bytes wait, the TX interrupt is not coming"; include/pl011.h:
 * "tx_stalls: waits that saw no TX progress and refilled themselves". With the ring empty
 * nothing waits for a refill: a flush whose bytes are all in a FIFO held off by CTS times out
 * without a stall counted.
 */
static void test_contract_the_stall_guard_waits_only_for_bytes_in_the_ring(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_HYBRID,
						   PL011_TX_MEASURED};
	for (size_t m = 0; m < 3; m++) {
		harness_setup(&h, 48000000u, 16u);
		h.config.tx_mode = modes[m];
		h.config.flags = PL011_FLAG_RTS_CTS;
		assert_int_equal(harness_start(&h), 0);
		pl011_model_set_cts(h.model, false);
		assert_int_equal(pl011_write(&h.uart, "0123456789", 10, PL011_NO_WAIT), 10);
		assert_int_equal(pl011_tx_queued(&h.uart), 0); /* all of it in the FIFO */
		size_t pending = 99;
		assert_int_equal(pl011_flush(&h.uart, 10000u, &pending), PL011_ETIMEDOUT);
		assert_int_equal(pending, 0);
		struct pl011_stats stats;
		assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
		print_message("mode %d: tx_stalls %u, tx_underruns %u\n", modes[m], stats.tx_stalls,
			      stats.tx_underruns);
		assert_int_equal(stats.tx_stalls, 0);
		pl011_model_set_cts(h.model, true);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		assert_int_equal(pl011_model_wire_len(h.model), 10);
		harness_teardown(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_contract_init_gives_boot_output_depth_plus_one_frames_then_two_for_busy,
			     &h),
		HARNESS_TEST(test_contract_one_handler_entry_reads_at_most_four_drains_of_two_fifos,
			     &h),
		HARNESS_TEST(test_contract_an_overrun_is_counted_even_on_a_bad_character, &h),
		HARNESS_TEST(
			test_contract_the_backlog_deadline_is_its_frames_plus_a_quarter_plus_1_ms,
			&h),
		HARNESS_TEST(test_contract_above_a_half_trigger_the_handler_makes_up_to_four_passes,
			     &h),
		HARNESS_TEST(test_contract_the_stall_guard_waits_only_for_bytes_in_the_ring, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
