/* probe: the console UART's facts as the machine shows them (PeriphID, the depth its RX FIFO holds, the line its interrupt raises), for make board-check. */
#include <stdio.h>

#include "board.h"
#include "pl011_regs.h"
/* The one example that reads a register itself (FR.RXFF, which no driver call reports), through
 * the library's register seam like the driver. */
#include "../../lib/pl011_io.h"

/*
 * Three facts a board.h states, measured instead of believed:
 * - the FIFO depth PeriphID implies: the driver reads it when config.fifo_depth is 0;
 * - the depth the RX FIFO really holds: the host sends 16 bytes while nothing reads, and FR.RXFF
 *   (FIFO full) says whether that filled it; if not, 16 more. (Counting what one read returns
 *   does not work under QEMU: its socket refills the FIFO while the read drains it.) 16 bytes
 *   fit a 32-entry FIFO, so no byte is lost on hardware either;
 * - the interrupt line: with RX interrupts on at the UART but nothing routed and IRQs masked at
 *   the CPU, the host sends one byte, and the lines the controller shows asserted that were not
 *   before are the UART's (two on musca-b1, whose PL011 also drives a line per cause: the RX
 *   one and the combined one board.h routes).
 * Every wait is bounded (PROBE_WAIT_US); the host protocol is tests/boards/check_board_facts.py
 * and tests/qemu/examples.py.
 */
#define PROBE_CHUNK 16u
#define PROBE_WAIT_US 10000000u
#define FILL_PAUSE_US 200000u
#define LINES_MAX 8u

static uint8_t rx_storage[256];

static void pause_us(uint32_t duration)
{
	uint32_t start = board_now_us(NULL);
	while (board_now_us(NULL) - start < duration) {
	}
}

static bool rx_fifo_full(void)
{
	return (pl011_io_read(board_console_config()->base + PL011_FR) & PL011_FR_RXFF) != 0u;
}

/* Ask for PROBE_CHUNK more bytes; true once the first has arrived and the FIFO had time to
 * take them all. */
static bool receive_chunk(void)
{
	printf("probe: send %u bytes\n", PROBE_CHUNK);
	uint32_t start = board_now_us(NULL);
	while (pl011_io_read(board_console_config()->base + PL011_FR) & PL011_FR_RXFE) {
		if (board_now_us(NULL) - start >= PROBE_WAIT_US)
			return false;
	}
	pause_us(FILL_PAUSE_US);
	return true;
}

/* 16 or 32 as FR.RXFF shows it, -1 if neither chunk filled it (or nothing arrived). */
static int measure_fifo_depth(void)
{
	int depth = -1;
	for (uint32_t held = PROBE_CHUNK; held <= 2u * PROBE_CHUNK; held += PROBE_CHUNK) {
		if (!receive_chunk())
			break;
		if (rx_fifo_full()) {
			depth = (int)held;
			break;
		}
	}
	uint8_t buffer[2u * PROBE_CHUNK];
	(void)pl011_read(board_console(), buffer, sizeof buffer, FILL_PAUSE_US);
	return depth;
}

static bool listed(const uint32_t *lines, uint32_t count, uint32_t line)
{
	for (uint32_t i = 0; i < count; i++) {
		if (lines[i] == line)
			return true;
	}
	return false;
}

/* Prints each line that became asserted; returns how many did. */
static uint32_t find_interrupt_line(void)
{
	uint32_t before[LINES_MAX];
	uint32_t after[LINES_MAX];
	uint32_t before_count = board_irq_lines_asserted(before, LINES_MAX);
	printf("probe: send 1 byte\n");
	uint32_t start = board_now_us(NULL);
	uint32_t found = 0;
	while (found == 0 && board_now_us(NULL) - start < PROBE_WAIT_US) {
		uint32_t count = board_irq_lines_asserted(after, LINES_MAX);
		for (uint32_t i = 0; i < count; i++) {
			if (!listed(before, before_count, after[i])) {
				printf("probe: uart interrupt line %lu\n", (unsigned long)after[i]);
				found++;
			}
		}
	}
	return found;
}

int main(void)
{
	/* static: the port reads its config in place while it runs (pl011_init). */
	static struct pl011_config config;
	config = *board_console_config();
	config.fifo_depth = 0;
	if (pl011_restart(board_console(), &config) != 0)
		return 1;
	printf("probe on %s: PeriphID says FIFO %d\n", board_name(),
	       pl011_get_fifo_depth(board_console()));
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);
	if (pl011_restart(board_console(), board_console_config()) != 0)
		return 1;
	int held = measure_fifo_depth();
	printf("probe: RX FIFO held %d\n", held);

	config = *board_console_config();
	config.rx_mode = PL011_RX_LOW_LATENCY;
	config.rx_buffer = rx_storage;
	config.rx_buffer_size = sizeof rx_storage;
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);
	if (pl011_restart(board_console(), &config) != 0)
		return 1;
	uint32_t lines = find_interrupt_line();
	printf("probe: done, %lu line%s\n", (unsigned long)lines, lines == 1u ? "" : "s");
	return held > 0 && lines > 0u ? 0 : 2;
}
