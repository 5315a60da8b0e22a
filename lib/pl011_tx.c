/* Transmit path on top of the owner word: polled and panic writes, flush, stop, the line switch. */
#include "pl011_tx_owner.h"

void pl011_tx_reset(struct pl011 *uart, uint32_t tx_level)
{
#if PL011_INTERRUPTS
	/* Through the strategy: a polled firmware links no ring code. */
	if (pl011_tx_uses_ring(uart))
		uart->tx.strategy->ring->attach(uart);
	uart->tx.level = tx_level;
	uart->tx.poll_next = 0;
	const struct pl011_tx_strategy *strategy = uart->tx.strategy;
	if (strategy != NULL && strategy->reset != NULL)
		strategy->reset(uart);
#else
	(void)tx_level;
#endif
	__atomic_store_n(&uart->tx.unowned_bytes, 0u, __ATOMIC_RELAXED);
#if PL011_INTERRUPTS
	__atomic_store_n(&uart->tx.stall_feeding, 0u, __ATOMIC_RELAXED);
#endif
	__atomic_store_n(&uart->tx.panic_budget_us, 0u, __ATOMIC_RELAXED);
	pl011_io_barrier(); /* init's register writes land before another core can take TX */
	pl011_atomic_store(&uart->tx.owner, 0u, __ATOMIC_SEQ_CST);
}

void pl011_tx_prepare(struct pl011 *uart)
{
	const struct pl011_tx_strategy *strategy = uart->tx.strategy;
	if (strategy != NULL && strategy->prepare != NULL)
		strategy->prepare(uart);
}

void pl011_tx_service_irq(struct pl011 *uart, bool beside)
{
	if (pl011_tx_uses_ring(uart))
		uart->tx.strategy->ring->service_irq(uart, beside);
}

/* The ring modes' wait refills a stalled TX (lib/pl011_tx_ring.c); POLLED has nothing to send
 * but what the FIFO holds. */
int pl011_tx_wait_drained(struct pl011 *uart, uint32_t budget_us)
{
	if (pl011_tx_uses_ring(uart))
		return uart->tx.strategy->ring->wait_drained(uart, budget_us);
	return pl011_wait_fr_for(uart, PL011_FR_DRAINED_MASK, PL011_FR_DRAINED, budget_us);
}

/* Own TX within a bounded wait: another core may hold it for a refill or a polled write. */
static bool tx_own_within(struct pl011 *uart, struct pl011_wait *wait)
{
	/* STOPPED with the port no longer running is shutdown's (or init's) for good: no use
	 * waiting. pl011_set_line holds TX with STOPPED too, on a running port, and gives it
	 * back: wait for it within the bound. */
	bool owned = pl011_tx_try_own(uart);
	while (!owned && !(pl011_tx_stopped(uart) && !pl011_is_running(uart)) &&
	       !pl011_wait_expired(wait))
		owned = pl011_tx_try_own(uart);
	return owned;
}

/* Time shutdown gives another core to let go of TX, or to finish a byte it writes beside the
 * owner: every owner lets go within one refill, a FIFO's worth of polled characters or one
 * step of a panic's wait, which ends once the port is no longer running. */
static uint32_t tx_stop_wait_us(const struct pl011 *uart)
{
	return pl011_frames_us(uart, 2) + 1000u;
}

/*
 * Shutdown: STOPPED set (with OWNED when we got it), so that no panic starts beside. An owner
 * still there when the first wait runs out is told by STOPPED to let go: a live one does at the
 * end of its pass (at most 2 x depth characters; tx_send_and_release), within a second wait,
 * and we take the ring from it; counting the ring under a live owner counted bytes it went on
 * to send (review S1). A POLLED writer has no ring to count.
 */
static bool tx_take_for_good(struct pl011 *uart, struct pl011_wait *wait)
{
	uint32_t claim = pl011_tx_owner_claim(uart) | TX_STOPPED | TX_HELD;
	if (pl011_tx_take_when_free(uart, claim, 0u, wait))
		return true;
	uint32_t word = pl011_tx_owner_load(uart);
	while (!pl011_tx_owner_swap(uart, &word, word | TX_STOPPED))
		;
	pl011_wait_start(wait, uart, tx_stop_wait_us(uart));
	return pl011_tx_take_when_free(uart, claim, 0u, wait);
}

