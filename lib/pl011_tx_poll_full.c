/* POLL_FULL: read FR before every character of a refill, write while TXFF is clear. */
#include "pl011_internal.h"

/* Two FIFOs' worth at most: on a line as fast as the CPU FR never shows TXFF, and the
 * interrupt would otherwise empty the whole ring. The first FR value tells an underrun. */
uint32_t pl011_tx_poll_full_refill(struct pl011 *uart, uint32_t guaranteed)
{
	(void)guaranteed;
	uint32_t written = 0;
	uint32_t first_fr = 0;
	(void)pl011_tx_fill_polling(uart, 2u * uart->line.fifo_depth, &first_fr, &written);
	if ((first_fr & PL011_FR_TXFE) != 0)
		PL011_COUNT(uart, tx_underruns, 1);
	return written;
}

const struct pl011_tx_strategy pl011_tx_poll_full = {
	.mode = PL011_TX_POLL_FULL,
	.refill = pl011_tx_poll_full_refill,
	.ring = &pl011_tx_ring_ops,
};
