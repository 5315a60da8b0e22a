/* The interrupt-driven TX path every ring strategy shares: refills, priming, the stall guard. */
#include "pl011_tx_owner.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

static void record_extra(struct pl011 *uart, uint32_t extra)
{
	PL011_COUNT(uart, tx_extra_chars, extra);
	uint32_t bin = extra < PL011_EXTRA_HISTOGRAM_BINS ? extra : PL011_EXTRA_HISTOGRAM_BINS - 1u;
	PL011_COUNT_AT(uart, tx_extra_histogram, bin, 1);
}

/*
 * The interrupt's refill, with its TX cause latched. After TXIS the FIFO holds at most
 * `trigger` entries, so `depth - trigger` can go blind, unless someone else wrote the FIFO
 * since (then poll).
 */
static void refill_by_strategy(struct pl011 *uart)
{
	uint32_t depth = uart->line.fifo_depth;
	uint32_t guaranteed = depth - pl011_level_entries(depth, uart->tx.level);
	const struct pl011_tx_strategy *strategy = uart->tx.strategy;
	uint32_t written;
	PL011_COUNT(uart, tx_refills, 1);
	if (uart->tx.poll_next) {
		uart->tx.poll_next = 0;
		if (strategy->lost_track != NULL)
			strategy->lost_track(uart);
		written = pl011_tx_poll_full_refill(uart, guaranteed);
	} else {
		written = strategy->refill(uart, guaranteed);
	}
	record_extra(uart, written > guaranteed ? written - guaranteed : 0u);
}

/* What an owner that polls FR writes before it lets go and asks again: on a line as fast as
 * the CPU FR never shows TXFF, and an owner filling "until full" would hold TX (and keep a
 * panic on another core waiting) for its whole write. */
static uint32_t tx_pass_limit(const struct pl011 *uart)
{
	return 2u * uart->line.fifo_depth;
}

/* Any other owner: fill until FR shows the FIFO full, the ring is empty or the pass limit is
 * reached. Returns whether it saw the FIFO full; *limited, whether it stopped at the limit.
 * Its writes void the next interrupt refill's blind count. */
static bool refill_until_full(struct pl011 *uart, bool *limited)
{
	uint32_t written = 0;
	uint32_t first_fr = 0;
	PL011_COUNT(uart, tx_refills, 1);
	bool full = pl011_tx_fill_polling(uart, tx_pass_limit(uart), PL011_TX_NO_LOOK, &first_fr,
					  &written);
	*limited = !full && written == tx_pass_limit(uart);
	if (written != 0)
		uart->tx.poll_next = 1;
	/* The stall guard's pass: bytes waited, so an empty FIFO is the line run dry. */
	if (uart->tx.stall_pass && (first_fr & PL011_FR_TXFE) != 0)
		PL011_COUNT(uart, tx_underruns, 1);
	uart->tx.stall_pass = 0;
	return full;
}

/* Just let go at a pass limit: while a panic (or the line switch) says it waits, give it the
 * time its own spin needs to take TX (it looks at the word at every step), at most 100 us, the
 * margin of a panic's ownership wait. Not the wait hook: this may run in the interrupt handler. */
static void tx_let_waiter_in(struct pl011 *uart)
{
	if (PL011_SINGLE_CORE) {
		/* The waiter is a context we preempted, which cannot run until we return; an
		 * interrupt of higher priority can, in the TX interrupt's masked section too. */
		pl011_section_window();
		return;
	}
	struct pl011_wait wait;
	pl011_wait_start_panic(&wait, uart, 100u);
	uint32_t word = pl011_tx_owner_load(uart);
	while ((word & TX_OWNED) == 0 && (word & (TX_PANIC_WAITS | TX_SWITCH_WAITS)) != 0 &&
	       !pl011_wait_expired(&wait))
		word = pl011_tx_owner_load(uart);
}

