/* HALF_FIFO: the guaranteed `depth - trigger` characters blind per TX interrupt, no FR read. */
#include "pl011_internal.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

/* Linux's FIFO/2 with the 1/2 trigger: after TXIS the FIFO holds at most `trigger` entries, so
 * the rest of it takes characters without a look at FR. */
static uint32_t pl011_tx_half_fifo_refill(struct pl011 *uart, uint32_t guaranteed)
{
	return pl011_tx_fill_blind(uart, guaranteed);
}

const struct pl011_tx_strategy pl011_tx_half_fifo = {
	.mode = PL011_TX_HALF_FIFO,
	.refill = pl011_tx_half_fifo_refill,
	.ring = &pl011_tx_ring_ops,
};

#endif /* PL011_INTERRUPTS */
