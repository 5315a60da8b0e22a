/* Restart of a running port: stop it, carry what it received into the new run, start again.
 * Its own file, so that a firmware that only ever starts its port links none of it. */
#include "pl011_internal.h"

/* The counters pl011_get_stats read before the instance was cleared go back, as many as it
 * keeps (PL011_STATS). */
static void stats_restore(struct pl011 *uart, const struct pl011_stats *kept)
{
#if PL011_STATS
	uart->stats = *kept;
#else
#define PL011_STATS_RESTORE(name) uart->stats.name = kept->name;
	PL011_STATS_KEPT(PL011_STATS_RESTORE)
#undef PL011_STATS_RESTORE
#endif
}

int pl011_restart_port(struct pl011 *uart, const struct pl011_config *config,
		       const struct pl011_tx_strategy *strategy)
{
	/* Every part named: the old run's ring is carried over whatever the new config. */
	const struct pl011_parts parts = {
		.tx_strategy = strategy,
		.check_rings = PL011_INTERRUPT_PART(pl011_check_rings),
		.rx_ring = PL011_INTERRUPT_PART(&pl011_rx_ring_driver),
		.adopt = &pl011_adopt_driver,
		.events_rs485 = PL011_INTERRUPT_PART(&pl011_events_rs485_driver),
	};
	struct pl011_plan plan;
	int err = pl011_start_plan(uart, config, &parts, &plan);
	if (err != 0)
		return err; /* nothing touched: a running port keeps running */
	if (!pl011_is_running(uart))
		return pl011_init_named_parts(uart, config, &parts);

	/* Stopped first, so nothing it accepted vanishes uncounted; its counters carry over
	 * (tx_discarded tells what the drain could not send), and what it received and nobody
	 * read yet moves to the new ring (rx_discarded, what cannot). What the FIFO holds at the
	 * stop: 2 x the deepest FIFO's worth. */
	uint8_t fifo_storage[2u * 32u];
	struct pl011_ring in_fifo;
	(void)pl011_ring_init(&in_fifo, fifo_storage, sizeof fifo_storage);
	bool handlers_out = false, tx_out = false;
	/* The FIFO's bytes are taken only for a ring the new run reads; for a polled run (every
	 * run of the polled-only build) the stop discards and counts them, as a shutdown does. */
	bool into_ring = plan.rx != NULL;
	(void)pl011_stop_port(uart, PL011_WAIT_AUTO, into_ring ? &in_fifo : NULL,
			      into_ring ? plan.rx : NULL, &handlers_out, &tx_out);
	if (!handlers_out)
		return PL011_ESTALLED; /* a handler still uses the ring we would reset */
	if (!tx_out) {
		/* A panic still holds TX or writes beside it: stopped as by pl011_shutdown, what
		 * was received counted as it counts it. */
		uart->stats.rx_discarded += (uint32_t)pl011_ring_count(&in_fifo);
#if PL011_INTERRUPTS
		if (pl011_rx_uses_ring(uart))
			uart->stats.rx_discarded += (uint32_t)pl011_ring_count(&uart->rx.ring);
#endif
		return PL011_ESTALLED;
	}
#if PL011_INTERRUPTS
	struct pl011_ring received = {0};
	if (pl011_rx_uses_ring(uart))
		received = uart->rx.ring;
#endif
	struct pl011_stats kept;
	(void)pl011_get_stats(uart, &kept); /* with the panic writes' bytes */
#if PL011_INTERRUPTS
	/* Bytes whose RX idle is owed: a burst open at the stop, or what only the stop took from
	 * the FIFO. The new run gives it (lib/pl011_events.c, events_start). */
	bool rx_open = pl011_events_rx_open(uart) || pl011_ring_count(&in_fifo) != 0;
#endif

	uint32_t frame_time = pl011_start_begin(uart, config, &plan, true);
	stats_restore(uart, &kept);
#if PL011_INTERRUPTS
	if (rx_open)
		pl011_atomic_store(&uart->events.rx_drains, 1u, __ATOMIC_SEQ_CST);
	/* The old ring's bytes first, then the FIFO's: they came later. */
	pl011_rx_carry_over(uart, &received);
	pl011_rx_carry_over(uart, &in_fifo);
#endif
	pl011_start_finish(uart, &plan, frame_time);
	return 0;
}
