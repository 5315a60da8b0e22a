/* Line control on a running port: baud, format and flow control changed, the line reported, the
 * modem lines. Above the core (it plans and programs through lib/pl011.c); a firmware that
 * calls none of these links none of it. */
#include "pl011_internal.h"

/* ---- reporting ---- */

static enum pl011_parity parity_of(uint32_t lcr_h)
{
	if ((lcr_h & PL011_LCR_H_PEN) == 0)
		return PL011_PARITY_NONE;
	bool even = (lcr_h & PL011_LCR_H_EPS) != 0;
	/* Stick parity (TRM 3.3.7): SPS with EPS clear sends 1, with EPS set sends 0. */
	if ((lcr_h & PL011_LCR_H_SPS) != 0)
		return even ? PL011_PARITY_SPACE : PL011_PARITY_MARK;
	return even ? PL011_PARITY_EVEN : PL011_PARITY_ODD;
}

int pl011_get_line(const struct pl011 *uart, struct pl011_line_config *out)
{
	if (uart == NULL || out == NULL)
		return PL011_EINVAL;
	if (pl011_is_stopped(uart))
		return PL011_ESHUTDOWN;
	uint32_t lcr_h = uart->line.lcr_h;
	out->baud = uart->line.baud.actual_baud;
	out->data_bits = (uint8_t)(5u + ((lcr_h & PL011_LCR_H_WLEN_MASK) >> PL011_LCR_H_WLEN_SHIFT));
	out->stop_bits = (lcr_h & PL011_LCR_H_STP2) != 0 ? 2u : 1u;
	out->parity = parity_of(lcr_h);
	out->flow_control = (uart->line.cr & PL011_CR_RTSEN) != 0;
	out->baud_tolerance_ppm = 0;
	out->rs485 = NULL;
	out->rs485_off = false;
	return 0;
}

/* ---- changing the line on a running port ---- */

/* The config the new line means: the port's own, with the line's fields and the RS-485 and
 * tolerance it runs now, no longer adopted. */
static int plan_line(const struct pl011 *uart, const struct pl011_line_config *line,
		     struct pl011_config *wanted, struct pl011_plan *plan)
{
	*wanted = *uart->config;
	wanted->baud = line->baud;
	wanted->data_bits = line->data_bits;
	wanted->stop_bits = line->stop_bits;
	wanted->parity = line->parity;
	wanted->baud_tolerance_ppm =
		line->baud_tolerance_ppm != 0 ? line->baud_tolerance_ppm : uart->line.tolerance_ppm;
#if PL011_INTERRUPTS /* else never RS-485 */
	wanted->rs485 = uart->events.rs485_driver != NULL ? &uart->events.rs485 : NULL;
#endif
	wanted->flags &= ~(PL011_FLAG_ADOPT_LINE | PL011_FLAG_RTS_CTS);
	if (line->flow_control)
		wanted->flags |= PL011_FLAG_RTS_CTS;
	/* RS-485 as pl011_init would check it, against the rest of the new line. */
	if (line->rs485 != NULL && line->rs485_off)
		return PL011_EINVAL;
	if (line->rs485 != NULL || line->rs485_off)
		wanted->rs485 = line->rs485;
	/* An adopted line of unknown clock: no divisor can be computed for any rate; bad fields
	 * are still PL011_EINVAL first, as with a clock. */
	if (wanted->clock_hz == 0)
		return pl011_check_format(wanted) != 0 ? PL011_EINVAL : PL011_EBAUD;
	return pl011_make_plan(wanted, plan); /* no longer adopted */
}

/* The divisors are ours now, so a later shutdown or line change treats the port as not
 * adopted (pl011_line_keeps_format); the next change's tolerance 0 means this one's. */
static void remember_line(struct pl011 *uart, const struct pl011_config *wanted)
{
	uart->line.adopted = 0;
	uart->line.tolerance_ppm = wanted->baud_tolerance_ppm;
}

/* The new CR: the plan's, with DTR as set by hand, and RTS too while no flow control drives it
 * before or after. An RS-485 change takes RTS and RXE from the plan: DE was released first. */
static uint32_t new_control(const struct pl011 *uart, const struct pl011_plan *plan,
			    bool rs485_changes)
{
	uint32_t kept = PL011_CR_DTR;
	if (!rs485_changes) {
		kept |= pl011_rs485_cr_bits(uart);
		if (((uart->line.cr | plan->cr) & PL011_CR_RTSEN) == 0)
			kept |= PL011_CR_RTS;
	}
	return (plan->cr & ~kept) | (uart->line.cr & kept);
}

