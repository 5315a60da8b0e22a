/* Transmit path: TX ownership, the refill strategies, priming, polled and panic writes. */
#include "pl011_internal.h"

/*
 * TX ownership: one atomic word, uart->tx.owner (docs/design.md has the transition table).
 *  OWNED  one context moves bytes to the FIFO (ring modes) or writes it (polled mode); it alone
 *         consumes the ring, writes IMSC, IFLS and the tx fields, and counts TX statistics.
 *  RETRY  set by a context that found TX owned and needs the owner to send once more: the
 *         owner cannot let go until it has cleared RETRY and made a polling pass.
 *  ARMED  TXIM is unmasked (changed only by the owner, after writing IMSC): when it is set and
 *         nobody owns TX, the TX interrupt is sure to come and will take the ring.
 *  PANIC  the owner is a panic write in its last pass: writers queue nothing new until it
 *         lets go, so that the pass (and the panic) ends however fast they would queue.
 *  STOPPED  shutdown has taken TX for good (with OWNED): panics are refused from then on.
 *  PANIC_OWNER  the owner is a panic write: another panic waits for it within its deadline.
 *  PANIC_WAITS  (ring modes) a panic waits for TX: an owner that stops at its pass limit
 *         (a line as fast as the CPU) lets go and waits for it to take TX before asking again.
 *  bits 8-15  the owner's core + 1 (config.core_id), 0 when not known: a panic that finds its
 *         own core owning TX has preempted that owner and need not wait for it.
 * In POLLED mode RETRY is a panic's request instead: the polled writer stops at the next byte
 * and nobody but a panic takes TX while it is set.
 * Invariant on every release: the ring is empty and TXIM masked, or the TX interrupt is sure
 * to come: its cause was latched and not cleared since, or the FIFO was seen full (above any
 * trigger) after it was last written, so draining it must pass the trigger (TRM 2.8: TXIS is
 * raised on that transition, never by a low level alone).
 */
#define TX_OWNED 1u
#define TX_RETRY 2u
#define TX_ARMED 4u
#define TX_PANIC 8u
#define TX_STOPPED 16u
#define TX_PANIC_OWNER 32u /* the owner is a panic write (another panic waits for it) */
#define TX_PANIC_WAITS 64u /* a panic waits for TX (ring modes) */
#define TX_CORE_SHIFT 8u
#define TX_CORE_MASK (0xFFu << TX_CORE_SHIFT)
/* What a release clears besides OWNED. */
#define TX_OWNER_BITS (TX_OWNED | TX_PANIC | TX_PANIC_OWNER | TX_CORE_MASK)

/* ADAPTIVE: refills without underrun before the trigger moves one level down, at first and at
 * most; and the highest trigger it uses. Above 1/2 each interrupt carries so few characters
 * that, under a jittery load, more interrupts mean more late ones (docs/benchmarks.md). */
#define ADAPTIVE_FIRST_PATIENCE 64u
#define ADAPTIVE_MAX_PATIENCE 4096u
#define ADAPTIVE_CEILING PL011_LEVEL_1_2

/* MEASURED (below, before refill_measured): samples in a row that must fit a lower level before
 * it is used, at first and at most (doubled each time a lowered level had to be left again);
 * the refills between sampling bursts, at first and at most (fourfold after each burst that
 * moved nothing), and at the lowest level; the frames a chain may span before a fresh full
 * FIFO restarts it (each frame may add 1 ns of rounding to the lateness); the clock reads that
 * init may spend timing the clock's step (twice: to the next tick, then one tick); the top-ups
 * in a row that found the FIFO barely drained before top-ups stop. */
#define MEASURED_CALM_SAMPLES 256u
#define MEASURED_MAX_CALM_SAMPLES 4096u
#define MEASURED_FIRST_PAUSE 16u
#define MEASURED_MAX_PAUSE 4096u
#define MEASURED_FLOOR_PAUSE 16u
#define MEASURED_CHAIN_FRAMES 1024u
#define MEASURED_PROMPT_REFILLS 256u
#define MEASURED_STEP_READS (1u << 17)

/* ---- the owner word ---- */

static uint32_t owner_load(const struct pl011 *uart)
{
	pl011_io_atomic_point();
	return pl011_atomic_load(&uart->tx.owner, __ATOMIC_SEQ_CST);
}

