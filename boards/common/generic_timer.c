/* ARM generic timer: CNTPCT as the microsecond clock, CNTP_CVAL/CNTP_CTL (EL1 physical timer) as the tick. */
#include "generic_timer.h"

#include "board_common.h"

/* CNTP_CTL (Arm ARM D13.8.17 / G8.2.39): ENABLE, IMASK, ISTATUS. */
#define CNTP_CTL_ENABLE (1u << 0)
#define CNTP_CTL_ISTATUS (1u << 2)
#define MICROSECONDS 1000000u
static uint64_t counter_hz;

/* The counter read is ordered after earlier instructions by the ISB (Arm ARM D11.2.2: reads of
 * CNTPCT may otherwise be speculated). */
#ifdef __aarch64__
static uint64_t counter_frequency(void)
{
	uint64_t value;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(value));
	return value & 0xFFFFFFFFu;
}

static uint64_t counter_now(void)
{
	uint64_t value;
	__asm__ volatile("isb\n\tmrs %0, cntpct_el0" : "=r"(value) : : "memory");
	return value;
}

static uint32_t timer_control(void)
{
	uint64_t value;
	__asm__ volatile("mrs %0, cntp_ctl_el0" : "=r"(value));
	return (uint32_t)value;
}

static void timer_set_control(uint32_t value)
{
	__asm__ volatile("msr cntp_ctl_el0, %0\n\tisb" : : "r"((uint64_t)value) : "memory");
}

static void timer_set_compare(uint64_t value)
{
	__asm__ volatile("msr cntp_cval_el0, %0\n\tisb" : : "r"(value) : "memory");
}
#else
/* AArch32 encodings (Arm ARM G8.2): CNTFRQ c14,c0,0; CNTPCT 64-bit c14 op1 0; CNTP_CTL
 * c14,c2,1; CNTP_CVAL 64-bit c14 op1 2. */
static uint64_t counter_frequency(void)
{
	uint32_t value;
	__asm__ volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(value));
	return value;
}

static uint64_t counter_now(void)
{
	uint32_t low;
	uint32_t high;
	__asm__ volatile("isb\n\tmrrc p15, 0, %0, %1, c14" : "=r"(low), "=r"(high) : : "memory");
	return ((uint64_t)high << 32) | low;
}

static uint32_t timer_control(void)
{
	uint32_t value;
	__asm__ volatile("mrc p15, 0, %0, c14, c2, 1" : "=r"(value));
	return value;
}

static void timer_set_control(uint32_t value)
{
	__asm__ volatile("mcr p15, 0, %0, c14, c2, 1\n\tisb" : : "r"(value) : "memory");
}

static void timer_set_compare(uint64_t value)
{
	__asm__ volatile("mcrr p15, 2, %0, %1, c14\n\tisb"
			 : : "r"((uint32_t)value), "r"((uint32_t)(value >> 32)) : "memory");
}
#endif

void generic_timer_init(uint32_t fallback_hz)
{
	counter_hz = counter_frequency();
	if (counter_hz == 0)
		counter_hz = fallback_hz;
	timer_set_control(0);
}

static uint32_t ticks_to_us(uint64_t ticks)
{
	/* Split so that ticks * 10^6 cannot overflow 64 bits however long the counter ran. */
	uint64_t seconds = ticks / counter_hz;
	uint64_t fraction = ticks % counter_hz;
	return (uint32_t)(seconds * MICROSECONDS + fraction * MICROSECONDS / counter_hz);
}

uint32_t generic_timer_now_us(void)
{
	return ticks_to_us(counter_now());
}

/* The compare for the next moment of the boards' common schedule (board_tick_due, in
 * microseconds), converted to counter ticks from one counter read. */
static void tick_arm(uint64_t ticks)
{
	uint32_t now = ticks_to_us(ticks);
	uint32_t due = board_tick_due(now);
	timer_set_compare(ticks + (uint64_t)(due - now) * counter_hz / MICROSECONDS);
}

void generic_timer_tick_start(uint32_t period_us)
{
	uint64_t ticks = counter_now();
	board_tick_schedule(period_us, ticks_to_us(ticks));
	tick_arm(ticks);
	timer_set_control(CNTP_CTL_ENABLE);
}

void generic_timer_tick_stop(void)
{
	timer_set_control(0);
}

bool generic_timer_tick_acknowledge(void)
{
	if ((timer_control() & CNTP_CTL_ISTATUS) == 0)
		return false;
	/* The output is a level that stays high while CNTPCT >= CVAL: moving the compare value
	 * forward is what clears it. */
	board_tick_advance();
	tick_arm(counter_now());
	return true;
}
