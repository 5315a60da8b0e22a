/* Transmit path: the TX lock, the refill strategies, priming, bounded waits, panic write. */
#include "pl011_internal.h"

/* Passes one pl011_tx_service call makes when other contexts keep asking for refills. */
#define TX_SERVICE_PASSES 16u
/* ADAPTIVE: refills without underrun before the trigger moves one level down, at first and at
 * most; and the highest trigger it uses. Above 1/2 each interrupt carries so few characters
 * that, under a jittery load, more interrupts mean more late ones (docs/benchmarks.md). */
#define ADAPTIVE_FIRST_PATIENCE 64u
#define ADAPTIVE_MAX_PATIENCE 4096u
#define ADAPTIVE_CEILING PL011_LEVEL_1_2

/*
 * Ownership of the FIFO. Whoever moves bytes from the ring to the FIFO (the interrupt, a
 * writer priming an idle transmitter, a wait that found TX stalled) holds tx_lock, so the ring
 * has one consumer at a time and the FIFO one writer. The interrupt never spins on it: if the
 * lock is held it sets tx_retry and the holder refills once more after releasing. All of it is
 * sequentially consistent because the protocol is Dekker-shaped (store mine, load theirs).
 */
static bool tx_lock_try(struct pl011 *uart)
{
	return __atomic_exchange_n(&uart->tx_lock, 1u, __ATOMIC_SEQ_CST) == 0u;
}

static void tx_lock_release(struct pl011 *uart)
{
	__atomic_store_n(&uart->tx_lock, 0u, __ATOMIC_SEQ_CST);
}

static bool txim_armed(const struct pl011 *uart)
{
	return (__atomic_load_n(&uart->imsc, __ATOMIC_SEQ_CST) & PL011_INT_TX) != 0u;
}

/* Under the TX lock: the only writer of IMSC while the port runs (RX bits never change). */
static void txim_set(struct pl011 *uart, bool armed)
{
	uint32_t imsc = uart->imsc;
	uint32_t wanted = armed ? (imsc | PL011_INT_TX) : (imsc & ~PL011_INT_TX);
	if (wanted == imsc)
		return;
	__atomic_store_n(&uart->imsc, wanted, __ATOMIC_SEQ_CST);
	pl011_reg_write(uart, PL011_IMSC, wanted);
}

static uint32_t tx_read_fr(struct pl011 *uart)
{
	uart->stats.tx_fr_reads++;
	return pl011_reg_read(uart, PL011_FR);
}

/* Write up to limit ring bytes without reading FR: only when space is guaranteed. */
static uint32_t fill_blind(struct pl011 *uart, uint32_t limit)
{
	uint32_t done = 0;
	while (done < limit) {
		const uint8_t *segment;
		size_t n = pl011_ring_peek(&uart->tx_ring, &segment);
		if (n == 0)
			break;
		if (n > limit - done)
			n = limit - done;
		for (size_t i = 0; i < n; i++)
			pl011_reg_write(uart, PL011_DR, segment[i]);
		pl011_ring_skip(&uart->tx_ring, n);
		done += (uint32_t)n;
	}
	uart->stats.tx_bytes += done;
	return done;
}

/*
 * Write ring bytes while FR.TXFF is clear, at most limit. *first_fr (if given) receives the
 * first FR value, which tells whether the FIFO had run dry (an underrun); *full (if given)
 * whether the refill stopped at TXFF.
 */
static uint32_t fill_polling(struct pl011 *uart, uint32_t limit, uint32_t *first_fr, bool *full)
{
	uint32_t done = 0;
	while (done < limit) {
		const uint8_t *segment;
		size_t n = pl011_ring_peek(&uart->tx_ring, &segment);
		if (n == 0)
			break;
		if (n > limit - done)
			n = limit - done;
		size_t i = 0;
		for (; i < n; i++) {
			uint32_t fr = tx_read_fr(uart);
			if (first_fr != NULL && done == 0 && i == 0)
				*first_fr = fr;
			if (fr & PL011_FR_TXFF) {
				uart->stats.tx_refill_full++;
				if (full != NULL)
					*full = true;
				break;
			}
			pl011_reg_write(uart, PL011_DR, segment[i]);
		}
		pl011_ring_skip(&uart->tx_ring, i);
		done += (uint32_t)i;
		if (i < n)
			break;
	}
	uart->stats.tx_bytes += done;
	return done;
}

