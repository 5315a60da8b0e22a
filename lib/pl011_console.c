/* Console output: text with "\n" sent as "\r\n", on top of pl011_write. */
#include "pl011_internal.h"

/* Bytes before the first '\n' (or len): the freestanding library has no memchr. */
static size_t line_length(const char *text, size_t len)
{
	size_t n = 0;
	while (n < len && text[n] != '\n')
		n++;
	return n;
}

/* The newline's two bytes, each within the bound; returns whether both were accepted. */
static int write_newline(struct pl011 *uart, uint32_t bound_us)
{
	int n = pl011_write(uart, "\r\n", 2, bound_us);
	if (n == 1)
		n += pl011_write(uart, "\n", 1, bound_us) == 1 ? 1 : 0;
	return n;
}

int pl011_write_console(struct pl011 *uart, const char *text, size_t len, uint32_t bound_us)
{
	if (uart == NULL || (text == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	size_t done = 0;
	while (done < len) {
		size_t piece = line_length(text + done, len - done);
		int n = pl011_write(uart, text + done, piece, bound_us);
		if (n < 0)
			return done != 0 ? (int)done : n;
		done += (size_t)n;
		if ((size_t)n < piece || done == len)
			break;
		n = write_newline(uart, bound_us);
		if (n < 0)
			return done != 0 ? (int)done : n;
		if (n != 2)
			break;
		done++;
	}
	return (int)done;
}

int pl011_puts(struct pl011 *uart, const char *text)
{
	if (text == NULL)
		return PL011_EINVAL;
	size_t len = 0;
	while (len < INT32_MAX && text[len] != '\0')
		len++;
	return pl011_write_console(uart, text, len, PL011_WAIT_AUTO);
}
