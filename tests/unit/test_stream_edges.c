/* The stream calls (lib/pl011_stream.c) and the early console at their edges: characters below
 * the RX trigger, a stream of bad characters faster than the reader, the largest ring, and a
 * newline the early console could only half write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

static struct harness h;

static void start_rx(enum pl011_rx_mode mode)
{
	harness_setup(&h, 48000000u, 16);
	h.config.rx_mode = mode;
	assert_int_equal(harness_start(&h), 0);
}

/* Interrupt RX: a byte below the trigger level sits in the FIFO until the receive timeout.
 * pl011_discard_input promises to throw away "what the FIFO holds now" too. */
static void discard_takes_fifo_below_trigger(void **state)
{
	(void)state;
	for (int mode = PL011_RX_LOW_LATENCY; mode <= PL011_RX_FEW_IRQS; mode++) {
		start_rx((enum pl011_rx_mode)mode);
		uint64_t now = pl011_model_now_ns(h.model);
		pl011_model_rx_inject(h.model, 'x', 0, now + 1000u);
		pl011_model_advance(h.model, 2000u);
		assert_int_equal(pl011_model_rx_level(h.model), 1); /* arrived, in the FIFO */
		int discarded = pl011_discard_input(&h.uart);
		/* Later: RT fires, the stale byte reaches the ring. */
		pl011_model_advance(h.model, 2000000u);
		int available = pl011_rx_available(&h.uart);
		print_message("mode %d: discarded %d, available afterwards %d\n", mode, discarded,
			      available);
		assert_int_equal(available, 0);
		assert_int_equal(discarded, 1);
		harness_teardown(&h);
	}
}

/* A line faster than the reader (the instant line: a character every 40 ns) carrying only bad
 * characters (a sender at the wrong baud: every one a framing error) for 2 ms. */
#define BAD_STREAM 50000u

static void start_bad_stream(void)
{
	harness_setup_instant_line(&h, 16);
	assert_int_equal(harness_start(&h), 0); /* RX_POLLED */
	uint64_t at = pl011_model_now_ns(h.model) + 1000u;
	for (unsigned i = 0; i < BAD_STREAM; i++)
		pl011_model_rx_inject(h.model, 0x55, PL011_DR_FE, at + 40u * i);
	pl011_model_advance(h.model, 2000u);
}

/* pl011_discard_input: "at most the ring's size plus a FIFO, so a sender that keeps sending
 * cannot keep it going". In RX_POLLED mode it keeps going until the sender stops. */
static void discard_polled_against_bad_stream(void **state)
{
	(void)state;
	start_bad_stream();
	uint64_t t0 = pl011_model_now_ns(h.model);
	uint64_t dr0 = pl011_model_counters(h.model)->reads[PL011_DR / 4u];
	int discarded = pl011_discard_input(&h.uart);
	uint64_t dr_reads = pl011_model_counters(h.model)->reads[PL011_DR / 4u] - dr0;
	uint64_t took_ns = pl011_model_now_ns(h.model) - t0;
	print_message("discarded %d, DR reads %llu, %llu ns, still to come %zu of %u\n", discarded,
		      (unsigned long long)dr_reads, (unsigned long long)took_ns,
		      pl011_model_rx_pending(h.model), BAD_STREAM);
	assert_true(dr_reads <= 4u * 16u);
	harness_teardown(&h);
}

/* pl011_read_exact: "Returns len, or PL011_ETIMEDOUT when the bound ran out first". 100 us
 * against the same stream: it returns when the sender stops, 20 times its bound later. */
static void read_exact_polled_bound_against_bad_stream(void **state)
{
	(void)state;
	start_bad_stream();
	uint8_t out[4];
	size_t got = 99;
	uint64_t t0 = pl011_model_now_ns(h.model);
	int result = pl011_read_exact(&h.uart, out, sizeof out, 100u, &got);
	uint64_t took_ns = pl011_model_now_ns(h.model) - t0;
	print_message("result %d, got %zu, %llu ns for a 100 us bound\n", result, got,
		      (unsigned long long)took_ns);
	assert_int_equal(result, PL011_ETIMEDOUT);
	assert_int_equal(got, 0);
	assert_true(took_ns < 2u * 100000u);
	harness_teardown(&h);
}

/* The largest ring the config allows, 2^31 bytes (check_ring_buffer): a fresh TX ring's free
 * space does not fit an int. The storage, never touched by init or pl011_tx_free, starts right
 * after the instance, which init refuses a ring to overlap (RX is polled: no RX ring). */
static void tx_free_largest_ring(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_POLL_FULL;
	h.config.tx_buffer = (uint8_t *)(uintptr_t)((uintptr_t)&h.uart + sizeof h.uart);
	h.config.tx_buffer_size = (size_t)1u << 31;
	assert_int_equal(harness_start(&h), 0);
	int free_now = pl011_tx_free(&h.uart);
	print_message("pl011_tx_free on a 2^31-byte ring: %d (%s)\n", free_now,
		      pl011_error_name(free_now));
	assert_true(free_now >= 0);
	harness_teardown(&h);
}

/* A running polled port with flow control and CTS deasserted: the TX FIFO holds `queued` of
 * its 16 and never drains. */
static void start_held_off(size_t queued)
{
	harness_setup(&h, 48000000u, 16);
	h.config.flags = PL011_FLAG_RTS_CTS;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_cts(h.model, false);
	uint8_t fill[16];
	memset(fill, 'f', sizeof fill);
	assert_int_equal(pl011_write(&h.uart, fill, queued, PL011_NO_WAIT), (int)queued);
	assert_int_equal(pl011_model_tx_level(h.model), queued);
}

/* A "\n" whose "\r" found the FIFO's last entry and whose "\n" found none: no text byte went
 * whole, so PL011_ETIMEDOUT, and the lone "\r" is in the FIFO (a retry sends it again). The
 * wait is PL011_EARLY_SPINS FR reads for the "\n", not one more. */
static void early_write_times_out_after_a_lone_cr(void **state)
{
	(void)state;
	start_held_off(15);
	uint64_t fr0 = pl011_model_counters(h.model)->reads[PL011_FR / 4u];
	int result = pl011_early_write(HARNESS_BASE, "\n", 1);
	uint64_t fr_reads = pl011_model_counters(h.model)->reads[PL011_FR / 4u] - fr0;
	assert_int_equal(result, PL011_ETIMEDOUT);
	assert_int_equal(pl011_model_tx_level(h.model), 16);
	assert_true(fr_reads <= 1u + PL011_EARLY_SPINS);
	assert_true(fr_reads >= PL011_EARLY_SPINS);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(discard_takes_fifo_below_trigger, &h),
		HARNESS_TEST(discard_polled_against_bad_stream, &h),
		HARNESS_TEST(read_exact_polled_bound_against_bad_stream, &h),
		HARNESS_TEST(tx_free_largest_ring, &h),
		HARNESS_TEST(early_write_times_out_after_a_lone_cr, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