static void record_extra(struct pl011 *uart, uint32_t extra)
{
	uart->stats.tx_extra_chars += extra;
	uint32_t bin = extra < PL011_EXTRA_HISTOGRAM_BINS ? extra : PL011_EXTRA_HISTOGRAM_BINS - 1u;
	uart->stats.tx_extra_histogram[bin]++;
}

static void set_tx_level(struct pl011 *uart, uint32_t level)
{
	uart->tx_level = level;
	uart->stats.tx_trigger_changes++;
	__atomic_store_n(&uart->tx_fifo_shared, 1u, __ATOMIC_RELAXED);
	pl011_reg_write(uart, PL011_IFLS, pl011_ifls_value(uart->tx_level, uart->rx_level));
}

/*
 * One FR read per refill. An empty FIFO means the line went idle (underrun): take a whole FIFO
 * blind and ask for the interrupt earlier. A long run without underruns lowers the trigger so
 * that each interrupt carries more. After any move the next refill polls: a TXIS still
 * asserted from the old trigger may arrive with the FIFO above the new one, where the blind
 * count would overflow (the model caught exactly that when lowering 3/4 to 1/2).
 */
static uint32_t refill_adaptive(struct pl011 *uart, uint32_t guaranteed)
{
	if (tx_read_fr(uart) & PL011_FR_TXFE) {
		uart->stats.tx_underruns++;
		uint32_t written = fill_blind(uart, uart->fifo_depth);
		/* An underrun soon after a lowering: that level is too low for this load, so wait
		 * twice as long before trying it again. */
		if (uart->tx_lowered && uart->tx_patience < ADAPTIVE_MAX_PATIENCE)
			uart->tx_patience *= 2u;
		uart->tx_lowered = 0;
		uart->tx_clean_refills = 0;
		if (uart->tx_level < ADAPTIVE_CEILING)
			set_tx_level(uart, uart->tx_level + 1u);
		return written;
	}
	uint32_t written = fill_blind(uart, guaranteed);
	if (++uart->tx_clean_refills >= uart->tx_patience) {
		uart->tx_clean_refills = 0;
		uart->tx_lowered = 0;
		if (uart->tx_level > PL011_LEVEL_1_8) {
			set_tx_level(uart, uart->tx_level - 1u);
			uart->tx_lowered = 1;
		}
	}
	return written;
}

/* The interrupt's refill. After TXIS the FIFO holds at most `trigger` entries, so
 * `depth - trigger` can go blind, unless someone else wrote the FIFO since (then poll). */
static void refill_by_strategy(struct pl011 *uart)
{
	uint32_t depth = uart->fifo_depth;
	uint32_t guaranteed = depth - pl011_level_entries(depth, uart->tx_level);
	enum pl011_tx_mode mode = uart->config.tx_mode;
	if (__atomic_exchange_n(&uart->tx_fifo_shared, 0u, __ATOMIC_RELAXED) != 0u)
		mode = PL011_TX_POLL_FULL;

	uint32_t written;
	uint32_t first_fr = 0;
	uart->stats.tx_refills++;
	switch (mode) {
	case PL011_TX_HALF_FIFO:
		written = fill_blind(uart, guaranteed);
		break;
	case PL011_TX_HYBRID:
		written = fill_blind(uart, guaranteed);
		if (written == guaranteed)
			written += fill_polling(uart, depth, NULL, NULL);
		break;
	case PL011_TX_ADAPTIVE:
		written = refill_adaptive(uart, guaranteed);
		break;
	default:
		written = fill_polling(uart, 2u * depth, &first_fr, NULL);
		if (first_fr & PL011_FR_TXFE)
			uart->stats.tx_underruns++;
		break;
	}
	record_extra(uart, written > guaranteed ? written - guaranteed : 0u);
}

/* Any other writer polls; returns whether it filled the FIFO. Writing while TXIM is armed
 * voids the interrupt's blind guarantee. */
