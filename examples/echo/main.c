/* echo: interrupt-driven console that sends back every byte; "!stats" and "!quit" lines. */
#include <stdio.h>
#include <string.h>

#include "board.h"

static uint8_t tx_storage[4096];
static uint8_t rx_storage[4096];

/* The current line, kept only far enough to recognise a command. */
static char line[16];
static size_t line_length;

static void print_stats(void)
{
	struct pl011_stats s;
	pl011_get_stats(board_console(), &s);
	printf("stats: rx_bytes=%lu tx_bytes=%lu irqs=%lu irq_rx=%lu irq_rt=%lu irq_tx=%lu "
	       "rx_discarded=%lu rx_pauses=%lu rx_overrun=%lu rx_framing=%lu rx_parity=%lu rx_break=%lu "
	       "tx_stalls=%lu tx_timeouts=%lu\n",
	       (unsigned long)s.rx_bytes, (unsigned long)s.tx_bytes, (unsigned long)s.irq_entries,
	       (unsigned long)s.irq_rx, (unsigned long)s.irq_rt, (unsigned long)s.irq_tx,
	       (unsigned long)s.rx_discarded, (unsigned long)s.rx_pauses,
	       (unsigned long)s.rx_overrun,
	       (unsigned long)s.rx_framing, (unsigned long)s.rx_parity, (unsigned long)s.rx_break,
	       (unsigned long)s.tx_stalls, (unsigned long)s.tx_timeouts);
}

/* Feed one received byte to the command recogniser; returns 1 when "!quit" ended a line. */
static int track_command(uint8_t byte)
{
	if (byte != '\n' && byte != '\r') {
		if (line_length < sizeof line - 1)
			line[line_length++] = (char)byte;
		else
			line_length = sizeof line; /* too long to be a command */
		return 0;
	}
	int quit = 0;
	if (line_length < sizeof line) {
		line[line_length] = '\0';
		if (strcmp(line, "!stats") == 0)
			print_stats();
		quit = strcmp(line, "!quit") == 0;
	}
	line_length = 0;
	return quit;
}

/* Waits sleep until the next interrupt instead of spinning on FR: a spinning FR loop takes
 * QEMU's global lock on every read and starved its I/O thread under host load. The 1 ms tick
 * wakes every wait at least that often, so each keeps its bound (docs/waiting.md). */
static void sleep_until_interrupt(void *context)
{
	(void)context;
	board_wait_for_interrupt();
}

static void tick(void *context)
{
	(void)context;
}

int main(void)
{
	/* static: the port reads its config in place while it runs (pl011_init). */
	static struct pl011_config config;
	config = *board_console_config();
	config.wait_hook = sleep_until_interrupt;
	config.tx_mode = PL011_TX_MEASURED;
	config.rx_mode = PL011_RX_LOW_LATENCY;
	config.tx_buffer = tx_storage;
	config.tx_buffer_size = sizeof tx_storage;
	config.rx_buffer = rx_storage;
	config.rx_buffer_size = sizeof rx_storage;
	if (pl011_restart(board_console(), &config) != 0)
		return 1;
	board_console_irq_enable(true);
	board_tick_start(1000u, tick, NULL);
	printf("echo ready on %s: every byte comes back; lines !stats and !quit\n", board_name());

	uint8_t buffer[512];
	for (;;) {
		int n = pl011_read(board_console(), buffer, sizeof buffer, 1000000u);
		if (n <= 0)
			continue;
		/* Everything available comes back in one write, before commands are acted on. */
		if (pl011_write(board_console(), buffer, (size_t)n, PL011_WAIT_AUTO) != n)
			return 2;
		for (int i = 0; i < n; i++) {
			if (track_command(buffer[i])) {
				print_stats();
				printf("bye\n");
				return 0;
			}
		}
	}
}
