/* Events on the model: each kind fires when its condition holds, once, and none is lost. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_internal.h"
#include "pl011_regs.h"

#define MAX_EVENTS 4096u
#define KINDS 7u

static struct harness h;
static uint8_t data[1u << 16];
static uint8_t wire[1u << 16];

/* Every callback: its kinds and the simulated time it ran. */
static struct {
	size_t calls;
	uint32_t kinds[MAX_EVENTS];
	uint64_t at_ns[MAX_EVENTS];
	size_t per_kind[KINDS];
	size_t tx_queued_at_space; /* TX ring count at the last TX_SPACE */
} seen;


static void on_event(struct pl011 *uart, uint32_t kinds, void *context)
{
	(void)context;
	assert_true(seen.calls < MAX_EVENTS);
	assert_int_equal(kinds & ~uart->config->event_mask, 0);
	seen.kinds[seen.calls] = kinds;
	seen.at_ns[seen.calls] = pl011_model_now_ns(h.model);
	seen.calls++;
	for (unsigned k = 0; k < KINDS; k++)
		if (kinds & (1u << k))
			seen.per_kind[k]++;
	if (kinds & PL011_EVENT_TX_SPACE)
		seen.tx_queued_at_space = pl011_tx_queued(uart);
}

static size_t count_of(uint32_t kind)
{
	for (unsigned k = 0; k < KINDS; k++)
		if (kind == (1u << k))
			return seen.per_kind[k];
	fail();
	return 0;
}

/* The index of the n-th (from 0) callback that carried kind, or fail. */
static size_t nth_with(uint32_t kind, size_t n)
{
	for (size_t i = 0; i < seen.calls; i++)
		if ((seen.kinds[i] & kind) && n-- == 0)
			return i;
	fail_msg("event 0x%x #%zu never came", kind, n);
	return 0;
}

static void advance_with_timer(uint64_t end_ns)
{
	harness_advance_with_timer(&h, end_ns);
}

/* The TX ring's size for the next start only (0: the harness's). */
static size_t tx_ring_size;
/* The interrupt latency for the next start only (0: the model's default). */
static uint64_t irq_latency_ns;

static void start_with_flags(enum pl011_tx_mode tx, enum pl011_rx_mode rx, uint32_t mask,
			     uint32_t flags)
{
	memset(&seen, 0, sizeof seen);
	memset(&harness_timer, 0, sizeof harness_timer);
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.uartclk_hz = 48000000u;
	model_config.fifo_depth = 16;
	if (irq_latency_ns != 0)
		model_config.irq_latency_ns = irq_latency_ns;
	irq_latency_ns = 0;
	harness_setup_with(&h, &model_config);
	h.config.flags = flags;
	h.config.tx_mode = tx;
	h.config.rx_mode = rx;
	h.config.event_mask = mask;
	h.config.event_driver = &pl011_event_driver;
	h.config.event = on_event;
	h.config.event_timer = harness_timer_arm;
	h.config.event_timer_context = &h;
	h.config.wait_hook = harness_timer_wait_step;
	h.config.wait_context = &h;
	if (tx_ring_size != 0)
		h.config.tx_buffer_size = tx_ring_size;
	tx_ring_size = 0;
	assert_int_equal(harness_start(&h), 0);
}

static void start_with(enum pl011_tx_mode tx, enum pl011_rx_mode rx, uint32_t mask)
{
	start_with_flags(tx, rx, mask, 0);
}

static uint64_t frame_ns(void)
{
	return pl011_model_frame_ns(h.model);
}

static uint64_t last_stop_bit_ns(void)
{
	size_t n = pl011_model_wire_len(h.model);
	assert_true(n > 0);
	return pl011_model_wire_end_ns(h.model, n - 1);
}

/* ---- TX done ---- */

/* TX done comes after the last frame's stop bit, within a frame (plus the costs of the tick),
 * once per drain, in every TX strategy and for every size from one byte to a full ring. */
static void test_tx_done_after_the_last_stop_bit_once_per_drain(void **state)
{
	(void)state;
	static const size_t sizes[] = {1, 2, 15, 16, 17, 100, 4096};
	for (int mode = PL011_TX_HALF_FIFO; mode <= PL011_TX_MEASURED; mode++) {
		start_with((enum pl011_tx_mode)mode, PL011_RX_POLLED, PL011_EVENT_TX_DONE);
		size_t drains = 0;
		size_t total = 0;
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			harness_fill_random(data, sizes[s], (uint32_t)mode * 100u + (uint32_t)s + 1u);
			uint64_t wrote_at = pl011_model_now_ns(h.model);
			assert_int_equal(pl011_write(&h.uart, data, sizes[s], PL011_NO_WAIT),
					 (int)sizes[s]);
			total += sizes[s];
			/* No event while the bytes are still going out. */
			uint64_t drain_ns = (uint64_t)(sizes[s] + 16u) * frame_ns() * 2u;
			advance_with_timer(wrote_at + drain_ns);
			drains++;
			assert_int_equal(pl011_model_wire_len(h.model), total);
			assert_int_equal(count_of(PL011_EVENT_TX_DONE), drains);
			size_t i = nth_with(PL011_EVENT_TX_DONE, drains - 1);
			uint64_t stop = last_stop_bit_ns();
			if (seen.at_ns[i] < stop)
				fail_msg("mode %d, %zu bytes: TX done at %llu before the stop bit at %llu",
					 mode, sizes[s], (unsigned long long)seen.at_ns[i],
					 (unsigned long long)stop);
			if (seen.at_ns[i] > stop + frame_ns() + 5000u)
				fail_msg("mode %d, %zu bytes: TX done %llu ns after the stop bit", mode,
					 sizes[s], (unsigned long long)(seen.at_ns[i] - stop));
			assert_false(harness_timer.armed); /* no tick left over: the drain is closed */
		}
		/* Idle time gives nothing more. */
		advance_with_timer(pl011_model_now_ns(h.model) + 100u * frame_ns());
		assert_int_equal(count_of(PL011_EVENT_TX_DONE), drains);
		harness_teardown(&h);
	}
}

/* A writer that keeps the ring from running dry makes one drain: one TX done at its end. A
 * writer that lets it run dry between writes gets one per gap. */
static void test_tx_done_once_for_a_drain_fed_by_many_writes(void **state)
{
	(void)state;
	start_with(PL011_TX_MEASURED, PL011_RX_POLLED, PL011_EVENT_TX_DONE);
	harness_fill_random(data, 2000, 7);
	/* Each write comes when half of the one before has gone out. */
	for (size_t i = 0; i < 2000; i += 100) {
		assert_int_equal(pl011_write(&h.uart, data + i, 100, PL011_NO_WAIT), 100);
		advance_with_timer(pl011_model_now_ns(h.model) + 50u * frame_ns());
		assert_int_equal(count_of(PL011_EVENT_TX_DONE), 0);
	}
	advance_with_timer(pl011_model_now_ns(h.model) + 1200u * frame_ns());
	advance_with_timer(pl011_model_now_ns(h.model) + 200u * frame_ns());
	assert_int_equal(pl011_model_wire_len(h.model), 2000);
	assert_int_equal(count_of(PL011_EVENT_TX_DONE), 1);
	assert_true(seen.at_ns[nth_with(PL011_EVENT_TX_DONE, 0)] >= last_stop_bit_ns());

	/* Three writes, each after the line went idle: three drains. */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(pl011_write(&h.uart, data, 10, PL011_NO_WAIT), 10);
		advance_with_timer(pl011_model_now_ns(h.model) + 40u * frame_ns());
		assert_int_equal(count_of(PL011_EVENT_TX_DONE), 2 + i);
		assert_true(seen.at_ns[nth_with(PL011_EVENT_TX_DONE, 1u + (size_t)i)] >=
			    last_stop_bit_ns());
	}
	harness_teardown(&h);
}

