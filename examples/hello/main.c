/* hello: the smallest use of the driver: printf through the C library (newlib, picolibc on AArch64), then the programmed divisors. */
#include <stdio.h>

#include "board.h"

int main(void)
{
	struct pl011_baud baud;
	printf("Hello from pl011 %s on %s\n", PL011_VERSION_STRING, board_name());
	if (pl011_get_baud(board_console(), &baud) != 0) {
		printf("console not started\n");
		return 1;
	}
	printf("UART0: %lu baud requested, IBRD=%lu FBRD=%lu, actual %lu baud (%ld ppm), FIFO %d\n",
	       (unsigned long)board_console_config()->baud, (unsigned long)baud.ibrd,
	       (unsigned long)baud.fbrd, (unsigned long)baud.actual_baud, (long)baud.error_ppm,
	       pl011_get_fifo_depth(board_console()));
	return 0;
}
