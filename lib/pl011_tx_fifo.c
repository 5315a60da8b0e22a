/* Filling the TX FIFO from the ring, for the owner: blind, polling FR, and the trigger level;
 * POLL_FULL's refill, which the ring mechanism uses whatever the strategy. */
#include "pl011_tx_owner.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

uint32_t pl011_tx_read_fr(struct pl011 *uart)
{
	PL011_COUNT(uart, tx_fr_reads, 1);
	return pl011_reg_read(uart, PL011_FR);
}

uint32_t pl011_tx_fill_blind(struct pl011 *uart, uint32_t limit)
{
	uint32_t done = 0;
	while (done < limit) {
		const uint8_t *segment;
		size_t n = pl011_ring_peek(&uart->tx.ring, &segment);
		if (n == 0)
			break;
		if (n > limit - done)
			n = limit - done;
		n = pl011_tx_burst_allowed(uart, n);
		if (n == 0)
			break;
		/* No DE assert here: blind writes come only from a latched TX interrupt, which
		 * needs TXIM armed, which a polling pass armed after its bytes asserted DE; DE goes
		 * off only with the ring empty and TXIM masked. */
		pl011_reg_write_bytes(uart, PL011_DR, segment, n);
		pl011_ring_skip(&uart->tx.ring, n);
		done += (uint32_t)n;
	}
	uart->stats.tx_bytes += done;
	return done;
}

/*
 * Write bytes while FR shows room. *fr holds an FR value read earlier (0 for none) and receives
 * the last one read; *reads counts the FR reads. Returns how many were written: fewer than n
 * only when *fr shows TXFF or a panic writes beside us. Bursts of at most `most` between two
 * looks at tx.beside, each character on an FR value read after its burst's look: a panic that
 * read FR empty before it may have written since and left, its character still in the FIFO
 * (docs/beside_places.pml). The first `allowed` go on *fr without a look: the caller read it
 * after its own look, with that many characters left of the look's `most`. With
 * empty_takes_burst, a burst that finds the FIFO empty (TXFE) goes whole without FR. The loop
 * keeps both addresses in registers: per character a load, a store and the FR read that allows
 * the next.
 */
static inline size_t write_while_room(struct pl011 *uart, const uint8_t *bytes, size_t n,
				      uint32_t *fr, uint32_t *reads, uint32_t most,
				      bool empty_takes_burst, size_t allowed, uint32_t *first_read)
{
	uintptr_t base = uart->base;
	uint32_t value = *fr;
	uint32_t looked = 0;
	/* Pointers, not an index: one add per character, not two. */
	const uint8_t *next = bytes;
	const uint8_t *const last = bytes + n;
	/* never beyond last: at most what is asked is allowed */
	const uint8_t *burst_end = bytes + (allowed < n ? allowed : n);
	for (;;) {
		if ((value & PL011_FR_TXFF) != 0)
			break;
		if (next == burst_end) {
			burst_end += pl011_tx_burst_up_to(uart, (size_t)(last - next), most);
			value = pl011_io_read(base + PL011_FR); /* after the look, for us or the caller */
			looked++;
			if (first_read != NULL) {
				*first_read = value;
				first_read = NULL;
			}
			if (next == burst_end || (value & PL011_FR_TXFF) != 0)
				break;
			if (empty_takes_burst && (value & PL011_FR_TXFE) != 0) {
				do
					pl011_io_write(base + PL011_DR, *next++);
				while (next != burst_end);
				if (next == last)
					break;
				continue;
			}
		}
		pl011_io_write(base + PL011_DR, *next++);
		if (next == last)
			break;
		if (next != burst_end) { /* else the next burst's look comes first */
			value = pl011_io_read(base + PL011_FR);
			looked++;
		}
	}
	*fr = value;
	*reads += looked;
	return (size_t)(next - bytes);
}

/* The idle writer's passes of at most `limit` characters each, while FR shows room and nobody
 * says it waits for TX (pl011_tx_others_wait), looked at between passes; each pass reads FR
 * after its first look. In this file, so that the per-character loop needs no call per pass. */
