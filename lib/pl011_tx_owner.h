/* The TX owner word: who may write the FIFO, and the "sure to come" invariant releases keep. */
#ifndef PL011_TX_OWNER_H
#define PL011_TX_OWNER_H

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
 *  SWITCH_WAITS  (ring modes) the line switch waits for TX, with the same effect; an owner
 *         lets go at its pass limit only when one of these (or STOPPED) asks it to.
 *  HELD   (with OWNED) shutdown, init or the line switch holds TX: OWNED without it, once
 *         STOPPED is set, is a context of the run that shutdown gave up waiting for, which
 *         pl011_init waits out before it touches the ring or the UART.
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
#define TX_HELD 128u       /* the owner is shutdown, init or the line switch */
#define TX_CORE_SHIFT 8u
#define TX_CORE_MASK (0xFFu << TX_CORE_SHIFT)
#define TX_SWITCH_WAITS (1u << 16) /* the line switch waits for TX (ring modes) */
/* What a release clears besides OWNED. */
#define TX_OWNER_BITS (TX_OWNED | TX_PANIC | TX_PANIC_OWNER | TX_HELD | TX_CORE_MASK)

/* ---- the owner word ---- */

static inline uint32_t pl011_tx_owner_load(const struct pl011 *uart)
{
	pl011_io_atomic_point();
	return pl011_atomic_load(&uart->tx.owner, __ATOMIC_SEQ_CST);
}

/* Compare and swap; on failure *expected receives the word as it is now. */
static inline bool pl011_tx_owner_swap(struct pl011 *uart, uint32_t *expected, uint32_t desired)
{
#if PL011_SINGLE_CORE
	if (pl011_tx_section.inside != 0) { /* one core, in the TX pass: masked already */
		pl011_io_atomic_point();
		return pl011_atomic_swap_masked(&uart->tx.owner, expected, desired);
	}
#endif
	pl011_io_atomic_rmw_point();
	return pl011_atomic_swap(&uart->tx.owner, expected, desired);
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
 * elsewhere, so one call covers both. Nothing written since that barrier, the owner's first
 * burst needs no barrier of its own (tx.fenced, pl011_tx_burst_allowed).
 */
static inline bool pl011_tx_acquired(struct pl011 *uart)
{
	pl011_io_barrier();
	uart->tx.fenced = 1;
	return true;
}

/* Whether shutdown, its wait for us run out, marked TX taken for good: an owner then lets go
 * after its pass, so that shutdown takes the ring and counts as discarded exactly what was not
 * sent. */
static inline bool pl011_tx_stopped(const struct pl011 *uart)
{
	return (pl011_tx_owner_load(uart) & TX_STOPPED) != 0;
}

/* Whether the owner must stop: a panic writes beside it, or shutdown waits to take TX. */
static inline bool pl011_tx_must_pause(const struct pl011 *uart)
{
	return pl011_tx_beside_present(uart) || pl011_tx_stopped(uart);
}

/* At a pass limit: whether a panic or the line switch waits for TX, or shutdown gave up
 * waiting for us (then the owner lets go at its pass end). */
static inline bool pl011_tx_others_wait(const struct pl011 *uart)
{
	return (pl011_tx_owner_load(uart) & (TX_PANIC_WAITS | TX_SWITCH_WAITS | TX_STOPPED)) != 0;
}

/* Whether the polled writer must stop at this byte: a panic on another core asks for TX, or
 * shutdown, its wait for us run out, took it for good (the UART may be off, its FIFO one
 * entry deep). Looked at before every byte: relaxed (no barrier per byte), as the release
 * that answers it has its own. */
static inline bool pl011_tx_polled_must_stop(const struct pl011 *uart)
{
	pl011_io_atomic_point();
	uint32_t word = pl011_atomic_load(&uart->tx.owner, __ATOMIC_RELAXED);
	return (word & (TX_RETRY | TX_STOPPED)) != 0;
}

/* Whether a panic owns TX (writers then queue nothing new). */
static inline bool pl011_tx_panic_owns(const struct pl011 *uart)
{
	return (pl011_tx_owner_load(uart) & TX_PANIC) != 0;
}

/* The transitions (lib/pl011_tx_owner.c, where each says why it is ordered as it is). */
uint32_t pl011_tx_owner_claim(const struct pl011 *uart);
bool pl011_tx_try_own_with(struct pl011 *uart, uint32_t claim);
bool pl011_tx_try_own(struct pl011 *uart);
bool pl011_tx_own_or_request(struct pl011 *uart);
bool pl011_tx_release(struct pl011 *uart);
void pl011_tx_arm(struct pl011 *uart, bool armed);
void pl011_tx_disarmed(struct pl011 *uart);
void pl011_tx_release_polled(struct pl011 *uart);
bool pl011_tx_take_when_free(struct pl011 *uart, uint32_t claim, uint32_t ask,
			     struct pl011_wait *wait);

/*
 * Characters panics beside the owner may leave in a FIFO they saw empty, none waiting for its
 * character to leave when CTS holds the line: at most this many panics may be about to write
 * a byte beside the owner at once (one, and one nested in it or on another core). Their FR
 * reads may be older than the owner's writes, so between two looks at tx.beside the owner
 * writes at most depth less these, blind or one at a time on FR: the blind refills (depth -
 * trigger, the trigger at least 2 entries), ADAPTIVE's fill after an underrun, a writer's
 * burst (TX_WRITER_BURST), the polling fills (docs/beside_places.pml checks the rule).
 */
#define TX_BESIDE_CHARS 2u
/* tx.beside: the panics beside the owner in its lower half, those about to write a byte (a
 * place each, of TX_BESIDE_CHARS) in its upper half; not 0 while any is there. */
#define TX_BESIDE_WRITER (1u << 16)

/*
 * Owner, before each burst: how many of `want` characters, at most `most`, it may write before
 * it looks again. A panic on another core whose wait for us ran out (we were stopped) writes
 * beside us, each character only into an empty FIFO; while it does (tx.beside), we write
 * nothing. The barrier first: our earlier characters have reached the UART before the look,
 * so the panic's FR read counts them. The first burst after a take needs none: nothing of
 * ours was written since the take's barrier (tx.fenced). Inline: the fills that call it once
 * per burst stay leaf functions.
 */
static inline uint32_t pl011_tx_burst_up_to(struct pl011 *uart, size_t want, uint32_t most)
{
	if (uart->tx.fenced != 0)
		uart->tx.fenced = 0; /* the caller writes next */
	else
		pl011_io_barrier();
	if (pl011_tx_beside_present(uart))
		return 0;
	return want < most ? (uint32_t)want : most;
}

static inline uint32_t pl011_tx_burst_allowed(struct pl011 *uart, size_t want)
{
	return pl011_tx_burst_up_to(uart, want, uart->line.fifo_depth - TX_BESIDE_CHARS);
}

/* A writer's burst (the polled writer, a write to an idle transmitter), which goes without FR
 * when FR showed the FIFO empty: the shallowest PL011 FIFO (16), so that a depth misread from
 * the ID (BCM283x) cannot overflow it, less the panics' characters. */
#define TX_WRITER_BURST (16u - TX_BESIDE_CHARS)

#endif
