/* The TX protocol's invariants, checked by the explorers at every preemption point. */
#ifndef TEST_INVARIANTS_H
#define TEST_INVARIANTS_H

#include <stdbool.h>
#include <stdint.h>

#include "harness.h"

/*
 * What one explorer run has seen so far. A context is a core and how deep it is nested:
 * level 0 its thread, 1 an interrupt (the UART's, or another source's delivered by the
 * explorer), 2 an interrupt preempting that one.
 */
struct invariants {
	bool started;
	const uint8_t *ring_storage;
	uint32_t ring_tail;
	int owner_context;   /* the context that took OWNED, -1 when nobody owns TX */
	int irq_core;        /* the core the model's interrupt runs on, -1 outside it */
	uint64_t dispatches; /* the model's handler dispatches at the last level-0 point */
	/* Set by the explorer while a pl011_write may have queued bytes and not yet looked at
	 * the owner word, or while an owner may let go at its pass limit (a line faster than
	 * the CPU): the two windows where the ring may hold bytes with nobody owning TX and
	 * TXIM masked (docs/design.md, "Sure to come"). */
	bool writer_inside;
	bool armed; /* ARMED at the last point */
	/* A handler that found TX owned cleared TXIS (ICR) and has not yet asked for a pass: the
	 * latch an armed owner counted on may be gone, and that handler's request closes the
	 * window (docs/design.md, "Sure to come"). Seen from the model's ICR count. */
	uint64_t icr_tx_seen;
	bool tx_deferring;
	/* Overflows the explorer excuses: an owner a stop gave up on (PL011_ESTALLED) writing
	 * what it had in hand into the disabled UART, bytes the stop counted as discarded. */
	uint64_t overflows_excused;
	char text[240];
};

void invariants_reset(struct invariants *inv);

/*
 * Checks, from the model's registers and the instance's words, what docs/design.md promises
 * at every moment, not only when a call returns:
 *  - the TX ring's indices: head - tail never above the size;
 *  - IMSC against the owner word: while nobody owns TX, TXIM is unmasked exactly when ARMED;
 *    wherever ARMED changes, IMSC already shows it; RETRY only while OWNED (ring modes);
 *  - "sure to come": while nobody owns TX and the ring holds bytes, TXIM is armed (unless
 *    writer_inside) and TXRIS is latched or the FIFO is above the trigger (draining it must
 *    cross the trigger);
 *  - one ring consumer: the ring's read index moves only in the context that owns TX;
 *  - exact counters: stats.tx_bytes (with the panic's unowned bytes) never above the DR writes
 *    the model saw;
 *  - no FIFO overflow (beyond overflows_excused);
 *  - a bound on the handler: at most INVARIANTS_STARVATION_LIMIT dispatches of the model's
 *    interrupt between two points of the preempted code (an unacknowledged cause at zero
 *    latency re-enters at once and starves the owner it preempted; the model's handler is
 *    then detached so that the run ends).
 * core is the core running now; nested is 1 inside an interrupt the explorer delivered itself
 * (pl011_model_run_as_irq), 2 inside one nested in that, else 0 (the model's own dispatch is
 * told from pl011_model_in_irq). Returns NULL, or the first invariant broken.
 */
#define INVARIANTS_STARVATION_LIMIT 200u
const char *invariants_check_point(struct invariants *inv, struct harness *h, int core,
				   int nested);

#endif
