/* Events: what one interrupt handler entry saw, TX done derived from FR by a timer's tick,
 * RX idle from the receive timeout or, where it does not come, from that tick.
 * Reached through pl011_event_driver, which the config names, and the public tick. */
#include "pl011_internal.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

/* Silence, in frames after the last drain, that makes the tick give RX_IDLE. More than RT's
 * 32 bit periods for every frame format (5 frames are at least 35 bits: 5N1 is 7 bits), so
 * that on silicon the receive timeout, when it comes, comes first; few enough to frame
 * packets whose gaps are a handful of characters. */
#define RX_IDLE_FRAMES 5u

/* What each kind needs from the config: its mode, and TX_DONE a timer. */
static uint32_t events_check(const struct pl011_config *config)
{
	uint32_t mask = config->event_mask;
	const uint32_t tx_kinds = PL011_EVENT_TX_DONE | PL011_EVENT_TX_SPACE;
	const uint32_t rx_kinds = PL011_EVENT_RX_DATA | PL011_EVENT_RX_IDLE | PL011_EVENT_BREAK |
				  PL011_EVENT_ERROR;
	if (mask == 0)
		return 0;
	if ((mask & ~PL011_EVENT_ALL) != 0)
		return PL011_RULE_EVENT_MASK;
	if (config->event == NULL)
		return PL011_RULE_EVENT_CALLBACK;
	if ((mask & tx_kinds) != 0 && config->tx_mode == PL011_TX_POLLED)
		return PL011_RULE_EVENT_TX_KINDS;
	if ((mask & rx_kinds) != 0 && config->rx_mode == PL011_RX_POLLED)
		return PL011_RULE_EVENT_RX_KINDS;
	if ((mask & PL011_EVENT_TX_DONE) != 0 && config->event_timer == NULL)
		return PL011_RULE_EVENT_TIMER;
	return 0;
}

static uint32_t rx_errors(const struct pl011 *uart)
{
	return uart->stats.rx_framing + uart->stats.rx_parity + uart->stats.rx_overrun;
}

static size_t tx_space_threshold(const struct pl011 *uart)
{
	return uart->tx.ring.size / 2u;
}

static void events_begin(struct pl011 *uart, struct pl011_event_watch *watch)
{
	watch->active = uart->config->event_mask != 0;
	if (!watch->active)
		return;
	watch->rx_head = uart->rx.ring.head;
	watch->breaks = uart->stats.rx_break;
	watch->errors = rx_errors(uart);
	watch->tx_free = pl011_tx_uses_ring(uart) ? pl011_ring_space(&uart->tx.ring) : 0u;
}

static void rx_idle_note(struct pl011 *uart, const struct pl011_event_watch *watch, bool rt_idle);

static uint32_t rx_kinds_seen(struct pl011 *uart, const struct pl011_event_watch *watch)
{
	uint32_t kinds = 0;
	size_t queued = pl011_rx_uses_ring(uart) ? pl011_ring_count(&uart->rx.ring) : 0u;
	if ((watch->mis & (PL011_INT_RX | PL011_INT_RT | PL011_INT_ERRORS)) != 0 && queued != 0)
		kinds |= PL011_EVENT_RX_DATA;
	/* RT asserts only while the FIFO holds data (TRM 2.8): the line went quiet after it. */
	if ((watch->mis & PL011_INT_RT) != 0 && queued != 0)
		kinds |= PL011_EVENT_RX_IDLE;
	if ((uart->config->event_mask & PL011_EVENT_RX_IDLE) != 0)
		rx_idle_note(uart, watch, (kinds & PL011_EVENT_RX_IDLE) != 0);
	if (uart->stats.rx_break != watch->breaks)
		kinds |= PL011_EVENT_BREAK;
	if (rx_errors(uart) != watch->errors)
		kinds |= PL011_EVENT_ERROR;
	return kinds;
}

static void events_deliver(struct pl011 *uart, uint32_t kinds)
{
	kinds &= uart->config->event_mask;
	if (kinds != 0)
		uart->config->event(uart, kinds, uart->config->event_context);
}