/* A TX interrupt later than the FIFO takes to run dry (a CPU busy elsewhere): bytes written
 * just after a refill emptied the ring (opening a drain) wait in the ring while the FIFO runs
 * empty and the line idles. That is no drain's end: one TX done, after the last stop bit. */
static void test_tx_done_not_while_the_ring_waits_for_a_late_interrupt(void **state)
{
	(void)state;
	for (int mode = PL011_TX_HALF_FIFO; mode <= PL011_TX_MEASURED; mode++) {
		irq_latency_ns = 5u * 1000u * 1000u; /* 5 ms: the FIFO runs dry in 1.4 */
		start_with((enum pl011_tx_mode)mode, PL011_RX_POLLED, PL011_EVENT_TX_DONE);
		harness_fill_random(data, 124, (uint32_t)mode + 40u);
		assert_int_equal(pl011_write(&h.uart, data, 24, PL011_NO_WAIT), 24);
		/* Until the late interrupt's refill has emptied the ring. */
		uint64_t give_up = pl011_model_now_ns(h.model) + 100u * 1000u * 1000u;
		while (pl011_tx_queued(&h.uart) != 0 && pl011_model_now_ns(h.model) < give_up)
			advance_with_timer(pl011_model_now_ns(h.model) + frame_ns());
		assert_int_equal(pl011_tx_queued(&h.uart), 0);
		assert_int_equal(count_of(PL011_EVENT_TX_DONE), 0);
		assert_int_equal(pl011_write(&h.uart, data + 24, 100, PL011_NO_WAIT), 100);
		/* The FIFO has run dry, the ring waits for the interrupt. */
		advance_with_timer(pl011_model_now_ns(h.model) + 40u * frame_ns());
		assert_true(pl011_tx_queued(&h.uart) > 0);
		assert_true(pl011_model_wire_len(h.model) < 124);
		assert_int_equal(count_of(PL011_EVENT_TX_DONE), 0);
		advance_with_timer(pl011_model_now_ns(h.model) + 1000u * 1000u * 1000u);
		assert_int_equal(pl011_model_wire_len(h.model), 124);
		assert_int_equal(count_of(PL011_EVENT_TX_DONE), 1);
		assert_true(seen.at_ns[nth_with(PL011_EVENT_TX_DONE, 0)] >= last_stop_bit_ns());
		harness_teardown(&h);
	}
}

/* While CTS holds the transmitter off the line is not idle: no TX done until it has sent. */
static void test_tx_done_waits_for_a_transmitter_held_off_by_cts(void **state)
{
	(void)state;
	start_with_flags(PL011_TX_HYBRID, PL011_RX_POLLED, PL011_EVENT_TX_DONE, PL011_FLAG_RTS_CTS);
	pl011_model_set_cts(h.model, false);
	assert_int_equal(pl011_write(&h.uart, data, 40, PL011_NO_WAIT), 40);
	advance_with_timer(pl011_model_now_ns(h.model) + 500u * frame_ns());
	assert_int_equal(count_of(PL011_EVENT_TX_DONE), 0);
	assert_true(pl011_model_wire_len(h.model) <= 1); /* the character in flight at most */
	pl011_model_set_cts(h.model, true);
	advance_with_timer(pl011_model_now_ns(h.model) + 100u * frame_ns());
	assert_int_equal(pl011_model_wire_len(h.model), 40);
	assert_int_equal(count_of(PL011_EVENT_TX_DONE), 1);
	assert_true(seen.at_ns[nth_with(PL011_EVENT_TX_DONE, 0)] >= last_stop_bit_ns());
	harness_teardown(&h);
}

/* ---- TX space ---- */

/* A writer that blocks on TX_SPACE whenever the ring is full: each block ends with exactly one
 * event, given once the ring is half free, and all 64 KiB leave in order. */
static void test_tx_space_wakes_a_blocked_writer_once_per_block(void **state)
{
	(void)state;
	for (int mode = PL011_TX_HALF_FIFO; mode <= PL011_TX_MEASURED; mode++) {
		start_with((enum pl011_tx_mode)mode, PL011_RX_POLLED, PL011_EVENT_TX_SPACE);
		harness_fill_random(data, sizeof data, (uint32_t)mode);
		size_t sent = 0;
		size_t blocks = 0;
		while (sent < sizeof data) {
			int n = pl011_write(&h.uart, data + sent, sizeof data - sent, PL011_NO_WAIT);
			assert_true(n >= 0);
			sent += (size_t)n;
			if (sent == sizeof data)
				break;
			/* Block: sleep until the event (bounded: a ring's worth of frames twice). */
			assert_int_equal(pl011_tx_queued(&h.uart), HARNESS_TX_RING);
			size_t before = count_of(PL011_EVENT_TX_SPACE);
			uint64_t give_up = pl011_model_now_ns(h.model) + 2u * HARNESS_TX_RING * frame_ns();
			while (count_of(PL011_EVENT_TX_SPACE) == before) {
				if (pl011_model_now_ns(h.model) > give_up)
					fail_msg("mode %d: a blocked writer was never woken", mode);
				pl011_model_advance(h.model, 10000u);
			}
			assert_int_equal(count_of(PL011_EVENT_TX_SPACE), before + 1);
			assert_true(seen.tx_queued_at_space <= HARNESS_TX_RING / 2u);
			blocks++;
		}
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		assert_int_equal(harness_wire(&h, wire, sizeof wire), sizeof data);
		assert_memory_equal(wire, data, sizeof data);
		assert_true(blocks >= 15);
		/* The last drain (ring full, then empty) gives one more, and nothing else did. */
		assert_int_equal(count_of(PL011_EVENT_TX_SPACE), blocks + 1);
		harness_teardown(&h);
	}
}

/*
 * The same writer, and a panic from another interrupt while it sleeps: the panic owns TX,
 * sends the ring's bytes by polling, then its own, and lets go with the ring empty and TXIM
 * masked, so no TX interrupt comes again. The space the writer sleeps for was made by the
 * panic: TX space must still be given, or the writer sleeps for good.
 */
static const uint8_t panic_text[] = "PANIC: fault at 0x1234\r\n";

static void panic_from_another_interrupt(void *context)
{
	(void)context;
	assert_int_equal(pl011_write_panic(&h.uart, panic_text, sizeof panic_text - 1u),
			 (int)sizeof panic_text - 1);
}