/* Compare and swap; on failure *expected receives the word as it is now. */
static bool owner_swap(struct pl011 *uart, uint32_t *expected, uint32_t desired)
{
	pl011_io_atomic_point();
	return __atomic_compare_exchange_n(&uart->tx.owner, expected, desired, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* OWNED with the caller's core, for the word. */
static uint32_t owner_claim(const struct pl011 *uart)
{
	if (uart->config.core_id == NULL)
		return TX_OWNED;
	uint32_t core = uart->config.core_id(uart->config.core_context) % 255u + 1u;
	return TX_OWNED | (core << TX_CORE_SHIFT);
}

/*
 * After every successful take of TX: the mirror of the barrier before each release, so that
 * our FR reads and DR writes as the new owner reach the UART after the swap that gave us TX,
 * as every observer sees them (lib/pl011_io.h). Returns true, for the caller's return.
 * It is also the fence between the swap and our loads of the ring's head, which tx_kick's
 * fence pairs with (review S3). A writer that saw ARMED and nobody owning returns, counting on
 * the interrupt's owner to see its head store; in C11 that needs seq_cst fences on both sides
 * (C11 7.17.4p6 [C++ atomics.fences]: writer's store, fence X; our fence Y after the swap, then
 * the load; X precedes Y in the total order because the writer's load of the word precedes our
 * swap, so the load sees the store). A seq_cst swap alone does not order our later acquire
 * loads: Armv8.3's LDAPR (RCpc, FEAT_LRCPC; Arm ARM B2.3, Load-AcquirePC) may be satisfied
 * before an earlier store-release to another address, where LDAR (RCsc) may not, and a
 * compiler may emit LDAPR for an acquire load. pl011_io_barrier is a DMB SY (a full barrier
 * for every access type and observer) wherever there are two cores, and the C11 fence
 * elsewhere, so one call covers both.
 */
static bool tx_acquired(void)
{
	pl011_io_barrier();
	return true;
}

/* Take ownership with `claim` if nobody holds it (nor a panic asks for it: POLLED's RETRY;
 * in the ring modes RETRY is only ever set while OWNED is). */
static bool tx_try_own_with(struct pl011 *uart, uint32_t claim)
{
	uint32_t word = owner_load(uart);
	while ((word & (TX_OWNED | TX_RETRY | TX_STOPPED)) == 0) {
		if (owner_swap(uart, &word, word | claim))
			return tx_acquired();
	}
	return false;
}

static bool tx_try_own(struct pl011 *uart)
{
	return tx_try_own_with(uart, owner_claim(uart));
}

/* Take ownership, or make the owner look at the ring once more before it lets go. One swap
 * decides, so the owner cannot slip away between our look and our request. */
static bool tx_own_or_request(struct pl011 *uart)
{
	uint32_t claim = owner_claim(uart);
	uint32_t word = owner_load(uart);
	for (;;) {
		if ((word & (TX_OWNED | TX_RETRY)) == (TX_OWNED | TX_RETRY) || (word & TX_STOPPED) != 0)
			return false;
		uint32_t desired = word | ((word & TX_OWNED) != 0 ? TX_RETRY : claim);
		if (owner_swap(uart, &word, desired))
			return (word & TX_OWNED) == 0 && tx_acquired();
	}
}

/* Let go, unless a pass was requested meanwhile: then take the request (clear RETRY, still
 * owning) and return false. The barrier first: our last DR, IMSC and IFLS writes reach the
 * UART before the next owner, on another core, can see the word free (lib/pl011_io.h). */
static bool tx_release(struct pl011 *uart)
{
	pl011_io_barrier();
	uint32_t word = owner_load(uart);
	for (;;) {
		bool retry = (word & TX_RETRY) != 0;
		uint32_t desired = retry ? (word & ~TX_RETRY) : (word & ~TX_OWNER_BITS);
		if (owner_swap(uart, &word, desired))
			return !retry;
	}
}

/* Owner only: record in the word what IMSC now holds. */
static void tx_set_armed(struct pl011 *uart, uint32_t word, bool armed)
{
	for (;;) {
		uint32_t desired = armed ? (word | TX_ARMED) : (word & ~TX_ARMED);
		if (owner_swap(uart, &word, desired))
			return;
	}
}

/* Owner only: unmask or mask TXIM. IMSC first, then ARMED, so the word never claims an
 * interrupt the hardware cannot raise; the barrier keeps the IMSC write ahead of whatever
 * another core does once it owns TX after us. */
static void tx_arm(struct pl011 *uart, bool armed)
{
	uint32_t word = owner_load(uart);
	if (((word & TX_ARMED) != 0) == armed)
		return;
	pl011_imsc_update(uart, PL011_INT_TX, armed ? PL011_INT_TX : 0u);
	pl011_io_barrier();
	tx_set_armed(uart, word, armed);
}

/* Owner only, after IMSC was cleared by other means. */
static void tx_disarmed(struct pl011 *uart)
{
	pl011_io_barrier();
	tx_set_armed(uart, owner_load(uart), false);
}

/* Whether a panic writes beside the owner now (tx_burst_allowed then allows nothing). */
static bool tx_beside_present(const struct pl011 *uart)
{
	pl011_io_atomic_point();
	return __atomic_load_n(&uart->tx.beside, __ATOMIC_SEQ_CST) != 0;
}

/* Whether shutdown, its wait for us run out, marked TX taken for good: an owner then lets go
 * after its pass, so that shutdown takes the ring and counts as discarded exactly what was not
 * sent. */
static bool tx_stopped(const struct pl011 *uart)
{
	return (owner_load(uart) & TX_STOPPED) != 0;
}

/* Whether the owner must stop: a panic writes beside it, or shutdown waits to take TX. */
static bool tx_must_pause(const struct pl011 *uart)
{
	return tx_beside_present(uart) || tx_stopped(uart);
}

static bool tx_ring_empty(const struct pl011 *uart)
{
	return !pl011_tx_uses_ring(uart) || pl011_ring_count(&uart->tx.ring) == 0;
}

/* ---- filling the FIFO (owner only) ---- */

static uint32_t tx_read_fr(struct pl011 *uart)
{
	uart->stats.tx_fr_reads++;
	return pl011_reg_read(uart, PL011_FR);
}

/*
 * Owner, before each burst: how many of `want` characters it may write before it looks again.
 * A panic on another core whose wait for us ran out (we were stopped) writes beside us, each
 * character only into an empty FIFO; while it does (tx.beside), we write nothing. A burst we
 * began before it came is at most depth - 1 characters, so with its one character the FIFO it
 * saw empty cannot overflow. The barrier first: our earlier characters have reached the UART
 * before the look, so the panic's FR read counts them.
 */
static uint32_t tx_burst_allowed(struct pl011 *uart, size_t want)
{
	uint32_t most = uart->line.fifo_depth - 1u;
	pl011_io_barrier();
	if (tx_beside_present(uart))
		return 0;
	return want < most ? (uint32_t)want : most;
}

/* Write up to limit ring bytes without reading FR: only where space is guaranteed. */
static uint32_t fill_blind(struct pl011 *uart, uint32_t limit)
{
	uint32_t done = 0;
	while (done < limit) {
		const uint8_t *segment;
		size_t n = pl011_ring_peek(&uart->tx.ring, &segment);
		if (n == 0)
			break;
		if (n > limit - done)
			n = limit - done;
		n = tx_burst_allowed(uart, n);
		if (n == 0)
			break;
		/* No DE assert here: blind writes come only from a latched TX interrupt, which
		 * needs TXIM armed, which a polling pass armed after its bytes asserted DE; DE goes
		 * off only with the ring empty and TXIM masked. */
		pl011_reg_write_bytes(uart, PL011_DR, segment, n);
		pl011_ring_skip(&uart->tx.ring, n);
		done += (uint32_t)n;
	}
	uart->stats.tx_bytes += done;
	return done;
}

/*
 * Write bytes while FR shows room. *fr holds an FR value read since the last DR write and
 * receives the last one read; *reads counts the FR reads. Returns how many were written:
 * fewer than n only when *fr shows TXFF. The loop keeps both addresses in registers: per
 * character a load, a store and the FR read that allows the next.
 */
static size_t write_while_room(struct pl011 *uart, const uint8_t *bytes, size_t n, uint32_t *fr,
			       uint32_t *reads)
{
	uintptr_t base = uart->config.base;
	uint32_t value = *fr;
	size_t i = 0;
	size_t burst_end = tx_burst_allowed(uart, n);
	while ((value & PL011_FR_TXFF) == 0 && i < burst_end) {
		pl011_io_write(base + PL011_DR, bytes[i]);
		if (++i == n)
			break;
		value = pl011_io_read(base + PL011_FR);
		if (i == burst_end)
			burst_end += tx_burst_allowed(uart, n - i);
	}
	*fr = value;
	*reads += (uint32_t)(i == n ? n - 1u : i);
	return i;
}

/*
 * Write ring bytes while FR.TXFF is clear, at most limit. *first_fr (if given) receives the
 * first FR value, which tells whether the FIFO had run dry (an underrun). Returns whether the
 * refill stopped at TXFF, i.e. saw the FIFO full.
 */
static bool fill_polling(struct pl011 *uart, uint32_t limit, uint32_t *first_fr, uint32_t *written)
{
	uint32_t done = 0;
	uint32_t reads = 0;
	bool full = false;
	while (done < limit) {
		const uint8_t *segment;
		size_t n = pl011_ring_peek(&uart->tx.ring, &segment);
		if (n == 0)
			break;
		if (n > limit - done)
			n = limit - done;
		/* Where the bytes are known, not earlier: a writer may queue them after any
		 * earlier look at the ring. */
		pl011_rs485_before_send(uart);
		uint32_t fr = pl011_reg_read(uart, PL011_FR);
		reads++;
		if (first_fr != NULL && done == 0)
			*first_fr = fr;
		size_t i = write_while_room(uart, segment, n, &fr, &reads);
		pl011_ring_skip(&uart->tx.ring, i);
		done += (uint32_t)i;
		if ((fr & PL011_FR_TXFF) != 0) {
			uart->stats.tx_refill_full++;
			full = true;
			break;
		}
		/* Room, yet the burst stopped: a panic writes beside us (tx_burst_allowed). Looping
		 * until it leaves spun for ever where it is the context we preempted. */
		if (i < n)
			break;
	}
	uart->stats.tx_fr_reads += reads;
	uart->stats.tx_bytes += done;
	if (written != NULL)
		*written = done;
	return full;
}

static void record_extra(struct pl011 *uart, uint32_t extra)
{
	uart->stats.tx_extra_chars += extra;
	uint32_t bin = extra < PL011_EXTRA_HISTOGRAM_BINS ? extra : PL011_EXTRA_HISTOGRAM_BINS - 1u;
	uart->stats.tx_extra_histogram[bin]++;
}

/* A TXIS still latched from the old trigger may be serviced with the FIFO above the new one,
 * where the blind count would overflow (the model caught exactly that when lowering 3/4 to
 * 1/2): the next refill polls. */
static void set_tx_level(struct pl011 *uart, uint32_t level)
{
	uart->tx.level = level;
	uart->tx.poll_next = 1;
	uart->stats.tx_trigger_changes++;
	pl011_reg_write(uart, PL011_IFLS, pl011_ifls_value(level, uart->line.rx_level));
}

/*
 * One FR read per refill. An empty FIFO means the line went idle (underrun): ask for the
 * interrupt earlier and refill the FIFO whole. The level moves before the fill: the latched
 * cause then still stands against the new level, so an interrupt is sure to come whatever the
 * fill reaches; moved after, a FIFO left between the two levels would never cross the new one.
 * A long run without underruns lowers the trigger so that each interrupt carries more.
 */
static uint32_t refill_adaptive(struct pl011 *uart, uint32_t guaranteed)
{
	if ((tx_read_fr(uart) & PL011_FR_TXFE) != 0) {
		uart->stats.tx_underruns++;
		/* An underrun soon after a lowering: that level is too low for this load, so wait
		 * twice as long before trying it again. */
		if (uart->tx.lowered && uart->tx.patience < ADAPTIVE_MAX_PATIENCE)
			uart->tx.patience *= 2u;
		uart->tx.lowered = 0;
		uart->tx.clean_refills = 0;
		if (uart->tx.level < ADAPTIVE_CEILING)
			set_tx_level(uart, uart->tx.level + 1u);
		return fill_blind(uart, uart->line.fifo_depth);
	}
	uint32_t written = fill_blind(uart, guaranteed);
	if (++uart->tx.clean_refills >= uart->tx.patience) {
		uart->tx.clean_refills = 0;
		uart->tx.lowered = 0;
		if (uart->tx.level > PL011_LEVEL_1_8) {
			set_tx_level(uart, uart->tx.level - 1u);
			uart->tx.lowered = 1;
		}
	}
	return written;
}

/*
 * MEASURED: the driver times its own interrupt latency with the clock it already has and uses
 * the lowest trigger whose headroom covers the latency with half as much again to spare.
 *
 * A chain gives each sampled entry its lateness in absolute terms. It starts at a refill that
 * polled FR until TXFF: at that clock read the FIFO held `depth` entries, so its level falls to
 * the trigger `depth - trigger - 1` frames later at the earliest (the character shifting may
 * end at once). From there, each refill that writes w characters before the line runs dry moves
 * the next crossing w frames on, so the time of every later crossing is known without another
 * FR read; the entry's clock read less the crossing's time is how late the handler ran, plus
 * any time the line stood idle since the chain began (a dry FIFO delays every later crossing):
 * a run-dry within the chain shows at its next sample, and so does a constant latency, however
 * long. The clock's step (timed at init) is added, so the lateness never understates; a coarse
 * clock only makes the judge keep a higher trigger. Each sample also reads FR once: TXFE at entry
 * means the level is too low whatever the clock says.
 *
 * A sample too late for this level raises the trigger at once, before the fill, to the lowest
 * level that covers it (at most 1/2: above it each interrupt carries so few characters that
 * more interrupts mean more late ones, docs/benchmarks.md); calm_needed samples in a row that
 * fit the next level down lower it by one, after the fill. Samples come in bursts, one per
 * refill; a burst that moved nothing makes the pause before the next four times longer (at
 * most MEASURED_MAX_PAUSE refills); at the lowest level a sample comes every
 * MEASURED_FLOOR_PAUSE + 1 refills, and the chain spans the pause, so a change of regime that
 * runs the FIFO dry is seen within that many refills. Entries later than the next level down
 * could take (topup) make every refill poll FR after its blind part, as HYBRID does: a late
 * refill finds the FIFO low and filling it buys the next interrupt more headroom; a calm line
 * reads FR only for the chain and the samples. Without a usable clock it stays at its
 * starting level (1/2 by default) and tops up every refill: HYBRID.
 */
static void measured_burst_end(struct pl011_tx *tx)
{
	tx->calm = 0;
	if (tx->level == PL011_LEVEL_1_8) {
		tx->sample_wait = MEASURED_FLOOR_PAUSE;
		return;
	}
	tx->sample_wait = tx->sample_pause;
	if (tx->sample_pause < MEASURED_MAX_PAUSE)
		tx->sample_pause *= 4u;
}

/* The lowest level above this one whose headroom covers need, at most the ceiling. */
static uint32_t measured_level_for(const struct pl011_tx *tx, uint64_t need)
{
	uint32_t target = tx->level + 1u;
	while (target < ADAPTIVE_CEILING && tx->headroom_ns[target] < need)
		target++;
	return target;
}

/* Judge one sample (before the fill): raise at once if it is too late for this level or the
 * FIFO ran dry; returns the level to move down to after the fill, or 0. */
static uint32_t measured_judge(struct pl011 *uart, uint64_t late_ns, bool dry)
{
	struct pl011_tx *tx = &uart->tx;
	uint64_t need = late_ns + late_ns / 2u;
	uint32_t level = tx->level;
	/* Top up for a lateness the clock's step cannot explain, too much for the level below. */
	uint64_t steps_ns = 2000u * (uint64_t)tx->clock_step_us;
	uint64_t sure_ns = late_ns > steps_ns ? late_ns - steps_ns : 0u;
	uint32_t below = level > PL011_LEVEL_1_8 ? level - 1u : level;
	if (dry || sure_ns + sure_ns / 2u > tx->headroom_ns[below])
		tx->topup = 1;
	if (dry || need > tx->headroom_ns[level]) {
		if (level >= ADAPTIVE_CEILING) {
			measured_burst_end(tx);
			return 0;
		}
		/* A level we lowered to was too low after all: wait longer before the next try. */
		if (tx->lowered && tx->calm_needed < MEASURED_MAX_CALM_SAMPLES)
			tx->calm_needed *= 2u;
		tx->lowered = 0;
		tx->calm = 0;
		tx->sample_pause = MEASURED_FIRST_PAUSE;
		tx->sample_wait = 0; /* look again at the new level */
		set_tx_level(uart, measured_level_for(tx, need));
		return 0;
	}
	if (level == PL011_LEVEL_1_8 || need > tx->headroom_ns[level - 1u]) {
		measured_burst_end(tx);
		return 0;
	}
	if (++tx->calm < tx->calm_needed)
		return 0;
	tx->calm = 0;
	tx->lowered = 1;
	tx->topup = 0; /* calm_needed prompt entries in a row */
	tx->sample_pause = MEASURED_FIRST_PAUSE;
	return level - 1u;
}

/* At an entry the chain reaches: the clock and FR, then the judge. */
static uint32_t measured_sample(struct pl011 *uart)
{
	struct pl011_tx *tx = &uart->tx;
	uint32_t now = uart->config.clock(uart->config.clock_context);
	/* The first sample of a burst (after a pause, or at a new level) also reads FR; within a
	 * burst the chain's lateness already shows a dry FIFO, at the cost of a clock read. */
	bool dry = tx->calm == 0 && (tx_read_fr(uart) & PL011_FR_TXFE) != 0;
	if (dry)
		uart->stats.tx_underruns++;
	uint64_t elapsed_ns = ((uint64_t)(uint32_t)(now - tx->chain_at_us) + tx->clock_step_us) * 1000u;
	uint64_t crossing_ns = (uint64_t)tx->chain_frames * uart->line.frame_ns;
	return measured_judge(uart, elapsed_ns > crossing_ns ? elapsed_ns - crossing_ns : 0u, dry);
}

/* What a top-up found: more than one character of room means the entry came late (the FIFO
 * had drained past the trigger). With a clock, MEASURED_PROMPT_REFILLS prompt top-ups in a row
 * end the top-ups until a sample finds entries late again; without one nothing could restart
 * them, so they go on (HYBRID). */
static void measured_topup_seen(struct pl011_tx *tx, uint32_t more)
{
	if (tx->clock_step_us == 0 || !tx->topup)
		return;
	if (more > 1u) {
		tx->prompt = 0;
	} else if (++tx->prompt >= MEASURED_PROMPT_REFILLS) {
		tx->topup = 0;
		tx->prompt = 0;
	}
}

static uint32_t refill_measured(struct pl011 *uart, uint32_t guaranteed)
{
	struct pl011_tx *tx = &uart->tx;
	uint32_t lower = 0;
	bool long_chain = tx->chain_frames > MEASURED_CHAIN_FRAMES;
	if (tx->sample_wait != 0 && !long_chain)
		tx->sample_wait--;
	else if (tx->chain_open)
		lower = measured_sample(uart);
	if (long_chain)
		tx->chain_open = 0; /* sampled: start afresh, before the rounding adds up */
	uint32_t written = fill_blind(uart, guaranteed);
	bool start = !tx->chain_open && tx->clock_step_us != 0;
	bool full = false;
	if ((tx->topup || start) && written == guaranteed) {
		uint32_t more = 0;
		full = fill_polling(uart, uart->line.fifo_depth, NULL, &more);
		written += more;
		measured_topup_seen(tx, more);
	}
	if (tx->poll_next || written < guaranteed) {
		tx->chain_open = 0; /* another writer, a new level, or the ring ran out */
	} else if (start && full) {
		tx->chain_at_us = uart->config.clock(uart->config.clock_context);
		tx->chain_frames = uart->line.fifo_depth - pl011_level_entries(uart->line.fifo_depth,
									   tx->level) - 1u;
		tx->chain_open = 1;
	} else if (tx->chain_open) {
		tx->chain_frames += written;
	}
	if (lower != 0)
		set_tx_level(uart, lower);
	return written;
}

/* Microseconds between two ticks of the clock; 0 without a clock or if it does not move within
 * MEASURED_STEP_READS reads (then MEASURED cannot time anything). */
static uint32_t measured_clock_step(struct pl011 *uart)
{
	pl011_clock_fn clock = uart->config.clock;
	if (clock == NULL || uart->config.tx_mode != PL011_TX_MEASURED)
		return 0;
	uint32_t ticks[3];
	ticks[0] = clock(uart->config.clock_context);
	for (uint32_t tick = 1; tick < 3u; tick++) {
		uint32_t reads = 0;
		do
			ticks[tick] = clock(uart->config.clock_context);
		while (ticks[tick] == ticks[tick - 1u] && ++reads < MEASURED_STEP_READS);
		if (ticks[tick] == ticks[tick - 1u])
			return 0;
	}
	return ticks[2] - ticks[1];
}

void pl011_tx_time_clock(struct pl011 *uart)
{
	uart->tx.clock_step_us = measured_clock_step(uart);
}

/* MEASURED's table: per level, the headroom ((trigger + 1) entries: the line stays busy that
 * long after the crossing) in nanoseconds of line time; the clock's step; its sampling state. */
static void measured_reset(struct pl011 *uart)
{
	struct pl011_tx *tx = &uart->tx;
	uint32_t depth = uart->line.fifo_depth;
	for (uint32_t level = PL011_LEVEL_1_8; level <= PL011_LEVEL_7_8; level++) {
		uint64_t headroom = (pl011_level_entries(depth, level) + 1u) * uart->line.frame_ns;
		tx->headroom_ns[level] = headroom > UINT32_MAX ? UINT32_MAX : (uint32_t)headroom;
	}
	/* The step was timed before the UART was programmed (pl011_tx_time_clock). A clock too
	 * coarse to time even the highest level's headroom is no use to the judge. */
	if ((uint64_t)tx->clock_step_us * 1000u > tx->headroom_ns[ADAPTIVE_CEILING])
		tx->clock_step_us = 0;
	tx->chain_open = 0;
	tx->chain_frames = 0;
	tx->topup = tx->clock_step_us == 0;
	tx->prompt = 0;
	tx->sample_wait = 0;
	tx->sample_pause = MEASURED_FIRST_PAUSE;
	tx->calm = 0;
	tx->calm_needed = MEASURED_CALM_SAMPLES;
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
	enum pl011_tx_mode mode = uart->config.tx_mode;
	if (uart->tx.poll_next) {
		uart->tx.poll_next = 0;
		uart->tx.chain_open = 0; /* the crossings are no longer a refill apart */
		mode = PL011_TX_POLL_FULL;
	}

	uint32_t written = 0;
	uint32_t first_fr = 0;
	uart->stats.tx_refills++;
	switch (mode) {
	case PL011_TX_HALF_FIFO:
		written = fill_blind(uart, guaranteed);
		break;
	case PL011_TX_HYBRID: {
		written = fill_blind(uart, guaranteed);
		uint32_t more = 0;
		if (written == guaranteed)
			(void)fill_polling(uart, depth, NULL, &more);
		written += more;
		break;
	}
	case PL011_TX_ADAPTIVE:
		written = refill_adaptive(uart, guaranteed);
		break;
	case PL011_TX_MEASURED:
		written = refill_measured(uart, guaranteed);
		break;
	default:
		(void)fill_polling(uart, 2u * depth, &first_fr, &written);
		if ((first_fr & PL011_FR_TXFE) != 0)
			uart->stats.tx_underruns++;
		break;
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
	uart->stats.tx_refills++;
	bool full = fill_polling(uart, tx_pass_limit(uart), &first_fr, &written);
	*limited = !full && written == tx_pass_limit(uart);
	if (written != 0)
		uart->tx.poll_next = 1;
	/* The stall guard's pass: bytes waited, so an empty FIFO is the line run dry. */
	if (uart->tx.stall_pass && (first_fr & PL011_FR_TXFE) != 0)
		uart->stats.tx_underruns++;
	uart->tx.stall_pass = 0;
	return full;
}

/* Just let go at a pass limit: while a panic says it waits, give it the time its own spin
 * needs to take TX (it looks at the word at every step), at most 100 us, the margin of its
 * ownership wait. Not the wait hook: this may run in the interrupt handler. */
static void tx_let_panic_in(struct pl011 *uart)
{
	struct pl011_wait wait;
	pl011_wait_start_panic(&wait, uart, 100u);
	uint32_t word = owner_load(uart);
	while ((word & (TX_PANIC_WAITS | TX_OWNED)) == TX_PANIC_WAITS && !pl011_wait_expired(&wait))
		word = owner_load(uart);
}

/*
 * Send as the owner, then let go leaving the invariant true: the ring empty with TXIM masked,
 * or TXIM armed with an interrupt sure to come. `latched` says the TX cause is latched (the
 * interrupt's own refill); any other pass must see the FIFO full before it may arm. A request
 * made meanwhile (RETRY) means another polling pass.
 */
static void tx_send_and_release(struct pl011 *uart, bool latched)
{
	for (;;) {
		bool sure;
		bool limited = false;
		bool latched_pass = latched;
		if (latched)
			refill_by_strategy(uart);
		sure = latched || refill_until_full(uart, &limited);
		latched = false;
		if (pl011_ring_count(&uart->tx.ring) == 0) {
			tx_arm(uart, false);
			pl011_events_tx_ring_emptied(uart);
		} else if (latched_pass ? !tx_must_pause(uart) : sure) {
			/* (A polling pass that saw the FIFO full may arm even beside a panic: the
			 * drain brings the interrupt, which then finds the panic.) */
			tx_arm(uart, true);
		} else if (limited) {
			/* A line as fast as we write: let go between passes, so that a panic
			 * waiting on another core gets TX within one pass, then own again or leave
			 * the rest to whoever took it (RETRY). */
			if (tx_release(uart)) {
				tx_let_panic_in(uart);
				if (!tx_own_or_request(uart))
					return;
			}
			continue;
		} else if (tx_must_pause(uart)) {
			/* A panic writes beside us and we may write nothing: let go masked, not
			 * armed, and not spinning. It may be the context this interrupt preempted
			 * (then neither spinning nor a TXIS left latched under TXIM, which calls
			 * us straight back, lets it finish); it sends the rest when it leaves
			 * (panic_beside_owner), or asks us for another pass (RETRY). Or shutdown
			 * waits for us to let go (tx_take_for_good), and takes the ring. Looked at
			 * only where a pass stopped short: a full FIFO or a pass limit needs no
			 * look, which keeps it off the per-byte path. */
			tx_arm(uart, false);
		} else {
			continue; /* bytes came after the ring ran dry: send them too */
		}
		if (tx_release(uart))
			return;
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
	if ((owner_load(uart) & (TX_ARMED | TX_OWNED)) == TX_ARMED)
		return;
	if (tx_own_or_request(uart))
		tx_send_and_release(uart, false);
}

void pl011_tx_reset(struct pl011 *uart, uint32_t tx_level)
{
	if (pl011_tx_uses_ring(uart))
		(void)pl011_ring_init(&uart->tx.ring, uart->config.tx_buffer,
				      uart->config.tx_buffer_size);
	uart->tx.level = tx_level;
	uart->tx.poll_next = 0;
	uart->tx.clean_refills = 0;
	uart->tx.patience = ADAPTIVE_FIRST_PATIENCE;
	uart->tx.lowered = 0;
	measured_reset(uart);
	__atomic_store_n(&uart->tx.unowned_bytes, 0u, __ATOMIC_RELAXED);
	__atomic_store_n(&uart->tx.beside, 0u, __ATOMIC_RELAXED);
	__atomic_store_n(&uart->tx.stall_feeding, 0u, __ATOMIC_RELAXED);
	__atomic_store_n(&uart->tx.panic_budget_us, 0u, __ATOMIC_RELAXED);
	pl011_io_barrier(); /* init's register writes land before another core can take TX */
	pl011_atomic_store(&uart->tx.owner, 0u, __ATOMIC_SEQ_CST);
}

void pl011_tx_service_irq(struct pl011 *uart)
{
	if (!pl011_tx_uses_ring(uart))
		return;
	if (tx_try_own(uart)) {
		tx_send_and_release(uart, true);
		return;
	}
	/* Another context owns TX: one we preempted, which cannot run until we return, or another
	 * core. Clear TXIS so the level-sensitive line does not call us again meanwhile, then ask
	 * for a pass; the clear comes first so that the pass (which sees the FIFO full before it
	 * arms) cannot be relying on the latch we clear. */
	pl011_reg_write(uart, PL011_ICR, PL011_INT_TX);
	pl011_io_barrier();
	if (tx_own_or_request(uart))
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
	uart->stats.tx_stalls++;
	if (tx_own_or_request(uart)) {
		uart->tx.stall_pass = 1;
		tx_send_and_release(uart, false);
	}
	watch->tail = tx_tail(uart);
	watch->since_us = now;
	tx_watch_feed(watch, uart, true);
}

int pl011_tx_wait_drained(struct pl011 *uart, uint32_t budget_us)
{
	struct pl011_wait wait;
	struct tx_watch watch;
	pl011_wait_start(&wait, uart, budget_us);
	tx_watch_start(&watch, uart, &wait);
	for (;;) {
		uint32_t fr = pl011_reg_read(uart, PL011_FR);
		if (tx_ring_empty(uart) && (fr & PL011_FR_DRAINED_MASK) == PL011_FR_DRAINED)
			return 0;
		if (pl011_tx_uses_ring(uart))
			tx_watch_check(&watch, uart, &wait);
		if (pl011_wait_expired(&wait))
			return PL011_ETIMEDOUT;
	}
}

/* Own TX within a bounded wait: another core may hold it for a refill or a polled write. */
static bool tx_own_within(struct pl011 *uart, struct pl011_wait *wait)
{
	/* STOPPED with the port no longer running is shutdown's (or init's) for good: no use
	 * waiting. pl011_set_line holds TX with STOPPED too, on a running port, and gives it
	 * back: wait for it within the bound. */
	bool owned = tx_try_own(uart);
	while (!owned && !(tx_stopped(uart) && !pl011_is_running(uart)) &&
	       !pl011_wait_expired(wait))
		owned = tx_try_own(uart);
	return owned;
}

/* Polled mode: let go in one swap. RETRY stays: it is a panic's request, which the panic
 * clears when it takes TX (nobody else takes it meanwhile). */
static void tx_release_polled(struct pl011 *uart)
{
	pl011_io_barrier();
	uint32_t word = owner_load(uart);
	while (!owner_swap(uart, &word, word & ~TX_OWNER_BITS))
		;
}

/* Whether a panic on another core asks the polled writer for TX. */
static bool tx_panic_asks(const struct pl011 *uart)
{
	return !pl011_tx_uses_ring(uart) && (owner_load(uart) & TX_RETRY) != 0;
}

/* Whether a panic owns TX (writers then queue nothing new). */
static bool tx_panic_owns(const struct pl011 *uart)
{
	return (owner_load(uart) & TX_PANIC) != 0;
}

/* Time shutdown gives another core to let go of TX, or to finish a byte it writes beside the
 * owner: every owner lets go within one refill, a FIFO's worth of polled characters or one
 * step of a panic's wait, which ends once the port is no longer running. */
static uint32_t tx_stop_wait_us(const struct pl011 *uart)
{
	return pl011_frames_us(uart, 2) + 1000u;
}

/* Take TX with `claim` once nobody owns it, within the wait. */
static bool tx_take_when_free(struct pl011 *uart, uint32_t claim, struct pl011_wait *wait)
{
	for (;;) {
		uint32_t word = owner_load(uart);
		if ((word & TX_OWNED) == 0 && owner_swap(uart, &word, word | claim))
			return tx_acquired();
		if (pl011_wait_expired(wait))
			return false;
	}
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
	uint32_t claim = owner_claim(uart) | TX_STOPPED;
	if (tx_take_when_free(uart, claim, wait))
		return true;
	uint32_t word = owner_load(uart);
	while (!owner_swap(uart, &word, word | TX_STOPPED))
		;
	pl011_wait_start(wait, uart, tx_stop_wait_us(uart));
	return tx_take_when_free(uart, claim, wait);
}

/* A panic writing beside the owner holds tx.beside; it checks STOPPED after taking it, and
 * we look at it after setting STOPPED: one of us sees the other. */
static void tx_wait_beside_done(struct pl011 *uart, struct pl011_wait *wait)
{
	(void)pl011_wait_presence_gone(&uart->tx.beside, wait);
}

uint32_t pl011_tx_stop(struct pl011 *uart)
{
	/* On this core the owner would have to be a context we preempted, and shutdown runs in
	 * the thread; on another core it lets go within tx_stop_wait_us. */
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, tx_stop_wait_us(uart));
	bool owned = tx_take_for_good(uart, &wait);
	pl011_wait_start(&wait, uart, tx_stop_wait_us(uart));
	tx_wait_beside_done(uart, &wait);
	/* Every cause masked, not only TX: the handler of a stopped port returns without
	 * servicing, so an RX cause left unmasked would keep calling it. Frozen, not just
	 * written 0: an RX pause or resume from now on writes IMSC as 0 too. Only here, with TX
	 * taken: frozen earlier, an owner on another core would release with ARMED set and
	 * TXIM already masked, a word that promises an interrupt nobody can raise. */
	pl011_imsc_update(uart, 0, PL011_IMSC_FROZEN);
	if (owned)
		tx_disarmed(uart);
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
}

/* Owner: write bytes one by one, each after FR shows room, within the wait; a writer (not a
 * panic) in POLLED mode stops early when a panic asks for TX. */
static size_t write_bytes_polled(struct pl011 *uart, const uint8_t *data, size_t len,
				 struct pl011_wait *wait, bool yields)
{
	size_t done = 0;
	uint32_t burst = 0;
	while (done < len && !(yields && tx_panic_asks(uart))) {
		/* A panic stops at every burst once a shutdown began, not only in a wait for room:
		 * on a line as fast as the CPU that wait never comes, and shutdown would disable
		 * the UART under bytes the panic still counts (shutdown waits out one burst). */
		if (burst == 0 && wait->panic && !pl011_is_running(uart))
			break;
		if (burst == 0 && (burst = tx_burst_allowed(uart, len - done)) == 0) {
			if (pl011_wait_expired(wait))
				break;
			continue; /* a panic writes beside us: let it */
		}
		/* The common case, room at once, without the wait's call. */
		if ((pl011_reg_read(uart, PL011_FR) & PL011_FR_TXFF) != 0 &&
		    (pl011_wait_fr(uart, PL011_FR_TXFF, 0, wait) & PL011_FR_TXFF) != 0)
			break;
		pl011_reg_write(uart, PL011_DR, data[done++]);
		burst--;
	}
	uart->stats.tx_bytes += (uint32_t)done;
	return done;
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
		done += write_bytes_polled(uart, data + done, len - done, &wait, true);
		tx_release_polled(uart);
	} while (done < len && !pl011_wait_expired(&wait));
	return done;
}

/*
 * An idle transmitter (the ring empty, nobody owning TX): the caller's bytes go straight to
 * the FIFO while FR shows room, as priming would send them, without the copy through the
 * ring; the rest is queued and the owner's pass arms the interrupt. Owning TX with the ring
 * empty, nothing can be queued ahead of these bytes. Returns how many it took (0: not idle).
 */
static size_t write_idle(struct pl011 *uart, const uint8_t *data, size_t len)
{
	if (len == 0 || pl011_ring_count(&uart->tx.ring) != 0 || !tx_try_own(uart))
		return 0;
	size_t done = 0;
	if (pl011_ring_count(&uart->tx.ring) == 0) {
		uint32_t reads = 1;
		uint32_t fr = pl011_reg_read(uart, PL011_FR);
		/* At most one pass; the rest goes through the ring (tx_pass_limit). */
		size_t pass = len < tx_pass_limit(uart) ? len : tx_pass_limit(uart);
		pl011_rs485_before_send(uart);
		done = write_while_room(uart, data, pass, &fr, &reads);
		uart->stats.tx_fr_reads += reads;
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

	pl011_wait_start(&wait, uart, bound_us);
	tx_watch_start(&watch, uart, &wait);
	for (;;) {
		/* While a panic owns TX nothing new is queued: it drains a bounded ring. */
		size_t n = tx_panic_owns(uart) ? 0u
					       : pl011_ring_write(&uart->tx.ring, data + done, len - done);
		if (n != 0) {
			done += n;
			tx_kick(uart);
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
	if (bound_us == PL011_WAIT_AUTO)
		bound_us = pl011_backlog_deadline_us(uart, pl011_tx_queued(uart) + len);
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
	if (bound_us == PL011_WAIT_AUTO)
		bound_us = pl011_backlog_deadline_us(uart, pl011_tx_queued(uart));
	int err = pl011_tx_wait_drained(uart, bound_us);
	if (err != 0)
		uart->stats.tx_timeouts++;
	if (pending != NULL)
		*pending = pl011_tx_queued(uart);
	return err;
}

size_t pl011_tx_queued(const struct pl011 *uart)
{
	if (uart == NULL || pl011_state_get(uart) == PL011_STATE_STOPPED || !pl011_tx_uses_ring(uart))
		return 0;
	return pl011_ring_count(&uart->tx.ring);
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
		bool full = fill_polling(uart, count < depth ? count : depth, NULL, &written);
		count -= written;
		/* Done, or the ring ran dry: an owner before us sent some of them. */
		if (count == 0 || (!full && written == 0))
			return true;
		if (!full && pl011_wait_expired(wait))
			return false;
		if (full && (pl011_wait_fr(uart, PL011_FR_TXFF, 0, wait) & PL011_FR_TXFF) != 0)
			return false;
	}
	return true;
}

/* Owner: the last pass sends what was queued meanwhile; holding writers back only for it keeps
 * it bounded without starving a writer that streams beside a stream of panics. */
static void panic_last_pass(struct pl011 *uart)
{
	uint32_t word = owner_load(uart);
	while (!owner_swap(uart, &word, word | TX_PANIC))
		;
	tx_send_and_release(uart, false);
}

static size_t panic_as_owner(struct pl011 *uart, const uint8_t *data, size_t len, uint32_t queued,
			     struct pl011_wait *wait)
{
	if (!pl011_tx_uses_ring(uart)) {
		size_t done = write_bytes_polled(uart, data, len, wait, false);
		tx_release_polled(uart);
		return done;
	}
	uart->tx.poll_next = 1;
	size_t done = drain_ring_polled(uart, queued, wait) || !pl011_is_running(uart)
			      ? write_bytes_polled(uart, data, len, wait, false)
			      : 0u;
	panic_last_pass(uart);
	return done;
}

static void tx_beside_leave(struct pl011 *uart)
{
	pl011_presence_leave(&uart->tx.beside);
}

/*
 * Without ownership: the owner may be preempted between an FR read and the DR write it
 * allows, or in a blind refill. Write only into an empty FIFO, one byte at a time, and leave it
 * empty again, so that its FR value and blind count stay true. Not once a shutdown began: it
 * waits for tx.beside to drop, so every byte counted here was written before it disables
 * the UART. (On another core, after the owner failed to let go within the panic's wait, this
 * is not enough: docs/design.md.)
 */
static int panic_beside_owner(struct pl011 *uart, const uint8_t *data, size_t len,
			      struct pl011_wait *wait)
{
	pl011_presence_enter(&uart->tx.beside);
	pl011_io_barrier(); /* the count before our FR reads, as the owner's look sees them */
	size_t done = 0;
	if ((owner_load(uart) & TX_STOPPED) != 0) {
		tx_beside_leave(uart);
		return PL011_ESHUTDOWN;
	}
	while (done < len && pl011_is_running(uart)) {
		if ((pl011_wait_fr(uart, PL011_FR_TXFE, PL011_FR_TXFE, wait) & PL011_FR_TXFE) == 0)
			break;
		pl011_reg_write(uart, PL011_DR, data[done++]);
	}
	/* Our last character needs a frame to leave the FIFO, more if one is shifting ahead. */
	struct pl011_wait after;
	pl011_wait_start_panic(&after, uart, pl011_frames_us(uart, 2) + 1000u);
	(void)pl011_wait_fr(uart, PL011_FR_TXFE, PL011_FR_TXFE, &after);
	pl011_io_barrier();
	pl011_io_atomic_point();
	(void)__atomic_fetch_add(&uart->tx.unowned_bytes, (uint32_t)done, __ATOMIC_RELAXED);
	tx_beside_leave(uart);
	/* An owner that found us here let go without sending (tx_send_and_release): the ring's
	 * bytes are ours to start again, or the owner's once more (RETRY). After the leave, so
	 * that an owner that still sees us is still owning when we ask. */
	if (pl011_tx_uses_ring(uart) && pl011_ring_count(&uart->tx.ring) != 0 &&
	    tx_own_or_request(uart))
		panic_last_pass(uart);
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
 * it. An owner on our own core (we preempted it) cannot let go until we return: no wait.
 * Another panic lets go within its own deadline (which may be longer than ours): we wait for
 * that, from when we first see it own TX, not our own deadline (which left us 0 of our bytes).
 * In POLLED mode we ask the writer for TX (RETRY) and take it at its next byte.
 */
static bool panic_own(struct pl011 *uart, struct pl011_wait *wait, uint32_t *seen)
{
	uint32_t claim = owner_claim(uart) | TX_PANIC_OWNER;
	uint32_t mine = claim & TX_CORE_MASK;
	bool polled = !pl011_tx_uses_ring(uart);
	struct pl011_wait other;
	bool other_seen = false;
	uint32_t longest_us = 0;
	for (;;) {
		uint32_t word = owner_load(uart);
		while ((word & (TX_OWNED | TX_STOPPED)) == 0)
			if (owner_swap(uart, &word, (word & ~(TX_RETRY | TX_PANIC_WAITS)) | claim))
				return tx_acquired();
		*seen = word;
		if ((word & TX_STOPPED) != 0 || (mine != 0 && (word & TX_CORE_MASK) == mine))
			break;
		if (polled && (word & TX_RETRY) == 0)
			(void)owner_swap(uart, &word, word | TX_RETRY);
		else if (!polled && (word & TX_PANIC_WAITS) == 0)
			(void)owner_swap(uart, &word, word | TX_PANIC_WAITS);
		if ((word & TX_PANIC_OWNER) != 0 && !other_seen) {
			pl011_wait_start_panic(&other, uart, 0u);
			other_seen = true;
		}
		if ((word & TX_PANIC_OWNER) != 0 ? panic_owner_expired(uart, &other, &longest_us)
						 : pl011_wait_expired(wait))
			break;
	}
	if (polled) { /* withdraw the request: no writer may wait on a panic that gave up */
		uint32_t word = owner_load(uart);
		while ((word & TX_RETRY) != 0 && (word & TX_OWNED) != 0 &&
		       !owner_swap(uart, &word, word & ~TX_RETRY))
			;
	} else { /* an owner need not let us in any more (another panic may say so again) */
		uint32_t word = owner_load(uart);
		while ((word & TX_PANIC_WAITS) != 0 && !owner_swap(uart, &word, word & ~TX_PANIC_WAITS))
			;
	}
	return false;
}

int pl011_write_panic(struct pl011 *uart, const void *data, size_t len)
{
	if (uart == NULL || (data == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	if (pl011_state_get(uart) == PL011_STATE_STOPPED)
		return PL011_ESHUTDOWN;
	/* What is queued now is ours to send first; what comes later is not ours to wait for. */
	uint32_t queued = (uint32_t)pl011_tx_queued(uart);
	/* An owner on another core lets go within one refill: wait for it, a FIFO's worth of
	 * frames plus 100 us; another panic within its own deadline (panic_own). */
	struct pl011_wait wait, deadline;
	uint32_t word = 0;
	pl011_wait_start_panic(&wait, uart, pl011_frames_us(uart, uart->line.fifo_depth) + 100u);
	bool owned = panic_own(uart, &wait, &word);
	if (!owned && (word & TX_STOPPED) != 0)
		return PL011_ESHUTDOWN;
	/* Our deadline starts once the wait for TX is over, owning or beside: a deadline spent
	 * waiting for another panic left none for our own bytes. */
	pl011_wait_start_panic(&deadline, uart,
			       pl011_backlog_deadline_us(uart, (size_t)queued + len));
	if (owned) {
		__atomic_store_n(&uart->tx.panic_budget_us, deadline.budget_us, __ATOMIC_RELAXED);
		return (int)panic_as_owner(uart, data, len, queued, &deadline);
	}
	return panic_beside_owner(uart, data, len, &deadline);
}

/* ---- line switch (pl011_set_line, lib/pl011_line.c): TX held as shutdown takes it ---- */

bool pl011_tx_hold(struct pl011 *uart)
{
	/* As shutdown takes TX, without its second wait: STOPPED set under a live owner tells it
	 * to let go (a POLLED writer gives up its write there), which a line change that may give
	 * up itself must not cause. An owner that keeps TX past the wait changes nothing. */
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, tx_stop_wait_us(uart));
	if (!tx_take_when_free(uart, owner_claim(uart) | TX_STOPPED, &wait))
		return false;
	pl011_wait_start(&wait, uart, tx_stop_wait_us(uart));
	tx_wait_beside_done(uart, &wait);
	/* As pl011_tx_stop: frozen only with TX taken, then the word says TXIM is masked. */
	pl011_imsc_update(uart, 0, PL011_IMSC_FROZEN);
	tx_disarmed(uart);
	return true;
}

void pl011_tx_give_back(struct pl011 *uart)
{
	/* MEASURED's headroom table is in line time: rebuilt for the new frame, and its
	 * sampling starts afresh (its trigger stays). */
	measured_reset(uart);
	pl011_io_barrier();
	uint32_t word = owner_load(uart);
	while (!owner_swap(uart, &word, word & ~(TX_STOPPED | TX_RETRY | TX_OWNER_BITS)))
		;
	/* A writer that queued while we held TX could not send (its kick found STOPPED): our
	 * release before our look at the ring; its head store before its look at the word. */
	pl011_atomic_fence();
	if (!tx_ring_empty(uart))
		tx_kick(uart);
}


/* ---- the RS-485 release tick (lib/pl011_rs485.c) ---- */

bool pl011_tx_try_take(struct pl011 *uart)
{
	return tx_try_own(uart);
}

void pl011_tx_let_go(struct pl011 *uart)
{
	tx_send_and_release(uart, false);
}
