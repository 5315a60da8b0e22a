/* Sentences of the contract on init, the interrupt handler, RX back-pressure and errors and the ring, one test each. */
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
#include "pl011_ring.h"

/*
 * Each test quotes the sentence it holds the driver to and checks it through the public API
 * and what the model shows (registers, counters, bytes and their order); docs/testing.md maps
 * the sentences to the tests. Times are the model's simulated nanoseconds.
 */
static struct harness h;

static void reg_write(uint32_t offset, uint32_t value)
{
	pl011_io_write(HARNESS_BASE + offset, value);
}

static struct pl011_stats stats_now(void)
{
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	return stats;
}

static uint32_t imsc_rx_bits(void)
{
	return pl011_model_peek(h.model, PL011_IMSC) & (PL011_INT_RX | PL011_INT_RT);
}

/* An interrupt RX port at 115,200 8N1 on a 16- or 32-deep FIFO whose RX ring has ring_size
 * bytes of the harness's storage. */
static void start_rx_port(unsigned depth, enum pl011_rx_mode mode, size_t ring_size)
{
	harness_setup(&h, 48000000u, depth);
	h.config.rx_mode = mode;
	h.config.rx_buffer_size = ring_size;
	assert_int_equal(harness_start(&h), 0);
}

/* Simulated time passes in frame steps, each followed by a read of whatever the ring holds,
 * until `want` bytes came or `frames` frames passed. Returns the bytes read. */
static size_t read_over_frames(uint8_t *out, size_t want, uint64_t frames, size_t per_read)
{
	uint64_t frame = pl011_model_frame_ns(h.model);
	size_t got = 0;
	for (uint64_t i = 0; i < frames && got < want; i++) {
		pl011_model_advance(h.model, frame);
		size_t chunk = want - got < per_read ? want - got : per_read;
		int n = pl011_read(&h.uart, out + got, chunk, PL011_NO_WAIT);
		assert_true(n >= 0);
		got += (size_t)n;
	}
	return got;
}

/*
 * docs/api.md, enum pl011_rx_mode: "LOW_LATENCY  RX interrupt at 1/8 full plus receive
 * timeout", "FEW_IRQS  RX interrupt at 3/4 full plus receive timeout". Characters back to
 * back (so the receive timeout never runs out): one fewer than the level raises nothing, the
 * level-th raises the RX interrupt, and the handler has then moved them all into the ring.
 */
static void test_contract_rx_interrupt_at_one_eighth_for_low_latency_three_quarters_for_few_irqs(
	void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};
	static const unsigned eighths[] = {1u, 6u};
	for (size_t m = 0; m < 2; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16) {
			start_rx_port(depth, modes[m], HARNESS_RX_RING);
			unsigned level = depth * eighths[m] / 8u;
			uint8_t data[32];
			harness_fill_random(data, level, 24u + level);
			uint64_t frame = pl011_model_frame_ns(h.model);
			uint64_t start = pl011_model_now_ns(h.model);
			(void)pl011_model_rx_inject_stream(h.model, data, level, start);
			/* 20 us after an arrival: the interrupt latency, far less than the timeout's
			 * 32 bit periods. */
			pl011_model_advance_to(h.model, start + (level - 1u) * frame + 20000u);
			struct pl011_stats stats = stats_now();
			print_message("mode %d depth %u: %u characters in, %u RX interrupts\n",
				      modes[m], depth, level - 1u, stats.irq_rx);
			assert_int_equal(stats.irq_entries, 0);
			pl011_model_advance_to(h.model, start + level * frame + 20000u);
			stats = stats_now();
			print_message("mode %d depth %u: %u characters in, %u RX interrupts, %u RT\n",
				      modes[m], depth, level, stats.irq_rx, stats.irq_rt);
			assert_int_equal(stats.irq_rx, 1);
			assert_int_equal(stats.irq_rt, 0);
			uint8_t out[32];
			assert_int_equal(pl011_read(&h.uart, out, sizeof out, PL011_NO_WAIT), level);
			assert_memory_equal(out, data, level);
			harness_teardown(&h);
		}
}

