/* The Raspberry Pi console: pins, clock, the PL011 started, and the board's warnings on it. */
#include <stddef.h>

#include "bcm283x.h"
#include "board.h"
#include "board_common.h"

static void console_text(const char *text)
{
	size_t length = 0;
	while (text[length] != '\0')
		length++;
	(void)pl011_write(board_console(), text, length, PL011_WAIT_AUTO);
}

void bcm283x_console_warning(const char *text)
{
	console_text(board_name());
	console_text(text);
}

void bcm283x_console_init(void (*pulls)(void))
{
	enum bcm283x_clock_source source;
	bcm283x_uart0_pins_alt0();
	pulls();
	uint32_t clock_hz = bcm283x_uart_clock_hz(&source);
	board_console_start(BCM283X_PERIPHERAL(BCM283X_UART0_OFFSET), clock_hz);
	/* If the fallback is wrong this line is garbled, which is itself the hint. */
	if (source == BCM283X_CLOCK_FALLBACK)
		bcm283x_console_warning(
			": the firmware did not report the UART clock; assuming 48 MHz "
			"(build with BOARD_UART_CLOCK_HZ=<hz> to set it)\r\n");
}
