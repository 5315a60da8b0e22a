/* Consumer-test firmware: the library used from outside the tree, polled, on QEMU versatilepb. */
#include <stddef.h>

#include "pl011.h"

/* Versatile PB UART0 and its reference clock (as boards/versatilepb/board.h). */
#define UART0_BASE 0x101F1000u
#define UART0_CLOCK_HZ 24000000u

int main(void);

static struct pl011 uart;

int main(void)
{
	static const char message[] = "pl011 consumer: ok\n";
	static const struct pl011_config config = {
		.base = UART0_BASE,
		.clock_hz = UART0_CLOCK_HZ,
		.baud = 115200,
		.data_bits = 8,
		.stop_bits = 1,
		.parity = PL011_PARITY_NONE,
		.tx_mode = PL011_TX_POLLED,
		.rx_mode = PL011_RX_POLLED,
	};
	if (pl011_init(&uart, &config) != 0)
		return 1;
	return pl011_write(&uart, message, sizeof message - 1, PL011_WAIT_AUTO) ==
			       (int)(sizeof message - 1)
		       ? 0
		       : 2;
}
