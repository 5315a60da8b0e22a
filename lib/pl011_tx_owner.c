/* The TX owner word's transitions: docs/design.md's table, one function per row or two. */
#include "pl011_tx_owner.h"

#if PL011_SINGLE_CORE
struct pl011_masked_section pl011_tx_section;
#endif

/* OWNED with the caller's core, for the word. */
uint32_t pl011_tx_owner_claim(const struct pl011 *uart)
{
	return TX_OWNED | (pl011_core_tag(uart) << TX_CORE_SHIFT);
}

/* Take ownership with `claim` if nobody holds it (nor a panic asks for it: POLLED's RETRY;
 * in the ring modes RETRY is only ever set while OWNED is). */
bool pl011_tx_try_own_with(struct pl011 *uart, uint32_t claim)
{
	uint32_t word = pl011_tx_owner_load(uart);
	while ((word & (TX_OWNED | TX_RETRY | TX_STOPPED)) == 0) {
		if (pl011_tx_owner_swap(uart, &word, word | claim))
			return pl011_tx_acquired(uart);
	}
	return false;
}

bool pl011_tx_try_own(struct pl011 *uart)
{
	return pl011_tx_try_own_with(uart, pl011_tx_owner_claim(uart));
}

/* Take ownership, or make the owner look at the ring once more before it lets go. One swap
 * decides, so the owner cannot slip away between our look and our request. */
bool pl011_tx_own_or_request(struct pl011 *uart)
{
	uint32_t claim = pl011_tx_owner_claim(uart);
	uint32_t word = pl011_tx_owner_load(uart);
	for (;;) {
		if ((word & (TX_OWNED | TX_RETRY)) == (TX_OWNED | TX_RETRY) || (word & TX_STOPPED) != 0)
			return false;
		uint32_t desired = word | ((word & TX_OWNED) != 0 ? TX_RETRY : claim);
		if (pl011_tx_owner_swap(uart, &word, desired))
			return (word & TX_OWNED) == 0 && pl011_tx_acquired(uart);
	}
}

/* Let go, unless a pass was requested meanwhile: then take the request (clear RETRY, still
 * owning) and return false. The barrier first: our last DR, IMSC and IFLS writes reach the
 * UART before the next owner, on another core, can see the word free (lib/pl011_io.h). */
bool pl011_tx_release(struct pl011 *uart)
{
	pl011_io_barrier();
	uint32_t word = pl011_tx_owner_load(uart);
	for (;;) {
		bool retry = (word & TX_RETRY) != 0;
		uint32_t desired = retry ? (word & ~TX_RETRY) : (word & ~TX_OWNER_BITS);
		if (pl011_tx_owner_swap(uart, &word, desired))
			return !retry;
	}
}

/* Owner only: record in the word what IMSC now holds. */
static void pl011_tx_set_armed(struct pl011 *uart, uint32_t word, bool armed)
{
	for (;;) {
		uint32_t desired = armed ? (word | TX_ARMED) : (word & ~TX_ARMED);
		if (pl011_tx_owner_swap(uart, &word, desired))
			return;
	}
}

/* Owner only: unmask or mask TXIM. IMSC first, then ARMED, so the word never claims an
 * interrupt the hardware cannot raise; the barrier keeps the IMSC write ahead of whatever
 * another core does once it owns TX after us. */
void pl011_tx_arm(struct pl011 *uart, bool armed)
{
	uint32_t word = pl011_tx_owner_load(uart);
	if (((word & TX_ARMED) != 0) == armed)
		return;
	pl011_imsc_update(uart, PL011_INT_TX, armed ? PL011_INT_TX : 0u);
	pl011_io_barrier();
	pl011_tx_set_armed(uart, word, armed);
}

/* Owner only, after IMSC was cleared by other means. */
void pl011_tx_disarmed(struct pl011 *uart)
{
	pl011_io_barrier();
	pl011_tx_set_armed(uart, pl011_tx_owner_load(uart), false);
}

/* Polled mode: let go in one swap. RETRY stays: it is a panic's request, which the panic
 * clears when it takes TX (nobody else takes it meanwhile). */
void pl011_tx_release_polled(struct pl011 *uart)
{
	pl011_io_barrier();
	uint32_t word = pl011_tx_owner_load(uart);
	while (!pl011_tx_owner_swap(uart, &word, word & ~TX_OWNER_BITS))
		;
}

/* Take TX with `claim` once nobody owns it, within the wait. `ask` (0 or SWITCH_WAITS) is set
 * while an owner holds TX, so that it lets go at its pass limit; cleared by the take, or when
 * the wait runs out. */
bool pl011_tx_take_when_free(struct pl011 *uart, uint32_t claim, uint32_t ask,
			     struct pl011_wait *wait)
{
	for (;;) {
		uint32_t word = pl011_tx_owner_load(uart);
		if ((word & TX_OWNED) == 0) {
			if (pl011_tx_owner_swap(uart, &word, (word & ~ask) | claim))
				return pl011_tx_acquired(uart);
		} else if ((word & ask) != ask) {
			(void)pl011_tx_owner_swap(uart, &word, word | ask);
		}
		if (pl011_wait_expired(wait))
			break;
	}
	uint32_t word = pl011_tx_owner_load(uart);
	while ((word & ask) != 0 && !pl011_tx_owner_swap(uart, &word, word & ~ask))
		;
	return false;
}
