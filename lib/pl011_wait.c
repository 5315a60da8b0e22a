/* Time on the line (frames, deadlines) and the bounded waits every blocking path uses. */
#include "pl011_internal.h"

/* Every bound derived from the line gets a quarter more plus this, for interrupt latency and
 * clock granularity (docs/waiting.md). */
#define PL011_MARGIN_US 1000u

/* Steps without the clock moving before it counts as frozen. A working microsecond clock
 * moves within a few hundred polls even on a fast core; a million (50 ms of FR reads at 50 ns)
 * leaves room for a coarse clock and still ends a wait whose clock died. */
#define PL011_FROZEN_CLOCK_STEPS 1000000u

/* Clock reads init may spend timing the clock's step (twice: to the next tick, then one). */
#define PL011_STEP_READS (1u << 17)

uint32_t pl011_clock_step_us(const struct pl011 *uart)
{
	pl011_clock_fn clock = uart->config->clock;
	if (clock == NULL)
		return 0;
	uint32_t ticks[3];
	ticks[0] = clock(uart->config->clock_context);
	for (uint32_t tick = 1; tick < 3u; tick++) {
		uint32_t reads = 0;
		do
			ticks[tick] = clock(uart->config->clock_context);
		while (ticks[tick] == ticks[tick - 1u] && ++reads < PL011_STEP_READS);
		if (ticks[tick] == ticks[tick - 1u])
			return 0;
	}
	return ticks[2] - ticks[1];
}

/*
 * Restoring division, one quotient bit per step, high bit first: after step i, `rest` is the
 * dividend's top i bits modulo the divisor, so it stays below the divisor (< 2^63) and its
 * doubling plus one bit fits 64 bits. The quotient's bits shift in where the dividend's shift
 * out, with constant shifts only (a variable 64-bit shift is a library call on ARMv6-M). The
 * host test compares it with C's division over edge and random operands
 * (tests/unit/test_divide.c).
 */
uint64_t pl011_divide_u64(uint64_t dividend, uint64_t divisor)
{
	uint64_t rest = 0;
	for (uint32_t step = 0; step < 64u; step++) {
		rest = (rest << 1) | (dividend >> 63);
		dividend <<= 1;
		if (rest >= divisor) {
			rest -= divisor;
			dividend |= 1u;
		}
	}
	return dividend;
}

uint64_t pl011_lcr_h_frame_bits(uint32_t lcr_h)
{
	return 1u + 5u + ((lcr_h & PL011_LCR_H_WLEN_MASK) >> PL011_LCR_H_WLEN_SHIFT) +
	       ((lcr_h & PL011_LCR_H_PEN) ? 1u : 0u) + ((lcr_h & PL011_LCR_H_STP2) ? 2u : 1u);
}

uint64_t pl011_lcr_h_frame_ns(uint32_t lcr_h, uint32_t actual_baud)
{
	return pl011_divide_u64(pl011_lcr_h_frame_bits(lcr_h) * 1000000000u, actual_baud);
}

uint32_t pl011_level_entries(uint32_t depth, uint32_t level)
{
	static const uint8_t eighths[] = {0, 1, 2, 4, 6, 7};
	if (level >= sizeof eighths)
		return depth / 2u;
	return depth * eighths[level] / 8u;
}

/* x / 1000 without a division (the M0+ has no divide instruction: __udivsi3 is 276 bytes):
 * 274877907 is 2^38 / 1000 rounded up, 56 / 1000 too large, so x * it / 2^38 stays below
 * the next integer above x / 1000 for every x < 2^38 / 56, which every 32-bit x is. */
static uint32_t divide_by_1000(uint32_t x)
{
	return (uint32_t)(((uint64_t)x * 274877907u) >> 38);
}

static uint32_t saturate_us(uint64_t us)
{
	/* PL011_WAIT_AUTO is UINT32_MAX: a derived bound stays below it. */
	return us >= PL011_WAIT_AUTO ? PL011_WAIT_AUTO - 1u : (uint32_t)us;
}

/* frames * frame_ns / 1000 rounded up, without overflowing 64 bits for any frames. Waits and
 * writes ask this on every call: a product that fits 32 bits (4.29 s of line time: a FIFO's or
 * a ring's worth of frames at any usual rate) is divided in 32 bits, which compilers turn into
 * a multiply by the reciprocal; only a longer backlog takes pl011_divide_u64's 64 steps.
 * frames > ceiling / frame_ns is the same test as frames * frame_ns > ceiling, for integers,
 * without the product's overflow. */
static uint64_t frames_to_us(uint64_t frames, uint64_t frame_ns)
{
	if (frames <= UINT32_MAX && frame_ns <= UINT32_MAX) {
		uint64_t ns = frames * frame_ns; /* at most (2^32 - 1)^2: no overflow */
		if (ns <= UINT32_MAX - 999u)
			return divide_by_1000((uint32_t)ns + 999u);
		return pl011_divide_u64(ns + 999u, 1000u);
	}
	const uint64_t ceiling = (uint64_t)PL011_WAIT_AUTO * 1000u;
	if (frame_ns != 0 && frames > pl011_divide_u64(ceiling, frame_ns))
		return PL011_WAIT_AUTO;
	return pl011_divide_u64(frames * frame_ns + 999u, 1000u);
}

