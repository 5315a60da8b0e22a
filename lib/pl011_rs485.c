/* RS-485 half duplex: RTS as the transceiver's driver enable around each send. Reached only
 * through pl011_rs485_driver, which the settings name. */
#include "pl011_internal.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

static uint32_t rs485_check(const struct pl011_config *config)
{
	const struct pl011_rs485 *rs485 = config->rs485;
	if (rs485 == NULL)
		return 0;
	if ((rs485->flags & ~(PL011_RS485_DE_LOW | PL011_RS485_RX_OFF)) != 0)
		return PL011_RULE_RS485_FLAGS;
	if (rs485->delay_before_us > PL011_RS485_DELAY_MAX_US)
		return PL011_RULE_RS485_DELAY_BEFORE;
	if (rs485->delay_after_us > PL011_RS485_DELAY_MAX_US)
		return PL011_RULE_RS485_DELAY_AFTER;
	/* Flow control owns RTS; the end of a send is the TX-done derivation, which needs the
	 * ring (the owner that empties it opens the drain) and the timer that ticks it. */
	if ((config->flags & PL011_FLAG_RTS_CTS) != 0)
		return PL011_RULE_RS485_FLOW_CONTROL;
	if (config->tx_mode == PL011_TX_POLLED)
		return PL011_RULE_RS485_TX_MODE;
	if (config->event_timer == NULL)
		return PL011_RULE_RS485_TIMER;
	return 0;
}

static uint32_t rts_when(const struct pl011 *uart, bool sending)
{
	return pl011_rs485_rts(uart->events.rs485.flags, sending);
}

/* Owner only: DE (and RX) as `sending` says, through the CR word, which pl011_set_modem_lines
 * changes too (DTR) from the thread. */
static void de_set(struct pl011 *uart, bool sending)
{
	uint32_t rx_off = (uart->events.rs485.flags & PL011_RS485_RX_OFF) != 0 ? PL011_CR_RXE : 0u;
	uint32_t set = rts_when(uart, sending) | (sending ? 0u : rx_off);
	uart->tx.de_asserted = sending ? 1u : 0u;
	pl011_word_update(uart, &uart->line.cr, PL011_CR, pl011_rs485_cr_bits(uart), set);
}

/* One microsecond more than asked: the first clock reading may be up to 1 us old. Not the
 * wait hook unless from shutdown: the owner may be the interrupt handler or the timer's tick
 * (a panic's wait: it also ends when a shutdown begins). */
static void de_delay(const struct pl011 *uart, uint32_t delay_us, bool thread)
{
	if (delay_us == 0)
		return;
	struct pl011_wait wait;
	if (thread)
		pl011_wait_start(&wait, uart, delay_us + 1u);
	else
		pl011_wait_start_panic(&wait, uart, delay_us + 1u);
	while (!pl011_wait_expired(&wait))
		(void)pl011_reg_read(uart, PL011_FR);
}

/* The CR write has reached the UART (the publish's barrier) before the delay starts. */
static void rs485_assert(struct pl011 *uart)
{
	de_set(uart, true);
	de_delay(uart, uart->events.rs485.delay_before_us, false);
}

/* From the tick that gave TX done: the bytes of that drain (read before its FR look), then
 * the after-delay on the timer (a second tick), so no context waits it out. */
static void rs485_drain_ended(struct pl011 *uart, uint32_t sent)
{
	/* A writer may preempt us here and open a drain of its own (tx_bytes_seen moves on):
	 * the snapshot from before the FR look, not the count now, is what that look saw. */
	pl011_io_atomic_point();
	uart->events.de_bytes = sent;
	pl011_io_atomic_point();
	pl011_atomic_store(&uart->events.de_release, 1u, __ATOMIC_SEQ_CST);
	pl011_timer_arm(uart, uart->events.rs485.delay_after_us + 1u);
}

/*
 * The second tick. DE changes only with TX owned, so no writer can put a byte in the FIFO
 * between our look and the release. Bytes sent since the drain ended void the release: they
 * opened a drain of their own, whose end releases DE. An owner busy elsewhere: look again a
 * frame later.
 */
static void rs485_tick(struct pl011 *uart)
{
	uint32_t open = 1u;
	pl011_io_atomic_rmw_point();
	if (!pl011_atomic_swap(&uart->events.de_release, &open, 0u))
		return;
	if (!pl011_tx_try_take(uart)) {
		pl011_io_atomic_point();
		pl011_atomic_store(&uart->events.de_release, 1u, __ATOMIC_SEQ_CST);
		pl011_timer_arm(uart, pl011_frames_us(uart, 1));
		return;
	}
	if (uart->tx.de_asserted != 0 && uart->stats.tx_bytes == uart->events.de_bytes &&
	    pl011_ring_count(&uart->tx.ring) == 0)
		de_set(uart, false);
	pl011_tx_let_go(uart);
}

static void rs485_stop(struct pl011 *uart)
{
	if (uart->tx.de_asserted == 0)
		return;
	de_delay(uart, uart->events.rs485.delay_after_us, true);
	de_set(uart, false);
}

/* TX done is wanted for the event, or by RS-485 (which ends a send on it); each driver names
 * the code that opens its drain. */
void pl011_rs485_adopt(struct pl011 *uart, const struct pl011_rs485 *rs485)
{
	uart->events.tx_done_open = (uart->config->event_mask & PL011_EVENT_TX_DONE) != 0
					    ? uart->config->event_driver->tx_emptied
					    : NULL;
	uart->events.rs485_driver = NULL;
	if (rs485 == NULL)
		return;
	uart->events.rs485 = *rs485;
	uart->events.rs485_driver = rs485->driver;
	uart->events.tx_done_open = rs485->driver->tx_emptied;
}

const struct pl011_rs485_driver pl011_rs485_driver = {
	.check = rs485_check,
	.adopt = pl011_rs485_adopt,
	.assert_de = rs485_assert,
	.drain_ended = rs485_drain_ended,
	.tick = rs485_tick,
	.stop = rs485_stop,
	.tx_emptied = pl011_events_tx_emptied,
};

#endif /* PL011_INTERRUPTS */