/* With the handlers out and RTS deasserted: whether what the RX FIFO holds has a place to go
 * before FEN flushes it. The FIFO has no level register: a FIFO's worth of ring, or nothing. */
static bool rx_fifo_fits(const struct pl011 *uart)
{
	if ((pl011_reg_read(uart, PL011_FR) & PL011_FR_RXFE) != 0)
		return true;
#if PL011_INTERRUPTS
	return pl011_rx_uses_ring(uart) && !pl011_rx_paused(uart) &&
	       pl011_ring_space(&uart->rx.ring) >= uart->line.fifo_depth;
#else
	return false; /* no ring to take them */
#endif
}

/* Flow control on: deassert RTS (RTSEn off, CR.RTS clear: nUARTRTS high, TRM 3.3.8) and give
 * the partner two frames to end the character it is sending and see it (TRM, "Hardware flow
 * control": the sender stops after the current character). What arrives meanwhile waits in
 * the RX FIFO (IMSC is 0): the switch takes it. */
static void rx_hold_partner(struct pl011 *uart)
{
	if ((uart->line.cr & PL011_CR_RTSEN) == 0)
		return;
	pl011_reg_write(uart, PL011_CR, uart->line.cr & ~(PL011_CR_RTSEN | PL011_CR_RTS));
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, pl011_frames_us(uart, 2) + 1u);
	while (!pl011_wait_expired(&wait))
		(void)pl011_reg_read(uart, PL011_FR);
}

/* Undo of the steps before the switch: IMSC as the word says (the RX pause is its bits, which
 * a reader's resume may have changed meanwhile), TX masked until TX is given back. */
static void imsc_thaw(struct pl011 *uart)
{
	(void)pl011_imsc_update(uart, PL011_IMSC_FROZEN | PL011_INT_TX, 0);
}

static void resume(struct pl011 *uart)
{
	imsc_thaw(uart);
	pl011_tx_give_back(uart);
}

/* TX held, IMSC frozen, the handlers out, the RX FIFO fits: the TRM sequence, then the new
 * RS-485 settings, DE released by the old ones before (TX drained, so no send is cut). */
static void switch_line(struct pl011 *uart, const struct pl011_plan *plan,
			const struct pl011_line_config *line)
{
	bool rs485_changes = line->rs485 != NULL || line->rs485_off;
	/* DE still on (within the after-delay of the last send) holds the bus: no station answers
	 * before it goes off, so the receiver masked meanwhile misses nothing it should hear. */
	if (rs485_changes)
		pl011_rs485_stop(uart);
	uint32_t cr = new_control(uart, plan, rs485_changes);
	pl011_rx_count_masked_overrun(uart);
#if PL011_INTERRUPTS
	pl011_hw_quiesce(uart, pl011_frames_us(uart, 2) + 1u,
			 pl011_rx_uses_ring(uart) ? &uart->rx.ring : NULL, &pl011_rx_ring_driver);
#else
	pl011_hw_quiesce(uart, pl011_frames_us(uart, 2) + 1u, NULL, NULL);
#endif
	pl011_hw_program_line(uart->base, &plan->baud, plan->lcr_h);
	uart->line.baud = plan->baud;
	uart->line.lcr_h = plan->lcr_h;
	uart->line.cr = cr;
	uart->line.frame_time = pl011_lcr_h_frame_time(plan->lcr_h, plan->baud.actual_baud);
	pl011_reg_write(uart, PL011_CR, cr);
#if PL011_INTERRUPTS /* else no RS-485 to change: plan_line refused it */
	if (rs485_changes)
		pl011_rs485_adopt(uart, line->rs485);
#endif
}