/* A panic writing beside the owner holds tx.beside; it checks STOPPED after taking it, and
 * we look at it after setting STOPPED: one of us sees the other. */
static void tx_wait_beside_done(struct pl011 *uart, struct pl011_wait *wait)
{
	(void)pl011_wait_presence_gone(&uart->tx.beside, wait);
}

uint32_t pl011_tx_stop(struct pl011 *uart, bool *kept)
{
	/* An owner on another core lets go within tx_stop_wait_us; one on this core is a context
	 * we preempted (a lower-priority task's panic), which cannot until we return. */
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, tx_stop_wait_us(uart));
	bool owned = tx_take_for_good(uart, &wait);
	*kept = !owned;
	pl011_wait_start(&wait, uart, tx_stop_wait_us(uart));
	tx_wait_beside_done(uart, &wait);
	/* Every cause masked, not only TX: the handler of a stopped port returns without
	 * servicing, so an RX cause left unmasked would keep calling it. Frozen, not just
	 * written 0: an RX pause or resume from now on writes IMSC as 0 too. Only here, with TX
	 * taken: frozen earlier, an owner on another core would release with ARMED set and
	 * TXIM already masked, a word that promises an interrupt nobody can raise. */
	pl011_imsc_update(uart, 0, PL011_IMSC_FROZEN);
	if (owned)
		pl011_tx_disarmed(uart);
#if !PL011_INTERRUPTS
	return 0; /* no ring */
#else
	if (!pl011_tx_uses_ring(uart))
		return 0;
	uint32_t dropped = (uint32_t)pl011_ring_count(&uart->tx.ring);
	/* Only the owner consumes the ring. An owner that never let go (its core stopped for
	 * longer than both waits) keeps it: the bytes are counted, not skipped under it; if that
	 * core resumes, it finishes the pass it was in (at most 2 x depth characters, into the
	 * UART shutdown disables) and lets go. */
	if (owned)
		pl011_ring_skip(&uart->tx.ring, dropped);
	return dropped;
#endif
}

/* A panic over its own core's stop writes beside us until DISABLING: it holds tx.beside and
 * looks at the mark before each byte, we look at tx.beside after marking. Only a panic whose
 * core runs on after all (config.core_id's premise broken) can still be there. */
bool pl011_tx_disabling(struct pl011 *uart)
{
	uint32_t stop = pl011_stop_word(uart);
	pl011_atomic_store(&uart->tx.stop, stop | PL011_STOP_DISABLING, __ATOMIC_SEQ_CST);
	pl011_atomic_fence();
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, tx_stop_wait_us(uart));
	return pl011_wait_presence_gone(&uart->tx.beside, &wait);
}

bool pl011_tx_left(const struct pl011 *uart)
{
	return !pl011_tx_beside_present(uart) &&
	       (pl011_tx_owner_load(uart) & (TX_OWNED | TX_HELD)) != TX_OWNED;
}

/* Owner: wait within `wait` for FR to show room; false when it did not. */
static bool room_within(struct pl011 *uart, uint32_t fr, struct pl011_wait *wait)
{
	return (fr & PL011_FR_TXFF) == 0 ||
	       (pl011_wait_fr(uart, PL011_FR_TXFF, 0, wait) & PL011_FR_TXFF) == 0;
}

/* A panic as the owner: write bytes one by one, each after FR shows room, within the wait. */
static size_t write_bytes_polled(struct pl011 *uart, const uint8_t *data, size_t len,
				 struct pl011_wait *wait)
{
	size_t done = 0;
	uint32_t burst = 0;
	while (done < len) {
		if (burst == 0 && (burst = pl011_tx_burst_allowed(uart, len - done)) == 0) {
			if (pl011_wait_expired(wait))
				break;
			continue; /* a panic writes beside us: let it */
		}
		if (!room_within(uart, pl011_reg_read(uart, PL011_FR), wait))
			break;
		/* A panic looks before every byte, not only in a wait for room (on a line as fast
		 * as the CPU that wait never comes): a shutdown it did not preempt would disable
		 * the UART under bytes it counts, and one that gave up waiting for it counted the
		 * rest. Just before the write, so that at most the byte in hand goes astray. */
		if (wait->cut_off(uart, wait->cut))
			break;
		pl011_reg_write(uart, PL011_DR, data[done++]);
		burst--;
	}
	uart->stats.tx_bytes += (uint32_t)done;
	return done;
}