/* Owner: add bits to the owner word. */
static void tx_mark(struct pl011 *uart, uint32_t bits)
{
	uint32_t word = pl011_tx_owner_load(uart);
	while ((word & bits) != bits && !pl011_tx_owner_swap(uart, &word, word | bits))
		;
}

/*
 * Send as the owner, then let go leaving the invariant true: the ring empty with TXIM masked,
 * or TXIM armed with an interrupt sure to come. `latched` says the TX cause is latched (the
 * interrupt's own refill); any other pass must see the FIFO full before it may arm. A request
 * made meanwhile (RETRY) means another polling pass.
 */
static void tx_send_and_release(struct pl011 *uart, bool latched)
{
	/* The handler's own refill gives TX space when the entry ends (pl011_events_end). */
	bool gives_space = !latched;
	for (;;) {
		bool sure;
		bool limited = false;
		bool latched_pass = latched;
		if (latched)
			refill_by_strategy(uart);
		sure = latched || refill_until_full(uart, &limited);
		latched = false;
		if (pl011_ring_count(&uart->tx.ring) == 0) {
			/* The TX interrupt with ARMED clear came through a stale TXIM (another
			 * context's IMSC write, preempted before its look again): mask it now, or the
			 * latched cause calls us straight back while that context cannot run. */
			if (latched_pass && (pl011_tx_owner_load(uart) & TX_ARMED) == 0)
				pl011_imsc_publish(uart);
			pl011_tx_arm(uart, false);
			pl011_events_tx_ring_emptied(uart);
		} else if (latched_pass ? !pl011_tx_must_pause(uart) : sure) {
			/* (A polling pass that saw the FIFO full may arm even beside a panic: the
			 * drain brings the interrupt, which then finds the panic.) */
			pl011_tx_arm(uart, true);
		} else if (limited) {
			/* A line as fast as we write: let go between passes, so that a panic
			 * waiting on another core gets TX within one pass, then own again or leave
			 * the rest to whoever took it (RETRY). A panic's last pass lets go only to
			 * such a waiter or to shutdown (TX free without PANIC, writers would queue
			 * on), and owns again as a panic: writers keep holding back, so the ring
			 * only drains. */
			uint32_t word = pl011_tx_owner_load(uart);
			uint32_t panic = word & (TX_PANIC | TX_PANIC_OWNER);
			if ((word & TX_PANIC) != 0 &&
			    (word & (TX_PANIC_WAITS | TX_SWITCH_WAITS | TX_STOPPED)) == 0)
				continue;
			if (pl011_tx_release(uart)) {
				tx_let_waiter_in(uart);
				if (!pl011_tx_own_or_request(uart))
					return;
				if (panic != 0)
					tx_mark(uart, panic);
			}
			continue;
		} else if (pl011_tx_must_pause(uart)) {
			/* A panic writes beside us and we may write nothing: let go masked, not
			 * armed, and not spinning. It may be the context this interrupt preempted
			 * (then neither spinning nor a TXIS left latched under TXIM, which calls
			 * us straight back, lets it finish); it sends the rest when it leaves
			 * (panic_beside_owner), or asks us for another pass (RETRY). Or shutdown
			 * waits for us to let go (tx_take_for_good), and takes the ring. Looked at
			 * only where a pass stopped short: a full FIFO or a pass limit needs no
			 * look, which keeps it off the per-byte path. */
			pl011_tx_arm(uart, false);
		} else {
			continue; /* bytes came after the ring ran dry: send them too */
		}
		if (pl011_tx_release(uart)) {
			/* A pass outside the TX interrupt (a panic's, the stall guard's, a priming
			 * writer's) may free the space a blocked writer waits for: no TX interrupt
			 * need come to give it. */
			if (gives_space)
				pl011_events_tx_space_freed(uart);
			return;
		}
	}
}

/* After queueing: make sure somebody sends. With TXIM armed and nobody owning TX the interrupt
 * is sure to come and will find the bytes; otherwise prime the FIFO ourselves, or leave one
 * more pass to the owner. */
