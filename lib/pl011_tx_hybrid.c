/* HYBRID: the guaranteed count blind, then poll FR for more while the ring has bytes. */
#include "pl011_internal.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

/* A refill that found the FIFO emptier than the trigger (a late interrupt) fills it whole; the
 * FR reads come only after a blind part that the ring filled completely. */
static uint32_t pl011_tx_hybrid_refill(struct pl011 *uart, uint32_t guaranteed)
{
	uint32_t written = pl011_tx_fill_blind(uart, guaranteed);
	uint32_t more = 0;
	if (written == guaranteed)
		(void)pl011_tx_fill_polling(uart, uart->line.fifo_depth, written, NULL, &more);
	return written + more;
}

const struct pl011_tx_strategy pl011_tx_hybrid = {
	.mode = PL011_TX_HYBRID,
	.refill = pl011_tx_hybrid_refill,
	.ring = &pl011_tx_ring_ops,
};

#endif /* PL011_INTERRUPTS */