/*
 * docs/api.md, pl011_init: "disable, wait for BUSY to clear (two frames), flush the FIFOs
 * (FEN off), mask and clear all interrupts, IBRD, FBRD, LCR_H last, trigger levels, enable".
 * A boot loader left every interrupt unmasked and a CTS change latched: when init writes the
 * divisors, IMSC and RIS are already 0.
 */
struct init_watch {
	uint32_t ibrd;
	bool seen;
	uint32_t imsc_at_ibrd;
	uint32_t ris_at_ibrd;
};

static void watch_ibrd(void *context)
{
	struct init_watch *watch = context;
	if (watch->seen || pl011_model_peek(h.model, PL011_IBRD) != watch->ibrd)
		return;
	watch->seen = true;
	watch->imsc_at_ibrd = pl011_model_peek(h.model, PL011_IMSC);
	watch->ris_at_ibrd = pl011_model_ris(h.model);
}

static void test_contract_init_masks_and_clears_all_interrupts_before_the_divisors(void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_POLLED, PL011_RX_LOW_LATENCY,
						   PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < 3; m++) {
		harness_setup(&h, 48000000u, 16u);
		h.config.rx_mode = modes[m];
		pl011_model_set_irq_handler(h.model, NULL, NULL);
		reg_write(PL011_IMSC, PL011_INT_ALL);
		pl011_model_set_cts(h.model, false);
		assert_true((pl011_model_ris(h.model) & PL011_INT_CTS) != 0);
		struct pl011_baud baud;
		assert_int_equal(pl011_compute_baud(48000000u, 115200u, 0, &baud), 0);
		struct init_watch watch = {.ibrd = baud.ibrd};
		pl011_model_set_preempt_hook(watch_ibrd, &watch);
		int err = harness_start(&h);
		pl011_model_set_preempt_hook(NULL, NULL);
		assert_int_equal(err, 0);
		print_message("RX mode %d: at the IBRD write IMSC 0x%03x, RIS 0x%03x\n", modes[m],
			      watch.imsc_at_ibrd, watch.ris_at_ibrd);
		assert_true(watch.seen);
		assert_int_equal(watch.imsc_at_ibrd, 0);
		assert_int_equal(watch.ris_at_ibrd, 0);
		harness_teardown(&h);
	}
}

/*
 * README.md: "When the RX ring is full the driver stops draining and leaves the bytes in the
 * FIFO until the reader makes room: with PL011_FLAG_RTS_CTS the PL011 then drops RTS and the
 * sender waits, so nothing is lost however slow the reader". A partner that honours RTS sends
 * 300 bytes into a 16-byte ring; the reader takes 3 bytes per 4 frames: every byte arrives,
 * in order, none overrun.
 */
static void test_contract_with_rts_cts_nothing_is_lost_however_slow_the_reader(void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < 2; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16) {
			harness_setup(&h, 48000000u, depth);
			h.config.rx_mode = modes[m];
			h.config.rx_buffer_size = 16u;
			h.config.flags = PL011_FLAG_RTS_CTS;
			assert_int_equal(harness_start(&h), 0);
			static uint8_t data[300];
			static uint8_t out[300];
			harness_fill_random(data, sizeof data, 300u + depth);
			pl011_model_rx_partner_start(h.model, data, sizeof data, 0, true);
			uint64_t frame = pl011_model_frame_ns(h.model);
			size_t got = 0;
			for (unsigned step = 0; step < 2000u && got < sizeof out; step++) {
				pl011_model_advance(h.model, 4u * frame);
				int n = pl011_read(&h.uart, out + got,
						   sizeof out - got < 3u ? sizeof out - got : 3u,
						   PL011_NO_WAIT);
				assert_true(n >= 0);
				got += (size_t)n;
			}
			struct pl011_stats stats = stats_now();
			print_message("mode %d depth %u: %zu of %zu bytes read, %u pauses, %u "
				      "overruns\n",
				      modes[m], depth, got, sizeof data, stats.rx_pauses,
				      stats.rx_overrun);
			assert_int_equal(got, sizeof data);
			assert_memory_equal(out, data, sizeof data);
			assert_true(stats.rx_pauses > 0);
			assert_int_equal(stats.rx_overrun, 0);
			assert_int_equal(pl011_model_counters(h.model)->rx_overruns, 0);
			harness_teardown(&h);
		}
}

