/* console: a prompt and a line editor as a terminal user expects; commands help, stats, echo, quit. */
#include <stdio.h>
#include <string.h>

#include "board.h"

#define PROMPT "pl011> "
#define LINE_MAX 80u

/* Keys a terminal sends in raw mode. Enter is CR; some send LF, or CR LF. */
#define KEY_CTRL_C 0x03u
#define KEY_BACKSPACE 0x08u
#define KEY_LF 0x0au
#define KEY_CR 0x0du
#define KEY_CTRL_U 0x15u
#define KEY_ESC 0x1bu
#define KEY_DEL 0x7fu

static uint8_t tx_storage[1024];
static uint8_t rx_storage[256];

/* The line being edited: printable characters only, so the screen shows exactly these. */
static char line[LINE_MAX + 1];
static size_t line_length;
static uint32_t lines_run;

/* An escape sequence (arrow keys: ESC [ A) is swallowed whole: it has no meaning here, and
 * its bytes echoed would put the cursor where the line buffer does not think it is. */
enum escape_state { ESCAPE_NONE, ESCAPE_STARTED, ESCAPE_CSI };
static enum escape_state escape;
static uint8_t last_key;

static void send_text(const char *text)
{
	(void)pl011_puts(board_console(), text); /* "\n" goes out as "\r\n" */
}

static void send_bytes(const char *bytes, size_t count)
{
	(void)pl011_write(board_console(), bytes, count, PL011_WAIT_AUTO);
}

/* Back over the last count characters: "\b \b" overwrites each with a space, as terminals
 * move the cursor on BS but do not erase. */
static void erase_chars(size_t count)
{
	for (size_t i = 0; i < count; i++)
		send_bytes("\b \b", 3);
}

static void print_stats(void)
{
	struct pl011_stats s;
	char text[200];
	if (pl011_get_stats(board_console(), &s) != 0) {
		send_text("stats: none\n");
		return;
	}
	(void)snprintf(text, sizeof text,
		       "lines=%lu rx_bytes=%lu tx_bytes=%lu irqs=%lu irq_rx=%lu irq_rt=%lu "
		       "irq_tx=%lu rx_overrun=%lu rx_discarded=%lu\n",
		       (unsigned long)lines_run, (unsigned long)s.rx_bytes, (unsigned long)s.tx_bytes,
		       (unsigned long)s.irq_entries, (unsigned long)s.irq_rx, (unsigned long)s.irq_rt,
		       (unsigned long)s.irq_tx, (unsigned long)s.rx_overrun,
		       (unsigned long)s.rx_discarded);
	send_text(text);
}

/* Run the finished line; returns 1 when it was quit. */
static int run_line(void)
{
	const char *command = line;
	while (*command == ' ')
		command++;
	size_t end = strlen(command);
	while (end > 0 && command[end - 1] == ' ')
		end--;
	if (end == 0)
		return 0; /* an empty line only brings a new prompt, as in a shell */
	lines_run++;
	if (end == 4 && strncmp(command, "help", 4) == 0) {
		send_text("help          this list\n"
			  "stats         the driver's counters\n"
			  "echo TEXT     print TEXT\n"
			  "quit          end the example (QEMU exits)\n"
			  "keys: Backspace/DEL erase, Ctrl-U erases the line, Ctrl-C drops it\n");
	} else if (end == 5 && strncmp(command, "stats", 5) == 0) {
		print_stats();
	} else if (strncmp(command, "echo", 4) == 0 && (end == 4 || command[4] == ' ')) {
		const char *text = command + 4;
		while (*text == ' ')
			text++;
		send_bytes(text, end - (size_t)(text - command));
		send_text("\n");
	} else if (end == 4 && strncmp(command, "quit", 4) == 0) {
		return 1;
	} else {
		send_text("unknown command '");
		send_bytes(command, end);
		send_text("': try help\n");
	}
	return 0;
}