int pl011_set_line(struct pl011 *uart, const struct pl011_line_config *line, uint32_t bound_us)
{
	if (uart == NULL || line == NULL)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	struct pl011_config wanted;
	struct pl011_plan plan;
	int err = plan_line(uart, line, &wanted, &plan);
	if (err != 0)
		return err;
	if (pl011_rx_paused(uart))
		return PL011_EBUSY; /* with flow control RTS is held off: the reader must come first */
	err = pl011_flush(uart, bound_us, NULL);
	if (err != 0)
		return err;
	if (!pl011_tx_hold(uart))
		return PL011_ETIMEDOUT;
	/* A writer on another core may have primed the FIFO between the drain and the hold: its
	 * characters leave at the old line, within the backlog deadline of one byte more (as in
	 * shutdown), before the FEN flush could drop them. */
	if (pl011_wait_fr_for(uart, PL011_FR_DRAINED_MASK, PL011_FR_DRAINED,
			      pl011_backlog_deadline_us(uart, 1)) != 0) {
		resume(uart);
		return PL011_ETIMEDOUT;
	}
	rx_hold_partner(uart);
	/* IMSC is 0 now: a handler already inside on another core is waited out, and none comes
	 * after it, so the RX ring has no other producer until the thaw. */
	pl011_atomic_fence();
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, pl011_handlers_wait_us(uart));
	if (!pl011_wait_handlers_gone(uart, &wait))
		err = PL011_ESTALLED;
	else if (!rx_fifo_fits(uart))
		err = PL011_EBUSY;
	if (err != 0) {
		if ((uart->line.cr & PL011_CR_RTSEN) != 0)
			pl011_reg_write(uart, PL011_CR, uart->line.cr); /* RTS as it was */
		resume(uart);
		return err;
	}
#if PL011_INTERRUPTS
	uint32_t head = uart->rx.ring.head;
	switch_line(uart, &plan, line);
	/* What the FIFO held went into the ring here, not through a handler: its events. */
	bool took = pl011_rx_uses_ring(uart) && uart->rx.ring.head != head;
	if (took)
		pl011_events_rx_taken(uart, false);
	remember_line(uart, &wanted);
	resume(uart);
	if (took)
		pl011_events_rx_taken(uart, true);
#else
	switch_line(uart, &plan, line);
	remember_line(uart, &wanted);
	resume(uart);
#endif
	return 0;
}

/* ---- modem lines ---- */

int pl011_set_modem_lines(struct pl011 *uart, uint32_t mask, uint32_t values)
{
	if (uart == NULL || (mask & ~(PL011_MODEM_RTS | PL011_MODEM_DTR)) != 0)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	if ((mask & PL011_MODEM_RTS) != 0 &&
	    ((uart->line.cr & PL011_CR_RTSEN) != 0 || pl011_rs485_on(uart)))
		return PL011_EBUSY; /* flow control or the RS-485 driver enable owns RTS */
	uint32_t bits = ((mask & PL011_MODEM_RTS) != 0 ? PL011_CR_RTS : 0u) |
			((mask & PL011_MODEM_DTR) != 0 ? PL011_CR_DTR : 0u);
	uint32_t set = ((values & PL011_MODEM_RTS) != 0 ? PL011_CR_RTS : 0u) |
		       ((values & PL011_MODEM_DTR) != 0 ? PL011_CR_DTR : 0u);
	/* CR.RTS and CR.DTR are the complements of nUARTRTS and nUARTDTR: 1 drives them low,
	 * asserted (TRM 3.3.8). They may change with the UART enabled: no character is framed
	 * by them. Through the CR word: the RS-485 driver enable changes CR from the TX owner. */
	pl011_word_update(uart, &uart->line.cr, PL011_CR, bits, set & bits);
	return 0;
}

int pl011_get_modem_status(const struct pl011 *uart)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (pl011_is_stopped(uart))
		return PL011_ESHUTDOWN;
	/* FR's CTS, DSR, DCD and RI are the complements of the active-low inputs: 1 = asserted
	 * (TRM 3.3.3). */
	uint32_t fr = pl011_reg_read(uart, PL011_FR);
	uint32_t status = ((fr & PL011_FR_CTS) != 0 ? PL011_MODEM_CTS : 0u) |
			  ((fr & PL011_FR_DSR) != 0 ? PL011_MODEM_DSR : 0u) |
			  ((fr & PL011_FR_DCD) != 0 ? PL011_MODEM_DCD : 0u) |
			  ((fr & PL011_FR_RI) != 0 ? PL011_MODEM_RI : 0u) |
			  ((uart->line.cr & PL011_CR_RTS) != 0 ? PL011_MODEM_RTS : 0u) |
			  ((uart->line.cr & PL011_CR_DTR) != 0 ? PL011_MODEM_DTR : 0u);
	return (int)status;
}