static bool refill_polling(struct pl011 *uart)
{
	bool full = false;
	if (txim_armed(uart))
		__atomic_store_n(&uart->tx_fifo_shared, 1u, __ATOMIC_RELAXED);
	uart->stats.tx_refills++;
	(void)fill_polling(uart, 2u * uart->fifo_depth, NULL, &full);
	return full;
}

/*
 * Leave TX able to make progress on its own: bytes queued means TXIM armed (the refill took the
 * FIFO above the trigger, so a transition will come, or TXIS is still asserted); an empty ring
 * means TXIM masked. Returns true when it armed TXIM and so offered the lock to the interrupt:
 * arming can raise TXIS at once (QEMU latches it on every DR write; on silicon a stale one), and
 * the interrupt would otherwise find the lock held and have to bounce the work back.
 */
static bool tx_finish(struct pl011 *uart, bool fifo_full)
{
	if (pl011_ring_count(&uart->tx_ring) != 0) {
		if (txim_armed(uart))
			return false;
		/* Blind counts assume TXIS came from a drain through the trigger after a full FIFO:
		 * an interrupt raised by arming alone must poll. */
		if (!fifo_full)
			__atomic_store_n(&uart->tx_fifo_shared, 1u, __ATOMIC_RELAXED);
		__atomic_store_n(&uart->tx_handover, 1u, __ATOMIC_SEQ_CST);
		txim_set(uart, true);
		return true;
	}
	txim_set(uart, false);
	/* A writer that queued just before the mask may have seen TXIM armed and left the start
	 * to us: look again once the mask is visible. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (pl011_ring_count(&uart->tx_ring) != 0)
		__atomic_store_n(&uart->tx_retry, 1u, __ATOMIC_SEQ_CST);
	return false;
}

/* End a turn holding the lock: finish, then release, unless the interrupt took the lock over
 * when TXIM was armed (then it releases). */
static void tx_finish_and_release(struct pl011 *uart, bool fifo_full)
{
	if (tx_finish(uart, fifo_full) &&
	    __atomic_exchange_n(&uart->tx_handover, 0u, __ATOMIC_SEQ_CST) == 0u)
		return;
	tx_lock_release(uart);
}

static bool tx_lock_take_or_defer(struct pl011 *uart, bool silence_irq)
{
	if (tx_lock_try(uart))
		return true;
	/* A holder that has just armed TXIM offers the lock (tx_finish): take it over. Exactly
	 * one of us clears tx_handover, so exactly one releases the lock. */
	if (silence_irq && __atomic_exchange_n(&uart->tx_handover, 0u, __ATOMIC_SEQ_CST) != 0u)
		return true;
	if (silence_irq) {
		/* The holder fills by polling (to TXFF or ring empty) after it sees tx_retry.
		 * Acknowledge TXIS so this interrupt does not re-enter while the holder is
		 * preempted, and make the next interrupt refill poll: the ICR may have dropped the
		 * transition a blind refill relies on. */
		pl011_reg_write(uart, PL011_ICR, PL011_INT_TX);
		__atomic_store_n(&uart->tx_fifo_shared, 1u, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&uart->tx_retry, 1u, __ATOMIC_SEQ_CST);
	/* The holder may have released between the two tries; then the work is ours. */
	return tx_lock_try(uart);
}

void pl011_tx_service(struct pl011 *uart, bool from_irq)
{
	if (!pl011_tx_uses_ring(uart))
		return;
	bool by_strategy = from_irq;
	for (uint32_t pass = 0; pass < TX_SERVICE_PASSES; pass++) {
		if (!tx_lock_take_or_defer(uart, from_irq && pass == 0))
			return;
		__atomic_store_n(&uart->tx_retry, 0u, __ATOMIC_RELAXED);
		bool fifo_full = false;
		if (by_strategy)
			refill_by_strategy(uart);
		else
			fifo_full = refill_polling(uart);
		by_strategy = false;
		tx_finish_and_release(uart, fifo_full);
		/* If the interrupt took the lock over, tx_retry is its business now; looking at it
		 * costs at most a pass that finds the lock held. */
		if (__atomic_load_n(&uart->tx_retry, __ATOMIC_SEQ_CST) == 0u)
			return;
	}
}

/* Prime an idle transmitter: the PL011 raises TXIS only when the FIFO drains through the
 * trigger, so waiting for a first interrupt with an empty FIFO would wait forever. */
static void tx_start_if_idle(struct pl011 *uart)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!txim_armed(uart))
		pl011_tx_service(uart, false);
}