/*
 * docs/api.md, enum pl011_rx_mode: "pl011_read / pl011_getc unmask them once the ring has
 * room for a FIFO's worth"; docs/design.md: "the handler then takes in a full FIFO at once
 * instead of being paused again after every byte the reader takes". A 64-byte ring and a full
 * FIFO behind it: fifteen one-byte reads leave RX and RT masked and the FIFO where it is; the
 * sixteenth resumes, and one drain takes the whole FIFO without a second pause.
 */
static void test_contract_rx_resumes_once_the_ring_has_room_for_a_fifos_worth(void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < 2; m++) {
		start_rx_port(16u, modes[m], 64u);
		uint8_t data[80];
		harness_fill_random(data, sizeof data, 80u);
		uint64_t frame = pl011_model_frame_ns(h.model);
		uint64_t last = pl011_model_rx_inject_stream(h.model, data, sizeof data,
							     pl011_model_now_ns(h.model));
		pl011_model_advance_to(h.model, last + 5u * frame);
		struct pl011_stats stats = stats_now();
		assert_int_equal(stats.rx_bytes, 64);
		assert_int_equal(stats.rx_pauses, 1);
		assert_int_equal(pl011_model_rx_level(h.model), 16);
		uint8_t out[80];
		for (size_t i = 0; i < 15u; i++) {
			assert_int_equal(pl011_read(&h.uart, out + i, 1, PL011_NO_WAIT), 1);
			pl011_model_advance(h.model, frame);
			stats = stats_now();
			if (stats.rx_bytes != 64u || imsc_rx_bits() != 0)
				fail_msg("after %zu one-byte reads (room %zu): rx_bytes %u, pauses "
					 "%u, IMSC RX/RT 0x%x",
					 i + 1u, i + 1u, stats.rx_bytes, stats.rx_pauses,
					 imsc_rx_bits());
		}
		assert_int_equal(pl011_model_rx_level(h.model), 16);
		assert_int_equal(pl011_read(&h.uart, out + 15, 1, PL011_NO_WAIT), 1);
		pl011_model_advance(h.model, frame);
		stats = stats_now();
		print_message("mode %d: after the 16th read rx_bytes %u, pauses %u, FIFO %u\n",
			      modes[m], stats.rx_bytes, stats.rx_pauses,
			      pl011_model_rx_level(h.model));
		assert_int_equal(stats.rx_bytes, 80);
		assert_int_equal(stats.rx_pauses, 1);
		assert_int_equal(pl011_model_rx_level(h.model), 0);
		assert_int_equal(pl011_read(&h.uart, out + 16, 64, PL011_NO_WAIT), 64);
		assert_memory_equal(out, data, sizeof data);
		harness_teardown(&h);
	}
}

/*
 * docs/design.md: "pl011_read and pl011_getc resume: once the ring has room for a FIFO's worth
 * (or is empty, for a ring smaller than a FIFO), they unmask RX and RT, whose causes are still
 * latched, and the handler takes in the whole FIFO in one entry"; lib/pl011.c: RX and RT are
 * not acknowledged, "a drain that stops at its bound leaves them asserted so the handler comes
 * back". The ring fills; then characters fewer than the trigger arrive, the last with a
 * framing error, and the interrupt comes late (400 us, past the receive timeout's 32 bit
 * periods), so one entry sees the error and RT together, finds the ring full and pauses.
 * Nothing arrives after it: the read that empties the ring must bring the handler back.
 */