/* ---- RX idle from the timer ----
 *
 * The receive timeout gives RX idle only while the FIFO holds a character (TRM 2.8): never on
 * QEMU, whose PL011 has none, and not for a burst whose last character a drain at the trigger
 * level took. So, with config.event_timer and config.clock, the tick gives it too, once the
 * line has been quiet RX_IDLE_FRAMES since the last RX entry of the handler, and once per
 * burst whichever of the two comes first. The silence asked for is 5 frames plus the clock's
 * step (timed at init): a clock that moves in steps reads a step as that much time, which a
 * stream never leaves silent otherwise. Shared words (struct pl011_events), all through the
 * atomic helpers:
 *  - rx_drains: drains that took bytes; written by the UART handler (one at a time), and by
 *    init and pl011_set_line with the handlers out when they put FIFO bytes in the ring.
 *  - rx_last_us: the clock at the end of the last RX entry; same writers, stored before
 *    rx_drains moves, so a tick that sees the count sees the time.
 *  - rx_idle_drains: rx_drains when RX idle was last given. The burst is open while the two
 *    differ. The handler stores it at RT's idle, the tick compares-and-swaps it: a tick whose
 *    swap fails lost to RT, so RX idle comes once per burst.
 *  - rx_tick: 1 while a tick is due to look at RX idle. The tick clears it before it looks;
 *    an RX entry that finds it clear with the burst open sets it and arms. So the tick need
 *    not come back while the FIFO holds a character (the drain that takes it arms), and no
 *    tick comes while RX is paused by a full ring, nor on a quiet line.
 * The tick's own words (rx_look_drains, rx_look_us; ticks come one at a time): a look at the
 * clock that finds it short arms for the rest of the silence. A clock stopped since (the
 * same reading, no drain between) can never show that rest; the timer's time has, if this
 * tick is the one that look armed. So a stopped clock ends a burst too, and the ticks stop.
 */
static bool rx_idle_timed(const struct pl011_config *config)
{
	return (config->event_mask & PL011_EVENT_RX_IDLE) != 0 && config->event_timer != NULL &&
	       config->clock != NULL;
}

static uint32_t rx_quiet_us(const struct pl011 *uart)
{
	return pl011_frames_us(uart, RX_IDLE_FRAMES) + uart->events.rx_step_us;
}

static uint32_t tx_done_arm(struct pl011 *uart, uint32_t frames)
{
	uint32_t delay_us = pl011_frames_us(uart, frames);
	pl011_timer_arm(uart, delay_us);
	return delay_us;
}

/* Whether a tick is sure to come without our arming it: TX done and the RS-485 release set
 * their word and then arm. Arming over them would delay TX done, or bring the release tick
 * early (it releases DE when it comes): so the RX side arms over neither (rx_arm). */
static bool release_coming(struct pl011 *uart)
{
	pl011_io_atomic_point();
	return pl011_atomic_load(&uart->events.de_release, __ATOMIC_SEQ_CST) != 0;
}

static bool tick_coming(struct pl011 *uart)
{
	pl011_io_atomic_point();
	return pl011_atomic_load(&uart->events.tx_done_pending, __ATOMIC_SEQ_CST) != 0 ||
	       release_coming(uart);
}

/* Arm for RX idle, then look again: TX done or a release armed on the other core between
 * our look and our call was replaced by ours. Arm again for it: TX done's two frames (an early
 * TX look only looks again; its bytes void a release), else the release's whole after-delay
 * (never early; late by this window only). tx_armed: TX done's tick is due and ours is
 * earlier. */
static void rx_arm(struct pl011 *uart, uint32_t delay_us, bool tx_armed)
{
	pl011_timer_arm(uart, delay_us);
	pl011_io_atomic_point();
	if (!tx_armed && pl011_atomic_load(&uart->events.tx_done_pending, __ATOMIC_SEQ_CST) != 0)
		(void)tx_done_arm(uart, 2u);
	else if (release_coming(uart))
		pl011_timer_arm(uart, uart->events.rs485.delay_after_us + 1u);
}

/* A drain (took: it put bytes in the ring) at its end: stamp, count, and arm a tick if a
 * burst is open and none is due. */
