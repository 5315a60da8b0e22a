/* shutdown_drain: shut the console down part-way and with an ample bound, restart, count. */
#include <stdio.h>
#include <string.h>

#include "board.h"

static uint8_t tx_storage[4096];

static const char verse[] = "the quick brown fox jumps over the lazy dog 0123456789\n";

static int start_interrupt_driven(void)
{
	/* static: the port reads its config in place while it runs (pl011_init). */
	static struct pl011_config config;
	config = *board_console_config(); /* the port is stopped, or runs on the board's */
	config.tx_mode = PL011_TX_MEASURED;
	config.tx_buffer = tx_storage;
	config.tx_buffer_size = sizeof tx_storage;
	int err = pl011_restart(board_console(), &config);
	if (err == 0)
		board_console_irq_enable(true);
	return err;
}

/* Queue up to `len` bytes of verses after a phase marker; returns the count accepted. */
static size_t queue_text(const char *marker, size_t len)
{
	size_t accepted = 0;
	int n = pl011_write(board_console(), marker, strlen(marker), PL011_NO_WAIT);
	accepted += n > 0 ? (size_t)n : 0u;
	while (accepted < len) {
		size_t chunk = sizeof verse - 1;
		n = pl011_write(board_console(), verse, chunk, PL011_NO_WAIT);
		if (n <= 0)
			break;
		accepted += (size_t)n;
	}
	return accepted;
}

static uint32_t tx_bytes(void)
{
	struct pl011_stats stats;
	pl011_get_stats(board_console(), &stats);
	return stats.tx_bytes;
}

int main(void)
{
	if (start_interrupt_driven() != 0)
		return 1;
	printf("shutdown_drain on %s\n", board_name());
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);

	/* Phase 1, the ^C: with interrupts held off the ring cannot drain, then shutdown with no
	 * time allowed. Whatever did not reach the FIFO must be reported, not lost. */
	uint32_t sent_before = tx_bytes();
	board_irq_disable();
	size_t accepted = queue_text("<<PHASE1>>", 4000);
	int discarded = pl011_shutdown(board_console(), 0);
	uint32_t sent = tx_bytes() - sent_before;
	board_irq_enable();
	if (start_interrupt_driven() != 0)
		return 2;
	printf("\n[phase 1] accepted=%lu sent=%lu discarded=%d\n", (unsigned long)accepted,
	       (unsigned long)sent, discarded);

	/* Phase 2: an ample bound drains everything; nothing is discarded. */
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);
	sent_before = tx_bytes();
	accepted = queue_text("<<PHASE2>>", 3000);
	discarded = pl011_shutdown(board_console(), PL011_WAIT_AUTO);
	sent = tx_bytes() - sent_before;
	if (start_interrupt_driven() != 0)
		return 3;
	printf("\n[phase 2] accepted=%lu sent=%lu discarded=%d\n", (unsigned long)accepted,
	       (unsigned long)sent, discarded);

	printf("MARKER: restarted and transmitting\n");
	return 0;
}