size_t pl011_tx_write_passes(struct pl011 *uart, const uint8_t *data, size_t len, size_t limit,
			     uint32_t *fr, uint32_t *reads)
{
	size_t done = 0;
	for (;;) {
		size_t pass = len - done < limit ? len - done : limit;
		size_t n = write_while_room(uart, data + done, pass, fr, reads, TX_WRITER_BURST,
					    true, 0, NULL);
		done += n;
		if (n < pass || done == len || pl011_tx_others_wait(uart))
			return done;
	}
}

/*
 * Write ring bytes while FR.TXFF is clear, at most limit. `since_look`: what the caller wrote
 * since its last look at tx.beside (a blind fill's count), or PL011_TX_NO_LOOK: the rest of
 * that look's depth - TX_BESIDE_CHARS goes on FR without a look of our own. *first_fr (if
 * given) receives the first FR value, which tells whether the FIFO had run dry (an underrun).
 * Returns whether the refill stopped at TXFF, i.e. saw the FIFO full.
 */
bool pl011_tx_fill_polling(struct pl011 *uart, uint32_t limit, uint32_t since_look,
			   uint32_t *first_fr, uint32_t *written)
{
	uint32_t most = uart->line.fifo_depth - TX_BESIDE_CHARS;
	uint32_t after_look = since_look < most ? most - since_look : 0u;
	uint32_t done = 0;
	uint32_t reads = 0;
	bool full = false;
	while (done < limit) {
		const uint8_t *segment;
		size_t n = pl011_ring_peek(&uart->tx.ring, &segment);
		if (n == 0)
			break;
		if (n > limit - done)
			n = limit - done;
		/* Where the bytes are known, not earlier: a writer may queue them after any
		 * earlier look at the ring. */
		pl011_rs485_before_send(uart);
		/* FR first, so that a full FIFO costs no look (and no barrier), and the caller's
		 * look covers what it leaves room for; but right after a take, nothing written
		 * since its barrier, the look costs none: then one FR read, after it. */
		uint32_t fr = 0, first = 0;
		uint32_t *first_read = NULL;
		if (uart->tx.fenced != 0 && after_look == 0) {
			first_read = &first;
		} else {
			fr = first = pl011_reg_read(uart, PL011_FR);
			reads++;
		}
		size_t i = write_while_room(uart, segment, n, &fr, &reads, most, false, after_look,
					    first_read);
		after_look = after_look > i ? after_look - (uint32_t)i : 0u;
		if (first_fr != NULL && done == 0)
			*first_fr = first;
		pl011_ring_skip(&uart->tx.ring, i);
		done += (uint32_t)i;
		if ((fr & PL011_FR_TXFF) != 0) {
			PL011_COUNT(uart, tx_refill_full, 1);
			full = true;
			break;
		}
		/* Room, yet the burst stopped: a panic writes beside us (pl011_tx_burst_allowed). Looping
		 * until it leaves spun for ever where it is the context we preempted. */
		if (i < n)
			break;
	}
	PL011_COUNT(uart, tx_fr_reads, reads);
	uart->stats.tx_bytes += done;
	if (written != NULL)
		*written = done;
	return full;
}

/* A TXIS still latched from the old trigger may be serviced with the FIFO above the new one,
 * where the blind count would overflow (the model caught exactly that when lowering 3/4 to
 * 1/2): the next refill polls. */
void pl011_tx_set_level(struct pl011 *uart, uint32_t level)
{
	uart->tx.level = level;
	uart->tx.poll_next = 1;
	PL011_COUNT(uart, tx_trigger_changes, 1);
	pl011_reg_write(uart, PL011_IFLS, pl011_ifls_value(level, uart->line.rx_level));
}

/* Two FIFOs' worth at most: on a line as fast as the CPU FR never shows TXFF, and the
 * interrupt would otherwise empty the whole ring. The first FR value tells an underrun. */
uint32_t pl011_tx_poll_full_refill(struct pl011 *uart, uint32_t guaranteed)
{
	(void)guaranteed;
	uint32_t written = 0;
	uint32_t first_fr = 0;
	(void)pl011_tx_fill_polling(uart, 2u * uart->line.fifo_depth, PL011_TX_NO_LOOK, &first_fr,
				    &written);
	if ((first_fr & PL011_FR_TXFE) != 0)
		PL011_COUNT(uart, tx_underruns, 1);
	return written;
}

#endif /* PL011_INTERRUPTS */