static void tx_kick(struct pl011 *uart)
{
	/* The ring's head store before the look at the owner word; the owner looks at the ring
	 * before its release swap. One of us sees the other. */
	pl011_io_atomic_point();
	pl011_atomic_fence();
	if ((pl011_tx_owner_load(uart) & (TX_ARMED | TX_OWNED)) == TX_ARMED)
		return;
	if (pl011_tx_own_or_request(uart))
		tx_send_and_release(uart, false);
}

/*
 * One core (PL011_SINGLE_CORE): the interrupt's own pass runs in one masked section, as a
 * uniprocessor spinlock masks its handler, and the owner word's swaps inside are each a load
 * and a store: one mask per entry, not one per swap (lib/pl011_internal.h, pl011_tx_section).
 * `outer` keeps the state of a section a hook left, for an interrupt that came meanwhile.
 * Elsewhere nothing.
 */
#if PL011_SINGLE_CORE
typedef struct pl011_masked_section tx_section_state;
#else
typedef uint32_t tx_section_state;
#endif

static void tx_section_begin(tx_section_state *outer)
{
#if PL011_SINGLE_CORE
	*outer = pl011_tx_section;
	pl011_io_atomic_rmw_point(); /* the section's one mask: the bench counts it */
	pl011_tx_section.saved = pl011_interrupts_mask();
	pl011_tx_section.inside = 1;
#else
	(void)outer;
#endif
}

static void tx_section_end(const tx_section_state *outer)
{
#if PL011_SINGLE_CORE
	uintptr_t saved = pl011_tx_section.saved;
	pl011_tx_section = *outer;
	pl011_interrupts_restore(saved);
#else
	(void)outer;
#endif
}

/* `beside`: a panic was beside the owner before MIS showed the cause, so the latch may be
 * older than a character it left in the FIFO: the refill polls. */
static void service_irq(struct pl011 *uart, bool beside)
{
	/* The claim first: config.core_id is the user's code, which runs outside the section. */
	uint32_t claim = pl011_tx_owner_claim(uart);
	tx_section_state outer;
	tx_section_begin(&outer);
	bool owned = pl011_tx_try_own_with(uart, claim);
	if (owned) {
		if (beside)
			uart->tx.poll_next = 1;
		tx_send_and_release(uart, true);
	}
	tx_section_end(&outer);
	if (owned)
		return;
	/* Another context owns TX: one we preempted, which cannot run until we return, or another
	 * core. Clear TXIS so the level-sensitive line does not call us again meanwhile, then ask
	 * for a pass; the clear comes first so that the pass (which sees the FIFO full before it
	 * arms) cannot be relying on the latch we clear. */
	pl011_reg_write(uart, PL011_ICR, PL011_INT_TX);
	pl011_io_barrier();
	if (pl011_tx_own_or_request(uart))
		tx_send_and_release(uart, false); /* it let go meanwhile; the latch is gone: poll */
}

/*
 * Stall guard for waits: if the ring's tail has not moved for (depth + 2) frame times while
 * bytes wait, the TX interrupt is not coming (lost, a model that never raises it, later than
 * the trigger's headroom, or CTS held off): send from here, which also re-arms the interrupt.
 * Once it had to, it keeps the FIFO fed itself, every half FIFO of frames, until somebody else
 * moves the tail again within that half FIFO: waiting the whole window each time would leave
 * the line idle for two frames plus a wait step per FIFO. A tail move later than that is an
 * interrupt that is late still: feeding goes on. And it goes on across waits (stall_feeding):
 * a writer's next call that waited the whole window again, with a FIFO its last pass filled
 * up to (depth + 1) frames before, ran the line dry at every call (921,600 baud, FIFO 32,
 * a constant 203 us latency against the 1/2 trigger's 184 us: 12-25 us idle per 1 KiB call).
 * The flag is a hint: a wait that reads it stale only feeds once more or waits once longer.
 */
