/* lm3s6965: PLL to 50 MHz from the 8 MHz crystal, UART0/GPTM 0/GPIO A clocks, then the shared start. */
#include "board.h"
#include "mmio.h"
#include "stellaris.h"

/* DS-LM3S6965 section 6.5: RCC XTAL (bits 9:6) 0xE is an 8 MHz crystal; run-mode clock gating
 * RCGC1 (UART0 bit 0, TIMER0 bit 16) and RCGC2 (GPIOA bit 0). */
#define RCC_XTAL_MASK (0xFu << 6)
#define RCC_XTAL_8MHZ (0xEu << 6)
#define RCC_SYSDIV_50MHZ (3u << STELLARIS_RCC_SYSDIV_SHIFT)
#define SYSCTL_RCGC1 0x104u
#define SYSCTL_RCGC2 0x108u
#define RCGC1_UART0 (1u << 0)
#define RCGC1_TIMER0 (1u << 16)
#define RCGC2_GPIOA (1u << 0)

/* The PLL sequence of DS-LM3S6965 section 6.3 ("PLL Frequency Configuration"): bypass the PLL,
 * select the main oscillator and crystal, power the PLL, set the divider, wait for lock, stop
 * bypassing. Returns the system clock it ended up with. */
static uint32_t clock_start(void)
{
	uintptr_t rcc = STELLARIS_SYSCTL_BASE + STELLARIS_SYSCTL_RCC;
	uint32_t value = mmio_read(rcc);
	value |= STELLARIS_RCC_BYPASS;
	value &= ~STELLARIS_RCC_USESYSDIV;
	mmio_write(rcc, value);
	value &= ~(RCC_XTAL_MASK | STELLARIS_RCC_OSCSRC_MASK | STELLARIS_RCC_MOSCDIS |
		   STELLARIS_RCC_PWRDN | STELLARIS_RCC_SYSDIV_MASK);
	value |= RCC_XTAL_8MHZ;
	mmio_write(rcc, value);
	value |= RCC_SYSDIV_50MHZ | STELLARIS_RCC_USESYSDIV;
	mmio_write(rcc, value);
	if (!stellaris_wait_pll_lock()) {
		mmio_write(rcc, value & ~STELLARIS_RCC_USESYSDIV); /* the crystal, undivided */
		return BOARD_CRYSTAL_HZ;
	}
	mmio_write(rcc, value & ~STELLARIS_RCC_BYPASS);
	return BOARD_CPU_HZ;
}

void board_init(void)
{
	uint32_t cpu_hz = clock_start();
	uintptr_t rcgc1 = STELLARIS_SYSCTL_BASE + SYSCTL_RCGC1;
	uintptr_t rcgc2 = STELLARIS_SYSCTL_BASE + SYSCTL_RCGC2;
	mmio_write(rcgc1, mmio_read(rcgc1) | RCGC1_UART0 | RCGC1_TIMER0);
	mmio_write(rcgc2, mmio_read(rcgc2) | RCGC2_GPIOA);
	/* A gated-on peripheral needs a few clocks before it answers (DS-LM3S6965 section 6.2.5,
	 * "System Control"): the read-back is that delay. */
	(void)mmio_read(rcgc2);
	stellaris_start(cpu_hz, cpu_hz);
}