static void rx_drained(struct pl011 *uart, bool took, bool rt_idle)
{
	pl011_io_atomic_point();
	uint32_t drains = pl011_atomic_load(&uart->events.rx_drains, __ATOMIC_SEQ_CST);
	pl011_atomic_store(&uart->events.rx_last_us, pl011_clock_now(uart), __ATOMIC_SEQ_CST);
	if (took)
		pl011_atomic_store(&uart->events.rx_drains, ++drains, __ATOMIC_SEQ_CST);
	if (rt_idle) {
		pl011_atomic_store(&uart->events.rx_idle_drains, drains, __ATOMIC_SEQ_CST);
		return;
	}
	pl011_io_atomic_point();
	if (pl011_atomic_load(&uart->events.rx_idle_drains, __ATOMIC_SEQ_CST) == drains)
		return; /* no burst open */
	uint32_t due = 0;
	pl011_io_atomic_rmw_point();
	if (!pl011_atomic_swap(&uart->events.rx_tick, &due, 1u) ||
	    tick_coming(uart))
		return; /* a tick is due already */
	rx_arm(uart, rx_quiet_us(uart), false);
}

/* The handler, after an entry that serviced RX causes. */
static void rx_idle_note(struct pl011 *uart, const struct pl011_event_watch *watch, bool rt_idle)
{
	if ((watch->mis & (PL011_INT_RX | PL011_INT_RT | PL011_INT_ERRORS)) == 0 ||
	    !rx_idle_timed(uart->config))
		return;
	rx_drained(uart, uart->rx.ring.head != watch->rx_head, rt_idle);
}

/* The tick: RX idle if the burst's line has been quiet long enough. Returns the microseconds
 * to wait for the next look, 0 when this tick need not come back. */
static uint32_t rx_idle_check(struct pl011 *uart, bool own)
{
	if (!rx_idle_timed(uart->config))
		return 0;
	uint32_t due = 1u;
	pl011_io_atomic_rmw_point();
	(void)pl011_atomic_swap(&uart->events.rx_tick, &due, 0u);
	pl011_io_atomic_point();
	uint32_t drains = pl011_atomic_load(&uart->events.rx_drains, __ATOMIC_SEQ_CST);
	pl011_io_atomic_point();
	uint32_t given = pl011_atomic_load(&uart->events.rx_idle_drains, __ATOMIC_SEQ_CST);
	/* Whether the last look at the clock armed this tick (own: no TX done or release armed
	 * beside it) with no drain since; any other look ends that. */
	bool armed_by_look = own && drains == uart->events.rx_look_drains;
	uart->events.rx_look_drains = given;
	if (drains == given)
		return 0;
	uint32_t quiet_us = rx_quiet_us(uart);
	/* Another handler inside (besides this tick) may have emptied the FIFO without having
	 * stamped it yet, or found rx_tick still set: look again later. */
	uint32_t fr = pl011_reg_read(uart, PL011_FR);
	pl011_io_barrier();
	if (pl011_irq_inside(uart))
		return quiet_us;
	pl011_io_atomic_point();
	if (pl011_atomic_load(&uart->ticks_inside, __ATOMIC_SEQ_CST) > 1u)
		return quiet_us;
	/* A character in the FIFO: RT or the drain that takes it comes, and that drain arms. */
	if ((fr & PL011_FR_RXFE) == 0)
		return 0;
	/* The stamp before the clock: a later stamp would make the difference wrap. */
	pl011_io_atomic_point();
	uint32_t last = pl011_atomic_load(&uart->events.rx_last_us, __ATOMIC_SEQ_CST);
	uint32_t now = pl011_clock_now(uart);
	uint32_t quiet = now - last;
	bool stopped = armed_by_look && now == uart->events.rx_look_us;
	if (quiet < quiet_us && !stopped) {
		uart->events.rx_look_drains = drains;
		uart->events.rx_look_us = now;
		return quiet_us - quiet;
	}
	/* Drains after our first look found rx_tick clear and armed for the next burst. */
	pl011_io_atomic_rmw_point();
	if (pl011_atomic_swap(&uart->events.rx_idle_drains, &given, drains))
		events_deliver(uart, PL011_EVENT_RX_IDLE);
	return 0;
}

/* Whether TX space is to be given now: the ring at least half free and a short write asked
 * for it since it was last given (taken here, so that it is given once). */
