/* Where features meet at run time: a start under arriving characters, a stale IMSC write during
 * a line switch, a panic's last pass beside a streaming writer; each as an independent review
 * found it, on the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_internal.h"
#include "pl011_tx_owner.h"
#include "pl011_io.h"
#include "pl011_regs.h"

static struct harness h;

/* ---- a start under arriving characters ---- */

#define ARRIVING 3u

static struct {
	bool inside, held_up;
	unsigned stopped_entries, entries;
} start_window;

/* The UART's handler as the model dispatches it, counting the returns that leave the line up
 * while the port is stopped (being started, or shut down): on one core the line
 * (level-sensitive) takes the handler again at once, and the thread that would set RUNNING, or
 * mask, never runs again. */
static void counting_handler(void *context)
{
	start_window.entries++;
	pl011_irq_handler(context);
	uint32_t state = __atomic_load_n(&h.uart.state, __ATOMIC_SEQ_CST);
	if ((state == PL011_STATE_STOPPED || state == PL011_STATE_SHUT) &&
	    pl011_model_irq_line(h.model))
		start_window.stopped_entries++;
}

/* At the first point of the start (the state STOPPED: a restart's stop is over) after the UART
 * is enabled, the starting thread is held up (a higher-priority task) while ARRIVING characters
 * come in. */
static void hold_up_the_start(void *context)
{
	(void)context;
	if (start_window.inside || start_window.held_up ||
	    __atomic_load_n(&h.uart.state, __ATOMIC_SEQ_CST) != PL011_STATE_STOPPED)
		return;
	uint32_t enabled = PL011_CR_UARTEN | PL011_CR_RXE;
	if ((pl011_model_peek(h.model, PL011_CR) & enabled) != enabled)
		return;
	start_window.inside = true;
	start_window.held_up = true;
	uint64_t frame_ns = pl011_model_frame_ns(h.model);
	uint64_t now = pl011_model_now_ns(h.model);
	for (unsigned i = 0; i < ARRIVING; i++)
		pl011_model_rx_inject(h.model, (uint8_t)('a' + i), 0, now + (i + 1u) * frame_ns);
	pl011_model_advance(h.model, (ARRIVING + 2u) * frame_ns);
	start_window.inside = false;
}

/*
 * docs/api.md: the handler may preempt init (and a restart) at any point. Characters that arrive
 * once the UART is enabled, while the starting thread is held up, must not raise the line before
 * the port runs; once it runs, they are read. Init of a stopped port and a restart of a running
 * one, every RX mode with a ring.
 */
static void test_a_start_raises_no_interrupt_before_the_port_runs(void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (int restart = 0; restart <= 1; restart++) {
			harness_setup(&h, 24000000u, 16u);
			h.config.tx_mode = PL011_TX_MEASURED;
			h.config.rx_mode = modes[m];
			pl011_model_set_irq_handler(h.model, counting_handler, &h.uart);
			if (restart)
				assert_int_equal(harness_start(&h), 0);
			memset(&start_window, 0, sizeof start_window);
			pl011_model_set_preempt_hook(hold_up_the_start, NULL);
			int err = restart ? harness_restart(&h) : harness_start(&h);
			pl011_model_set_preempt_hook(NULL, NULL);
			assert_int_equal(err, 0);
			assert_true(start_window.held_up);
			/* FEW_IRQS' trigger is above ARRIVING: the receive timeout brings them. */
			pl011_model_advance(h.model, 64u * pl011_model_frame_ns(h.model));
			uint8_t got[8];
			size_t n = harness_read_all(&h, got, sizeof got);
			if (start_window.stopped_entries != 0 || n != ARRIVING)
				print_message("%s, rx mode %d: %u handler entries before RUNNING with "
					      "the line up, %zu of %u characters read\n",
					      restart ? "restart" : "init", modes[m],
					      start_window.stopped_entries, n, ARRIVING);
			assert_int_equal(start_window.stopped_entries, 0);
			assert_int_equal(n, ARRIVING);
			assert_memory_equal(got, "abc", ARRIVING);
			harness_teardown(&h);
		}
}

/* ---- a stale IMSC write during the line switch ---- */

static struct {
	bool inside, injected, stale_written;
	uint64_t dr_reads_at_freeze;
} stale;

static bool imsc_frozen(void)
{
	return (__atomic_load_n(&h.uart.imsc, __ATOMIC_SEQ_CST) & PL011_IMSC_FROZEN) != 0;
}

/* Once the switch froze IMSC, it is held up while characters arrive (they wait in the FIFO,
 * IMSC 0); once it has read the first of them into the ring, a reader preempted before the
 * freeze writes the IMSC value it had loaded then (RX unmasked), and time passes: the line is
 * up. */
