/* M-profile CPU helpers: PRIMASK, WFI, the NVIC lines, the semihosting exit. */
#include "board.h"
#include "board_common.h"
#include "cortex_m.h"
#include "mmio.h"

void board_irq_enable(void)
{
	__asm__ volatile("cpsie i" ::: "memory");
}

void board_irq_disable(void)
{
	__asm__ volatile("cpsid i" ::: "memory");
}

void board_wait_for_interrupt(void)
{
	/* A pending interrupt wakes WFI even with PRIMASK set (ARMv7-M ARM B1.5.19), so a caller
	 * that masked, checked its condition and waits cannot sleep through the wake-up. */
	__asm__ volatile("dsb\n\twfi" ::: "memory");
}

void cortex_m_irq_line(uint32_t irq, bool enable)
{
	uint32_t word = 4u * (irq / 32u);
	uint32_t bit = 1u << (irq % 32u);
	if (enable) {
		mmio_write(CM_NVIC_ICPR + word, bit);
		mmio_write(CM_NVIC_ISER + word, bit);
	} else {
		mmio_write(CM_NVIC_ICER + word, bit);
	}
}

void cortex_m_irq_lines_off(void)
{
	for (uint32_t word = 0; word < (BOARD_IRQ_COUNT + 31u) / 32u; word++) {
		mmio_write(CM_NVIC_ICER + 4u * word, 0xFFFFFFFFu);
		mmio_write(CM_NVIC_ICPR + 4u * word, 0xFFFFFFFFu);
	}
}

uint32_t cortex_m_irq_lines_pending(uint32_t *lines, uint32_t max)
{
	uint32_t count = 0;
	for (uint32_t irq = 0; irq < BOARD_IRQ_COUNT && count < max; irq++) {
		if (mmio_read(CM_NVIC_ISPR + 4u * (irq / 32u)) & (1u << (irq % 32u)))
			lines[count++] = irq;
	}
	return count;
}

void board_semihosting_exit(int status)
{
	/* ARM semihosting SYS_EXIT: r0 = 0x18, r1 = reason; ADP_Stopped_ApplicationExit (0x20026)
	 * means success, RunTimeErrorUnknown (0x20023) not. M-profile has only Thumb, where the
	 * trap is BKPT 0xAB (ARM semihosting spec, "The semihosting interface"). */
	register uint32_t operation __asm__("r0") = 0x18u;
	uint32_t code = 0x20023u;
	if (status == 0)
		code = 0x20026u;
	register uint32_t reason __asm__("r1") = code;
	__asm__ volatile("bkpt 0xab" : : "r"(operation), "r"(reason) : "memory");
}
