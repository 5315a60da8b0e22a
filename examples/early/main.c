/* early: the console with no instance. The board's port is shut down, pl011_early_init programs
 * the UART again, and pl011_early_write and pl011_early_getc greet and echo a line; then the
 * board's port starts again over it, as a firmware's pl011_init would after its boot output. */
#include <stdio.h>

#include "board.h"

#define EARLY_LINE_WAIT_US 10000000u

static void say(uintptr_t base, const char *text)
{
	size_t len = 0;
	while (text[len] != '\0')
		len++;
	(void)pl011_early_write(base, text, len);
}

/* A line of up to size - 1 bytes, ended by CR or LF, within EARLY_LINE_WAIT_US; its length. */
static size_t read_line(uintptr_t base, char *line, size_t size)
{
	size_t got = 0;
	uint32_t start = board_now_us(NULL);
	while (got < size - 1 && board_now_us(NULL) - start < EARLY_LINE_WAIT_US) {
		int byte = pl011_early_getc(base);
		if (byte == PL011_EAGAIN)
			continue;
		if (byte < 0 || byte == '\r' || byte == '\n')
			break;
		line[got++] = (char)byte;
	}
	line[got] = '\0';
	return got;
}

int main(void)
{
	const struct pl011_config *config = board_console_config();
	uintptr_t base = config->base;
	char line[32];
	if (pl011_shutdown(board_console(), PL011_WAIT_AUTO) < 0)
		return 1;
	int err = pl011_early_init(base, config->clock_hz, config->baud);
	if (err != 0)
		return 2;
	say(base, "early console on ");
	say(base, board_name());
	say(base, ": type a line\n");
	if (read_line(base, line, sizeof line) == 0) {
		say(base, "early: no line within 10 s\n");
		return 3;
	}
	say(base, "early got: ");
	say(base, line);
	say(base, "\n");
	err = pl011_init(board_console(), config);
	if (err != 0) {
		say(base, "early: pl011_init: ");
		say(base, pl011_error_name(err));
		say(base, "\n");
		return 4;
	}
	printf("the port again, after the early console\n");
	return 0;
}