struct tx_watch {
	uint32_t tail;
	uint32_t since_us;
	uint32_t window_us;
	uint32_t patient_us; /* the window while the interrupt keeps the tail moving */
	uint32_t feeding_us; /* the window once the wait feeds the FIFO itself */
};

static uint32_t tx_tail(const struct pl011 *uart)
{
	return pl011_atomic_load(&uart->tx.ring.tail, __ATOMIC_ACQUIRE);
}

static void tx_watch_feed(struct tx_watch *watch, struct pl011 *uart, bool feeding)
{
	__atomic_store_n(&uart->tx.stall_feeding, feeding ? 1u : 0u, __ATOMIC_RELAXED);
	watch->window_us = feeding ? watch->feeding_us : watch->patient_us;
}

static void tx_watch_start(struct tx_watch *watch, const struct pl011 *uart,
			   const struct pl011_wait *wait)
{
	watch->tail = tx_tail(uart);
	watch->since_us = pl011_wait_elapsed_us(wait);
	watch->patient_us = pl011_frames_us(uart, uart->line.fifo_depth + 2u) + 1u;
	watch->feeding_us = pl011_frames_us(uart, uart->line.fifo_depth / 2u) + 1u;
	bool feeding = __atomic_load_n(&uart->tx.stall_feeding, __ATOMIC_RELAXED) != 0;
	watch->window_us = feeding ? watch->feeding_us : watch->patient_us;
}

static void tx_watch_check(struct tx_watch *watch, struct pl011 *uart,
			   const struct pl011_wait *wait)
{
	uint32_t tail = tx_tail(uart);
	uint32_t now = pl011_wait_elapsed_us(wait);
	bool empty = pl011_ring_count(&uart->tx.ring) == 0;
	if (tail != watch->tail || empty) {
		if (empty || now - watch->since_us < watch->feeding_us)
			tx_watch_feed(watch, uart, false);
		watch->tail = tail;
		watch->since_us = now;
		return;
	}
	if (now - watch->since_us < watch->window_us)
		return;
	PL011_COUNT(uart, tx_stalls, 1);
	if (pl011_tx_own_or_request(uart)) {
		uart->tx.stall_pass = 1;
		tx_send_and_release(uart, false);
	}
	watch->tail = tx_tail(uart);
	watch->since_us = now;
	tx_watch_feed(watch, uart, true);
}

static int wait_drained(struct pl011 *uart, uint32_t budget_us)
{
	struct pl011_wait wait;
	struct tx_watch watch;
	pl011_wait_start(&wait, uart, budget_us);
	tx_watch_start(&watch, uart, &wait);
	for (;;) {
		uint32_t fr = pl011_reg_read(uart, PL011_FR);
		if (pl011_ring_count(&uart->tx.ring) == 0 &&
		    (fr & PL011_FR_DRAINED_MASK) == PL011_FR_DRAINED)
			return 0;
		tx_watch_check(&watch, uart, &wait);
		if (pl011_wait_expired(&wait))
			return PL011_ETIMEDOUT;
	}
}

/*
 * An idle transmitter (the ring empty, nobody owning TX): the caller's bytes go straight to
 * the FIFO while FR shows room, as priming would send them, without the copy through the
 * ring; the rest is queued and the owner's pass arms the interrupt. Owning TX with the ring
 * empty, nothing can be queued ahead of these bytes. A pass at a time (tx_pass_limit), going on
 * while nobody waits for TX: on a line as fast as the CPU the whole call goes so, owning TX
 * throughout. One that waits (a panic, the line switch, shutdown's STOPPED) says so in the word,
 * and the rest goes through the ring, whose pass lets it in. Returns how many it took (0: not
 * idle).
 */
