/* picolibc retarget for the AArch64 boards: stdin/stdout/stderr on the console UART, _exit. */
#include <stdio.h>

#include "board.h"
#include "board_common.h"

/* Terminals expect CR LF: pl011_write_console sends '\n' as "\r\n", as on the newlib boards. */
static int console_put(char c, FILE *file)
{
	(void)file;
	if (pl011_write_console(board_console(), &c, 1, PL011_WAIT_AUTO) != 1)
		return EOF;
	return (unsigned char)c;
}

static int console_get(FILE *file)
{
	(void)file;
	char c;
	if (pl011_read(board_console(), &c, 1, BOARD_STDIN_WAIT_US) != 1)
		return EOF;
	return (unsigned char)c;
}

static FILE console_stream = FDEV_SETUP_STREAM(console_put, console_get, NULL, _FDEV_SETUP_RW);
FILE *const stdin = &console_stream;
FILE *const stdout = &console_stream;
FILE *const stderr = &console_stream;

void _exit(int status);

void _exit(int status)
{
	board_exit(status);
}
