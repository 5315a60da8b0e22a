/* tx_cost: CPU cost of each TX mode in instructions per byte, measured under QEMU -icount. */
#include <stdio.h>
#include <string.h>

#include "board.h"

/*
 * Under `-icount shift=0` one guest instruction is one nanosecond of virtual time, so the
 * microsecond clock counts thousands of instructions, the same on every run. QEMU's UART sends
 * instantly and never reports TXFF, so this measures the driver's code path per byte (calls,
 * ring copies, refills, interrupt entries), not the line: the line is the model's job
 * (make bench). Each mode sends PAYLOAD_BYTES through pl011_write and waits for the drain.
 */
#define PAYLOAD_BYTES 8192u
#define CHUNK_BYTES 256u

static uint8_t tx_storage[4096];

struct mode_case {
	enum pl011_tx_mode mode;
	const char *name;
};

static const struct mode_case cases[] = {
	{PL011_TX_POLLED, "POLLED"},       {PL011_TX_HALF_FIFO, "HALF_FIFO"},
	{PL011_TX_POLL_FULL, "POLL_FULL"}, {PL011_TX_HYBRID, "HYBRID"},
	{PL011_TX_ADAPTIVE, "ADAPTIVE"},   {PL011_TX_MEASURED, "MEASURED"},
};

struct result {
	uint32_t elapsed_us;
	uint32_t write_us; /* inside pl011_write: the thread's path (interrupts taken meanwhile too) */
	uint32_t flush_us; /* inside pl011_flush */
	struct pl011_stats stats;
	int status;
};

/* A stopped port starts with zeroed counters, so each mode is measured alone. */
static int start_mode(enum pl011_tx_mode mode)
{
	/* static: the port reads its config in place while it runs (pl011_init), so it
	 * changes only once the port is stopped. */
	static struct pl011_config config;
	(void)pl011_shutdown(board_console(), PL011_WAIT_AUTO);
	config = *board_console_config();
	config.tx_mode = mode;
	config.tx_buffer = tx_storage;
	config.tx_buffer_size = sizeof tx_storage;
	int err = pl011_init(board_console(), &config);
	if (err == 0)
		board_console_irq_enable(mode != PL011_TX_POLLED);
	return err;
}

/* Printable payload, one line per chunk, so the serial log stays readable. */
static void fill_chunk(uint8_t *chunk, char tag)
{
	memset(chunk, tag, CHUNK_BYTES - 2u);
	chunk[CHUNK_BYTES - 2u] = '\r';
	chunk[CHUNK_BYTES - 1u] = '\n';
}

static struct result measure(const struct mode_case *c)
{
	struct result r = {0};
	uint8_t chunk[CHUNK_BYTES];
	fill_chunk(chunk, c->name[0]);
	r.status = start_mode(c->mode);
	if (r.status != 0)
		return r;
	uint32_t start = board_now_us(NULL);
	for (uint32_t sent = 0; sent < PAYLOAD_BYTES; sent += CHUNK_BYTES) {
		uint32_t before = board_now_us(NULL);
		int n = pl011_write(board_console(), chunk, CHUNK_BYTES, PL011_WAIT_AUTO);
		r.write_us += board_now_us(NULL) - before;
		if (n != CHUNK_BYTES) {
			r.status = PL011_ETIMEDOUT;
			return r;
		}
	}
	uint32_t flush_start = board_now_us(NULL);
	r.status = pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);
	r.flush_us = board_now_us(NULL) - flush_start;
	r.elapsed_us = board_now_us(NULL) - start;
	pl011_get_stats(board_console(), &r.stats);
	return r;
}

/* Instructions per byte in tenths, printed as "12.3": the clock counts whole microseconds,
 * about 100 for the payload, so the tenth is about the last digit the run resolves. */
static void print_per_byte(uint32_t us, uint32_t bytes)
{
	uint32_t tenths = (uint32_t)((uint64_t)us * 10000u / bytes);
	printf("%lu.%lu", (unsigned long)(tenths / 10u), (unsigned long)(tenths % 10u));
}

/*
 * The two costs apart: pl011_write's path per byte (the thread's copy, priming and refills,
 * with the clock reads around each call), and per TX interrupt what the run spent outside
 * pl011_write and pl011_flush. QEMU's FIFO never fills, so the writer sends everything and
 * the TX interrupt normally never comes: then there is nothing to divide.
 */
static void print_split(const char *name, const struct result *r)
{
	printf("tx_cost split %s: pl011_write path %lu instructions per byte, flush %lu "
	       "instructions, ",
	       name, (unsigned long)(r->write_us * 1000u / PAYLOAD_BYTES),
	       (unsigned long)(r->flush_us * 1000u));
	uint32_t outside = r->elapsed_us - r->write_us - r->flush_us;
	if (r->stats.irq_tx != 0)
		printf("%lu instructions per TX interrupt\n",
		       (unsigned long)(outside * 1000u / r->stats.irq_tx));
	else
		printf("no TX interrupt (the writer sent every byte)\n");
}

int main(void)
{
	struct result results[sizeof cases / sizeof cases[0]];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		results[i] = measure(&cases[i]);
	/* Report on a quiet, polled console. */
	if (start_mode(PL011_TX_POLLED) != 0)
		return 1;
	printf("\ntx_cost on %s: %u bytes per mode, instructions per byte under -icount shift=0\n",
	       board_name(), PAYLOAD_BYTES);
	int failures = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct result *r = &results[i];
		if (r->status != 0) {
			printf("tx_cost %s: failed, %s\n", cases[i].name, pl011_error_name(r->status));
			failures++;
			continue;
		}
		printf("tx_cost %s: ", cases[i].name);
		print_per_byte(r->elapsed_us, PAYLOAD_BYTES);
		printf(" instructions per byte, %lu TX interrupts, %lu refills, "
		       "%lu FR reads in the TX path, %lu bytes\n",
		       (unsigned long)r->stats.irq_tx, (unsigned long)r->stats.tx_refills,
		       (unsigned long)r->stats.tx_fr_reads, (unsigned long)r->stats.tx_bytes);
		print_split(cases[i].name, r);
	}
	return failures == 0 ? 0 : 2;
}
