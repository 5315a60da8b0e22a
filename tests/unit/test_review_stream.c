/* Reviewer's probes of lib/pl011_stream.c and lib/pl011_early.c. */
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

/* A higher-priority interrupt (or another core) that prints with pl011_early_write while the
 * UART's handler runs: armed, it writes at the first preemption point after the handler has
 * read MIS, i.e. between the TX cause's read and the refill. */
static struct {
	bool armed;
	bool inside;
	uint64_t mis_reads;
	int result;
} nested;

static void early_write_in_nested_irq(void *context)
{
	(void)context;
	if (!nested.armed || nested.inside || !pl011_model_in_irq(h.model))
		return;
	if (pl011_model_counters(h.model)->reads[PL011_MIS / 4u] == nested.mis_reads)
		return;
	nested.armed = false;
	nested.inside = true;
	nested.result = pl011_early_write(HARNESS_BASE, "EARLY---", 8);
	nested.inside = false;
}

/* pl011_early_write promises "Context: any, before and beside everything else". Beside a
 * running ring-mode port whose TX interrupt it preempts, its bytes fill the FIFO the refill
 * then writes its guaranteed count into without looking (HALF_FIFO, HYBRID, ADAPTIVE and
 * MEASURED write `depth - trigger` blind): the model drops what overflows. */
static void early_write_beside_blind_refill(void **state)
{
	(void)state;
	int failures = 0;
	for (int mode = PL011_TX_HALF_FIFO; mode <= PL011_TX_MEASURED; mode++) {
		harness_setup(&h, 48000000u, 16);
		h.config.tx_mode = (enum pl011_tx_mode)mode;
		assert_int_equal(harness_start(&h), 0);
		uint8_t data[256];
		for (size_t i = 0; i < sizeof data; i++)
			data[i] = (uint8_t)('a' + i % 26u);
		assert_int_equal(pl011_write(&h.uart, data, sizeof data, PL011_NO_WAIT),
				 (int)sizeof data);
		/* Past the first refills (the one after the write's own priming polls FR). */
		for (int round = 0; round < 3; round++) {
			uint64_t dispatches = pl011_model_counters(h.model)->irq_dispatches;
			while (pl011_model_counters(h.model)->irq_dispatches == dispatches)
				pl011_model_advance(h.model, 100u);
		}
		nested.armed = true;
		nested.result = 0;
		nested.mis_reads = pl011_model_counters(h.model)->reads[PL011_MIS / 4u];
		pl011_model_set_preempt_hook(early_write_in_nested_irq, NULL);
		while (nested.armed)
			pl011_model_advance(h.model, 100u);
		pl011_model_set_preempt_hook(NULL, NULL);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		uint64_t overflows = pl011_model_counters(h.model)->tx_overflows;
		size_t wire = pl011_model_wire_len(h.model);
		print_message("%s: early %d, FIFO overflows %llu, wire %zu of %zu\n",
			      harness_tx_mode_name((enum pl011_tx_mode)mode), nested.result,
			      (unsigned long long)overflows, wire, sizeof data + 8u);
		if (nested.result != 8 || overflows != 0 || wire != sizeof data + 8u)
			failures++;
		harness_teardown(&h);
	}
	assert_int_equal(failures, 0);
}

/* The UART's handler preempting a thread's pl011_early_write between its FR read and its DR
 * write: armed, it runs at the first preemption point after the write's FR read. */
static struct {
	bool armed;
	uint64_t fr_reads;
} preempting;

static void uart_handler(void *context)
{
	pl011_irq_handler(context);
}

static void handler_after_early_fr_read(void *context)
{
	(void)context;
	if (!preempting.armed || pl011_model_in_irq(h.model))
		return;
	if (pl011_model_counters(h.model)->reads[PL011_FR / 4u] == preempting.fr_reads)
		return;
	preempting.armed = false;
	pl011_model_run_as_irq(h.model, uart_handler, &h.uart);
}

/* A thread's pl011_early_write beside a running port, preempted by the TX interrupt between
 * its look at FR and its DR write: the refill fills the FIFO (POLL_FULL fills until TXFF), and
 * the early write's byte, counted as written, is dropped. */
static void early_write_preempted_by_refill(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_POLL_FULL;
	assert_int_equal(harness_start(&h), 0);
	uint8_t data[256];
	memset(data, 'd', sizeof data);
	assert_int_equal(pl011_write(&h.uart, data, sizeof data, PL011_NO_WAIT), (int)sizeof data);
	while (!pl011_model_irq_line(h.model))
		pl011_model_advance(h.model, 100u); /* the TX interrupt is latched, not yet taken */
	preempting.armed = true;
	preempting.fr_reads = pl011_model_counters(h.model)->reads[PL011_FR / 4u];
	pl011_model_set_preempt_hook(handler_after_early_fr_read, NULL);
	int early = pl011_early_write(HARNESS_BASE, "E", 1);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	uint64_t overflows = pl011_model_counters(h.model)->tx_overflows;
	size_t wire = pl011_model_wire_len(h.model);
	print_message("early %d, FIFO overflows %llu, wire %zu of %zu\n", early,
		      (unsigned long long)overflows, wire, sizeof data + 1u);
	assert_int_equal(early, 1);
	assert_int_equal(overflows, 0);
	assert_int_equal(wire, sizeof data + 1u);
	harness_teardown(&h);
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
 * space does not fit an int. The storage is never touched by init or pl011_tx_free. */
static void tx_free_largest_ring(void **state)
{
	(void)state;
	static uint8_t never_touched[1];
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_POLL_FULL;
	h.config.tx_buffer = never_touched;
	h.config.tx_buffer_size = (size_t)1u << 31;
	assert_int_equal(harness_start(&h), 0);
	int free_now = pl011_tx_free(&h.uart);
	print_message("pl011_tx_free on a 2^31-byte ring: %d (%s)\n", free_now,
		      pl011_error_name(free_now));
	assert_true(free_now >= 0);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(discard_takes_fifo_below_trigger, &h),
		HARNESS_TEST(early_write_beside_blind_refill, &h),
		HARNESS_TEST(early_write_preempted_by_refill, &h),
		HARNESS_TEST(discard_polled_against_bad_stream, &h),
		HARNESS_TEST(read_exact_polled_bound_against_bad_stream, &h),
		HARNESS_TEST(tx_free_largest_ring, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
