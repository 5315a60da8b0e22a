/* SysTick as the free-running microsecond clock (board_now_us) of the Stellaris/Tiva boards. */
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
	/* The cleared counter reads 0 until its first clock reloads it (ARMv7-M ARM B3.3.1), and 0
	 * would count as the end of a wrap: a later read would step back by one. One clock on
	 * silicon; QEMU's took milliseconds. Bounded all the same. */
	for (uint32_t spins = 0; spins < 1000000u && mmio_read(CM_SYST_CVR) == 0u; spins++)
		;
}

/* The pending bit is read even where the wrap's exception would preempt at once: the exception
 * is taken some instructions after the counter reloads (QEMU takes it only at the end of a
 * translation block), and a read in between would see the new count with the old `wraps`,
 * one wrap early. A handler that ran between the reads changes `wraps`: read again. */
uint32_t board_now_us(void *context)
{
	(void)context;
	uint32_t base;
	uint32_t count;
	uint32_t pending;
	uint32_t later;
	do {
		base = wraps;
		count = mmio_read(CM_SYST_CVR);
		pending = (mmio_read(CM_SCB_ICSR) & CM_SCB_ICSR_PENDSTSET) != 0u ? 1u : 0u;
		later = mmio_read(CM_SYST_CVR);
		/* Read again if the handler ran meanwhile, or if the counter wrapped between the two
		 * counter reads (then the pending bit may belong to either). Otherwise the bit was
		 * set before the first read, and counts with it. */
	} while (base != wraps || later > count);
	uint32_t reload = wrap_us * cycles_per_us - 1u;
	return (base + pending) * wrap_us + (reload - count) / cycles_per_us;
}