static void test_tx_space_is_given_when_a_panic_empties_the_ring(void **state)
{
	(void)state;
	const size_t total = 4096u, ring = 256u;
	for (int mode = PL011_TX_HALF_FIFO; mode <= PL011_TX_MEASURED; mode++) {
		tx_ring_size = ring;
		start_with((enum pl011_tx_mode)mode, PL011_RX_POLLED, PL011_EVENT_TX_SPACE);
		harness_fill_random(data, total, 70u + (uint32_t)mode);
		for (size_t i = 0; i < total; i++)
			data[i] = (uint8_t)('a' + data[i] % 26u); /* no capitals: the panic's are */
		size_t sent = 0, wakes = 0;
		bool panicked = false;
		uint64_t panic_at = pl011_model_now_ns(h.model) + 5000000u;
		while (sent < total) {
			int n = pl011_write(&h.uart, data + sent, total - sent, PL011_NO_WAIT);
			assert_true(n >= 0);
			sent += (size_t)n;
			if (sent == total)
				break;
			size_t before = count_of(PL011_EVENT_TX_SPACE);
			uint64_t give_up = pl011_model_now_ns(h.model) + 4u * ring * frame_ns();
			while (count_of(PL011_EVENT_TX_SPACE) == before) {
				if (pl011_model_now_ns(h.model) > give_up)
					fail_msg("%s: the writer sleeps for good, %zu of %zu accepted, "
						 "%zu queued, TX space given %zu times",
						 harness_tx_mode_name((enum pl011_tx_mode)mode), sent,
						 total, pl011_tx_queued(&h.uart), wakes);
				if (!panicked && pl011_model_now_ns(h.model) >= panic_at) {
					panicked = true;
					pl011_model_run_as_irq(h.model, panic_from_another_interrupt,
							       NULL);
				}
				pl011_model_advance(h.model, 10000u);
			}
			wakes++;
		}
		assert_true(panicked);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		/* The wire: the writer's bytes in order, the panic's together among them. */
		size_t len = harness_wire(&h, wire, sizeof wire);
		assert_int_equal(len, total + sizeof panic_text - 1u);
		size_t at = 0;
		while (at < len && wire[at] != 'P')
			at++;
		assert_memory_equal(wire + at, panic_text, sizeof panic_text - 1u);
		memmove(wire + at, wire + at + sizeof panic_text - 1u, len - at - (sizeof panic_text - 1u));
		assert_memory_equal(wire, data, total);
		harness_teardown(&h);
	}
}

/* ---- RX ---- */

/* RX idle 32 bit periods after the last character (plus the interrupt's latency), once per
 * burst, with the bytes queued; RX data with it. */
static void test_rx_idle_32_bit_periods_after_the_last_character(void **state)
{
	(void)state;
	start_with(PL011_TX_POLLED, PL011_RX_FEW_IRQS,
		   PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA);
	uint64_t bit = pl011_model_bit_ns(h.model);
	for (size_t burst = 0; burst < 3; burst++) {
		/* Fewer than the 3/4 trigger: only the timeout can report them. */
		uint64_t last = pl011_model_rx_inject_stream(h.model, (const uint8_t *)"hello", 5,
							      pl011_model_now_ns(h.model) + bit);
		pl011_model_advance_to(h.model, last + 31u * bit);
		assert_int_equal(count_of(PL011_EVENT_RX_IDLE), burst);
		pl011_model_advance_to(h.model, last + 40u * bit);
		assert_int_equal(count_of(PL011_EVENT_RX_IDLE), burst + 1);
		size_t i = nth_with(PL011_EVENT_RX_IDLE, burst);
		assert_true(seen.at_ns[i] >= last + 32u * bit);
		assert_true(seen.at_ns[i] <= last + 32u * bit + 5000u);
		assert_true(seen.kinds[i] & PL011_EVENT_RX_DATA);
		uint8_t got[8];
		assert_int_equal(harness_read_all(&h, got, sizeof got), 5);
		assert_memory_equal(got, "hello", 5);
		/* Quiet line afterwards: nothing more. */
		pl011_model_advance(h.model, 200u * bit);
		assert_int_equal(count_of(PL011_EVENT_RX_IDLE), burst + 1);
	}
	harness_teardown(&h);
}

/* A long burst in LOW_LATENCY: RX data at each drain, RX idle never before the line went quiet
 * for 32 bit periods, and at most once (none when the last drain emptied the FIFO: the PL011
 * raises no timeout for an empty FIFO, TRM 2.8). */
static void test_rx_idle_never_during_a_burst(void **state)
{
	(void)state;
	for (size_t n = 39; n <= 40; n++) {
		start_with(PL011_TX_POLLED, PL011_RX_LOW_LATENCY,
			   PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA);
		uint64_t bit = pl011_model_bit_ns(h.model);
		harness_fill_random(data, n, 5);
		uint64_t last = pl011_model_rx_inject_stream(h.model, data, n,
							      pl011_model_now_ns(h.model) + bit);
		pl011_model_advance_to(h.model, last + 100u * bit);
		assert_true(count_of(PL011_EVENT_RX_DATA) >= n / 4u);
		assert_true(count_of(PL011_EVENT_RX_IDLE) <= 1);
		for (size_t i = 0; i < seen.calls; i++)
			if (seen.kinds[i] & PL011_EVENT_RX_IDLE)
				assert_true(seen.at_ns[i] >= last + 32u * bit);
		/* The odd burst leaves its last character to the timeout. */
		if (n % 2u == 1u)
			assert_int_equal(count_of(PL011_EVENT_RX_IDLE), 1);
		harness_teardown(&h);
	}
}

/* One event per break, however the breaks fall; a break, an error and data in one handler
 * entry come together in one call, none lost. */
static void test_break_once_per_break_and_kinds_together(void **state)
{
	(void)state;
	start_with(PL011_TX_POLLED, PL011_RX_FEW_IRQS, PL011_EVENT_ALL & ~PL011_EVENT_TX_DONE &
							       ~PL011_EVENT_TX_SPACE);
	uint64_t frame = frame_ns();
	uint64_t t = pl011_model_now_ns(h.model) + frame;
	/* Two breaks far apart: two events. */
	pl011_model_rx_inject(h.model, 0, PL011_DR_BE | PL011_DR_FE, t);
	pl011_model_advance_to(h.model, t + 100u * frame);
	assert_int_equal(count_of(PL011_EVENT_BREAK), 1);
	t = pl011_model_now_ns(h.model) + frame;
	pl011_model_rx_inject(h.model, 0, PL011_DR_BE | PL011_DR_FE, t);
	pl011_model_advance_to(h.model, t + 100u * frame);
	assert_int_equal(count_of(PL011_EVENT_BREAK), 2);
	assert_int_equal(count_of(PL011_EVENT_ERROR), 0); /* a break is not counted as framing */
	/* A framing error, a break and two good bytes, back to back: one entry sees them all. */
	size_t calls = seen.calls;
	t = pl011_model_now_ns(h.model) + frame;
	pl011_model_rx_inject(h.model, 'x', PL011_DR_FE, t);
	pl011_model_rx_inject(h.model, 0, PL011_DR_BE | PL011_DR_FE, t + frame);
	pl011_model_rx_inject(h.model, 'o', 0, t + 2u * frame);
	pl011_model_rx_inject(h.model, 'k', 0, t + 3u * frame);
	pl011_model_advance_to(h.model, t + 100u * frame);
	assert_int_equal(count_of(PL011_EVENT_BREAK), 3);
	assert_int_equal(count_of(PL011_EVENT_ERROR), 1);
	assert_int_equal(count_of(PL011_EVENT_RX_IDLE), 1);
	/* The error causes raised an entry of their own at the first character; whatever the
	 * split, every kind came exactly once. */
	uint32_t all = 0;
	for (size_t i = calls; i < seen.calls; i++)
		all |= seen.kinds[i];
	assert_int_equal(all & (PL011_EVENT_BREAK | PL011_EVENT_ERROR | PL011_EVENT_RX_DATA |
				PL011_EVENT_RX_IDLE),
			 PL011_EVENT_BREAK | PL011_EVENT_ERROR | PL011_EVENT_RX_DATA |
				 PL011_EVENT_RX_IDLE);
	struct pl011_stats stats;
	pl011_get_stats(&h.uart, &stats);
	assert_int_equal(stats.rx_break, 3);
	harness_teardown(&h);
}

