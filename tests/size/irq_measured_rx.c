/* Size firmware "interrupt TX with MEASURED plus interrupt RX": one strategy, rings, the handler. */
#include "pl011.h"
#include "size_firmware.h"

static struct pl011 uart;
static uint8_t tx_storage[256];
static uint8_t rx_storage[256];

void size_irq(void)
{
	pl011_irq_handler(&uart);
}

void size_main(void)
{
	static const struct pl011_config config = {
		SIZE_LINE_CONFIG,
		.tx_mode = PL011_TX_MEASURED,
		.rx_mode = PL011_RX_LOW_LATENCY,
		.tx_buffer = tx_storage,
		.tx_buffer_size = sizeof tx_storage,
		.rx_buffer = rx_storage,
		.rx_buffer_size = sizeof rx_storage,
		.clock = size_clock_us,
	};
	uint8_t line[16];
	if (pl011_init(&uart, &config) != 0)
		return;
	(void)pl011_write(&uart, "hi\n", 3, PL011_WAIT_AUTO);
	int got = pl011_read(&uart, line, sizeof line, PL011_WAIT_AUTO);
	if (got > 0)
		(void)pl011_write(&uart, line, (size_t)got, PL011_WAIT_AUTO);
	(void)pl011_flush(&uart, PL011_WAIT_AUTO, NULL);
}