static void test_contract_a_resume_finds_the_receive_timeout_still_latched(void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < 2; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16) {
			struct pl011_model_config model_config;
			pl011_model_default_config(&model_config);
			model_config.base = HARNESS_BASE;
			model_config.fifo_depth = depth;
			model_config.irq_latency_ns = 400000u;
			harness_setup_with(&h, &model_config);
			h.config.rx_mode = modes[m];
			h.config.rx_buffer_size = 16u;
			assert_int_equal(harness_start(&h), 0);
			size_t late = modes[m] == PL011_RX_FEW_IRQS ? depth * 6u / 8u - 1u : 2u;
			uint8_t data[16 + 24];
			harness_fill_random(data, 16u + late, (uint32_t)(late + depth));
			uint64_t frame = pl011_model_frame_ns(h.model);
			/* 16 characters fill the ring exactly; the rest come after a pause. */
			uint64_t last = pl011_model_rx_inject_stream(h.model, data, 16u,
								     pl011_model_now_ns(h.model));
			pl011_model_advance_to(h.model, last + 10u * frame);
			assert_int_equal(stats_now().rx_pauses, 0);
			uint64_t now = pl011_model_now_ns(h.model);
			for (size_t i = 0; i < late; i++)
				pl011_model_rx_inject(h.model, data[16 + i],
						      i + 1u == late ? PL011_DR_FE : 0u,
						      now + (i + 1u) * frame);
			pl011_model_advance_to(h.model, now + (late + 10u) * frame);
			struct pl011_stats stats = stats_now();
			assert_int_equal(stats.rx_bytes, 16);
			assert_int_equal(stats.rx_pauses, 1);
			assert_int_equal(stats.rx_framing, 0);
			uint8_t out[40];
			assert_int_equal(pl011_read(&h.uart, out, 16, PL011_NO_WAIT), 16);
			size_t good = 16u + late - 1u;
			size_t got = 16u + read_over_frames(out + 16, good - 16u, 100u, 40u);
			stats = stats_now();
			print_message("mode %d depth %u: %zu of %zu good bytes, rx_framing %u\n",
				      modes[m], depth, got, good, stats.rx_framing);
			assert_int_equal(got, good);
			assert_memory_equal(out, data, good);
			assert_int_equal(stats.rx_framing, 1);
			harness_teardown(&h);
		}
}

/*
 * docs/api.md, enum pl011_rx_mode: "unmask them once the ring has room for a FIFO's worth
 * (or is empty, if it is smaller than a FIFO)". An 8-byte ring before a 16- and a 32-deep
 * FIFO: seven reads of one byte leave RX masked, the eighth empties the ring and resumes, and
 * every byte of ring plus FIFO is read in order.
 */
static void test_contract_rx_resumes_when_a_ring_smaller_than_a_fifo_is_empty(void **state)
{
	(void)state;
	for (unsigned depth = 16; depth <= 32; depth += 16) {
		start_rx_port(depth, PL011_RX_LOW_LATENCY, 8u);
		uint8_t data[40];
		size_t total = 8u + depth;
		harness_fill_random(data, total, 8u + depth);
		uint64_t frame = pl011_model_frame_ns(h.model);
		uint64_t last = pl011_model_rx_inject_stream(h.model, data, total,
							     pl011_model_now_ns(h.model));
		pl011_model_advance_to(h.model, last + 5u * frame);
		assert_int_equal(stats_now().rx_pauses, 1);
		uint8_t out[40];
		for (size_t i = 0; i < 7u; i++) {
			assert_int_equal(pl011_read(&h.uart, out + i, 1, PL011_NO_WAIT), 1);
			pl011_model_advance(h.model, frame);
			assert_int_equal(imsc_rx_bits(), 0);
		}
		assert_int_equal(pl011_read(&h.uart, out + 7, 1, PL011_NO_WAIT), 1);
		assert_int_equal(imsc_rx_bits(), PL011_INT_RX | PL011_INT_RT);
		size_t got = 8u + read_over_frames(out + 8, total - 8u, 200u, 8u);
		print_message("depth %u: %zu of %zu bytes through an 8-byte ring\n", depth, got,
			      total);
		assert_int_equal(got, total);
		assert_memory_equal(out, data, total);
		assert_int_equal(stats_now().rx_overrun, 0);
		harness_teardown(&h);
	}
}