/* ---- RX idle from the timer ----
 *
 * RT comes only while the FIFO holds a character (TRM 2.8): a burst whose last drain, at the
 * trigger level, emptied the FIFO gets none, and QEMU's PL011 has none at all. The tick then
 * gives RX idle once the line has been quiet 5 frames after the last drain. */
#define QUIET_FRAMES 5u

static size_t idle_count(void)
{
	return count_of(PL011_EVENT_RX_IDLE);
}

static uint32_t stats_rt(void)
{
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	return stats.irq_rt;
}

/* A burst of n bytes starting a frame from now; returns its last character's arrival. */
static uint64_t inject_burst(size_t n, uint32_t seed)
{
	harness_fill_random(data, n, seed);
	return pl011_model_rx_inject_stream(h.model, data, n, pl011_model_now_ns(h.model) + frame_ns());
}

/* 40 bytes in LOW_LATENCY (a drain every 2): the last drain empties the FIFO, no RT. RX idle
 * comes once, 5 frames after the last character (plus the drain's and the tick's latency),
 * not at 4; nothing more on a quiet line. */
static void test_rx_idle_from_the_timer_when_no_timeout_comes(void **state)
{
	(void)state;
	start_with(PL011_TX_POLLED, PL011_RX_LOW_LATENCY, PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA);
	uint64_t last = inject_burst(40, 11);
	advance_with_timer(last + (QUIET_FRAMES - 1u) * frame_ns());
	assert_int_equal(idle_count(), 0);
	advance_with_timer(last + 200u * frame_ns());
	assert_int_equal(stats_rt(), 0);
	assert_int_equal(idle_count(), 1);
	size_t i = nth_with(PL011_EVENT_RX_IDLE, 0);
	if (seen.at_ns[i] < last + QUIET_FRAMES * frame_ns() ||
	    seen.at_ns[i] > last + QUIET_FRAMES * frame_ns() + 10000u)
		fail_msg("RX idle at %llu ns, last character at %llu, frame %llu ns",
			 (unsigned long long)seen.at_ns[i], (unsigned long long)last,
			 (unsigned long long)frame_ns());
	uint8_t got[64];
	assert_int_equal(harness_read_all(&h, got, sizeof got), 40);
	assert_memory_equal(got, data, 40);
	/* The timer stopped asking once the burst was given. */
	size_t ticks = harness_timer.ticks;
	assert_false(harness_timer.armed);
	advance_with_timer(pl011_model_now_ns(h.model) + 200u * frame_ns());
	assert_int_equal(harness_timer.ticks, ticks);
	assert_int_equal(idle_count(), 1);
	harness_teardown(&h);
}

/* 39 bytes: the last one waits in the FIFO and RT gives RX idle at 32 bit periods; the tick
 * armed for the burst finds it given and gives nothing more. */
static void test_rx_idle_from_the_timeout_is_not_given_again_by_the_timer(void **state)
{
	(void)state;
	start_with(PL011_TX_POLLED, PL011_RX_LOW_LATENCY, PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA);
	uint64_t bit = pl011_model_bit_ns(h.model);
	uint64_t last = inject_burst(39, 12);
	advance_with_timer(last + 200u * frame_ns());
	assert_int_equal(stats_rt(), 1);
	assert_int_equal(idle_count(), 1);
	size_t i = nth_with(PL011_EVENT_RX_IDLE, 0);
	assert_true(seen.at_ns[i] >= last + 32u * bit);
	assert_true(seen.at_ns[i] <= last + 32u * bit + 5000u);
	assert_true(harness_timer.ticks >= 1); /* the timer was asked, and gave nothing */
	harness_teardown(&h);
}

/* Bursts of every length around the drain sizes of each interrupt RX mode, 12 frames of
 * silence apart: one RX idle per burst, each after its burst's last character and before the
 * next burst's first, whether RT or the timer gave it. */
static void test_rx_idle_once_per_burst(void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < 2; m++) {
		start_with(PL011_TX_POLLED, modes[m], PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA);
		size_t total = 0;
		for (size_t n = 1; n <= 50; n++) {
			uint64_t first = pl011_model_now_ns(h.model) + frame_ns();
			uint64_t last = inject_burst(n, (uint32_t)(n + 100u * m));
			advance_with_timer(last + (QUIET_FRAMES + 7u) * frame_ns());
			if (idle_count() != n)
				fail_msg("mode %zu, burst %zu bytes: %zu RX idle events for %zu bursts",
					 m, n, idle_count(), n);
			size_t i = nth_with(PL011_EVENT_RX_IDLE, n - 1u);
			assert_true(seen.at_ns[i] > last && seen.at_ns[i] > first);
			uint8_t got[64];
			assert_int_equal(harness_read_all(&h, got, sizeof got), n);
			assert_memory_equal(got, data, n);
			total += n;
		}
		print_message("mode %zu: 50 bursts, %u of them ended by RT, 50 RX idle events\n", m,
			      stats_rt());
		harness_teardown(&h);
	}
}

/* A stream: 2,000 bytes back to back, then a trickle of 60 bytes one every 2 frames (20 bit
 * periods: no RT between them; in FEW_IRQS the FIFO then fills for 24 frames between drains,
 * longer than the quiet time, so the tick must see the FIFO not empty). No RX idle until the
 * line stops, then exactly one. */
static void test_rx_idle_none_during_a_stream(void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < 2; m++) {
		start_with(PL011_TX_POLLED, modes[m], PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA);
		uint64_t last = inject_burst(2000, 13);
		uint8_t got[2100];
		size_t n = 0;
		for (uint64_t t = pl011_model_now_ns(h.model); t < last; t += 100u * frame_ns()) {
			advance_with_timer(t);
			n += harness_read_all(&h, got + n, sizeof got - n);
		}
		for (size_t i = 0; i < 60; i++)
			pl011_model_rx_inject(h.model, (uint8_t)i, 0, last + (i + 1u) * 2u * frame_ns());
		last += 120u * frame_ns();
		advance_with_timer(last);
		assert_int_equal(idle_count(), 0);
		advance_with_timer(last + 100u * frame_ns());
		assert_int_equal(idle_count(), 1);
		assert_true(seen.at_ns[nth_with(PL011_EVENT_RX_IDLE, 0)] >= last);
		n += harness_read_all(&h, got + n, sizeof got - n);
		assert_int_equal(n, 2060);
		assert_true(harness_timer.ticks > 10);
		harness_teardown(&h);
	}
}

/* TX done and RX idle wanted of the one timer at once (a write's drain opened while RX idle is
 * due, a burst during a drain, a burst beginning as the drain ends): each comes once, TX done
 * within its bound, RX idle 5 frames after the last character within a frame. */
