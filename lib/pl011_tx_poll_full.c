/* POLL_FULL: read FR before every character of a refill, write while TXFF is clear. Its refill
 * is in lib/pl011_tx_fifo.c: the ring mechanism falls back on it whatever the strategy. */
#include "pl011_internal.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

const struct pl011_tx_strategy pl011_tx_poll_full = {
	.mode = PL011_TX_POLL_FULL,
	.refill = pl011_tx_poll_full_refill,
	.ring = &pl011_tx_ring_ops,
};

#endif /* PL011_INTERRUPTS */
