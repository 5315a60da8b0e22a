/* Stellaris/Tiva boards: GPTM 0 as the tick timer, UART0 pins, the shared start. */
#include "board.h"
#include "board_common.h"
#include "cortex_m.h"
#include "mmio.h"
#include "stellaris.h"

/* General-purpose timer registers (DS-LM3S6965 section 9.5, SPMS376E section 11.5). */
#define GPTM_CFG 0x000u
#define GPTM_TAMR 0x004u
#define GPTM_CTL 0x00Cu
#define GPTM_IMR 0x018u
#define GPTM_MIS 0x020u
#define GPTM_ICR 0x024u
#define GPTM_TAILR 0x028u
#define GPTM_CFG_32BIT 0x0u
#define GPTM_TAMR_ONE_SHOT 0x1u
#define GPTM_CTL_TAEN (1u << 0)
#define GPTM_INT_TATO (1u << 0) /* timer A time-out, in IMR, MIS and ICR */

static uint32_t timer_cycles_per_us;

/* The tick is timer A in one-shot mode, counting the system clock, as board_one_shot_timer
 * (boards/common/one_shot_tick.c keeps the schedule). */
static void tick_load(uint32_t delay_us)
{
	mmio_write(STELLARIS_TIMER0_BASE + GPTM_CTL, 0);
	mmio_write(STELLARIS_TIMER0_BASE + GPTM_TAILR, delay_us * timer_cycles_per_us);
	mmio_write(STELLARIS_TIMER0_BASE + GPTM_CTL, GPTM_CTL_TAEN);
}

static void tick_stop(void)
{
	mmio_write(STELLARIS_TIMER0_BASE + GPTM_CTL, 0);
}

static bool tick_acknowledge(void)
{
	if ((mmio_read(STELLARIS_TIMER0_BASE + GPTM_MIS) & GPTM_INT_TATO) == 0u)
		return false;
	mmio_write(STELLARIS_TIMER0_BASE + GPTM_ICR, GPTM_INT_TATO);
	return true;
}

const struct board_one_shot_timer board_one_shot_timer = {
	.load = tick_load,
	.stop = tick_stop,
	.acknowledge = tick_acknowledge,
};

int stellaris_wait_pll_lock(void)
{
	for (uint32_t poll = 0; poll < STELLARIS_PLL_LOCK_POLLS; poll++) {
		if ((mmio_read(STELLARIS_SYSCTL_BASE + STELLARIS_SYSCTL_RIS) &
		     STELLARIS_SYSCTL_RIS_PLLLRIS) != 0u)
			return 1;
	}
	return 0;
}

void stellaris_start(uint32_t cpu_hz, uint32_t uart_hz)
{
	cortex_m_irq_lines_off();
	cortex_m_systick_clock_start(cpu_hz);
	timer_cycles_per_us = cpu_hz / 1000000u;
	mmio_write(STELLARIS_TIMER0_BASE + GPTM_CTL, 0);
	mmio_write(STELLARIS_TIMER0_BASE + GPTM_CFG, GPTM_CFG_32BIT);
	mmio_write(STELLARIS_TIMER0_BASE + GPTM_TAMR, GPTM_TAMR_ONE_SHOT);
	mmio_write(STELLARIS_TIMER0_BASE + GPTM_IMR, GPTM_INT_TATO);
	mmio_write(STELLARIS_GPIOA_BASE + STELLARIS_GPIO_AFSEL,
		   mmio_read(STELLARIS_GPIOA_BASE + STELLARIS_GPIO_AFSEL) | STELLARIS_PA0_PA1);
	mmio_write(STELLARIS_GPIOA_BASE + STELLARIS_GPIO_DEN,
		   mmio_read(STELLARIS_GPIOA_BASE + STELLARIS_GPIO_DEN) | STELLARIS_PA0_PA1);
	board_console_start(STELLARIS_UART0_BASE, uart_hz);
}