/*
 * lib/pl011_rx.c, rx_pause: "Mask first, then say so, then look at the ring again: a reader
 * that freed room before it could see the pause is seen here"; docs/api.md, pl011_read:
 * "a read that leaves room for a FIFO's worth resumes an RX paused by a full ring". The
 * reader (another core) empties the ring at the handler's first step after masking RX, before
 * the pause is published: the handler must resume RX itself, and the rest of the stream comes.
 */
struct reader_in_pause {
	bool busy;
	bool done;
	size_t got;
	uint8_t *out;
};

static void read_when_rx_masked(void *context)
{
	struct reader_in_pause *reader = context;
	if (reader->busy || reader->done || !pl011_model_in_irq(h.model) || imsc_rx_bits() != 0)
		return;
	reader->busy = true;
	int n = pl011_read(&h.uart, reader->out, HARNESS_RX_RING, PL011_NO_WAIT);
	assert_true(n > 0);
	reader->got = (size_t)n;
	reader->done = true;
	reader->busy = false;
}

static void test_contract_a_reader_that_frees_room_before_the_pause_shows_is_seen(void **state)
{
	(void)state;
	static const enum pl011_rx_mode modes[] = {PL011_RX_LOW_LATENCY, PL011_RX_FEW_IRQS};
	for (size_t m = 0; m < 2; m++) {
		start_rx_port(16u, modes[m], 16u);
		uint8_t data[40];
		uint8_t out[40];
		harness_fill_random(data, sizeof data, 40u + (uint32_t)m);
		struct reader_in_pause reader = {.out = out};
		pl011_model_set_preempt_hook(read_when_rx_masked, &reader);
		uint64_t frame = pl011_model_frame_ns(h.model);
		uint64_t last = pl011_model_rx_inject_stream(h.model, data, sizeof data,
							     pl011_model_now_ns(h.model));
		pl011_model_advance_to(h.model, last + 5u * frame);
		pl011_model_set_preempt_hook(NULL, NULL);
		assert_true(reader.done);
		size_t got = reader.got + read_over_frames(out + reader.got,
							   sizeof data - reader.got, 200u, 16u);
		struct pl011_stats stats = stats_now();
		print_message("mode %d: the reader took %zu inside the pause, %zu of %zu in all, "
			      "%u pauses\n",
			      modes[m], reader.got, got, sizeof data, stats.rx_pauses);
		assert_int_equal(got, sizeof data);
		assert_memory_equal(out, data, sizeof data);
		harness_teardown(&h);
	}
}

/*
 * docs/api.md, pl011_read: "In RX_POLLED mode characters with errors are counted and
 * skipped, and RSR is read once after the characters, so that an overrun no later character
 * reports is counted too". A FIFO of framing errors overruns: the read that skips them all
 * (and returns 0) has counted the overrun.
 */
static void test_contract_a_polled_read_of_only_bad_characters_counts_the_overrun(void **state)
{
	(void)state;
	for (unsigned depth = 16; depth <= 32; depth += 16) {
		harness_setup(&h, 48000000u, depth);
		assert_int_equal(harness_start(&h), 0);
		uint64_t frame = pl011_model_frame_ns(h.model);
		uint64_t now = pl011_model_now_ns(h.model);
		for (unsigned i = 0; i <= depth; i++) /* depth fill the FIFO, one more is lost */
			pl011_model_rx_inject(h.model, (uint8_t)i, PL011_DR_FE,
					      now + (i + 1u) * frame);
		pl011_model_advance(h.model, (depth + 2u) * frame);
		assert_int_equal(pl011_model_counters(h.model)->rx_overruns, 1);
		uint8_t out[64];
		assert_int_equal(pl011_read(&h.uart, out, sizeof out, PL011_NO_WAIT), 0);
		struct pl011_stats stats = stats_now();
		print_message("depth %u: read 0, rx_framing %u, rx_overrun %u\n", depth,
			      stats.rx_framing, stats.rx_overrun);
		assert_int_equal(stats.rx_framing, depth);
		assert_int_equal(stats.rx_overrun, 1);
		harness_teardown(&h);
	}
}

