/* The TX protocol's invariants at every preemption point of an explorer (invariants.h). */
#include "invariants.h"

#include <stdarg.h>
#include <stdio.h>

#include "pl011_regs.h"

/* lib/pl011_tx.c's bits of tx.owner, as docs/design.md's table names them. */
#define OWNER_OWNED 1u
#define OWNER_RETRY 2u
#define OWNER_ARMED 4u
#define OWNER_STOPPED 16u

void invariants_reset(struct invariants *inv)
{
	inv->started = false;
	inv->ring_storage = NULL;
	inv->ring_tail = 0;
	inv->owner_context = -1;
	inv->irq_core = -1;
	inv->dispatches = 0;
	inv->writer_inside = false;
	inv->armed = false;
	inv->icr_tx_seen = 0;
	inv->tx_deferring = false;
	inv->overflows_excused = 0;
	inv->text[0] = '\0';
}

static const char *broken(struct invariants *inv, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(inv->text, sizeof inv->text, format, args);
	va_end(args);
	return inv->text;
}

/* The FIFO level at or below which TXIS latches, from IFLS as programmed (TRM 3.3.12). */
static unsigned tx_trigger_entries(const struct harness *h)
{
	static const unsigned eighths[5] = {1, 2, 4, 6, 7};
	unsigned code = pl011_model_peek(h->model, PL011_IFLS) & PL011_IFLS_LEVEL_MASK;
	return h->uart.line.fifo_depth * eighths[code < 5u ? code : 2u] / 8u;
}

/* The context running now: core * 3 + nesting level. */
static int context_now(struct invariants *inv, const struct harness *h, int core, int nested)
{
	bool in_irq = pl011_model_in_irq(h->model);
	if (!in_irq)
		inv->irq_core = -1;
	else if (inv->irq_core < 0)
		inv->irq_core = core; /* the interrupt began inside this core's access */
	int level = nested;
	if (level == 0 && in_irq && inv->irq_core == core)
		level = 1;
	return core * 3 + level;
}

static const char *check_starvation(struct invariants *inv, struct harness *h, int context)
{
	uint64_t dispatches = pl011_model_counters(h->model)->irq_dispatches;
	if (context % 3 == 0 || !inv->started) {
		inv->dispatches = dispatches;
		return NULL;
	}
	if (dispatches - inv->dispatches <= INVARIANTS_STARVATION_LIMIT)
		return NULL;
	/* The handler would re-enter forever: end the run with the failure. */
	pl011_model_set_irq_handler(h->model, NULL, NULL);
	return broken(inv, "%llu handler entries while the code it preempted made no step "
			   "(an interrupt cause left latched)",
		      (unsigned long long)(dispatches - inv->dispatches));
}

static const char *check_consumer(struct invariants *inv, const struct pl011_ring *ring,
				  uint32_t word, int context)
{
	bool stopped = (word & OWNER_STOPPED) != 0;
	if ((word & OWNER_OWNED) == 0)
		inv->owner_context = -1;
	else if (inv->owner_context < 0)
		inv->owner_context = context;
	bool moved = inv->started && ring->storage == inv->ring_storage &&
		     ring->tail != inv->ring_tail;
	bool same_run = ring->storage == inv->ring_storage;
	inv->ring_storage = ring->storage;
	inv->ring_tail = ring->tail;
	/* init and shutdown (STOPPED) reset the ring as its only user: not a consumer's step. */
	if (!moved || !same_run || stopped)
		return NULL;
	if ((word & OWNER_OWNED) == 0 || inv->owner_context != context)
		return broken(inv, "the TX ring's read index moved in context %d while %s owns TX",
			      context, (word & OWNER_OWNED) ? "another context" : "nobody");
	return NULL;
}

