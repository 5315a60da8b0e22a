/* Shared internals of the driver: register access, instance state, bounded waits. */
#ifndef PL011_INTERNAL_H
#define PL011_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "pl011.h"
#include "pl011_io.h"
#include "pl011_regs.h"

/* Instance states; a zeroed instance is STOPPED. RUNNING is a magic value so that garbage is
 * unlikely to pass for a started port. */
enum pl011_state {
	PL011_STATE_STOPPED = 0,
	PL011_STATE_RUNNING = 0x9011u,
	PL011_STATE_SHUTTING_DOWN = 0x9012u,
};

static inline uint32_t pl011_reg_read(const struct pl011 *uart, uint32_t offset)
{
	return pl011_io_read(uart->config.base + offset);
}

static inline void pl011_reg_write(const struct pl011 *uart, uint32_t offset, uint32_t value)
{
	pl011_io_write(uart->config.base + offset, value);
}

static inline uint32_t pl011_state_get(const struct pl011 *uart)
{
	return __atomic_load_n(&uart->state, __ATOMIC_ACQUIRE);
}

static inline void pl011_state_set(struct pl011 *uart, uint32_t state)
{
	__atomic_store_n(&uart->state, state, __ATOMIC_RELEASE);
}

static inline bool pl011_is_running(const struct pl011 *uart)
{
	return pl011_state_get(uart) == PL011_STATE_RUNNING;
}

static inline bool pl011_tx_uses_ring(const struct pl011 *uart)
{
	return uart->config.tx_mode != PL011_TX_POLLED;
}

static inline bool pl011_rx_uses_ring(const struct pl011 *uart)
{
	return uart->config.rx_mode != PL011_RX_POLLED;
}

/* IFLS for two enum pl011_level values (TRM 3.3.9 codes are level - 1). */
static inline uint32_t pl011_ifls_value(uint32_t tx_level, uint32_t rx_level)
{
	return ((tx_level - 1u) << PL011_IFLS_TXIFLSEL_SHIFT) |
	       ((rx_level - 1u) << PL011_IFLS_RXIFLSEL_SHIFT);
}

/* FIFO entries at a trigger level: depth * {1, 2, 4, 6, 7} / 8 (TRM 3.3.9). */
uint32_t pl011_level_entries(uint32_t depth, uint32_t level);

/* Time for `frames` frames on the wire, in microseconds, rounded up. */
uint32_t pl011_frames_us(const struct pl011 *uart, uint32_t frames);

/*
 * A bounded wait. With a clock it measures microseconds; without one each pl011_wait_expired
 * call counts as 1 / spins_per_us microseconds (docs/waiting.md).
 */
struct pl011_wait {
	const struct pl011 *uart;
	uint32_t start_us;
	uint32_t budget_us;
	uint64_t spins;
};

void pl011_wait_start(struct pl011_wait *wait, const struct pl011 *uart, uint32_t budget_us);
uint32_t pl011_wait_elapsed_us(const struct pl011_wait *wait);
/* Counts one step and says whether the budget is used up. */
bool pl011_wait_expired(struct pl011_wait *wait);

/* RX: decode one DR value into a byte (0..255) or a PL011_E* code, counting errors. */
int pl011_rx_decode(struct pl011 *uart, uint32_t dr);
void pl011_rx_service(struct pl011 *uart);

/* TX internals used by shutdown and the interrupt handler. */
void pl011_tx_service(struct pl011 *uart, bool from_irq);
/* Wait for ring empty, TXFE and !BUSY; kicks a stalled TX. Returns 0 or PL011_ETIMEDOUT. */
int pl011_tx_wait_drained(struct pl011 *uart, uint32_t budget_us);
/* Wait for TXFE and !BUSY only (the FIFO and shift register). */
int pl011_tx_wait_fifo_empty(struct pl011 *uart, uint32_t budget_us);
/* Take the TX lock within a bounded spin, drop the ring, mask TXIM. Returns bytes dropped. */
uint32_t pl011_tx_discard(struct pl011 *uart);

#endif