static void stale_write_in_the_switch(void *context)
{
	(void)context;
	if (stale.inside || stale.stale_written || !imsc_frozen() ||
	    (!stale.injected && pl011_model_peek(h.model, PL011_IMSC) != 0))
		return; /* (the freeze's write of 0 not made yet) */
	stale.inside = true;
	const struct pl011_model_counters *counters = pl011_model_counters(h.model);
	uint64_t frame_ns = pl011_model_frame_ns(h.model);
	if (!stale.injected) {
		stale.injected = true;
		stale.dr_reads_at_freeze = counters->reads[PL011_DR / 4u];
		uint64_t now = pl011_model_now_ns(h.model);
		for (unsigned i = 0; i < 6u; i++)
			pl011_model_rx_inject(h.model, (uint8_t)('A' + i), 0, now + (i + 1u) * frame_ns);
		pl011_model_advance(h.model, 7u * frame_ns);
	} else if (counters->reads[PL011_DR / 4u] > stale.dr_reads_at_freeze) {
		stale.stale_written = true;
		uint32_t loaded = __atomic_load_n(&h.uart.imsc, __ATOMIC_SEQ_CST) & ~PL011_IMSC_FROZEN;
		pl011_io_write(HARNESS_BASE + PL011_IMSC, loaded | PL011_INT_RX | PL011_INT_RT);
		pl011_model_advance(h.model, 4000u);
	}
	stale.inside = false;
}

/*
 * docs/api.md, pl011_set_line: the characters the RX FIFO holds are moved into the ring. A
 * handler that a stale IMSC write calls meanwhile must not drain into the ring beside it (two
 * producers of one ring): every character arrives once, in order, and the line is down after.
 */
static void test_a_stale_imsc_write_during_the_switch_leaves_the_ring_one_producer(void **state)
{
	(void)state;
	harness_setup(&h, 24000000u, 16u);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	assert_int_equal(harness_start(&h), 0);
	memset(&stale, 0, sizeof stale);
	const struct pl011_line_config line = {.baud = 115200, .data_bits = 8, .stop_bits = 1};
	pl011_model_set_preempt_hook(stale_write_in_the_switch, NULL);
	int err = pl011_set_line(&h.uart, &line, PL011_WAIT_AUTO);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_int_equal(err, 0);
	assert_true(stale.stale_written);
	pl011_model_advance(h.model, 8u * pl011_model_frame_ns(h.model));
	uint8_t got[16];
	size_t n = harness_read_all(&h, got, sizeof got);
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	size_t arrived = (size_t)pl011_model_counters(h.model)->rx_received;
	if (n != arrived || memcmp(got, "ABCDEF", n) != 0)
		print_message("%zu read (%.*s) of %zu arrived, rx_bytes %u\n", n, (int)n, got, arrived,
			      stats.rx_bytes);
	assert_true(arrived >= 2u); /* the switch took some from the FIFO */
	assert_int_equal(n, arrived);
	assert_memory_equal(got, "ABCDEF", n);
	assert_int_equal(stats.rx_bytes, arrived);
	assert_false(pl011_model_irq_line(h.model) &&
		     (pl011_model_peek(h.model, PL011_IMSC) & ~h.uart.imsc) != 0);
	harness_teardown(&h);
}

/* ---- a stale IMSC write after shutdown's freeze ---- */

static struct {
	bool inside, done;
} after_shut;

/* Once shutdown has stored SHUT (IMSC frozen at 0, the UART still enabled), characters arrive,
 * and a reader preempted before the freeze writes the IMSC value it had loaded (RX unmasked);
 * time passes: the line is up. */
static void stale_write_after_shut(void *context)
{
	(void)context;
	if (after_shut.inside || after_shut.done ||
	    __atomic_load_n(&h.uart.state, __ATOMIC_SEQ_CST) != PL011_STATE_SHUT)
		return;
	after_shut.inside = true;
	after_shut.done = true;
	uint64_t frame_ns = pl011_model_frame_ns(h.model);
	uint64_t now = pl011_model_now_ns(h.model);
	for (unsigned i = 0; i < 4u; i++)
		pl011_model_rx_inject(h.model, (uint8_t)('s' + i), 0, now + (i + 1u) * frame_ns);
	pl011_model_advance(h.model, 5u * frame_ns);
	pl011_io_write(HARNESS_BASE + PL011_IMSC, PL011_INT_RX | PL011_INT_RT);
	pl011_model_advance(h.model, 4000u);
	after_shut.inside = false;
}

/*
 * docs/api.md: the handler may run at any point of pl011_shutdown. After SHUT a handler that a
 * stale IMSC write calls must mask again, not return with the line up (on one core it would be
 * taken again for ever, and the shutdown below it never ends); shutdown counts what the FIFO
 * held and leaves IMSC 0.
 */