static bool tx_space_owed(struct pl011 *uart)
{
	pl011_io_atomic_point();
	if (pl011_atomic_load(&uart->events.tx_space_wanted, __ATOMIC_SEQ_CST) == 0 ||
	    pl011_ring_space(&uart->tx.ring) < tx_space_threshold(uart))
		return false;
	uint32_t wanted = 1u;
	pl011_io_atomic_rmw_point();
	return pl011_atomic_swap(&uart->events.tx_space_wanted, &wanted, 0u);
}

static void events_end(struct pl011 *uart, const struct pl011_event_watch *watch)
{
	if (!watch->active || watch->mis == 0)
		return;
	uint32_t kinds = rx_kinds_seen(uart, watch);
	if ((watch->mis & PL011_INT_MODEM) != 0)
		kinds |= PL011_EVENT_MODEM;
	bool crossed = (watch->mis & PL011_INT_TX) != 0 &&
		       watch->tx_free < tx_space_threshold(uart) &&
		       pl011_ring_space(&uart->tx.ring) >= tx_space_threshold(uart);
	/* Asked for by a short write, also when another context freed the space. */
	if (pl011_tx_uses_ring(uart) && (tx_space_owed(uart) || crossed))
		kinds |= PL011_EVENT_TX_SPACE;
	events_deliver(uart, kinds);
}

/* The writer, after its ring write came up short. The space may have come already, from a
 * context that looked before we asked: then nobody else gives it, so we do, from here. */
static void events_give_tx_space(struct pl011 *uart);

static void events_want_tx_space(struct pl011 *uart)
{
	if ((uart->config->event_mask & PL011_EVENT_TX_SPACE) == 0)
		return;
	pl011_io_atomic_point();
	pl011_atomic_store(&uart->events.tx_space_wanted, 1u, __ATOMIC_SEQ_CST);
	pl011_atomic_fence(); /* our ask before our look at the ring's tail */
	events_give_tx_space(uart);
}

static void events_give_tx_space(struct pl011 *uart)
{
	if (tx_space_owed(uart))
		events_deliver(uart, PL011_EVENT_TX_SPACE);
}

/* ---- TX done ---- */

/*
 * Owner only, the ring just emptied. Only bytes sent since the last emptying open a drain, so
 * a pass that sent nothing opens none and TX_DONE never comes twice for one drain. Our DR
 * writes land before the pending flag is seen: a tick that takes the flag reads an FR that
 * shows them.
 */
void pl011_events_tx_emptied(struct pl011 *uart)
{
	if (uart->stats.tx_bytes == uart->events.tx_bytes_seen)
		return;
	uart->events.tx_bytes_seen = uart->stats.tx_bytes;
	pl011_io_barrier();
	pl011_io_atomic_point();
	pl011_atomic_store(&uart->events.tx_done_pending, 1u, __ATOMIC_SEQ_CST);
	(void)tx_done_arm(uart, 2u);
}

/* Take the flag, then look: bytes written after the look set it again themselves, and bytes
 * written before the take are in the FR the look reads, so no drain is given twice or lost.
 * The ring before FR: a refill that a nested interrupt (a panic) makes between the two moves
 * ring bytes into the FIFO, where the FR read sees them; the other order would miss them. */
static uint32_t tx_done_check(struct pl011 *uart)
{
	/* A compare-and-swap, not an exchange: on cores without exclusives the user supplies the
	 * one (the helpers README lists), not the other. The flag is only ever 0 or 1. */
	uint32_t open = 1u;
	pl011_io_atomic_rmw_point();
	if (!pl011_atomic_swap(&uart->events.tx_done_pending, &open, 0u))
		return 0;
	/* The bytes this look covers, before it: a write that lands after the FR read moves
	 * stats.tx_bytes past them, which voids the RS-485 release below. */
	uint32_t sent = uart->events.tx_bytes_seen;
	bool ring_empty = pl011_ring_count(&uart->tx.ring) == 0;
	uint32_t fr = pl011_reg_read(uart, PL011_FR);
	if (ring_empty && (fr & PL011_FR_DRAINED_MASK) == PL011_FR_DRAINED) {
		events_deliver(uart, PL011_EVENT_TX_DONE);
		const struct pl011_rs485_driver *driver = uart->events.rs485_driver;
		if (driver != NULL)
			driver->drain_ended(uart, sent);
		return 0;
	}
	pl011_io_atomic_point();
	pl011_atomic_store(&uart->events.tx_done_pending, 1u, __ATOMIC_SEQ_CST);
	/* With TXFE set only the shifting character is left: at most one frame. */
	return tx_done_arm(uart, (fr & PL011_FR_TXFE) != 0 ? 1u : 2u);
}