static void test_tx_done_and_rx_idle_share_the_timer(void **state)
{
	(void)state;
	for (int mode = PL011_TX_HALF_FIFO; mode <= PL011_TX_MEASURED; mode++) {
		start_with((enum pl011_tx_mode)mode, PL011_RX_LOW_LATENCY,
			   PL011_EVENT_TX_DONE | PL011_EVENT_RX_IDLE);
		static const size_t tx_sizes[] = {1, 3, 16, 64};
		for (size_t s = 0; s < 4; s++) {
			for (int order = 0; order < 3; order++) {
				size_t done = count_of(PL011_EVENT_TX_DONE);
				size_t idle = idle_count();
				uint64_t last_rx;
				if (order == 0) {
					last_rx = inject_burst(40, (uint32_t)mode);
					pl011_model_advance_to(h.model, last_rx);
					assert_int_equal(pl011_write(&h.uart, data, tx_sizes[s],
								     PL011_NO_WAIT),
							 (int)tx_sizes[s]);
				} else {
					/* 1: the burst while the drain is under way; 2: its first
					 * drain two frames before the last stop bit, when TX done's
					 * tick is due within two frames, and must stay so. */
					uint64_t at = pl011_model_now_ns(h.model);
					if (order == 2 && tx_sizes[s] > 3u)
						at += (tx_sizes[s] - 3u) * frame_ns();
					assert_int_equal(pl011_write(&h.uart, data, tx_sizes[s],
								     PL011_NO_WAIT),
							 (int)tx_sizes[s]);
					harness_fill_random(data + 64, 20, (uint32_t)mode);
					last_rx = pl011_model_rx_inject_stream(
						h.model, data + 64, 20 + 2u * s, at);
				}
				advance_with_timer(pl011_model_now_ns(h.model) + 200u * frame_ns());
				assert_int_equal(count_of(PL011_EVENT_TX_DONE), done + 1u);
				assert_int_equal(idle_count(), idle + 1u);
				size_t i = nth_with(PL011_EVENT_TX_DONE, done);
				uint64_t stop = last_stop_bit_ns();
				if (seen.at_ns[i] < stop || seen.at_ns[i] > stop + frame_ns() + 5000u)
					fail_msg("mode %d, %zu bytes, order %d: TX done at %llu, stop "
						 "bit at %llu", mode, tx_sizes[s], order,
						 (unsigned long long)seen.at_ns[i],
						 (unsigned long long)stop);
				i = nth_with(PL011_EVENT_RX_IDLE, idle);
				uint64_t due = last_rx + QUIET_FRAMES * frame_ns();
				if (seen.at_ns[i] < due || seen.at_ns[i] > due + frame_ns() + 5000u)
					fail_msg("mode %d, %zu bytes, order %d: RX idle at %llu, due "
						 "at %llu", mode, tx_sizes[s], order,
						 (unsigned long long)seen.at_ns[i],
						 (unsigned long long)due);
				uint8_t got[64];
				(void)harness_read_all(&h, got, sizeof got);
			}
		}
		harness_teardown(&h);
	}
}

/* While a full RX ring holds RX back no tick comes (the FIFO holds characters: the drain that
 * takes them, once the reader made room, asks for the next); then one RX idle for the burst.
 * A character with a framing error alone is no burst: ERROR, no RX idle. */
static void test_rx_idle_no_ticks_while_rx_is_paused_nor_for_errors_alone(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof seen);
	memset(&harness_timer, 0, sizeof harness_timer);
	harness_setup(&h, 48000000u, 16);
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	h.config.rx_buffer_size = 64;
	h.config.event_mask = PL011_EVENT_RX_IDLE | PL011_EVENT_ERROR;
	h.config.event_driver = &pl011_event_driver;
	h.config.event = on_event;
	h.config.event_timer = harness_timer_arm;
	h.config.event_timer_context = &h;
	assert_int_equal(harness_start(&h), 0);
	uint64_t last = inject_burst(70, 19); /* 64 fill the ring, the FIFO holds the rest */
	advance_with_timer(last + 20u * frame_ns());
	size_t ticks = harness_timer.ticks;
	advance_with_timer(last + 400u * frame_ns());
	assert_int_equal(harness_timer.ticks, ticks);
	assert_int_equal(idle_count(), 0);
	uint8_t got[80];
	size_t n = harness_read_all(&h, got, sizeof got);
	advance_with_timer(pl011_model_now_ns(h.model) + 50u * frame_ns());
	n += harness_read_all(&h, got + n, sizeof got - n);
	assert_int_equal(n, 70);
	assert_int_equal(idle_count(), 1);
	pl011_model_rx_inject(h.model, 'x', PL011_DR_FE, pl011_model_now_ns(h.model) + frame_ns());
	advance_with_timer(pl011_model_now_ns(h.model) + 100u * frame_ns());
	assert_int_equal(count_of(PL011_EVENT_ERROR), 1);
	assert_int_equal(idle_count(), 1);
	harness_teardown(&h);
}

/* A tick that comes to a stopped port does nothing (no register access, no event); a port
 * restarted with a burst open gives that burst's RX idle once, a stray tick armed for the old
 * port notwithstanding, and a burst after the restart gets its own. */
static void test_rx_idle_tick_after_stop_and_restart_is_harmless(void **state)
{
	(void)state;
	start_with(PL011_TX_POLLED, PL011_RX_LOW_LATENCY, PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA);
	uint64_t last = inject_burst(40, 14);
	pl011_model_advance_to(h.model, last + frame_ns());
	assert_true(harness_timer.armed);
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	uint64_t reads = pl011_model_counters(h.model)->total_reads;
	uint64_t writes = pl011_model_counters(h.model)->total_writes;
	advance_with_timer(last + 50u * frame_ns());
	pl011_event_tick(&h.uart);
	assert_int_equal(pl011_model_counters(h.model)->total_reads, reads);
	assert_int_equal(pl011_model_counters(h.model)->total_writes, writes);
	assert_int_equal(idle_count(), 0);
	/* Restarted with a tick armed for the old port's burst. */
	assert_int_equal(harness_start(&h), 0);
	last = inject_burst(40, 15);
	pl011_model_advance_to(h.model, last + frame_ns());
	assert_int_equal(harness_restart(&h), 0);
	harness_timer_arm(1, &h);
	advance_with_timer(pl011_model_now_ns(h.model) + 50u * frame_ns());
	assert_int_equal(idle_count(), 1);
	last = inject_burst(40, 16);
	advance_with_timer(last + 50u * frame_ns());
	assert_int_equal(idle_count(), 2);
	harness_teardown(&h);
}

/* Without config.event_timer, or without config.clock, RX idle is RT's alone, as before:
 * none for the burst that ends on the trigger boundary, one for the one that does not. */