/* Edit the line with one key; returns 1 when a quit line was entered. */
static int handle_key(uint8_t key)
{
	uint8_t previous = last_key;
	last_key = key;
	if (escape == ESCAPE_STARTED) {
		escape = (key == '[' || key == 'O') ? ESCAPE_CSI : ESCAPE_NONE;
		return 0;
	}
	if (escape == ESCAPE_CSI) {
		if (key >= 0x40u && key <= 0x7eu) /* the final byte ends it */
			escape = ESCAPE_NONE;
		return 0;
	}
	if (key == KEY_LF) {
		if (previous == KEY_CR)
			return 0; /* the LF of a CR LF Enter */
		key = KEY_CR; /* a lone LF is Enter too */
	}
	switch (key) {
	case KEY_CR: {
		send_text("\n");
		line[line_length] = '\0';
		int quit = run_line();
		line_length = 0;
		if (!quit)
			send_text(PROMPT);
		return quit;
	}
	case KEY_BACKSPACE:
	case KEY_DEL:
		if (line_length > 0) {
			line_length--;
			erase_chars(1);
		}
		return 0;
	case KEY_CTRL_U:
		erase_chars(line_length);
		line_length = 0;
		return 0;
	case KEY_CTRL_C:
		send_text("^C\n" PROMPT);
		line_length = 0;
		return 0;
	case KEY_ESC:
		escape = ESCAPE_STARTED;
		return 0;
	default:
		break;
	}
	if (key < 0x20u || key > 0x7eu)
		return 0; /* other control keys and 8-bit bytes: not shown, not kept */
	if (line_length == LINE_MAX) {
		send_bytes("\a", 1); /* full: the bell, and the key is dropped */
		return 0;
	}
	line[line_length++] = (char)key;
	send_bytes((const char *)&key, 1);
	return 0;
}

/* Waits sleep until the next interrupt (the RX interrupt, or the 1 ms tick that bounds every
 * wait) rather than spin on FR, which under QEMU holds its lock and slows the I/O thread. */
static void sleep_until_interrupt(void *context)
{
	(void)context;
	board_wait_for_interrupt();
}

static void tick(void *context)
{
	(void)context;
}

/* QEMU's exit closes its end of a pty (make run SERIAL=pty), and Linux then drops what the
 * terminal had not read yet: the last line would rarely show. A tenth of a second lets the
 * terminal read it; on hardware, where nothing exits, it costs nothing that matters. */
static void pause_before_exit(void)
{
	(void)pl011_flush(board_console(), PL011_WAIT_AUTO, NULL);
	uint32_t start = board_now_us(NULL);
	while (board_now_us(NULL) - start < 100000u)
		board_wait_for_interrupt(); /* the 1 ms tick wakes it */
}

int main(void)
{
	/* static: the port reads its config in place while it runs (pl011_init). */
	static struct pl011_config config;
	config = *board_console_config();
	config.wait_hook = sleep_until_interrupt;
	config.tx_mode = PL011_TX_MEASURED;
	config.rx_mode = PL011_RX_LOW_LATENCY; /* each key as it comes, not at the FIFO's trigger */
	config.tx_buffer = tx_storage;
	config.tx_buffer_size = sizeof tx_storage;
	config.rx_buffer = rx_storage;
	config.rx_buffer_size = sizeof rx_storage;
	if (pl011_restart(board_console(), &config) != 0)
		return 1;
	board_console_irq_enable(true);
	board_tick_start(1000u, tick, NULL);
	send_text("pl011 " PL011_VERSION_STRING " console on ");
	send_text(board_name());
	send_text(": type help, quit to end\n" PROMPT);

	uint8_t keys[64];
	for (;;) {
		int n = pl011_read(board_console(), keys, sizeof keys, 1000000u);
		for (int i = 0; i < n; i++) {
			if (handle_key(keys[i])) {
				send_text("bye\n");
				pause_before_exit();
				return 0; /* board_exit: flush, then semihosting exit under QEMU */
			}
		}
	}
}