static size_t write_idle(struct pl011 *uart, const uint8_t *data, size_t len)
{
	if (len == 0 || pl011_ring_count(&uart->tx.ring) != 0 || !pl011_tx_try_own(uart))
		return 0;
	size_t done = 0;
	if (pl011_ring_count(&uart->tx.ring) == 0) {
		uint32_t reads = 0;
		uint32_t fr = 0; /* read after the first look */
		pl011_rs485_before_send(uart);
		done = pl011_tx_write_passes(uart, data, len, tx_pass_limit(uart), &fr, &reads);
		PL011_COUNT(uart, tx_fr_reads, reads);
		uart->stats.tx_bytes += (uint32_t)done;
		if (done != 0)
			uart->tx.poll_next = 1;
	}
	done += pl011_ring_write(&uart->tx.ring, data + done, len - done);
	tx_send_and_release(uart, false);
	return done;
}

static size_t write_queued(struct pl011 *uart, const uint8_t *data, size_t len, uint32_t bound_us)
{
	struct pl011_wait wait;
	struct tx_watch watch;
	size_t done = write_idle(uart, data, len);
	if (done == len)
		return done; /* all sent or queued: no wait to start */

	pl011_wait_start(&wait, uart, bound_us);
	tx_watch_start(&watch, uart, &wait);
	for (;;) {
		/* While a panic owns TX nothing new is queued: it drains a bounded ring. */
		size_t n = pl011_tx_panic_owns(uart)
				   ? 0u
				   : pl011_ring_write(&uart->tx.ring, data + done, len - done);
		if (n != 0) {
			done += n;
			tx_kick(uart);
		}
		if (done == len)
			return done;
		if (pl011_wait_expired(&wait)) {
			pl011_events_want_tx_space(uart);
			return done;
		}
		/* The FR read is the wait's step: it paces the loop on the bus. */
		(void)pl011_reg_read(uart, PL011_FR);
		tx_watch_check(&watch, uart, &wait);
	}
}

/* Owner: the `count` ring bytes queued before the panic was called, by polling, within the
 * wait (which ends when a shutdown begins). Bytes queued since are not the panic's to wait
 * for: peeking afresh for every segment let a streaming writer starve it. */
static bool drain_ring_polled(struct pl011 *uart, uint32_t count, struct pl011_wait *wait)
{
	uint32_t depth = uart->line.fifo_depth;
	while (count != 0) {
		uint32_t written = 0;
		/* A FIFO's worth at a time, so that a shutdown is noticed on a fast line too. */
		bool full = pl011_tx_fill_polling(uart, count < depth ? count : depth,
						  PL011_TX_NO_LOOK, NULL, &written);
		count -= written;
		/* Done, or the ring ran dry: an owner before us sent some of them. Nothing written
		 * with bytes still in the ring is a panic writing beside us: wait for it to leave,
		 * as those bytes go before our data. */
		if (count == 0 || (!full && written == 0 && pl011_ring_count(&uart->tx.ring) == 0))
			return true;
		if (!full && pl011_wait_expired(wait))
			return false;
		if (full && (pl011_wait_fr(uart, PL011_FR_TXFF, 0, wait) & PL011_FR_TXFF) != 0)
			return false;
	}
	return true;
}

/* Owner: a polling pass and let go. A panic's last pass sends what was queued meanwhile;
 * holding writers back only for it keeps it bounded without starving a writer that streams
 * beside a stream of panics. */
static void send_pass(struct pl011 *uart, bool panic)
{
	if (panic)
		tx_mark(uart, TX_PANIC);
	tx_send_and_release(uart, false);
}

static void attach_ring(struct pl011 *uart)
{
	(void)pl011_ring_init(&uart->tx.ring, uart->config->tx_buffer, uart->config->tx_buffer_size);
}

static size_t ring_queued(const struct pl011 *uart)
{
	return pl011_ring_count(&uart->tx.ring);
}

const struct pl011_tx_ring_ops pl011_tx_ring_ops = {
	.attach = attach_ring,
	.queued = ring_queued,
	.write = write_queued,
	.service_irq = service_irq,
	.wait_drained = wait_drained,
	.drain_for_panic = drain_ring_polled,
	.send_pass = send_pass,
	.kick = tx_kick,
};

#endif /* PL011_INTERRUPTS */