static void test_rx_idle_without_timer_or_clock_is_the_timeout_alone(void **state)
{
	(void)state;
	for (int without = 0; without < 2; without++) {
		memset(&seen, 0, sizeof seen);
		memset(&harness_timer, 0, sizeof harness_timer);
		harness_setup(&h, 48000000u, 16);
		h.config.rx_mode = PL011_RX_LOW_LATENCY;
		h.config.event_mask = PL011_EVENT_RX_IDLE;
		h.config.event_driver = &pl011_event_driver;
		h.config.event = on_event;
		h.config.event_timer = harness_timer_arm;
		h.config.event_timer_context = &h;
		if (without == 0)
			h.config.event_timer = NULL;
		else
			h.config.clock = NULL;
		assert_int_equal(harness_start(&h), 0);
		uint64_t last = inject_burst(40, 17);
		advance_with_timer(last + 100u * frame_ns());
		assert_int_equal(idle_count(), 0);
		assert_int_equal(harness_timer.arms, 0);
		last = inject_burst(39, 18);
		advance_with_timer(last + 100u * frame_ns());
		assert_int_equal(idle_count(), 1);
		harness_teardown(&h);
	}
}

/* ---- modem ---- */

static void test_modem_event_per_cts_change_and_masked_without_it(void **state)
{
	(void)state;
	start_with(PL011_TX_POLLED, PL011_RX_POLLED, PL011_EVENT_MODEM);
	assert_int_equal(pl011_model_peek(h.model, PL011_IMSC) & PL011_INT_MODEM, PL011_INT_MODEM);
	pl011_model_set_cts(h.model, false);
	pl011_model_advance(h.model, 10000u);
	assert_int_equal(count_of(PL011_EVENT_MODEM), 1);
	assert_int_equal(pl011_model_peek(h.model, PL011_FR) & PL011_FR_CTS, 0);
	pl011_model_set_cts(h.model, true);
	pl011_model_advance(h.model, 10000u);
	assert_int_equal(count_of(PL011_EVENT_MODEM), 2);
	assert_int_equal(pl011_model_ris(h.model) & PL011_INT_CTS, 0); /* acknowledged */
	harness_teardown(&h);

	start_with(PL011_TX_POLLED, PL011_RX_LOW_LATENCY, PL011_EVENT_RX_DATA);
	assert_int_equal(pl011_model_peek(h.model, PL011_IMSC) & PL011_INT_MODEM, 0);
	pl011_model_set_cts(h.model, false);
	pl011_model_advance(h.model, 10000u);
	assert_int_equal(seen.calls, 0);
	harness_teardown(&h);
}

/* ---- cost ---- */

/* The same traffic costs the same register accesses with every event but TX done and modem
 * on as with none: the events read only RAM. TX done adds one FR read per tick. */
/* The register accesses made inside the ticks, and the most one tick made. */
static struct {
	uint64_t reads, writes, most;
} in_ticks;

static void counted_tick(void *uart)
{
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	uint64_t reads = c->total_reads;
	uint64_t writes = c->total_writes;
	pl011_event_tick(uart);
	in_ticks.reads += c->total_reads - reads;
	in_ticks.writes += c->total_writes - writes;
	if (c->total_reads - reads > in_ticks.most)
		in_ticks.most = c->total_reads - reads;
}

static uint64_t fr_reads;

static void run_traffic(uint32_t mask, bool timer, uint64_t *reads, uint64_t *writes)
{
	start_with(PL011_TX_MEASURED, PL011_RX_LOW_LATENCY, mask);
	h.config.event_timer = timer ? harness_timer_arm : NULL;
	assert_int_equal(harness_restart(&h), 0);
	pl011_model_reset_counters(h.model);
	memset(&in_ticks, 0, sizeof in_ticks);
	harness_timer.on_tick = counted_tick;
	harness_fill_random(data, 8192, 3);
	uint64_t t = pl011_model_now_ns(h.model) + frame_ns();
	(void)pl011_model_rx_inject_stream(h.model, data, 3000, t);
	assert_int_equal(harness_send_all(&h, data, 8192, 20000u), 0);
	advance_with_timer(pl011_model_now_ns(h.model) + 4000u * frame_ns());
	uint8_t got[4000];
	assert_int_equal(harness_read_all(&h, got, sizeof got), 3000);
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	*reads = c->total_reads;
	fr_reads = c->reads[PL011_FR / 4u];
	*writes = c->total_writes;
}

static void test_events_cost_no_register_access(void **state)
{
	(void)state;
	uint64_t reads0, writes0, reads1, writes1;
	const uint32_t rx_kinds = PL011_EVENT_TX_SPACE | PL011_EVENT_RX_DATA | PL011_EVENT_RX_IDLE |
				  PL011_EVENT_BREAK | PL011_EVENT_ERROR;
	run_traffic(0, false, &reads0, &writes0);
	uint64_t fr0 = fr_reads;
	harness_teardown(&h);
	run_traffic(rx_kinds, false, &reads1, &writes1);
	assert_true(seen.calls > 0);
	harness_teardown(&h);
	assert_int_equal(reads1, reads0);
	assert_int_equal(writes1, writes0);
	/* With the timer, RX idle's ticks read FR, at most once each, and write nothing; the
	 * traffic's own accesses stay as they were but for FR, whose polls (the writer's, the
	 * final flush's) follow simulated time, which the ticks and the clock reads move on. */
	run_traffic(rx_kinds, true, &reads1, &writes1);
	size_t rx_ticks = harness_timer.ticks;
	harness_teardown(&h);
	assert_true(rx_ticks >= 1);
	assert_true(in_ticks.reads >= 1 && in_ticks.most == 1);
	assert_int_equal(in_ticks.writes, 0);
	if (reads1 - fr_reads != reads0 - fr0)
		fail_msg("RX idle, %zu ticks: %llu reads but FR against %llu", rx_ticks,
			 (unsigned long long)(reads1 - fr_reads), (unsigned long long)(reads0 - fr0));
	assert_int_equal(writes1, writes0);
	run_traffic(PL011_EVENT_TX_DONE, true, &reads1, &writes1);
	size_t ticks = harness_timer.ticks;
	assert_true(count_of(PL011_EVENT_TX_DONE) >= 1);
	harness_teardown(&h);
	assert_true(ticks >= 1);
	assert_int_equal(reads1, reads0 + ticks);
	assert_int_equal(writes1, writes0);
	print_message("traffic: %llu reads, %llu writes; TX done: %zu ticks, one FR read each; "
		      "RX idle: %zu ticks\n",
		      (unsigned long long)reads0, (unsigned long long)writes0, ticks, rx_ticks);
}

/* ---- bad configs ---- */

static void test_bad_event_configs_are_refused_and_change_nothing(void **state)
{
	(void)state;
	start_with(PL011_TX_HYBRID, PL011_RX_LOW_LATENCY, PL011_EVENT_RX_DATA);
	struct pl011_config bad[7];
	for (int i = 0; i < 7; i++)
		bad[i] = h.config;
	bad[0].event = NULL;                          /* a mask without a callback */
	bad[1].event_mask = 1u << 7;                  /* an unknown kind */
	bad[2].event_mask = PL011_EVENT_TX_DONE;      /* TX done without a timer */
	bad[2].event_timer = NULL;
	bad[3].tx_mode = PL011_TX_POLLED;             /* TX kinds need the TX ring */
	bad[3].event_mask = PL011_EVENT_TX_SPACE;
	bad[4].rx_mode = PL011_RX_POLLED;             /* RX kinds need the RX interrupt */
	bad[4].event_mask = PL011_EVENT_RX_IDLE;
	bad[5].rx_mode = PL011_RX_POLLED;
	bad[5].event_mask = PL011_EVENT_BREAK;
	bad[6].event_driver = NULL;                   /* a mask without the code that serves it */
	uint64_t writes = pl011_model_counters(h.model)->total_writes;
	for (int i = 0; i < 7; i++)
		assert_int_equal(pl011_init(&h.uart, &bad[i]), PL011_EINVAL);
	assert_int_equal(pl011_model_counters(h.model)->total_writes, writes);
	/* Still running with the old config. */
	assert_int_equal(pl011_write(&h.uart, "ok", 2, PL011_WAIT_AUTO), 2);
	pl011_model_rx_inject(h.model, 'z', 0, pl011_model_now_ns(h.model) + frame_ns());
	pl011_model_advance(h.model, 100u * frame_ns());
	assert_int_equal(count_of(PL011_EVENT_RX_DATA), 1);
	/* A stray tick does nothing. */
	pl011_event_tick(&h.uart);
	pl011_event_tick(NULL);
	assert_int_equal(seen.calls, 1);
	harness_teardown(&h);
}