const char *invariants_check_point(struct invariants *inv, struct harness *h, int core,
				   int nested)
{
	int context = context_now(inv, h, core, nested);
	const char *failure = check_starvation(inv, h, context);
	const struct pl011_ring *ring = &h->uart.tx.ring;
	uint32_t word = __atomic_load_n(&h->uart.tx.owner, __ATOMIC_SEQ_CST);
	if (failure == NULL)
		failure = check_consumer(inv, ring, word, context);
	inv->started = true;
	if (failure != NULL)
		return failure;
	uint32_t queued = ring->head - ring->tail;
	if (ring->storage != NULL && queued > ring->size)
		return broken(inv, "TX ring indices head %u tail %u (size %u)", ring->head,
			      ring->tail, ring->size);
	const struct pl011_model_counters *counters = pl011_model_counters(h->model);
	if (counters->tx_overflows > inv->overflows_excused)
		return broken(inv, "TX FIFO overflow");
	uint64_t dr_writes = counters->writes[PL011_DR / 4u];
	uint32_t counted = h->uart.stats.tx_bytes +
			   __atomic_load_n(&h->uart.tx.unowned_bytes, __ATOMIC_SEQ_CST);
	if (counted > dr_writes)
		return broken(inv, "stats.tx_bytes %u above the %llu DR writes", counted,
			      (unsigned long long)dr_writes);
	if (h->config.tx_mode == PL011_TX_POLLED)
		return NULL;
	if (counters->icr_tx_only != inv->icr_tx_seen) {
		inv->icr_tx_seen = counters->icr_tx_only;
		inv->tx_deferring = true;
	} else if ((word & OWNER_OWNED) != 0) {
		inv->tx_deferring = false; /* its request made: a pass is sure */
	}
	uint32_t imsc = pl011_model_peek(h->model, PL011_IMSC);
	bool txim = (imsc & PL011_INT_TX) != 0;
	bool armed = (word & OWNER_ARMED) != 0;
	bool armed_before = inv->armed;
	inv->armed = armed;
	/* "ARMED: TXIM is unmasked in hardware (set and cleared only by the owner, after its
	 * IMSC write)": wherever ARMED changed, IMSC already shows the new value. Not under
	 * STOPPED: IMSC is frozen at 0 there, and an owner the stop gave up on arms in vain. */
	if (armed != armed_before && txim != armed && (word & OWNER_STOPPED) == 0)
		return broken(inv, "ARMED %s before IMSC showed it (TXIM %s)",
			      armed ? "set" : "cleared", txim ? "set" : "clear");
	/* The table's RETRY rows are all owned states: a request made to nobody is lost. */
	if ((word & OWNER_RETRY) != 0 && (word & OWNER_OWNED) == 0)
		return broken(inv, "RETRY set while nobody owns TX (word 0x%x)", word);
	/* STOPPED without OWNED: a stopped port whose stop gave up on an owner that has let go
	 * since (IMSC frozen at 0 under whatever it armed); pl011_init resets the word. */
	if ((word & OWNER_OWNED) != 0 || (word & OWNER_STOPPED) != 0)
		return NULL;
	if (txim != armed)
		return broken(inv, "nobody owns TX, TXIM %s, ARMED %s", txim ? "set" : "clear",
			      armed ? "set" : "clear");
	if (queued == 0 || ring->storage == NULL || (word & OWNER_STOPPED) != 0)
		return NULL;
	if (!txim && !inv->writer_inside)
		return broken(inv, "%u bytes queued, nobody owns TX and TXIM is masked: nobody will "
				   "send them",
			      queued);
	if (!txim)
		return NULL;
	unsigned level = pl011_model_tx_level(h->model);
	unsigned trigger = tx_trigger_entries(h);
	if ((pl011_model_ris(h->model) & PL011_INT_TX) == 0 && level <= trigger &&
	    !inv->tx_deferring)
		return broken(inv, "TXIM armed over %u queued bytes with no TX interrupt sure to "
				   "come: TXRIS clear, FIFO %u, trigger %u",
			      queued, level, trigger);
	return NULL;
}