static void test_a_stale_imsc_write_after_shutdown_froze_it_masks_again(void **state)
{
	(void)state;
	harness_setup(&h, 24000000u, 16u);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	pl011_model_set_irq_handler(h.model, counting_handler, &h.uart);
	assert_int_equal(harness_start(&h), 0);
	memset(&start_window, 0, sizeof start_window);
	memset(&after_shut, 0, sizeof after_shut);
	pl011_model_set_preempt_hook(stale_write_after_shut, NULL);
	int result = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
	pl011_model_set_preempt_hook(NULL, NULL);
	assert_true(after_shut.done);
	if (start_window.stopped_entries != 0)
		print_message("%u handler returns with the port shut and the line up\n",
			      start_window.stopped_entries);
	assert_int_equal(start_window.stopped_entries, 0);
	assert_true(result >= 0);
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	assert_int_equal(stats.rx_discarded, 4);
	assert_int_equal(pl011_model_peek(h.model, PL011_IMSC), 0);
	harness_teardown(&h);
}

/* ---- a panic's last pass beside a streaming writer ---- */

#define WRITER_CAP 100000u

static struct {
	bool inside, every_point;
	uint64_t dr_writes_seen;
	size_t accepted;
} writer;

/* A writer on another core queues 16 bytes (without waiting) between any two of the panic's DR
 * writes, as fast as a CPU beside an instant line can, or 256 at every point of the panic at
 * which TX is owned (a writer that sees TX free takes it, and the panic ends), up to
 * WRITER_CAP accepted. */
static void write_beside_the_panic(void *context)
{
	(void)context;
	uint64_t dr_writes = pl011_model_counters(h.model)->writes[PL011_DR / 4u];
	bool owned = (__atomic_load_n(&h.uart.tx.owner, __ATOMIC_SEQ_CST) & TX_OWNED) != 0;
	if (writer.inside || writer.accepted >= WRITER_CAP ||
	    (writer.every_point ? !owned : dr_writes == writer.dr_writes_seen))
		return;
	writer.inside = true;
	writer.dr_writes_seen = dr_writes;
	static uint8_t chunk[256];
	size_t len = writer.every_point ? sizeof chunk : 16u;
	memset(chunk, 'w', sizeof chunk);
	int n = pl011_write(&h.uart, chunk, len, PL011_NO_WAIT);
	writer.accepted += n > 0 ? (size_t)n : 0u;
	writer.inside = false;
}

/*
 * docs/api.md, pl011_write_panic: "Writers hold new bytes back during that pass, so it ends
 * however fast they would queue". On an instant line (FR never shows TXFF) the last pass stops
 * at each pass limit and owns TX again: it must own it again as the panic, or the writer
 * queues on and the pass never ends. At most what the ring held goes out during the panic.
 */
static void test_a_panic_last_pass_ends_beside_a_writer_on_an_instant_line(void **state)
{
	(void)state;
	static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL,
						   PL011_TX_MEASURED};
	for (size_t run = 0; run < 2u * sizeof modes / sizeof modes[0]; run++) {
		size_t m = run / 2u;
		harness_setup_instant_line(&h, 16u);
		h.config.tx_mode = modes[m];
		assert_int_equal(harness_start(&h), 0);
		memset(&writer, 0, sizeof writer);
		writer.every_point = run % 2u != 0;
		writer.dr_writes_seen = pl011_model_counters(h.model)->writes[PL011_DR / 4u];
		pl011_model_set_preempt_hook(write_beside_the_panic, NULL);
		int n = pl011_write_panic(&h.uart, "PANIC", 5);
		pl011_model_set_preempt_hook(NULL, NULL);
		size_t wire = pl011_model_wire_len(h.model);
		if (writer.accepted >= WRITER_CAP || wire > HARNESS_TX_RING + 5u)
			print_message("%s, the writer at %s: the panic returned %d after %zu "
				      "characters on the wire, the writer's write took %zu bytes meanwhile\n",
				      harness_tx_mode_name(modes[m]),
				      writer.every_point ? "every point" : "each DR write", n, wire,
				      writer.accepted);
		assert_int_equal(n, 5);
		assert_true(writer.accepted > 0u);
		assert_true(writer.accepted < WRITER_CAP);
		assert_true(wire <= HARNESS_TX_RING + 5u);
		harness_teardown(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_a_start_raises_no_interrupt_before_the_port_runs, &h),
		HARNESS_TEST(test_a_stale_imsc_write_during_the_switch_leaves_the_ring_one_producer,
			     &h),
		HARNESS_TEST(test_a_stale_imsc_write_after_shutdown_froze_it_masks_again, &h),
		HARNESS_TEST(test_a_panic_last_pass_ends_beside_a_writer_on_an_instant_line, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