/*
 * Stall guard for waits: if the ring's tail has not moved for (depth + 2) frame times while
 * bytes wait, the TX interrupt is not coming (lost, a model that never raises it, or CTS held
 * off): refill from here, which also re-arms the interrupt.
 */
struct tx_watch {
	uint32_t tail;
	uint32_t since_us;
	uint32_t window_us;
};

static void tx_watch_start(struct tx_watch *watch, const struct pl011 *uart,
			   const struct pl011_wait *wait)
{
	watch->tail = __atomic_load_n(&uart->tx_ring.tail, __ATOMIC_ACQUIRE);
	watch->since_us = pl011_wait_elapsed_us(wait);
	watch->window_us = pl011_frames_us(uart, uart->fifo_depth + 2u) + 1u;
}

static void tx_watch_check(struct tx_watch *watch, struct pl011 *uart,
			   const struct pl011_wait *wait)
{
	uint32_t tail = __atomic_load_n(&uart->tx_ring.tail, __ATOMIC_ACQUIRE);
	uint32_t now = pl011_wait_elapsed_us(wait);
	if (tail != watch->tail || pl011_ring_count(&uart->tx_ring) == 0) {
		watch->tail = tail;
		watch->since_us = now;
		return;
	}
	if (now - watch->since_us < watch->window_us)
		return;
	uart->stats.tx_stalls++;
	pl011_tx_service(uart, false);
	watch->since_us = now;
}

static bool tx_ring_empty(const struct pl011 *uart)
{
	return !pl011_tx_uses_ring(uart) || pl011_ring_count(&uart->tx_ring) == 0;
}

static bool fifo_drained(uint32_t fr)
{
	/* TXFE alone is not "sent": BUSY covers the character still shifting (TRM, FR). */
	return (fr & PL011_FR_TXFE) != 0 && (fr & PL011_FR_BUSY) == 0;
}

int pl011_tx_wait_drained(struct pl011 *uart, uint32_t budget_us)
{
	struct pl011_wait wait;
	struct tx_watch watch;
	pl011_wait_start(&wait, uart, budget_us);
	tx_watch_start(&watch, uart, &wait);
	for (;;) {
		uint32_t fr = pl011_reg_read(uart, PL011_FR);
		if (tx_ring_empty(uart) && fifo_drained(fr))
			return 0;
		if (pl011_tx_uses_ring(uart))
			tx_watch_check(&watch, uart, &wait);
		if (pl011_wait_expired(&wait))
			return PL011_ETIMEDOUT;
	}
}

int pl011_tx_wait_fifo_empty(struct pl011 *uart, uint32_t budget_us)
{
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, budget_us);
	while (!fifo_drained(pl011_reg_read(uart, PL011_FR))) {
		if (pl011_wait_expired(&wait))
			return PL011_ETIMEDOUT;
	}
	return 0;
}

uint32_t pl011_tx_discard(struct pl011 *uart)
{
	if (!pl011_tx_uses_ring(uart))
		return 0;
	/* On one core the holder (the interrupt) cannot be running under us, so the lock is
	 * free; on another core it is held for one refill, a few microseconds. */
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, pl011_frames_us(uart, 2) + 1000u);
	bool locked = tx_lock_try(uart);
	while (!locked && !pl011_wait_expired(&wait)) {
		(void)pl011_reg_read(uart, PL011_FR);
		locked = tx_lock_try(uart);
	}
	txim_set(uart, false);
	uint32_t dropped = (uint32_t)pl011_ring_count(&uart->tx_ring);
	pl011_ring_skip(&uart->tx_ring, dropped);
	if (locked)
		tx_lock_release(uart);
	return dropped;
}