/* The polled writer as the owner: per byte a look at the owner word (a panic's request, or
 * shutdown's STOPPED: it stops at the next byte), and the write, the base and the burst's end
 * in registers (the per-byte cost QEMU's -icount measures: docs/benchmarks.md). FR is read
 * once per burst (TX_WRITER_BURST) when it shows the FIFO empty (TXFE), else before each
 * byte; the wait for room is out of that path. */
static size_t write_bytes_yielding(struct pl011 *uart, const uint8_t *data, size_t len,
				   struct pl011_wait *wait)
{
	const uintptr_t base = uart->base;
	const uint8_t *next = data; /* pointers, not an index: one add per byte, not two */
	const uint8_t *const last = data + len;
	while (next != last) {
		const uint8_t *end =
		    next + pl011_tx_burst_up_to(uart, (size_t)(last - next), TX_WRITER_BURST);
		if (end == next) {
			if (pl011_wait_expired(wait))
				break;
			continue; /* a panic writes beside us: let it */
		}
		uint32_t fr = pl011_io_read(base + PL011_FR);
		if ((fr & PL011_FR_TXFE) != 0) {
			while (next != end) {
				if (pl011_tx_polled_must_stop(uart))
					goto out;
				pl011_io_write(base + PL011_DR, *next++);
			}
			continue;
		}
		for (;;) {
			if (pl011_tx_polled_must_stop(uart))
				goto out;
			if ((fr & PL011_FR_TXFF) != 0) {
				/* Full: wait for room, then a new burst (its own look). */
				if ((pl011_wait_fr(uart, PL011_FR_TXFF, 0, wait) & PL011_FR_TXFF) != 0)
					goto out;
				break;
			}
			pl011_io_write(base + PL011_DR, *next++);
			if (next == end)
				break;
			fr = pl011_io_read(base + PL011_FR);
		}
	}
out:
	uart->stats.tx_bytes += (uint32_t)(next - data);
	return (size_t)(next - data);
}

/* Owning TX only while writing, and letting a panic on another core in at the next byte: a
 * write of any length never makes a panic wait beyond one character. */
static size_t write_polled(struct pl011 *uart, const uint8_t *data, size_t len, uint32_t bound_us)
{
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, bound_us);
	size_t done = 0;
	do {
		if (!tx_own_within(uart, &wait))
			break;
		done += write_bytes_yielding(uart, data + done, len - done, &wait);
		pl011_tx_release_polled(uart);
	} while (done < len && !pl011_wait_expired(&wait));
	return done;
}

/* Through the strategy: a polled firmware links no ring code. */
static size_t queued_in_ring(const struct pl011 *uart)
{
	return pl011_tx_uses_ring(uart) ? uart->tx.strategy->ring->queued(uart) : 0u;
}

