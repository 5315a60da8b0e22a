/* ADAPTIVE: one FR read per refill; an underrun raises the trigger, a long clean run lowers it. */
#include "pl011_tx_owner.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

/* Refills without underrun before the trigger moves one level down, at first and at most. */
#define ADAPTIVE_FIRST_PATIENCE 64u
#define ADAPTIVE_MAX_PATIENCE 4096u

/*
 * One FR read per refill. An empty FIFO means the line went idle (underrun): ask for the
 * interrupt earlier and refill the FIFO, less room for panics beside us (TX_BESIDE_CHARS: our
 * FR read may be stale by their characters). The level moves before the fill: the latched
 * cause then still stands against the new level, so an interrupt is sure to come whatever the
 * fill reaches; moved after, a FIFO left between the two levels would never cross the new one.
 * A long run without underruns lowers the trigger so that each interrupt carries more.
 */
static uint32_t pl011_tx_adaptive_refill(struct pl011 *uart, uint32_t guaranteed)
{
	struct pl011_tx_adaptive *adaptive = &uart->tx.policy.adaptive;
	if ((pl011_tx_read_fr(uart) & PL011_FR_TXFE) != 0) {
		PL011_COUNT(uart, tx_underruns, 1);
		/* An underrun soon after a lowering: that level is too low for this load, so wait
		 * twice as long before trying it again. */
		if (adaptive->lowered && adaptive->patience < ADAPTIVE_MAX_PATIENCE)
			adaptive->patience *= 2u;
		adaptive->lowered = 0;
		adaptive->clean_refills = 0;
		if (uart->tx.level < PL011_TX_CEILING)
			pl011_tx_set_level(uart, uart->tx.level + 1u);
		return pl011_tx_fill_blind(uart, uart->line.fifo_depth - TX_BESIDE_CHARS);
	}
	uint32_t written = pl011_tx_fill_blind(uart, guaranteed);
	if (++adaptive->clean_refills >= adaptive->patience) {
		adaptive->clean_refills = 0;
		adaptive->lowered = 0;
		if (uart->tx.level > PL011_LEVEL_1_8) {
			pl011_tx_set_level(uart, uart->tx.level - 1u);
			adaptive->lowered = 1;
		}
	}
	return written;
}

static void pl011_tx_adaptive_reset(struct pl011 *uart)
{
	struct pl011_tx_adaptive *adaptive = &uart->tx.policy.adaptive;
	adaptive->clean_refills = 0;
	adaptive->patience = ADAPTIVE_FIRST_PATIENCE;
	adaptive->lowered = 0;
}

const struct pl011_tx_strategy pl011_tx_adaptive = {
	.mode = PL011_TX_ADAPTIVE,
	.refill = pl011_tx_adaptive_refill,
	.reset = pl011_tx_adaptive_reset,
	.ring = &pl011_tx_ring_ops,
};

#endif /* PL011_INTERRUPTS */