/* Announced like a handler, so that shutdown and init wait for a tick that is delivering. */
void pl011_event_tick(struct pl011 *uart)
{
	if (uart == NULL || !pl011_is_running(uart) ||
	    (uart->events.tx_done_open == NULL && !rx_idle_timed(uart->config)))
		return;
	pl011_tick_count(uart, 1u);
	pl011_io_atomic_point();
	if (pl011_atomic_load(&uart->state, __ATOMIC_SEQ_CST) == PL011_STATE_RUNNING) {
		/* Before the others take their words: whether this tick may be one RX idle armed. */
		bool own = rx_idle_timed(uart->config) && !tick_coming(uart);
		const struct pl011_rs485_driver *driver = uart->events.rs485_driver;
		if (driver != NULL)
			driver->tick(uart);
		uint32_t tx_wait_us = tx_done_check(uart);
		/* After TX done's look, which armed again if it must: one timer for both, armed
		 * for the earlier. An early TX tick only looks again; a release tick must not
		 * come early, nor a TX tick a writer armed meanwhile late. */
		uint32_t rx_wait_us = rx_idle_check(uart, own);
		if (rx_wait_us != 0) {
			pl011_atomic_store(&uart->events.rx_tick, 1u, __ATOMIC_SEQ_CST);
			if (tx_wait_us != 0 ? rx_wait_us < tx_wait_us && !release_coming(uart)
					    : !tick_coming(uart))
				rx_arm(uart, rx_wait_us, tx_wait_us != 0);
		}
		pl011_events_tx_space_freed(uart);
	}
	pl011_tick_count(uart, UINT32_MAX);
}

/* Init, before the UART is programmed, nothing else running: the clock's step; a burst open
 * for bytes no handler saw (this start's FIFO flush moved the ring's head from rx_head) or
 * carried by a restart with its burst open (rx_drains 1, lib/pl011_restart.c). Returns the
 * delay the caller arms once the port runs (a tick before would find it stopped), 0: none. */
static uint32_t events_start(struct pl011 *uart, uint32_t rx_head)
{
	if (!rx_idle_timed(uart->config))
		return 0;
	uart->events.rx_step_us = pl011_clock_step_us(uart);
	pl011_io_atomic_point();
	if (uart->rx.ring.head == rx_head &&
	    pl011_atomic_load(&uart->events.rx_drains, __ATOMIC_SEQ_CST) == 0)
		return 0; /* rx_idle_drains is 0 after init's clearing */
	pl011_atomic_store(&uart->events.rx_last_us, pl011_clock_now(uart), __ATOMIC_SEQ_CST);
	pl011_atomic_store(&uart->events.rx_drains, 1u, __ATOMIC_SEQ_CST);
	pl011_atomic_store(&uart->events.rx_tick, 1u, __ATOMIC_SEQ_CST);
	return rx_quiet_us(uart);
}

/* pl011_set_line moved what the RX FIFO held into the ring, where no handler saw it: first,
 * the handlers out, its drain (which the FEN flush leaves no timeout to end); then, TX let
 * go, its RX_DATA. */
static void events_rx_taken(struct pl011 *uart, bool resumed)
{
	if (resumed)
		events_deliver(uart, PL011_EVENT_RX_DATA);
	else if (rx_idle_timed(uart->config))
		rx_drained(uart, true, false);
}

const struct pl011_event_driver pl011_event_driver = {
	.check = events_check,
	.begin = events_begin,
	.end = events_end,
	.want_tx_space = events_want_tx_space,
	.give_tx_space = events_give_tx_space,
	.tx_emptied = pl011_events_tx_emptied,
	.start = events_start,
	.rx_taken = events_rx_taken,
};

#endif /* PL011_INTERRUPTS */
