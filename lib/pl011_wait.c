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
 * Restoring division on 32-bit halves, one quotient bit per step, high bit first: `rest` (the
 * dividend's top bits modulo the divisor) stays below the divisor, and the bit its doubling
 * shifts out (a divisor above 2^31) means it exceeded the divisor. Constant shifts only: a
 * variable 64-bit shift is a library call on ARMv6-M. tests/unit/test_divide.c compares it
 * with C's division over edge and random operands.
 */
uint32_t pl011_divide(uint64_t dividend, uint32_t divisor)
{
	uint32_t rest = (uint32_t)(dividend >> 32);
	uint32_t quotient = (uint32_t)dividend;
	if (rest >= divisor)
		return UINT32_MAX; /* the quotient needs more than 32 bits, or divisor is 0 */
	for (uint32_t step = 0; step < 32u; step++) {
		uint32_t carry = rest >> 31;
		rest = (rest << 1) | (quotient >> 31);
		quotient <<= 1;
		if (carry != 0 || rest >= divisor) {
			rest -= divisor;
			quotient |= 1u;
		}
	}
	return quotient;
}

/* Each partial sum fits 32 bits: (2^16 - 1)^2 + 2 * (2^16 - 1) = 2^32 - 1. */
uint64_t pl011_multiply_in_halves(uint32_t a, uint32_t b)
{
	uint32_t a_low = a & 0xFFFFu, a_high = a >> 16;
	uint32_t b_low = b & 0xFFFFu, b_high = b >> 16;
	uint32_t low = a_low * b_low;
	uint32_t middle = a_high * b_low + (low >> 16);
	uint32_t middle2 = a_low * b_high + (middle & 0xFFFFu);
	uint32_t high = a_high * b_high + (middle >> 16) + (middle2 >> 16);
	return ((uint64_t)high << 32) | (middle2 << 16) | (low & 0xFFFFu);
}

#if !defined(__aarch64__)
/* The product is at most (2^32 - 1)^2, which leaves room below 2^64 for any 32-bit add. */
uint32_t pl011_divide_product(uint32_t a, uint32_t b, uint32_t add, uint32_t divisor)
{
	return pl011_divide(pl011_multiply(a, b) + add, divisor);
}
#endif

uint32_t pl011_lcr_h_frame_bits(uint32_t lcr_h)
{
	return 1u + 5u + ((lcr_h & PL011_LCR_H_WLEN_MASK) >> PL011_LCR_H_WLEN_SHIFT) +
	       ((lcr_h & PL011_LCR_H_PEN) ? 1u : 0u) + ((lcr_h & PL011_LCR_H_STP2) ? 2u : 1u);
}

/* Rounded up, so that no bound built on it is short. 12 bits * 256 * 10^6 < 2^32. */
uint32_t pl011_lcr_h_frame_time(uint32_t lcr_h, uint32_t actual_baud)
{
	return pl011_divide_product(pl011_lcr_h_frame_bits(lcr_h), 256000000u, actual_baud - 1u,
				    actual_baud);
}

uint32_t pl011_level_entries(uint32_t depth, uint32_t level)
{
	static const uint8_t eighths[] = {0, 1, 2, 4, 6, 7};
	if (level >= sizeof eighths)
		return depth / 2u;
	return depth * eighths[level] / 8u;
}

static uint32_t saturate_us(uint64_t us)
{
	/* PL011_WAIT_AUTO is UINT32_MAX: a derived bound stays below it. */
	return us >= PL011_WAIT_AUTO ? PL011_WAIT_AUTO - 1u : (uint32_t)us;
}

/* frames * frame_time / 256 rounded up: a multiply and a shift, which every wait and write
 * asks. The product of two 32-bit numbers fits 64 bits. */
uint32_t pl011_frames_us(const struct pl011 *uart, uint32_t frames)
{
	uint64_t time = pl011_multiply(frames, uart->line.frame_time);
	return saturate_us((time + 255u) >> 8);
}

uint32_t pl011_backlog_deadline_us(const struct pl011 *uart, size_t queued)
{
	if (uart == NULL || uart->line.frame_time == 0)
		return PL011_MARGIN_US;
	/* A backlog beyond 2^32 - 1 frames counts as that many. */
	uint32_t depth = uart->line.fifo_depth;
	uint32_t frames = queued > UINT32_MAX - depth ? UINT32_MAX : (uint32_t)queued + depth;
	uint64_t us = pl011_frames_us(uart, frames);
	return saturate_us(us + us / 4u + PL011_MARGIN_US);
}

static uint32_t spins_per_us(const struct pl011 *uart)
{
	return uart->config->spins_per_us ? uart->config->spins_per_us : 1u;
}

void pl011_wait_start(struct pl011_wait *wait, const struct pl011 *uart, uint32_t budget_us)
{
	wait->uart = uart;
	wait->budget_us = budget_us;
	wait->elapsed_us = 0;
	wait->spins_since_change = 0;
	wait->spin_fraction = 0;
	wait->last_us = uart->config->clock != NULL ? pl011_clock_now(uart) : 0u;
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

/* Adds the clock's step to `now`; a clock that never moves would hang the wait, so past the
 * frozen limit the step counts as a spin instead. */
static void count_clock(struct pl011_wait *wait, uint32_t now)
{
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
	if (wait->panic) {
		if (wait->cut_off(wait->uart, wait->cut))
			return true;
	} else if (config->wait_hook != NULL) {
		config->wait_hook(config->wait_context);
	}
	if (config->clock != NULL)
		count_clock(wait, pl011_clock_now(wait->uart));
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

bool pl011_wait_handlers_gone(const struct pl011 *uart, struct pl011_wait *wait)
{
	while (!pl011_handlers_gone(uart)) {
		if (pl011_wait_expired(wait))
			return false;
	}
	return true;
}