/*
 * include/pl011.h, struct pl011_stats: "rx_discarded: received bytes thrown away by shutdown
 * or re-init"; README.md: "Bytes still unread at shutdown are counted in stats.rx_discarded
 * ... Framing, parity and break errors are counted." A bad character is no received byte: at
 * shutdown the FIFO's good characters are counted as discarded, its bad ones as errors only.
 */
static void test_contract_shutdown_counts_unread_good_bytes_as_discarded_bad_ones_as_errors(
	void **state)
{
	(void)state;
	static const unsigned errors[] = {0, PL011_DR_FE, 0, PL011_DR_PE, 0, PL011_DR_BE, 0};
	harness_setup(&h, 48000000u, 16u);
	assert_int_equal(harness_start(&h), 0);
	uint64_t frame = pl011_model_frame_ns(h.model);
	uint64_t now = pl011_model_now_ns(h.model);
	for (unsigned i = 0; i < 7u; i++)
		pl011_model_rx_inject(h.model, (uint8_t)('a' + i), errors[i],
				      now + (i + 1u) * frame);
	pl011_model_advance(h.model, 8u * frame);
	assert_int_equal(pl011_model_rx_level(h.model), 7);
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	struct pl011_stats stats = stats_now();
	print_message("rx_discarded %u, rx_framing %u, rx_parity %u, rx_break %u\n",
		      stats.rx_discarded, stats.rx_framing, stats.rx_parity, stats.rx_break);
	assert_int_equal(stats.rx_discarded, 4);
	assert_int_equal(stats.rx_framing, 1);
	assert_int_equal(stats.rx_parity, 1);
	assert_int_equal(stats.rx_break, 1);
	harness_teardown(&h);
}

/*
 * docs/api.md, pl011_restart: "The new rx_buffer may be the old one (the bytes stay where
 * they are) or storage that does not overlap it"; what it received and nobody read "goes into the
 * new RX ring". Storage that ends where the old ring starts, or starts where it ends, does not
 * overlap it: the unread bytes move across each time, none discarded.
 */
static void test_contract_init_moves_unread_bytes_into_an_adjacent_new_ring(void **state)
{
	(void)state;
	start_rx_port(16u, PL011_RX_LOW_LATENCY, 64u);
	uint8_t data[10];
	harness_fill_random(data, sizeof data, 10u);
	uint64_t frame = pl011_model_frame_ns(h.model);
	uint64_t last = pl011_model_rx_inject_stream(h.model, data, sizeof data,
						     pl011_model_now_ns(h.model));
	pl011_model_advance_to(h.model, last + 5u * frame);
	assert_int_equal(stats_now().rx_bytes, sizeof data);
	/* Old ring [0, 64), new [64, 128): the new one starts where the old ends. */
	h.config.rx_buffer = h.rx_storage + 64;
	assert_int_equal(harness_restart(&h), 0);
	/* Old ring [64, 128), new [0, 64): the new one ends where the old starts. */
	h.config.rx_buffer = h.rx_storage;
	assert_int_equal(harness_restart(&h), 0);
	uint8_t out[64];
	int n = pl011_read(&h.uart, out, sizeof out, PL011_NO_WAIT);
	struct pl011_stats stats = stats_now();
	print_message("after two re-inits into adjacent storage: read %d, rx_discarded %u\n", n,
		      stats.rx_discarded);
	assert_int_equal(n, sizeof data);
	assert_memory_equal(out, data, sizeof data);
	assert_int_equal(stats.rx_discarded, 0);
	harness_teardown(&h);
}

/*
 * docs/api.md, pl011_tx_queued: "Bytes accepted by pl011_write and not yet handed to the
 * FIFO (the TX ring's count ...). Context: any (a snapshot)." A snapshot taken beside both
 * sides of the ring, between its two index loads (the TX interrupt takes bytes out, the writer
 * puts as many back), is still a count the ring can hold: at most its 16 bytes.
 */
