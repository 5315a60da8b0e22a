/* tm4c123: 80 MHz PLL (or 16 MHz PIOSC), UART0/GPTM 0/GPIO A clocks and PA0/PA1 mux, then the shared start. */
#include "board.h"
#include "mmio.h"
#include "stellaris.h"

/* SPMS376E section 5.5: RCC XTAL (bits 10:6) 0x15 is a 16 MHz crystal; RCC2 overrides RCC's
 * source, divider, bypass and power-down when USERCC2 is set. */
#define SYSCTL_RCC2 0x070u
#define RCC_XTAL_MASK (0x1Fu << 6)
#define RCC_XTAL_16MHZ (0x15u << 6)
#define RCC2_USERCC2 (1u << 31)
#define RCC2_DIV400 (1u << 30)
#define RCC2_SYSDIV2_MASK (0x3Fu << 23)
#define RCC2_SYSDIV2LSB (1u << 22)
#define RCC2_SYSDIV2_80MHZ (2u << 23) /* with DIV400 and SYSDIV2LSB clear: 400 / 5 */
#define RCC2_PWRDN2 (1u << 13)
#define RCC2_BYPASS2 (1u << 11)
#define RCC2_OSCSRC2_MASK (7u << 4)
#define RCC2_OSCSRC2_PIOSC (1u << 4) /* 0 is the main oscillator */
/* Run-mode clock gating and peripheral-ready registers, bit 0 = instance 0 (section 5.5). */
#define SYSCTL_RCGCTIMER 0x604u
#define SYSCTL_RCGCGPIO 0x608u
#define SYSCTL_RCGCUART 0x618u
#define SYSCTL_PRTIMER 0xA04u
#define SYSCTL_PRGPIO 0xA08u
#define SYSCTL_PRUART 0xA18u
/* GPIOPCTL (section 10.5): PMC0 = 1 is U0Rx on PA0, PMC1 = 1 is U0Tx on PA1 (table 23-5). */
#define GPIO_PCTL 0x52Cu
#define GPIO_PCTL_PA0_PA1_MASK 0xFFu
#define GPIO_PCTL_PA0_PA1_UART0 0x11u
#define READY_POLLS 1000u

/* SPMS376E section 5.3 ("Initialization and Configuration"): bypass the PLL and stop dividing,
 * pick the crystal and power the PLL, set the divider, wait for lock, stop bypassing. */
static uint32_t clock_start(void)
{
	uintptr_t rcc = STELLARIS_SYSCTL_BASE + STELLARIS_SYSCTL_RCC;
	uintptr_t rcc2 = STELLARIS_SYSCTL_BASE + SYSCTL_RCC2;
	uint32_t value = mmio_read(rcc) | STELLARIS_RCC_BYPASS;
	value &= ~STELLARIS_RCC_USESYSDIV;
	mmio_write(rcc, value);
	uint32_t value2 = mmio_read(rcc2) | RCC2_USERCC2 | RCC2_BYPASS2;
	mmio_write(rcc2, value2);
	value2 &= ~(RCC2_OSCSRC2_MASK | RCC2_SYSDIV2_MASK | RCC2_SYSDIV2LSB);
#ifdef BOARD_CLOCK_PIOSC
	mmio_write(rcc2, value2 | RCC2_OSCSRC2_PIOSC | RCC2_PWRDN2);
	return BOARD_PIOSC_HZ;
#else
	value &= ~(RCC_XTAL_MASK | STELLARIS_RCC_MOSCDIS);
	mmio_write(rcc, value | RCC_XTAL_16MHZ);
	value2 &= ~RCC2_PWRDN2;
	mmio_write(rcc2, value2);
	value2 |= RCC2_DIV400 | RCC2_SYSDIV2_80MHZ;
	mmio_write(rcc2, value2);
	mmio_write(rcc, value | RCC_XTAL_16MHZ | STELLARIS_RCC_USESYSDIV);
	if (!stellaris_wait_pll_lock()) {
		/* No lock: stay on the bypass, the crystal's 16 MHz undivided. */
		mmio_write(rcc, value | RCC_XTAL_16MHZ);
		return BOARD_CRYSTAL_HZ;
	}
	mmio_write(rcc2, value2 & ~RCC2_BYPASS2);
	return BOARD_CPU_HZ;
#endif
}

/* Gate on instance 0 and wait (boundedly) for its ready bit. */
static void clock_gate_on(uint32_t rcgc, uint32_t ready)
{
	uintptr_t gate = STELLARIS_SYSCTL_BASE + rcgc;
	mmio_write(gate, mmio_read(gate) | 1u);
	for (uint32_t poll = 0; poll < READY_POLLS; poll++) {
		if ((mmio_read(STELLARIS_SYSCTL_BASE + ready) & 1u) != 0u)
			break;
	}
}

void board_init(void)
{
	uint32_t cpu_hz = clock_start();
	clock_gate_on(SYSCTL_RCGCUART, SYSCTL_PRUART);
	clock_gate_on(SYSCTL_RCGCTIMER, SYSCTL_PRTIMER);
	clock_gate_on(SYSCTL_RCGCGPIO, SYSCTL_PRGPIO);
	uintptr_t pctl = STELLARIS_GPIOA_BASE + GPIO_PCTL;
	mmio_write(pctl, (mmio_read(pctl) & ~GPIO_PCTL_PA0_PA1_MASK) | GPIO_PCTL_PA0_PA1_UART0);
	stellaris_start(cpu_hz, cpu_hz);
}