/* ---- console ---- */

static void test_console_sends_crlf_for_each_newline(void **state)
{
	(void)state;
	for (int mode = PL011_TX_POLLED; mode <= PL011_TX_MEASURED; mode++) {
		start_with((enum pl011_tx_mode)mode, PL011_RX_POLLED, 0);
		assert_int_equal(pl011_puts(&h.uart, "\nab\n\ncd"), 7);
		assert_int_equal(pl011_write_console(&h.uart, "e\nf", 3, PL011_WAIT_AUTO), 3);
		assert_int_equal(pl011_write_console(&h.uart, NULL, 0, PL011_WAIT_AUTO), 0);
		assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
		size_t n = harness_wire(&h, wire, sizeof wire);
		const char want[] = "\r\nab\r\n\r\ncde\r\nf";
		assert_int_equal(n, sizeof want - 1);
		assert_memory_equal(wire, want, n);
		assert_int_equal(pl011_puts(&h.uart, NULL), PL011_EINVAL);
		assert_int_equal(pl011_write_console(NULL, "x", 1, 0), PL011_EINVAL);
		harness_teardown(&h);
	}
	/* A full ring: text is taken up to what fits, a newline only with both its bytes. */
	start_with(PL011_TX_HYBRID, PL011_RX_POLLED, 0);
	pl011_model_set_tx_stalled(h.model, true);
	memset(data, 'a', HARNESS_TX_RING + 64u);
	size_t room = HARNESS_TX_RING + 16u + 1u; /* ring + FIFO + the character shifting */
	data[room - 1u] = '\n';                   /* its "\r" fits, its "\n" does not */
	int n = pl011_write_console(&h.uart, (const char *)data, room + 10u, PL011_NO_WAIT);
	assert_true(n >= 0 && (size_t)n < room);
	assert_int_equal(pl011_write_console(&h.uart, "z", 1, PL011_NO_WAIT), 0);
	pl011_shutdown(&h.uart, 0);
	assert_int_equal(pl011_write_console(&h.uart, "z", 1, PL011_NO_WAIT), PL011_ESHUTDOWN);
	harness_teardown(&h);
}

#if PL011_SINGLE_CORE
/* ---- one core: the user's hooks run outside the TX interrupt's masked section ---- */

/* Hook calls in all, those made from a handler (the TX pass among them), and those made with
 * the section's flag set: a hook that unmasks there would leave the owner swaps splittable. */
static struct {
	size_t calls[3], in_handler[3], inside[3];
} hooks;

static void hook_seen(int which)
{
	hooks.calls[which]++;
	hooks.in_handler[which] += pl011_model_in_irq(h.model) ? 1u : 0u;
	hooks.inside[which] += pl011_tx_section.inside != 0 ? 1u : 0u;
}

static uint32_t clock_hook(void *context)
{
	hook_seen(0);
	return pl011_model_clock_us(context);
}

static void timer_hook(uint32_t delay_us, void *context)
{
	hook_seen(1);
	harness_timer_arm(delay_us, context);
}

static uint32_t core_hook(void *context)
{
	(void)context;
	hook_seen(2);
	return 0;
}

static void test_hooks_run_outside_the_masked_tx_pass(void **state)
{
	(void)state;
	memset(&seen, 0, sizeof seen);
	memset(&hooks, 0, sizeof hooks);
	harness_setup_timed_events(&h, on_event);
	h.config.clock = clock_hook;
	h.config.clock_context = h.model;
	h.config.event_timer = timer_hook;
	h.config.core_id = core_hook;
	assert_int_equal(harness_start(&h), 0);
	for (uint32_t round = 0; round < 8u; round++) {
		harness_fill_random(data, 300u, round + 1u);
		assert_int_equal(pl011_write(&h.uart, data, 300u, PL011_NO_WAIT), 300);
		advance_with_timer(pl011_model_now_ns(h.model) + 340u * frame_ns());
	}
	assert_int_equal(pl011_model_wire_len(h.model), 8u * 300u);
	static const char *const names[] = {"clock", "event_timer", "core_id"};
	for (int i = 0; i < 3; i++) {
		print_message("%s: %zu calls, %zu from a handler, %zu inside the section\n", names[i],
			      hooks.calls[i], hooks.in_handler[i], hooks.inside[i]);
		if (hooks.in_handler[i] == 0)
			fail_msg("%s: never called from a handler, so this test shows nothing", names[i]);
		if (hooks.inside[i] != 0)
			fail_msg("%s: called %zu times inside the masked TX pass", names[i],
				 hooks.inside[i]);
	}
	harness_teardown(&h);
}

/*
 * The masked TX pass stays one refill or one polling pass long: on a line as fast as the CPU
 * (FR never shows TXFF), an interrupt that comes in a hook's window and queues 3000 bytes
 * makes the pass poll on; each polling pass stops at its limit (2 x depth) and lets go, and
 * there interrupts of higher priority get in before it takes TX again (found by a review:
 * before, one section sent the whole 3000).
 */
static uint8_t burst[3000];
static struct {
	bool open, injected;
	uint64_t start, most;
} stretch;

static uint64_t dr_writes(void)
{
	return pl011_model_counters(h.model)->writes[PL011_DR / 4u];
}

static void watch_stretch(void *context)
{
	(void)context;
	bool inside = pl011_tx_section.inside != 0;
	if (inside && !stretch.open) {
		stretch.open = true;
		stretch.start = dr_writes();
	} else if (!inside && stretch.open) {
		stretch.open = false;
		if (dr_writes() - stretch.start > stretch.most)
			stretch.most = dr_writes() - stretch.start;
	}
}

static void log_from_irq(void *context)
{
	(void)context;
	assert_int_equal(pl011_write(&h.uart, burst, sizeof burst, PL011_NO_WAIT), sizeof burst);
}

/* TX done's timer, armed as the ring empties in the pass: a higher-priority interrupt comes. */
static void timer_with_irq(uint32_t delay_us, void *context)
{
	if (pl011_model_in_irq(h.model) && !stretch.injected) {
		stretch.injected = true;
		pl011_model_run_as_irq(h.model, log_from_irq, NULL);
	}
	harness_timer_arm(delay_us, context);
}

