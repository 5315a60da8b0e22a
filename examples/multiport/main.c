/* multiport: every PL011 of the board at once, each echoing what it receives, each with its own TX strategy, RX mode and rate; "!quit" on the console ends. */
#include <stdio.h>
#include <string.h>

#include "board.h"

/*
 * The driver's instances are independent: nothing in lib/ is global. This runs them side by
 * side, the console plus every port board_uart_count() reports (BOARD_EXTRA_UARTS: three more
 * on realview-pbx-a9, two on versatilepb), each with a different TX strategy, RX mode and line
 * rate, so that one port's interrupts and refills run while another's are pending. The main
 * loop takes what each port has received and writes it back on the same port; the polled-RX
 * port is read there too. On a board with only the console it echoes there alone. The QEMU test
 * drives every port through its own socket at once and checks each echo byte for byte.
 */
#define PORTS_MAX 4u
#define RING_BYTES 1024u /* four ports x two rings fit the 32 KiB of a TM4C123 */
#define CHUNK_BYTES 256u

struct port {
	struct pl011 uart;
	struct pl011 *instance; /* &uart, or the console */
	struct pl011_config config; /* what the port runs on, read in place (pl011_init) */
	uint8_t tx_storage[RING_BYTES];
	uint8_t rx_storage[RING_BYTES];
};

struct port_setup {
	enum pl011_tx_mode tx_mode;
	enum pl011_rx_mode rx_mode;
	uint32_t baud;
	const char *name;
};

/* Port 0 is the console. */
static const struct port_setup setups[PORTS_MAX] = {
	{PL011_TX_MEASURED, PL011_RX_LOW_LATENCY, 115200u, "MEASURED/LOW_LATENCY"},
	{PL011_TX_HALF_FIFO, PL011_RX_FEW_IRQS, 38400u, "HALF_FIFO/FEW_IRQS"},
	{PL011_TX_HYBRID, PL011_RX_POLLED, 230400u, "HYBRID/POLLED"},
	{PL011_TX_ADAPTIVE, PL011_RX_LOW_LATENCY, 921600u, "ADAPTIVE/LOW_LATENCY"},
};

static struct port ports[PORTS_MAX];
static char console_line[16];
static size_t console_line_length;

static int start_port(uint32_t index, uint32_t *count)
{
	struct port *port = &ports[index];
	struct pl011_config *config = &port->config; /* read in place while the port runs */
	if (index == 0) {
		*config = *board_console_config();
		port->instance = board_console();
	} else {
		if (board_uart_config(index - 1u, config) != 0)
			return -1;
		port->instance = &port->uart;
	}
	config->tx_mode = setups[index].tx_mode;
	config->rx_mode = setups[index].rx_mode;
	config->baud = setups[index].baud;
	config->tx_buffer = port->tx_storage;
	config->tx_buffer_size = sizeof port->tx_storage;
	config->rx_buffer = port->rx_storage;
	config->rx_buffer_size = sizeof port->rx_storage;
	if (pl011_restart(port->instance, config) != 0) /* the console runs on the board's */
		return -1;
	if (index == 0)
		board_console_irq_enable(true);
	else
		board_uart_irq_attach(index - 1u, port->instance);
	*count = index + 1u;
	return 0;
}

/* True when "!quit" ended a console line. */
static bool console_quit(const uint8_t *data, int length)
{
	for (int i = 0; i < length; i++) {
		if (data[i] != '\n' && data[i] != '\r') {
			if (console_line_length < sizeof console_line - 1u)
				console_line[console_line_length++] = (char)data[i];
			else
				console_line_length = sizeof console_line;
			continue;
		}
		bool quit = console_line_length == 5u && memcmp(console_line, "!quit", 5) == 0;
		console_line_length = 0;
		if (quit)
			return true;
	}
	return false;
}

static void report(uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		struct pl011_stats s;
		(void)pl011_flush(ports[i].instance, PL011_WAIT_AUTO, NULL);
		pl011_get_stats(ports[i].instance, &s);
		printf("multiport: port %lu %s rx_bytes=%lu tx_bytes=%lu irqs=%lu rx_discarded=%lu "
		       "rx_overrun=%lu tx_discarded=%lu\n",
		       (unsigned long)i, setups[i].name, (unsigned long)s.rx_bytes,
		       (unsigned long)s.tx_bytes, (unsigned long)s.irq_entries,
		       (unsigned long)s.rx_discarded, (unsigned long)s.rx_overrun,
		       (unsigned long)s.tx_discarded);
	}
}

int main(void)
{
	uint32_t count = 0;
	uint32_t wanted = 1u + board_uart_count();
	if (wanted > PORTS_MAX)
		wanted = PORTS_MAX;
	for (uint32_t i = 0; i < wanted; i++) {
		if (start_port(i, &count) != 0)
			return 1;
	}
	printf("multiport ready on %s: %lu ports echo; !quit on port 0 ends\n", board_name(),
	       (unsigned long)count);
	for (uint32_t i = 1; i < count; i++) {
		char banner[64];
		int length = snprintf(banner, sizeof banner, "port %lu ready: %s\n",
				      (unsigned long)i, setups[i].name);
		(void)pl011_write(ports[i].instance, banner, (size_t)length, PL011_WAIT_AUTO);
	}
	uint8_t buffer[CHUNK_BYTES];
	for (;;) {
		for (uint32_t i = 0; i < count; i++) {
			int n = pl011_read(ports[i].instance, buffer, sizeof buffer, PL011_NO_WAIT);
			if (n <= 0)
				continue;
			if (pl011_write(ports[i].instance, buffer, (size_t)n, PL011_WAIT_AUTO) != n)
				return 2;
			if (i == 0 && console_quit(buffer, n)) {
				report(count);
				printf("bye\n");
				return 0;
			}
		}
	}
}