int pl011_write(struct pl011 *uart, const void *data, size_t len, uint32_t bound_us)
{
	if (uart == NULL || (data == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	if (bound_us == PL011_WAIT_AUTO)
		bound_us = pl011_backlog_deadline_us(uart, queued_in_ring(uart) + len);
	size_t done = pl011_tx_uses_ring(uart)
			      ? uart->tx.strategy->ring->write(uart, data, len, bound_us)
			      : write_polled(uart, data, len, bound_us);
	if (done < len && bound_us != PL011_NO_WAIT)
		PL011_COUNT(uart, tx_timeouts, 1);
	return (int)done;
}

int pl011_putc(struct pl011 *uart, uint8_t byte)
{
	int n = pl011_write(uart, &byte, 1, PL011_WAIT_AUTO);
	if (n < 0)
		return n;
	return n == 1 ? 0 : PL011_ETIMEDOUT;
}

int pl011_flush(struct pl011 *uart, uint32_t bound_us, size_t *pending)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	if (bound_us == PL011_WAIT_AUTO)
		bound_us = pl011_backlog_deadline_us(uart, pl011_tx_queued(uart));
	int err = pl011_tx_wait_drained(uart, bound_us);
	if (err != 0)
		PL011_COUNT(uart, tx_timeouts, 1);
	if (pending != NULL)
		*pending = pl011_tx_queued(uart);
	return err;
}

size_t pl011_tx_queued(const struct pl011 *uart)
{
	if (uart == NULL || pl011_is_stopped(uart) || !pl011_tx_uses_ring(uart))
		return 0;
	return uart->tx.strategy->ring->queued(uart);
}

static size_t panic_as_owner(struct pl011 *uart, const uint8_t *data, size_t len, uint32_t queued,
			     struct pl011_wait *wait)
{
	/* Read once: an owner stopped past shutdown's waits may find the port re-initialised in
	 * another mode (docs/shutdown.md, "Known limits"); a second look must not find NULL. */
	const struct pl011_tx_strategy *strategy = uart->tx.strategy;
	if (strategy == NULL || !PL011_INTERRUPTS) {
		size_t done = write_bytes_polled(uart, data, len, wait);
		pl011_tx_release_polled(uart);
		return done;
	}
#if PL011_INTERRUPTS
	const struct pl011_tx_ring_ops *ring = strategy->ring;
	uart->tx.poll_next = 1;
	size_t done = ring->drain_for_panic(uart, queued, wait) || pl011_panic_cut_off(uart, wait->cut)
			      ? write_bytes_polled(uart, data, len, wait)
			      : 0u;
	ring->send_pass(uart, true);
	return done;
#else
	(void)queued;
	return 0;
#endif
}

static void tx_beside_leave(struct pl011 *uart)
{
	pl011_presence_leave(&uart->tx.beside);
}

#if PL011_INTERRUPTS
/*
 * Owning TX after writing beside the owner: a last pass for the ring's bytes, in the mode the
 * port runs in now. A re-init on another core may have restarted it meanwhile (the panic went
 * beside because the port was stopping), in POLLED mode too, with no ring and no strategy:
 * then only let go as a polled owner does.
 */
static void panic_pass_after_beside(struct pl011 *uart)
{
	const struct pl011_tx_strategy *strategy = uart->tx.strategy;
	if (strategy != NULL)
		strategy->ring->send_pass(uart, true);
	else
		pl011_tx_release_polled(uart);
}
#endif

/* Beside the owner, before each byte: whether to write no more. A panic over its own core's
 * stop writes until that stop disables the UART (pl011_panic_cut_off); any other stops where
 * the port stops running, or where shutdown or the line switch has taken TX (STOPPED): both
 * wait for tx.beside to drop, so every byte counted here goes before the UART is disabled or
 * its line changed. */
static bool beside_cut_off(const struct pl011 *uart, enum pl011_panic_cut cut)
{
	return pl011_panic_cut_off(uart, cut) ||
	       (cut == PL011_CUT_WHEN_STOPPING && pl011_tx_stopped(uart));
}

static void beside_writer_leave(struct pl011 *uart)
{
	pl011_io_atomic_rmw_point();
	(void)pl011_atomic_add(&uart->tx.beside, 0u - TX_BESIDE_WRITER, __ATOMIC_SEQ_CST);
}

/*
 * Beside the owner, before each byte: wait within `wait` to be one of at most TX_BESIDE_CHARS
 * panics about to write (counted in tx.beside's upper half until the byte is written) and for
 * FR to show the FIFO empty; true with our place taken. Panics whose characters none of the
 * others saw read FR before any of them wrote, so the last of them to take a place counted all
 * of them. The barrier orders the count before our FR read.
 */
static bool beside_may_write(struct pl011 *uart, struct pl011_wait *wait)
{
	for (;;) {
		pl011_io_atomic_rmw_point();
		uint32_t before =
		    pl011_atomic_add(&uart->tx.beside, TX_BESIDE_WRITER, __ATOMIC_SEQ_CST);
		if (before / TX_BESIDE_WRITER < TX_BESIDE_CHARS) {
			pl011_io_barrier();
			if ((pl011_reg_read(uart, PL011_FR) & PL011_FR_TXFE) != 0)
				return true;
		}
		beside_writer_leave(uart); /* not while we wait: others may write meanwhile */
		if (pl011_wait_expired(wait))
			return false;
	}
}

/*
 * Without ownership: the owner may be preempted between an FR read and the DR write it
 * allows, or in a blind refill. Write only into an empty FIFO, one byte at a time, and leave it
 * empty again, so that its FR value and blind count stay true; with CTS holding the line our
 * last byte may stay, which the owner's blind counts leave room for (TX_BESIDE_CHARS). (On
 * another core, after the owner failed to let go within the panic's wait: docs/design.md.)
 */
static int panic_beside_owner(struct pl011 *uart, const uint8_t *data, size_t len,
			      struct pl011_wait *wait)
{
	pl011_presence_enter(&uart->tx.beside);
	pl011_io_barrier(); /* the count before our FR reads, as the owner's look sees them */
	size_t done = 0;
	/* Taken for good before we came: refused, as by panic_own. */
	if (wait->cut == PL011_CUT_WHEN_STOPPING && pl011_tx_stopped(uart)) {
		tx_beside_leave(uart);
		return PL011_ESHUTDOWN;
	}
	while (done < len) {
		if (!beside_may_write(uart, wait))
			break;
		/* After the wait, just before the write: the look and the write a stop waits out. */
		if (beside_cut_off(uart, wait->cut)) {
			beside_writer_leave(uart);
			break;
		}
		pl011_reg_write(uart, PL011_DR, data[done++]);
		pl011_io_barrier(); /* our byte in the FIFO before our place is free */
		beside_writer_leave(uart);
	}
	/* Our last character needs a frame to leave the FIFO, more if one is shifting ahead. Over
	 * our own core's stop, not cut short: its FIFO wait may be behind it already. */
	struct pl011_wait after;
	pl011_wait_start_panic(&after, uart, pl011_frames_us(uart, 2) + 1000u);
	if (wait->cut == PL011_CUT_WHEN_DISABLING)
		after.cut = PL011_CUT_NEVER;
	(void)pl011_wait_fr(uart, PL011_FR_TXFE, PL011_FR_TXFE, &after);
	pl011_io_barrier();
	pl011_io_atomic_rmw_point();
	(void)pl011_atomic_add(&uart->tx.unowned_bytes, (uint32_t)done, __ATOMIC_RELAXED);
	tx_beside_leave(uart);
	/* An owner that found us here let go without sending (tx_send_and_release): the ring's
	 * bytes are ours to start again, or the owner's once more (RETRY). After the leave, so
	 * that an owner that still sees us is still owning when we ask. */
#if PL011_INTERRUPTS
	if (pl011_tx_uses_ring(uart) && pl011_ring_count(&uart->tx.ring) != 0 &&
	    pl011_tx_own_or_request(uart))
		panic_pass_after_beside(uart);
#endif
	return (int)done;
}

/*
 * How long a panic waits for another panic that owns TX: that panic's own deadline (it
 * publishes it once it owns TX; until then, or for a stale one, the longest seen counts), and
 * then the ownership wait for its last pass. `since` started when we first saw it own TX.
 */
static bool panic_owner_expired(const struct pl011 *uart, struct pl011_wait *since,
				uint32_t *longest_us)
{
	uint32_t budget = __atomic_load_n(&uart->tx.panic_budget_us, __ATOMIC_RELAXED);
	if (budget > *longest_us)
		*longest_us = budget;
	uint64_t bound = (uint64_t)*longest_us + pl011_frames_us(uart, uart->line.fifo_depth) + 100u;
	since->budget_us = bound >= PL011_WAIT_AUTO ? PL011_WAIT_AUTO - 1u : (uint32_t)bound;
	return pl011_wait_expired(since);
}

/*
 * Own TX as a panic within the wait; false with *seen the word when another context keeps
 * it, or shutdown took it (STOPPED). An owner on our own core (we preempted it) cannot let go
 * until we return: no wait.
 * Another panic lets go within its own deadline (which may be longer than ours): we wait for
 * that, from when we first see it own TX, not our own deadline (which left us 0 of our bytes).
 * In POLLED mode we ask the writer for TX (RETRY) and take it at its next byte.
 */
static bool panic_own(struct pl011 *uart, struct pl011_wait *wait, uint32_t *seen)
{
	uint32_t claim = pl011_tx_owner_claim(uart) | TX_PANIC_OWNER;
	uint32_t mine = claim & TX_CORE_MASK;
	bool polled = !pl011_tx_uses_ring(uart);
	struct pl011_wait other;
	bool other_seen = false;
	uint32_t longest_us = 0;
	for (;;) {
		uint32_t word = pl011_tx_owner_load(uart);
		while ((word & (TX_OWNED | TX_STOPPED)) == 0)
			if (pl011_tx_owner_swap(uart, &word,
						(word & ~(TX_RETRY | TX_PANIC_WAITS)) | claim))
				return pl011_tx_acquired(uart);
		*seen = word;
		if ((word & TX_STOPPED) != 0 || (mine != 0 && (word & TX_CORE_MASK) == mine))
			break;
		if (polled && (word & TX_RETRY) == 0)
			(void)pl011_tx_owner_swap(uart, &word, word | TX_RETRY);
		else if (!polled && (word & TX_PANIC_WAITS) == 0)
			(void)pl011_tx_owner_swap(uart, &word, word | TX_PANIC_WAITS);
		if ((word & TX_PANIC_OWNER) != 0 && !other_seen) {
			pl011_wait_start_panic(&other, uart, 0u);
			other.cut = wait->cut;
			other_seen = true;
		}
		if ((word & TX_PANIC_OWNER) != 0 ? panic_owner_expired(uart, &other, &longest_us)
						 : pl011_wait_expired(wait))
			break;
	}
	if (polled) { /* withdraw the request: no writer may wait on a panic that gave up, nor
		       * find it left behind once the writer let go (another waiting panic sets
		       * it again at its next look) */
		uint32_t word = pl011_tx_owner_load(uart);
		while ((word & TX_RETRY) != 0 && !pl011_tx_owner_swap(uart, &word, word & ~TX_RETRY))
			;
	} else { /* an owner need not let us in any more (another panic may say so again) */
		uint32_t word = pl011_tx_owner_load(uart);
		while ((word & TX_PANIC_WAITS) != 0 &&
		       !pl011_tx_owner_swap(uart, &word, word & ~TX_PANIC_WAITS))
			;
	}
	return false;
}

/*
 * Whether a stop under way (shutdown, or a re-init's) runs on our own core, not yet disabling
 * the UART: then we preempted it, and it goes on only once we return (config.core_id's
 * premise). Decided once, at entry: a stop that begins later on our core preempted us.
 * Without config.core_id nobody can tell, and the panic is cut off as on another core.
 */
static enum pl011_panic_cut panic_cut_at_entry(const struct pl011 *uart, uint32_t state)
{
	if (state != PL011_STATE_SHUTTING_DOWN && state != PL011_STATE_SHUT)
		return PL011_CUT_WHEN_STOPPING;
	uint32_t mine = pl011_core_tag(uart);
	uint32_t stop = pl011_stop_word(uart) & (PL011_STOP_CORE_MASK | PL011_STOP_DISABLING);
	return mine != 0 && stop == mine ? PL011_CUT_WHEN_DISABLING : PL011_CUT_WHEN_STOPPING;
}

int pl011_write_panic(struct pl011 *uart, const void *data, size_t len)
{
#if PL011_SINGLE_CORE
	/* A fault inside the TX interrupt's masked section, whose handler may unmask and may not
	 * return there: from now on that section's swaps mask one by one, as ours do. */
	pl011_tx_section.inside = 0;
#endif
	if (uart == NULL || (data == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	uint32_t state = pl011_state_get(uart);
	if (pl011_state_stopped(state) && state != PL011_STATE_SHUT)
		return PL011_ESHUTDOWN; /* never started (or garbage), or being started */
	/* Stopped is refused too, unless by a stop we preempted that has yet to disable. */
	enum pl011_panic_cut cut = panic_cut_at_entry(uart, state);
	if (state == PL011_STATE_SHUT && cut != PL011_CUT_WHEN_DISABLING)
		return PL011_ESHUTDOWN;
	/* What is queued now is ours to send first; what comes later is not ours to wait for. */
	uint32_t queued = (uint32_t)pl011_tx_queued(uart);
	/* An owner on another core lets go within one refill: wait for it, a FIFO's worth of
	 * frames plus 100 us; another panic within its own deadline (panic_own). */
	struct pl011_wait wait, deadline;
	uint32_t word = 0;
	pl011_wait_start_panic(&wait, uart, pl011_frames_us(uart, uart->line.fifo_depth) + 100u);
	wait.cut = cut;
	bool owned = panic_own(uart, &wait, &word);
	/* Shutdown (or the line switch) took TX: refused, unless it is the stop we preempted,
	 * whose UART takes our bytes beside it. */
	if (!owned && (word & TX_STOPPED) != 0 && cut != PL011_CUT_WHEN_DISABLING)
		return PL011_ESHUTDOWN;
	/* Our deadline starts once the wait for TX is over, owning or beside: a deadline spent
	 * waiting for another panic left none for our own bytes. */
	pl011_wait_start_panic(&deadline, uart,
			       pl011_backlog_deadline_us(uart, (size_t)queued + len));
	deadline.cut = cut;
	if (owned) {
		__atomic_store_n(&uart->tx.panic_budget_us, deadline.budget_us, __ATOMIC_RELAXED);
		return (int)panic_as_owner(uart, data, len, queued, &deadline);
	}
	return panic_beside_owner(uart, data, len, &deadline);
}


/* ---- line switch (pl011_set_line, lib/pl011_line.c): TX held as shutdown takes it ---- */

/* Let go of TX held for the switch, and send what was queued meanwhile. */
static void tx_unhold(struct pl011 *uart)
{
#if PL011_INTERRUPTS
	const struct pl011_tx_strategy *strategy = uart->tx.strategy;
#endif
	pl011_io_barrier();
	uint32_t word = pl011_tx_owner_load(uart);
	while (!pl011_tx_owner_swap(uart, &word, word & ~(TX_STOPPED | TX_RETRY | TX_OWNER_BITS)))
		;
	/* A writer that queued while we held TX could not send (its kick found STOPPED): our
	 * release before our look at the ring; its head store before its look at the word. */
#if PL011_INTERRUPTS
	pl011_atomic_fence();
	if (strategy != NULL && pl011_ring_count(&uart->tx.ring) != 0)
		strategy->ring->kick(uart);
#endif
}

bool pl011_tx_hold(struct pl011 *uart)
{
	/* As shutdown takes TX, without its second wait: STOPPED set under a live owner tells it
	 * to let go (a POLLED writer gives up its write there), which a line change that may give
	 * up itself must not cause: SWITCH_WAITS asks a ring owner to let go at its pass limit
	 * instead. An owner that keeps TX past the wait changes nothing. */
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, tx_stop_wait_us(uart));
	uint32_t ask = pl011_tx_uses_ring(uart) ? TX_SWITCH_WAITS : 0u;
	if (!pl011_tx_take_when_free(uart, pl011_tx_owner_claim(uart) | TX_STOPPED | TX_HELD, ask,
				     &wait))
		return false;
	pl011_wait_start(&wait, uart, tx_stop_wait_us(uart));
	if (!pl011_wait_presence_gone(&uart->tx.beside, &wait)) {
		/* A panic beside the owner did not finish (its core stopped between its look at
		 * STOPPED and its write): a switch now could flush a byte it counts. Let go as
		 * found, TXIM masked so that the kick's pass arms it again (an interrupt that found
		 * STOPPED meanwhile cleared its cause and asked nobody). */
		pl011_tx_arm(uart, false);
		tx_unhold(uart);
		return false;
	}
	/* As pl011_tx_stop: frozen only with TX taken, then the word says TXIM is masked. */
	pl011_imsc_update(uart, 0, PL011_IMSC_FROZEN);
	pl011_tx_disarmed(uart);
	return true;
}

void pl011_tx_give_back(struct pl011 *uart)
{
	const struct pl011_tx_strategy *strategy = uart->tx.strategy;
	if (strategy != NULL && strategy->line_changed != NULL)
		strategy->line_changed(uart);
	tx_unhold(uart);
}

/* ---- the RS-485 release tick (lib/pl011_rs485.c) ---- */

bool pl011_tx_try_take(struct pl011 *uart)
{
	return pl011_tx_try_own(uart);
}

/* RS-485 runs in the ring modes only (pl011_rs485_check). */
void pl011_tx_let_go(struct pl011 *uart)
{
	uart->tx.strategy->ring->send_pass(uart, false);
}
