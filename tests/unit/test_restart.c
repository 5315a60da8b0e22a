/* pl011_restart of a running port (lib/pl011_restart.c): what it received carried into the new
 * ring in order, into storage of any size and place, or counted; and pl011_init's refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

static struct harness h;

static uint32_t rx_discarded(void)
{
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	return stats.rx_discarded;
}

/* n bytes 0, 1, 2, ... received into the running port's RX ring (the receive timeout drains
 * what stays below the trigger). */
static void receive_into_ring(size_t n, uint8_t first)
{
	uint8_t data[256];
	assert_true(n <= sizeof data);
	for (size_t i = 0; i < n; i++)
		data[i] = (uint8_t)(first + i);
	uint64_t last = pl011_model_rx_inject_stream(h.model, data, n, pl011_model_now_ns(h.model));
	pl011_model_advance_to(h.model, last + 2000000u);
}

static void expect_sequence(size_t n, uint8_t first)
{
	uint8_t out[512];
	assert_true(n <= sizeof out);
	size_t got = 0;
	assert_int_equal(pl011_read_exact(&h.uart, out, n, PL011_NO_WAIT, &got), (int)n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(out[i], (uint8_t)(first + i));
	assert_int_equal(pl011_rx_available(&h.uart), 0);
}

/* "The new rx_buffer may be the old one (the bytes stay where they are) ... what does not fit
 * ... is counted": the old buffer with another size (a smaller or a larger ring at the same
 * address) keeps nothing, though everything fits. */
static void restart_same_buffer_other_size(void **state)
{
	(void)state;
	static const size_t sizes[][2] = {{4096, 256}, {256, 4096}};
	for (size_t s = 0; s < 2; s++) {
		harness_setup(&h, 48000000u, 16);
		h.config.rx_mode = PL011_RX_LOW_LATENCY;
		h.config.rx_buffer_size = sizes[s][0];
		assert_int_equal(harness_start(&h), 0);
		receive_into_ring(10, 'a');
		assert_int_equal(pl011_rx_available(&h.uart), 10);
		h.config.rx_buffer_size = sizes[s][1]; /* same rx_buffer */
		assert_int_equal(harness_restart(&h), 0);
		print_message("ring %zu -> %zu at the same address: %d of 10 kept, rx_discarded %u\n",
			      sizes[s][0], sizes[s][1], pl011_rx_available(&h.uart),
			      (unsigned)rx_discarded());
		assert_int_equal(rx_discarded(), 0);
		expect_sequence(10, 'a');
		harness_teardown(&h);
	}
}

static uint8_t other_storage[4096];

static struct pl011_config with_rx(enum pl011_rx_mode mode, uint8_t *buffer, size_t size)
{
	struct pl011_config c = h.config;
	c.rx_mode = mode;
	c.rx_buffer = buffer;
	c.rx_buffer_size = size;
	return c;
}

static void restart_keeps_polled_to_irq_and_back(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	assert_int_equal(harness_start(&h), 0); /* polled */
	receive_into_ring(5, 'a');             /* stays in the FIFO */
	struct pl011_config c = with_rx(PL011_RX_LOW_LATENCY, other_storage, 64);
	assert_int_equal(harness_reinit(&h, &c), 0);
	assert_int_equal(pl011_rx_available(&h.uart), 5);
	expect_sequence(5, 'a');
	receive_into_ring(7, 'A');
	c = with_rx(PL011_RX_POLLED, NULL, 0);
	assert_int_equal(harness_reinit(&h, &c), 0);
	assert_int_equal(rx_discarded(), 7);
	assert_int_equal(pl011_rx_available(&h.uart), 0);
	receive_into_ring(3, 'x');
	expect_sequence(3, 'x');
	harness_teardown(&h);
}

static void restart_keeps_smaller_ring_elsewhere_keeps_oldest(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	assert_int_equal(harness_start(&h), 0);
	receive_into_ring(100, 0);
	struct pl011_config c = with_rx(PL011_RX_FEW_IRQS, other_storage, 64);
	assert_int_equal(harness_reinit(&h, &c), 0);
	assert_int_equal(rx_discarded(), 36);
	expect_sequence(64, 0);
	harness_teardown(&h);
}

static void restart_keeps_ring_then_fifo_in_order(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.rx_mode = PL011_RX_FEW_IRQS; /* 12 of 16 */
	h.config.rx_buffer_size = 16;
	assert_int_equal(harness_start(&h), 0);
	/* wrap the ring first */
	receive_into_ring(10, 100);
	expect_sequence(10, 100);
	receive_into_ring(12, 0); /* ring: 12, wrapped */
	uint8_t more[5] = {12, 13, 14, 15, 16};
	pl011_model_rx_inject_stream(h.model, more, 5, pl011_model_now_ns(h.model));
	pl011_model_advance(h.model, 5u * 87000u + 10000u); /* in the FIFO, RT not yet */
	assert_int_equal(pl011_model_rx_level(h.model), 5);
	struct pl011_config c = with_rx(PL011_RX_LOW_LATENCY, other_storage, 4096);
	assert_int_equal(harness_reinit(&h, &c), 0);
	assert_int_equal(rx_discarded(), 0);
	expect_sequence(17, 0);
	/* and back to the first buffer, same size as before */
	receive_into_ring(9, 50);
	c = with_rx(PL011_RX_FEW_IRQS, h.rx_storage, 16);
	assert_int_equal(harness_reinit(&h, &c), 0);
	expect_sequence(9, 50);
	harness_teardown(&h);
}

static void restart_keeps_paused_ring_and_full_fifo(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.rx_buffer_size = 16;
	assert_int_equal(harness_start(&h), 0);
	receive_into_ring(40, 0); /* 16 in the ring, 16 in the FIFO, 8 lost (overrun) */
	struct pl011_config c = with_rx(PL011_RX_LOW_LATENCY, other_storage, 64);
	assert_int_equal(harness_reinit(&h, &c), 0);
	struct pl011_stats st;
	pl011_get_stats(&h.uart, &st);
	print_message("available %d, rx_discarded %u, rx_overrun %u, rx_bytes %u\n",
		      pl011_rx_available(&h.uart), st.rx_discarded, st.rx_overrun, st.rx_bytes);
	assert_int_equal(st.rx_discarded, 0);
	assert_true(st.rx_overrun >= 1);
	expect_sequence(32, 0);
	harness_teardown(&h);
}

static void restart_keeps_states_and_refusals(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.tx_mode = PL011_TX_HYBRID;
	/* never started: restart starts it */
	assert_int_equal(harness_restart(&h), 0);
	receive_into_ring(6, 'a');
	assert_int_equal(pl011_write(&h.uart, "hello", 5, PL011_NO_WAIT), 5);
	/* init of a running port: refused, nothing touched */
	assert_int_equal(harness_start(&h), PL011_EBUSY);
	assert_int_equal(pl011_rx_available(&h.uart), 6);
	/* a bad config: refused, still running */
	struct pl011_config bad = h.config;
	bad.rx_buffer_size = 100;
	assert_int_equal(harness_reinit(&h, &bad), PL011_EINVAL);
	bad = h.config;
	bad.baud = 1;
	assert_int_equal(harness_reinit(&h, &bad), PL011_EBAUD);
	assert_int_equal(pl011_rx_available(&h.uart), 6);
	/* a wrong strategy object */
	assert_int_equal(pl011_restart_port(&h.uart, harness_live_config(&h), &pl011_tx_half_fifo),
			 PL011_EINVAL);
	assert_int_equal(harness_restart(&h), 0);
	assert_int_equal(pl011_model_wire_len(h.model), 5); /* drained by the stop */
	struct pl011_stats st;
	pl011_get_stats(&h.uart, &st);
	assert_int_equal(st.tx_bytes, 5);
	assert_int_equal(st.tx_discarded, 0);
	expect_sequence(6, 'a');
	/* after a shutdown: restart starts it, a boot-loader style FIFO byte carried */
	receive_into_ring(3, 'q');
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	assert_int_equal(rx_discarded(), 3);
	assert_int_equal(harness_restart(&h), 0);
	assert_int_equal(rx_discarded(), 0); /* counters zeroed, as pl011_init */
	assert_int_equal(pl011_write(&h.uart, "x", 1, PL011_WAIT_AUTO), 1);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	harness_teardown(&h);
}

/* Storage that overlaps the old ring's (after it or before it), with the old bytes wrapped
 * round its end: with the fix they all move across, in order. */
static void restart_overlapping_storage_keeps_order(void **state)
{
	(void)state;
	static const size_t at[][2] = {{0, 32}, {64, 32}, {0, 0}, {0, 16}};
	static const size_t new_size[] = {64, 64, 32, 16};
	for (size_t i = 0; i < 4; i++) {
		harness_setup(&h, 48000000u, 16);
		h.config.rx_mode = PL011_RX_LOW_LATENCY;
		h.config.rx_buffer = other_storage + at[i][0];
		h.config.rx_buffer_size = 64;
		assert_int_equal(harness_start(&h), 0);
		receive_into_ring(40, 200);
		expect_sequence(40, 200);
		receive_into_ring(40, 0); /* wraps round the end of the 64 */
		struct pl011_config c =
			with_rx(PL011_RX_LOW_LATENCY, other_storage + at[i][1], new_size[i]);
		assert_int_equal(harness_reinit(&h, &c), 0);
		size_t kept = new_size[i] < 40 ? new_size[i] : 40;
		print_message("old at %zu, new at %zu size %zu: available %d, rx_discarded %u\n",
			      at[i][0], at[i][1], new_size[i], pl011_rx_available(&h.uart),
			      (unsigned)rx_discarded());
		assert_int_equal(rx_discarded(), 40 - kept);
		expect_sequence(kept, 0);
		harness_teardown(&h);
	}
}

static void restart_keeps_tx_held_off_counted(void **state)
{
	(void)state;
	for (int mode = PL011_TX_POLLED; mode <= PL011_TX_MEASURED; mode++) {
		harness_setup(&h, 48000000u, 16);
		h.config.flags = PL011_FLAG_RTS_CTS;
		h.config.tx_mode = (enum pl011_tx_mode)mode;
		assert_int_equal(harness_start(&h), 0);
		uint8_t old[100];
		memset(old, 'o', sizeof old);
		assert_int_equal(pl011_write(&h.uart, "ab", 2, PL011_WAIT_AUTO), 2);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		pl011_model_set_cts(h.model, false);
		int w = pl011_write(&h.uart, old, sizeof old, PL011_NO_WAIT);
		struct pl011_config c = h.config;
		c.tx_mode = (enum pl011_tx_mode)(PL011_TX_MEASURED - mode);
		c.flags = 0;
		int r = harness_reinit(&h, &c);
		pl011_model_set_cts(h.model, true);
		assert_int_equal(pl011_write(&h.uart, "NEW", 3, PL011_WAIT_AUTO), 3);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		struct pl011_stats st;
		pl011_get_stats(&h.uart, &st);
		size_t wire = pl011_model_wire_len(h.model);
		print_message("%s: wrote %d, restart %d, tx_discarded %u, abandoned %u, wire %zu, "
			      "tx_bytes %u\n",
			      harness_tx_mode_name((enum pl011_tx_mode)mode), w, r, st.tx_discarded,
			      st.tx_fifo_abandoned, wire, st.tx_bytes);
		assert_int_equal(r, 0);
		assert_int_equal(wire, 5);
		assert_int_equal(pl011_model_wire_byte(h.model, 2), 'N');
		assert_int_equal(st.tx_fifo_abandoned, 1);
		assert_int_equal(st.tx_discarded + 16u, (unsigned)w);
		harness_teardown(&h);
	}
}

/* A restart (to another mode, ring size or storage) in the middle of a stream: every byte is
 * read once, in order, or counted. */
static void restart_keeps_restart_mid_stream(void **state)
{
	(void)state;
	for (int variant = 0; variant < 8; variant++) {
		harness_setup(&h, 48000000u, 16);
		h.config.rx_mode = (variant & 1) ? PL011_RX_FEW_IRQS : PL011_RX_LOW_LATENCY;
		h.config.tx_mode = PL011_TX_HYBRID;
		h.config.rx_buffer_size = 64;
		assert_int_equal(harness_start(&h), 0);
		static uint8_t sent[3000], got[4000];
		for (size_t i = 0; i < sizeof sent; i++)
			sent[i] = (uint8_t)(i * 7u + (i >> 8));
		pl011_model_rx_inject_stream(h.model, sent, sizeof sent, pl011_model_now_ns(h.model));
		size_t n = 0;
		uint64_t restart_at = 50000000u + (uint64_t)variant * 13000u;
		bool restarted = false;
		while (pl011_model_rx_pending(h.model) != 0 || pl011_rx_available(&h.uart) > 0) {
			int r = pl011_read(&h.uart, got + n, 16, PL011_NO_WAIT);
			assert_true(r >= 0);
			n += (size_t)r;
			if (!restarted && pl011_model_now_ns(h.model) > restart_at) {
				struct pl011_config c = h.config;
				c.rx_mode = (variant & 2) ? PL011_RX_POLLED : PL011_RX_FEW_IRQS;
				c.rx_buffer = (variant & 4) ? other_storage : h.rx_storage;
				c.rx_buffer_size = (variant & 4) ? 256 : 32;
				c.tx_mode = PL011_TX_POLLED;
				assert_int_equal(harness_reinit(&h, &c), 0);
				restarted = true;
			}
			pl011_model_advance(h.model, 20000u);
		}
		pl011_model_advance(h.model, 2000000u);
		int r = pl011_read(&h.uart, got + n, 100, PL011_NO_WAIT);
		n += (size_t)(r > 0 ? r : 0);
		/* a subsequence, in order, no duplicates */
		size_t j = 0;
		for (size_t i = 0; i < n; i++) {
			while (j < sizeof sent && sent[j] != got[i])
				j++;
			assert_true(j < sizeof sent);
			j++;
		}
		struct pl011_stats st;
		pl011_get_stats(&h.uart, &st);
		const struct pl011_model_counters *mc = pl011_model_counters(h.model);
		print_message("variant %d: read %zu of %zu, rx_discarded %u, overrun events %u, model: overruns %llu, dropped disabled %llu\n",
			      variant, n, sizeof sent, st.rx_discarded, st.rx_overrun,
			      (unsigned long long)mc->rx_overruns,
			      (unsigned long long)mc->rx_dropped_disabled);
		assert_int_equal(n + st.rx_discarded + mc->rx_overruns + mc->rx_dropped_disabled, sizeof sent);
		harness_teardown(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(restart_same_buffer_other_size, &h),
		HARNESS_TEST(restart_keeps_polled_to_irq_and_back, &h),
		HARNESS_TEST(restart_keeps_smaller_ring_elsewhere_keeps_oldest, &h),
		HARNESS_TEST(restart_keeps_ring_then_fifo_in_order, &h),
		HARNESS_TEST(restart_keeps_paused_ring_and_full_fifo, &h),
		HARNESS_TEST(restart_keeps_states_and_refusals, &h),
		HARNESS_TEST(restart_overlapping_storage_keeps_order, &h),
		HARNESS_TEST(restart_keeps_tx_held_off_counted, &h),
		HARNESS_TEST(restart_keeps_restart_mid_stream, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