struct snapshot_race {
	uint64_t points;  /* hook calls of one undisturbed pl011_tx_queued */
	uint64_t counted; /* hook calls in the call under test */
	bool busy;
	size_t moved;
};

static void count_points(void *context)
{
	struct snapshot_race *race = context;
	race->points++;
}

static void move_both_indices(void *context)
{
	struct snapshot_race *race = context;
	if (race->busy || ++race->counted != race->points)
		return;
	race->busy = true;
	size_t before = pl011_tx_queued(&h.uart);
	/* The FIFO drains through its trigger: the handler refills it from the ring. */
	pl011_model_advance(h.model, 12u * pl011_model_frame_ns(h.model));
	size_t taken = before - pl011_tx_queued(&h.uart);
	uint8_t more[16];
	memset(more, 'm', sizeof more);
	int n = pl011_write(&h.uart, more, taken, PL011_NO_WAIT);
	assert_int_equal(n, (int)taken);
	race->moved = taken;
	race->busy = false;
}

static void test_contract_tx_queued_from_any_context_never_exceeds_the_ring(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16u);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	h.config.tx_buffer_size = 16u;
	assert_int_equal(harness_start(&h), 0);
	uint8_t data[64];
	harness_fill_random(data, sizeof data, 64u);
	size_t queued = 0;
	for (size_t offset = 0; offset < sizeof data && pl011_tx_queued(&h.uart) < 16u;) {
		int n = pl011_write(&h.uart, data + offset, 1, PL011_NO_WAIT);
		assert_true(n >= 0);
		offset += (size_t)n;
		queued = pl011_tx_queued(&h.uart);
		if (n == 0)
			break;
	}
	assert_int_equal(queued, 16);
	struct snapshot_race race = {0};
	pl011_model_set_preempt_hook(count_points, &race);
	assert_int_equal(pl011_tx_queued(&h.uart), 16);
	pl011_model_set_preempt_hook(move_both_indices, &race);
	size_t seen = pl011_tx_queued(&h.uart);
	pl011_model_set_preempt_hook(NULL, NULL);
	print_message("%llu points in the snapshot; %zu bytes out and in beside it; it said %zu\n",
		      (unsigned long long)race.points, race.moved, seen);
	assert_true(race.moved > 0);
	if (seen > 16u)
		fail_msg("pl011_tx_queued said %zu of a 16-byte ring", seen);
	assert_int_equal(pl011_flush(&h.uart, PL011_WAIT_AUTO, NULL), 0);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(
			test_contract_rx_interrupt_at_one_eighth_for_low_latency_three_quarters_for_few_irqs,
			&h),
		HARNESS_TEST(test_contract_init_masks_and_clears_all_interrupts_before_the_divisors,
			     &h),
		HARNESS_TEST(test_contract_with_rts_cts_nothing_is_lost_however_slow_the_reader, &h),
		HARNESS_TEST(test_contract_rx_resumes_once_the_ring_has_room_for_a_fifos_worth, &h),
		HARNESS_TEST(test_contract_a_resume_finds_the_receive_timeout_still_latched, &h),
		HARNESS_TEST(test_contract_rx_resumes_when_a_ring_smaller_than_a_fifo_is_empty, &h),
		HARNESS_TEST(test_contract_a_reader_that_frees_room_before_the_pause_shows_is_seen,
			     &h),
		HARNESS_TEST(test_contract_a_polled_read_of_only_bad_characters_counts_the_overrun,
			     &h),
		HARNESS_TEST(
			test_contract_shutdown_counts_unread_good_bytes_as_discarded_bad_ones_as_errors,
			&h),
		HARNESS_TEST(test_contract_init_moves_unread_bytes_into_an_adjacent_new_ring, &h),
		HARNESS_TEST(test_contract_tx_queued_from_any_context_never_exceeds_the_ring, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
