/* smp: three cores on one UART: core 0 takes its interrupt, core 1 writes with pl011_write, core 2 with pl011_write_panic. */
#include <stdio.h>

#include "board.h"

/*
 * The real-silicon counterpart of the two-core explorer of the host tests. Core 1 queues
 * lowercase letters through the TX ring (interrupt mode, so core 0's TX interrupt refills the
 * FIFO); core 2 meanwhile sends uppercase letters with the panic write, which polls the FIFO
 * itself. The two alphabets let the test take each writer's bytes apart however they
 * interleave: each must arrive complete and in order. Between the marker lines only the
 * writers write; core 0 sleeps in WFI and runs the UART interrupt, and a 1 ms tick wakes it to
 * look at the writers' flags (nothing else would once the TX interrupt has gone quiet). On a board that cannot start
 * other cores (every 32-bit board) it says so and ends successfully; the QEMU test knows which
 * machines must run it.
 */
#define WRITER_BYTES 20000u
#define ALPHABET 26u
#define QUEUE_CHUNK_MAX 61u /* pl011_write chunks of 1..61 bytes */
#define PANIC_CHUNK_MAX 13u /* pl011_write_panic chunks of 1..13 bytes */
#define TX_BUFFER_BYTES 4096u
#define RX_BUFFER_BYTES 256u
/* Bound of core 0's wait for both writers: ample for 40,000 bytes at 115,200 baud. */
#define RUN_BOUND_US 20000000u
#define TICK_PERIOD_US 1000u

struct writer {
	char first;            /* 'a' or 'A' */
	uint32_t chunk_max;
	uint32_t sent;         /* bytes the driver accepted */
	uint32_t short_writes; /* calls whose bound ran out first (the rest is sent again) */
	uint32_t failures;     /* calls that returned an error */
	uint32_t done;         /* atomic: the writer finished */
};

static uint8_t tx_storage[TX_BUFFER_BYTES];
static uint8_t rx_storage[RX_BUFFER_BYTES];
static struct writer queued = {'a', QUEUE_CHUNK_MAX, 0, 0, 0, 0};
static struct writer panicked = {'A', PANIC_CHUNK_MAX, 0, 0, 0, 0};

/* Chunk lengths from a fixed xorshift sequence, so both writers cut their streams differently
 * on every call but the same on every run. */
static uint32_t next_length(uint32_t *state, uint32_t max)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state % max + 1u;
}

static void run_writer(struct writer *w, bool panic)
{
	char chunk[QUEUE_CHUNK_MAX];
	uint32_t state = panic ? 0x2545F491u : 0x9E3779B9u;
	uint32_t position = 0;
	while (position < WRITER_BYTES) {
		uint32_t length = next_length(&state, w->chunk_max);
		if (length > WRITER_BYTES - position)
			length = WRITER_BYTES - position;
		for (uint32_t i = 0; i < length; i++)
			chunk[i] = (char)(w->first + (char)((position + i) % ALPHABET));
		int written = panic ? pl011_write_panic(board_console(), chunk, length)
				    : pl011_write(board_console(), chunk, length, PL011_WAIT_AUTO);
		if (written < 0) {
			w->failures++;
			break;
		}
		/* A write returns short when its bound runs out: while back-to-back panics hold
		 * the writer off, or while the host does not run this core's vCPU (QEMU without
		 * -icount keeps real time). The next chunk goes on where the accepted bytes
		 * ended, so the letters stay complete and in order either way. */
		if (written != (int)length)
			w->short_writes++;
		w->sent += (uint32_t)written;
		position += (uint32_t)written;
	}
	__atomic_store_n(&w->done, 1u, __ATOMIC_RELEASE);
}

static void core1_main(void *context)
{
	run_writer(context, false);
}

static void core2_main(void *context)
{
	run_writer(context, true);
}

static void tick(void *context)
{
	(void)context;
}

static bool writers_done(void)
{
	return __atomic_load_n(&queued.done, __ATOMIC_ACQUIRE) != 0 &&
	       __atomic_load_n(&panicked.done, __ATOMIC_ACQUIRE) != 0;
}

int main(void)
{
	/* static: the port reads its config in place while it runs (pl011_init). */
	static struct pl011_config config;
	config = *board_console_config();
	config.tx_mode = PL011_TX_MEASURED;
	config.rx_mode = PL011_RX_LOW_LATENCY;
	config.tx_buffer = tx_storage;
	config.tx_buffer_size = sizeof tx_storage;
	config.rx_buffer = rx_storage;
	config.rx_buffer_size = sizeof rx_storage;
	if (pl011_restart(board_console(), &config) != 0)
		return 1;
	board_console_irq_enable(true);

	printf("smp on %s: core 1 pl011_write, core 2 pl011_write_panic, %u bytes each\n",
	       board_name(), WRITER_BYTES);
	printf("\n=====\n");
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);
	if (board_core_start(1, core1_main, &queued) != 0) {
		printf("\n+++++\nsmp: %s cannot start another core; skipped\n", board_name());
		return 0;
	}
	if (board_core_start(2, core2_main, &panicked) != 0) {
		printf("smp: core 2 did not start\n");
		return 1;
	}
	board_tick_start(TICK_PERIOD_US, tick, NULL);
	uint32_t start = board_now_us(NULL);
	while (!writers_done() && board_now_us(NULL) - start < RUN_BOUND_US)
		board_wait_for_interrupt();
	board_tick_start(0, NULL, NULL);
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);
	bool finished = writers_done();
	struct pl011_stats stats;
	pl011_get_stats(board_console(), &stats);
	printf("\n+++++\n");
	printf("smp: queued sent %lu short %lu failures %lu, panic sent %lu short %lu failures %lu, "
	       "%s\n",
	       (unsigned long)queued.sent, (unsigned long)queued.short_writes,
	       (unsigned long)queued.failures, (unsigned long)panicked.sent,
	       (unsigned long)panicked.short_writes, (unsigned long)panicked.failures,
	       finished ? "finished" : "timed out");
	printf("smp: tx_irqs %lu tx_refills %lu tx_stalls %lu\n", (unsigned long)stats.irq_tx,
	       (unsigned long)stats.tx_refills, (unsigned long)stats.tx_stalls);
	return finished && queued.failures == 0 && panicked.failures == 0 ? 0 : 2;
}