static void test_masked_tx_pass_lets_interrupts_in_between_passes(void **state)
{
	(void)state;
	const unsigned depth = 16u;
	memset(&seen, 0, sizeof seen);
	memset(&stretch, 0, sizeof stretch);
	memset(&harness_timer, 0, sizeof harness_timer);
	harness_setup_instant_line(&h, depth);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.flags |= PL011_FLAG_RTS_CTS; /* CTS held first: the bytes queue in the ring */
	h.config.event_mask = PL011_EVENT_TX_DONE;
	h.config.event = on_event;
	h.config.event_driver = &pl011_event_driver;
	h.config.event_timer = timer_with_irq;
	h.config.event_timer_context = &h;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_cts(h.model, false);
	harness_fill_random(burst, sizeof burst, 7u);
	harness_fill_random(data, 1000u, 3u);
	pl011_model_set_preempt_hook(watch_stretch, NULL);
	assert_int_equal(pl011_write(&h.uart, data, 1000u, PL011_NO_WAIT), 1000);
	pl011_model_advance(h.model, 100000u);
	pl011_model_set_cts(h.model, true);
	advance_with_timer(pl011_model_now_ns(h.model) + 5000000u);
	assert_int_equal(pl011_flush(&h.uart, 1000000u, NULL), 0);
	pl011_model_set_preempt_hook(NULL, NULL);
	print_message("longest masked stretch: %llu DR writes (FIFO %u)\n",
		      (unsigned long long)stretch.most, depth);
	assert_true(stretch.injected);
	size_t len = harness_wire(&h, wire, sizeof wire);
	assert_int_equal(len, 1000u + sizeof burst);
	assert_memory_equal(wire, data, 1000u);
	assert_memory_equal(wire + 1000u, burst, sizeof burst);
	if (stretch.most > 3u * depth)
		fail_msg("one masked section wrote %llu characters (FIFO %u)",
			 (unsigned long long)stretch.most, depth);
	harness_teardown(&h);
}

/* A nested context at every point of a MEASURED run with TX done, core_id and the clock: a
 * panic anywhere, and where the section is not open (an interrupt can come only there) a
 * write, the tick and a second panic. A panic inside the section masks its own swaps, the
 * section's state comes back as it was, no hook runs inside it, and the ring drains. */
static size_t nest_point, nest_at;
static bool nest_done;

static void nested_body(void *context)
{
	(void)context;
	bool in_section = pl011_tx_section.inside != 0;
	uint64_t rmw_before = pl011_model_counters(h.model)->rmw_points;
	(void)pl011_write_panic(&h.uart, "panic!", 6);
	/* A fault handler may unmask: a panic inside the section masks each of its own swaps
	 * (read-modify-write points), and so does the rest of the pass it came in. */
	if (in_section && (pl011_model_counters(h.model)->rmw_points == rmw_before ||
			   pl011_tx_section.inside != 0))
		fail_msg("point %zu: a panic inside the section took TX unmasked", nest_at);
	if (!in_section) {
		(void)pl011_write(&h.uart, "write!", 6, PL011_NO_WAIT);
		pl011_event_tick(&h.uart);
		(void)pl011_write_panic(&h.uart, "again!", 6);
	}
}

static void nest_at_point(void *context)
{
	(void)context;
	if (nest_done || ++nest_point != nest_at)
		return;
	nest_done = true;
	pl011_model_run_as_irq(h.model, nested_body, NULL);
}

static void test_masked_tx_pass_state_survives_nesting_at_every_point(void **state)
{
	(void)state;
	harness_fill_random(data, 600u, 11u);
	size_t runs = 0;
	for (nest_at = 1;; nest_at++) {
		memset(&hooks, 0, sizeof hooks);
		harness_setup_timed_events(&h, on_event);
		h.config.baud = 921600u;
		h.config.rx_mode = PL011_RX_POLLED;
		h.config.event_mask = PL011_EVENT_TX_DONE;
		h.config.clock = clock_hook;
		h.config.clock_context = h.model;
		h.config.event_timer = timer_hook;
		h.config.core_id = core_hook;
		assert_int_equal(harness_start(&h), 0);
		nest_point = 0;
		nest_done = false;
		pl011_model_set_preempt_hook(nest_at_point, NULL);
		assert_int_equal(pl011_write(&h.uart, data, 600u, 100000u), 600);
		advance_with_timer(pl011_model_now_ns(h.model) + 20000000u);
		pl011_model_set_preempt_hook(NULL, NULL);
		assert_int_equal(pl011_flush(&h.uart, 1000000u, NULL), 0);
		runs++;
		for (int i = 0; i < 3; i++)
			if (hooks.inside[i] != 0)
				fail_msg("point %zu: hook %d ran inside the section", nest_at, i);
		if (pl011_tx_section.inside != 0 || pl011_tx_section.saved != 0)
			fail_msg("point %zu: section left as {%u, %lu}", nest_at,
				 (unsigned)pl011_tx_section.inside,
				 (unsigned long)pl011_tx_section.saved);
		const char *stuck = harness_tx_stuck(&h);
		if (stuck != NULL)
			fail_msg("point %zu: %s", nest_at, stuck);
		bool reached = nest_done;
		harness_teardown(&h);
		if (!reached)
			break;
	}
	print_message("%zu runs, a nested context at each point\n", runs);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_tx_done_after_the_last_stop_bit_once_per_drain, &h),
		HARNESS_TEST(test_tx_done_once_for_a_drain_fed_by_many_writes, &h),
		HARNESS_TEST(test_tx_done_waits_for_a_transmitter_held_off_by_cts, &h),
		HARNESS_TEST(test_tx_done_not_while_the_ring_waits_for_a_late_interrupt, &h),
		HARNESS_TEST(test_tx_space_wakes_a_blocked_writer_once_per_block, &h),
		HARNESS_TEST(test_tx_space_is_given_when_a_panic_empties_the_ring, &h),
		HARNESS_TEST(test_rx_idle_32_bit_periods_after_the_last_character, &h),
		HARNESS_TEST(test_rx_idle_never_during_a_burst, &h),
		HARNESS_TEST(test_rx_idle_from_the_timer_when_no_timeout_comes, &h),
		HARNESS_TEST(test_rx_idle_from_the_timeout_is_not_given_again_by_the_timer, &h),
		HARNESS_TEST(test_rx_idle_once_per_burst, &h),
		HARNESS_TEST(test_rx_idle_none_during_a_stream, &h),
		HARNESS_TEST(test_tx_done_and_rx_idle_share_the_timer, &h),
		HARNESS_TEST(test_rx_idle_no_ticks_while_rx_is_paused_nor_for_errors_alone, &h),
		HARNESS_TEST(test_rx_idle_tick_after_stop_and_restart_is_harmless, &h),
		HARNESS_TEST(test_rx_idle_without_timer_or_clock_is_the_timeout_alone, &h),
		HARNESS_TEST(test_break_once_per_break_and_kinds_together, &h),
		HARNESS_TEST(test_modem_event_per_cts_change_and_masked_without_it, &h),
		HARNESS_TEST(test_events_cost_no_register_access, &h),
		HARNESS_TEST(test_bad_event_configs_are_refused_and_change_nothing, &h),
		HARNESS_TEST(test_console_sends_crlf_for_each_newline, &h),
#if PL011_SINGLE_CORE
		HARNESS_TEST(test_hooks_run_outside_the_masked_tx_pass, &h),
		HARNESS_TEST(test_masked_tx_pass_lets_interrupts_in_between_passes, &h),
		HARNESS_TEST(test_masked_tx_pass_state_survives_nesting_at_every_point, &h),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
