/* Receive path: error decoding, the interrupt drain into the RX ring, read and getc. */
#include "pl011_internal.h"

int pl011_rx_decode(struct pl011 *uart, uint32_t dr)
{
	/* OE says a character was lost *before* this one; this one is intact (TRM 3.3.1). */
	if (dr & PL011_DR_OE)
		uart->stats.rx_overrun++;
	/* A break also reports FE (the stop bit is low too): count it once, as a break. */
	if (dr & PL011_DR_BE) {
		uart->stats.rx_break++;
		return PL011_EBREAK;
	}
	if (dr & PL011_DR_FE) {
		uart->stats.rx_framing++;
		return PL011_EFRAMING;
	}
	if (dr & PL011_DR_PE) {
		uart->stats.rx_parity++;
		return PL011_EPARITY;
	}
	return (int)(dr & PL011_DR_DATA);
}

/*
 * Drain the RX FIFO into the ring. Bounded by two FIFOs' worth per call: characters arriving
 * while we drain are caught by the next pass or by RT. Bad characters are counted and dropped;
 * good ones that find the ring full are counted in rx_dropped (unread data is never
 * overwritten).
 */
void pl011_rx_service(struct pl011 *uart)
{
	uint8_t *segment = NULL;
	size_t room = 0;
	size_t filled = 0;
	uint32_t limit = 2u * uart->line.fifo_depth;

	for (uint32_t i = 0; i < limit; i++) {
		if (pl011_reg_read(uart, PL011_FR) & PL011_FR_RXFE)
			break;
		int byte = pl011_rx_decode(uart, pl011_reg_read(uart, PL011_DR));
		if (byte < 0)
			continue;
		if (filled == room) {
			pl011_ring_commit(&uart->rx.ring, filled);
			filled = 0;
			room = pl011_ring_reserve(&uart->rx.ring, &segment);
		}
		if (room == 0) {
			uart->stats.rx_dropped++;
			continue;
		}
		segment[filled++] = (uint8_t)byte;
		uart->stats.rx_bytes++;
	}
	pl011_ring_commit(&uart->rx.ring, filled);

	if (uart->config.rx_callback != NULL) {
		size_t available = pl011_ring_count(&uart->rx.ring);
		if (available != 0)
			uart->config.rx_callback(uart, available, uart->config.rx_callback_context);
	}
}

/* RX_POLLED: read good characters straight from the FIFO, skipping (and counting) bad ones. */
static size_t read_fifo(struct pl011 *uart, uint8_t *data, size_t len)
{
	size_t done = 0;
	while (done < len && (pl011_reg_read(uart, PL011_FR) & PL011_FR_RXFE) == 0) {
		int byte = pl011_rx_decode(uart, pl011_reg_read(uart, PL011_DR));
		if (byte >= 0) {
			data[done++] = (uint8_t)byte;
			uart->stats.rx_bytes++;
		}
	}
	return done;
}

static size_t read_available(struct pl011 *uart, uint8_t *data, size_t len)
{
	if (pl011_rx_uses_ring(uart))
		return pl011_ring_read(&uart->rx.ring, data, len);
	return read_fifo(uart, data, len);
}

int pl011_read(struct pl011 *uart, void *data, size_t len, uint32_t bound_us)
{
	if (uart == NULL || (data == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	size_t done = read_available(uart, data, len);
	if (done != 0 || len == 0 || bound_us == PL011_NO_WAIT)
		return (int)done;
	if (bound_us == PL011_WAIT_AUTO)
		bound_us = pl011_backlog_deadline_us(uart, len);

	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, bound_us);
	while (done == 0 && !pl011_wait_expired(&wait)) {
		/* The FR read is the wait's step: it paces the loop on the bus. */
		uint32_t fr = pl011_reg_read(uart, PL011_FR);
		if (pl011_rx_uses_ring(uart) || (fr & PL011_FR_RXFE) == 0)
			done = read_available(uart, data, len);
	}
	return (int)done;
}

int pl011_getc(struct pl011 *uart)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	if (pl011_rx_uses_ring(uart)) {
		uint8_t byte;
		return pl011_ring_read(&uart->rx.ring, &byte, 1) == 1 ? byte : PL011_EAGAIN;
	}
	if (pl011_reg_read(uart, PL011_FR) & PL011_FR_RXFE)
		return PL011_EAGAIN;
	int byte = pl011_rx_decode(uart, pl011_reg_read(uart, PL011_DR));
	if (byte >= 0)
		uart->stats.rx_bytes++;
	return byte;
}
