/*
 * The calls a console or a protocol reaches for first, built on pl011_read: what can be read
 * now, what TX can take, reading a whole message or a line within one bound, throwing input
 * away. A firmware that calls none of them links none of this file.
 */
#include "pl011_internal.h"
#include "pl011_io.h"
#include "pl011_regs.h"

#if PL011_INTERRUPTS
/* A count as these calls return it: a ring may hold 2^31 bytes, one more than an int. */
static int count_result(size_t count)
{
	return count > INT32_MAX ? INT32_MAX : (int)count;
}
#endif

int pl011_rx_available(struct pl011 *uart)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
#if PL011_INTERRUPTS
	if (pl011_rx_uses_ring(uart))
		return count_result(pl011_ring_count(&uart->rx.ring));
#endif
	/* FR tells only empty, or full (TRM 3.3.3: RXFF). */
	uint32_t fr = pl011_reg_read(uart, PL011_FR);
	if (fr & PL011_FR_RXFF)
		return (int)uart->line.fifo_depth;
	return (fr & PL011_FR_RXFE) ? 0 : 1;
}

int pl011_tx_free(struct pl011 *uart)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
#if PL011_INTERRUPTS
	if (pl011_tx_uses_ring(uart))
		return count_result(pl011_ring_space(&uart->tx.ring));
#endif
	uint32_t fr = pl011_reg_read(uart, PL011_FR);
	if (fr & PL011_FR_TXFE)
		return (int)uart->line.fifo_depth;
	return (fr & PL011_FR_TXFF) ? 0 : 1;
}

/* Bytes read into data + *done until stop says so, len is reached or the bound runs out; the
 * FR read between two empty looks is the wait's step, as in pl011_read. */
static int read_within(struct pl011 *uart, uint8_t *data, size_t len, uint32_t bound_us,
		       size_t *done, int delimiter)
{
	if (uart == NULL || (data == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	if (bound_us == PL011_WAIT_AUTO)
		bound_us = pl011_backlog_deadline_us(uart, len);
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, bound_us);
	/* A delimiter is looked for byte by byte, so that nothing after it is taken. */
	size_t step = delimiter < 0 ? len : 1u;
	while (*done < len) {
		size_t want = len - *done < step ? len - *done : step;
		int got = pl011_read(uart, data + *done, want, PL011_NO_WAIT);
		if (got < 0)
			return got;
		*done += (size_t)got;
		if (got != 0 && delimiter >= 0 && data[*done - 1u] == (uint8_t)delimiter)
			return (int)*done;
		if (got != 0)
			continue;
		if (bound_us == PL011_NO_WAIT || pl011_wait_expired(&wait))
			return PL011_ETIMEDOUT;
		(void)pl011_reg_read(uart, PL011_FR);
	}
	return (int)*done;
}

int pl011_read_exact(struct pl011 *uart, void *data, size_t len, uint32_t bound_us, size_t *got)
{
	size_t done = 0;
	int result = read_within(uart, data, len, bound_us, &done, -1);
	if (got != NULL)
		*got = done;
	return result;
}

int pl011_read_until(struct pl011 *uart, void *data, size_t len, uint8_t delimiter,
		     uint32_t bound_us, size_t *got)
{
	size_t done = 0;
	int result = read_within(uart, data, len, bound_us, &done, delimiter);
	if (got != NULL)
		*got = done;
	return result;
}

/* pl011_read without waiting, into scratch, until it finds nothing or limit bytes went. */
static size_t discard_available(struct pl011 *uart, size_t limit)
{
	size_t discarded = 0;
	uint8_t scratch[16];
	while (discarded < limit) {
		size_t want = limit - discarded < sizeof scratch ? limit - discarded : sizeof scratch;
		int got = pl011_read(uart, scratch, want, PL011_NO_WAIT);
		if (got <= 0)
			break;
		discarded += (size_t)got;
	}
	return discarded;
}

int pl011_discard_input(struct pl011 *uart)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	/* Bounded by what was there at the call: the ring and one FIFO (a sender that keeps on
	 * sending would otherwise keep this loop going). */
	size_t limit = (size_t)uart->line.fifo_depth;
#if PL011_INTERRUPTS
	if (pl011_rx_uses_ring(uart))
		limit += uart->rx.ring.size;
#endif
	if (limit > INT32_MAX)
		limit = INT32_MAX; /* the count returned must fit */
	size_t discarded = discard_available(uart, limit);
	if (pl011_rx_uses_ring(uart)) {
		/* Characters below the RX trigger stay in the FIFO until the receive timeout (32 bit
		 * periods, TRM 2.8) has the handler move them into the ring: wait for the FIFO to
		 * empty, within the backlog deadline of nothing (a FIFO's worth of frames and the
		 * margin), taking what reaches the ring meanwhile. */
		struct pl011_wait wait;
		pl011_wait_start(&wait, uart, pl011_backlog_deadline_us(uart, 0));
		while (discarded < limit &&
		       (pl011_reg_read(uart, PL011_FR) & PL011_FR_RXFE) == 0 &&
		       !pl011_wait_expired(&wait))
			discarded += discard_available(uart, limit - discarded);
		discarded += discard_available(uart, limit - discarded);
	}
	return (int)discarded;
}