/* Wait (bounded) for room in the FIFO, then write one byte. */
static bool put_polled(struct pl011 *uart, uint8_t byte, struct pl011_wait *wait)
{
	while (tx_read_fr(uart) & PL011_FR_TXFF) {
		if (pl011_wait_expired(wait))
			return false;
	}
	pl011_reg_write(uart, PL011_DR, byte);
	uart->stats.tx_bytes++;
	return true;
}

static size_t write_polled(struct pl011 *uart, const uint8_t *data, size_t len, uint32_t bound_us)
{
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, bound_us);
	size_t done = 0;
	while (done < len && put_polled(uart, data[done], &wait))
		done++;
	return done;
}

static size_t write_queued(struct pl011 *uart, const uint8_t *data, size_t len, uint32_t bound_us)
{
	struct pl011_wait wait;
	struct tx_watch watch;
	size_t done = 0;

	pl011_wait_start(&wait, uart, bound_us);
	tx_watch_start(&watch, uart, &wait);
	for (;;) {
		size_t n = pl011_ring_write(&uart->tx_ring, data + done, len - done);
		if (n != 0) {
			done += n;
			tx_start_if_idle(uart);
		}
		if (done == len || pl011_wait_expired(&wait))
			return done;
		/* The FR read is the wait's step: it paces the loop on the bus. */
		(void)pl011_reg_read(uart, PL011_FR);
		tx_watch_check(&watch, uart, &wait);
	}
}

int pl011_write(struct pl011 *uart, const void *data, size_t len, uint32_t bound_us)
{
	if (uart == NULL || (data == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	if (bound_us == PL011_WAIT_AUTO) {
		size_t queued = pl011_tx_uses_ring(uart) ? pl011_ring_count(&uart->tx_ring) : 0u;
		bound_us = pl011_backlog_deadline_us(uart, queued + len);
	}
	size_t done = pl011_tx_uses_ring(uart) ? write_queued(uart, data, len, bound_us)
					       : write_polled(uart, data, len, bound_us);
	if (done < len && bound_us != PL011_NO_WAIT)
		uart->stats.tx_timeouts++;
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
	size_t queued = pl011_tx_uses_ring(uart) ? pl011_ring_count(&uart->tx_ring) : 0u;
	if (bound_us == PL011_WAIT_AUTO)
		bound_us = pl011_backlog_deadline_us(uart, queued);
	int err = pl011_tx_wait_drained(uart, bound_us);
	if (err != 0)
		uart->stats.tx_timeouts++;
	if (pending != NULL)
		*pending = tx_ring_empty(uart) ? 0u : pl011_ring_count(&uart->tx_ring);
	return err;
}

int pl011_write_panic(struct pl011 *uart, const void *data, size_t len)
{
	if (uart == NULL || (data == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	if (pl011_state_get(uart) == PL011_STATE_STOPPED)
		return PL011_ESHUTDOWN;
	size_t queued = pl011_tx_uses_ring(uart) ? pl011_ring_count(&uart->tx_ring) : 0u;
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, pl011_backlog_deadline_us(uart, queued + len));

	/* If the lock is held, we interrupted its holder on this core: go on without it (we
	 * poll FR, so the FIFO cannot overflow) and void the holder's blind guarantee. */
	bool locked = tx_lock_try(uart);
	__atomic_store_n(&uart->tx_fifo_shared, 1u, __ATOMIC_RELAXED);
	bool ok = true;
	if (pl011_tx_uses_ring(uart)) {
		const uint8_t *segment;
		while (ok && pl011_ring_peek(&uart->tx_ring, &segment) != 0) {
			ok = put_polled(uart, segment[0], &wait);
			if (ok)
				pl011_ring_skip(&uart->tx_ring, 1);
		}
	}
	const uint8_t *bytes = data;
	size_t done = 0;
	while (ok && done < len) {
		ok = put_polled(uart, bytes[done], &wait);
		if (ok)
			done++;
	}
	if (locked) {
		if (pl011_tx_uses_ring(uart))
			tx_finish_and_release(uart, false);
		else
			tx_lock_release(uart);
	}
	return (int)done;
}
