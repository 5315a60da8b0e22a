/* SysTick as the free-running microsecond clock (board_now_us) of the Stellaris/Tiva boards. */
#include <stdbool.h>

#include "board.h"
#include "cortex_m.h"
#include "mmio.h"

void board_systick_handler(void);

/*
 * SysTick is a 24-bit down-counter. It is loaded so that one wrap is a whole number of
 * microseconds (wrap_us), its exception counts wraps, and the time is wraps * wrap_us plus the
 * microseconds elapsed in the current wrap. All of it is modulo 2^32, as board_now_us must be.
 * While interrupts are masked, one wrap still counts: its pending bit (ICSR.PENDSTSET) is read
 * with the counter. A masked stretch longer than one wrap (over 200 ms at 80 MHz) loses time.
 */
static volatile uint32_t wraps;
static uint32_t wrap_us;
static uint32_t cycles_per_us;

void board_systick_handler(void)
{
	wraps = wraps + 1u;
}

void cortex_m_systick_clock_start(uint32_t cpu_hz)
{
	cycles_per_us = cpu_hz / 1000000u;
	wrap_us = (CM_SYST_RVR_MAX + 1u) / cycles_per_us;
	mmio_write(CM_SYST_CSR, 0);
	mmio_write(CM_SYST_RVR, wrap_us * cycles_per_us - 1u);
	mmio_write(CM_SYST_CVR, 0); /* any write clears it; the count restarts from RVR */
	wraps = 0;
	mmio_write(CM_SYST_CSR, CM_SYST_CSR_ENABLE | CM_SYST_CSR_TICKINT | CM_SYST_CSR_CLKSOURCE);
}

/* True when a SysTick wrap would be handled before the next instruction: thread mode
 * (IPSR 0) with PRIMASK clear, since every exception keeps the reset priority. */
static bool systick_would_preempt(void)
{
	uint32_t primask;
	uint32_t ipsr;
	__asm__ volatile("mrs %0, primask\n\tmrs %1, ipsr" : "=r"(primask), "=r"(ipsr));
	return (primask & 1u) == 0u && (ipsr & 0x1FFu) == 0u;
}

uint32_t board_now_us(void *context)
{
	(void)context;
	uint32_t base;
	uint32_t count;
	uint32_t pending = 0;
	if (systick_would_preempt()) {
		/* A wrap runs the handler at once, which changes `wraps`: one counter read. */
		do {
			base = wraps;
			count = mmio_read(CM_SYST_CVR);
		} while (base != wraps);
	} else {
		uint32_t later;
		do {
			base = wraps;
			count = mmio_read(CM_SYST_CVR);
			pending = (mmio_read(CM_SCB_ICSR) & CM_SCB_ICSR_PENDSTSET) != 0u ? 1u : 0u;
			later = mmio_read(CM_SYST_CVR);
			/* Read again if the handler ran meanwhile, or if the counter wrapped between
			 * the two counter reads (then the pending bit may belong to either).
			 * Otherwise the bit was set before the first read, and counts with it. */
		} while (base != wraps || later > count);
	}
	uint32_t reload = wrap_us * cycles_per_us - 1u;
	return (base + pending) * wrap_us + (reload - count) / cycles_per_us;
}