uint32_t pl011_frames_us(const struct pl011 *uart, uint64_t frames)
{
	return saturate_us(frames_to_us(frames, uart->line.frame_ns));
}

uint32_t pl011_backlog_deadline_us(const struct pl011 *uart, size_t queued)
{
	if (uart == NULL || uart->line.frame_ns == 0)
		return PL011_MARGIN_US;
	/* (uint64_t)SIZE_MAX + depth would wrap: queued beyond 2^32 frames saturates anyway. */
	uint64_t frames = queued > UINT32_MAX ? UINT32_MAX : (uint64_t)queued;
	uint64_t us = frames_to_us(frames + uart->line.fifo_depth, uart->line.frame_ns);
	return saturate_us(us + us / 4u + PL011_MARGIN_US);
}

static uint32_t spins_per_us(const struct pl011 *uart)
{
	return uart->config->spins_per_us ? uart->config->spins_per_us : 1u;
}

static uint32_t clock_now(const struct pl011 *uart)
{
	return uart->config->clock(uart->config->clock_context);
}

void pl011_wait_start(struct pl011_wait *wait, const struct pl011 *uart, uint32_t budget_us)
{
	wait->uart = uart;
	wait->budget_us = budget_us;
	wait->elapsed_us = 0;
	wait->spins_since_change = 0;
	wait->spin_fraction = 0;
	wait->last_us = uart->config->clock != NULL ? clock_now(uart) : 0u;
	wait->panic = false;
	wait->cut = PL011_CUT_WHEN_STOPPING;
	wait->cut_off = NULL;
}

static bool panic_cut_off(const struct pl011 *uart, enum pl011_panic_cut cut)
{
	return pl011_panic_cut_off(uart, cut);
}

void pl011_wait_start_panic(struct pl011_wait *wait, const struct pl011 *uart, uint32_t budget_us)
{
	pl011_wait_start(wait, uart, budget_us);
	wait->panic = true;
	wait->cut_off = panic_cut_off;
}

uint32_t pl011_wait_elapsed_us(const struct pl011_wait *wait)
{
	return wait->elapsed_us;
}

/* Elapsed time in 32 bits (a 64-bit sum costs every step more code on a 32-bit core): it
 * saturates at UINT32_MAX, where every budget has run out, so no wait ends earlier or later. */
static void add_elapsed(struct pl011_wait *wait, uint32_t us)
{
	uint32_t sum = wait->elapsed_us + us;
	wait->elapsed_us = sum < us ? UINT32_MAX : sum;
}

/* One step without time from the clock: 1 / spins_per_us microseconds. */
static void count_spin(struct pl011_wait *wait)
{
	if (++wait->spin_fraction >= spins_per_us(wait->uart)) {
		wait->spin_fraction = 0;
		add_elapsed(wait, 1u);
	}
}

/* Adds the clock's step; a clock that never moves would hang the wait, so past the frozen
 * limit the step counts as a spin instead. */
static void count_clock(struct pl011_wait *wait)
{
	uint32_t now = clock_now(wait->uart);
	uint32_t step = now - wait->last_us;
	wait->last_us = now;
	if (step != 0) {
		add_elapsed(wait, step);
		wait->spins_since_change = 0;
	} else if (wait->spins_since_change < PL011_FROZEN_CLOCK_STEPS - 1u) {
		wait->spins_since_change++; /* the limit's step and every one after count as spins */
	} else {
		count_spin(wait);
	}
}

bool pl011_wait_expired(struct pl011_wait *wait)
{
	const struct pl011_config *config = wait->uart->config;
	if (wait->panic && wait->cut_off(wait->uart, wait->cut))
		return true;
	if (config->wait_hook != NULL && !wait->panic)
		config->wait_hook(config->wait_context);
	if (config->clock != NULL)
		count_clock(wait);
	else
		count_spin(wait);
	return wait->elapsed_us >= wait->budget_us;
}

uint32_t pl011_wait_fr(const struct pl011 *uart, uint32_t mask, uint32_t want,
		       struct pl011_wait *wait)
{
	for (;;) {
		uint32_t fr = pl011_reg_read(uart, PL011_FR);
		if ((fr & mask) == want || pl011_wait_expired(wait))
			return fr;
	}
}

int pl011_wait_fr_for(const struct pl011 *uart, uint32_t mask, uint32_t want, uint32_t budget_us)
{
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, budget_us);
	uint32_t fr = pl011_wait_fr(uart, mask, want, &wait);
	return (fr & mask) == want ? 0 : PL011_ETIMEDOUT;
}

bool pl011_wait_presence_gone(const uint32_t *count, struct pl011_wait *wait)
{
	for (;;) {
		pl011_io_atomic_point();
		if (pl011_atomic_load(count, __ATOMIC_SEQ_CST) == 0)
			return true;
		if (pl011_wait_expired(wait))
			return false;
	}
}
