/* CPU-level helpers shared by every ARM board: interrupt mask and wait-for-interrupt. */
#include "board.h"

void board_irq_enable(void)
{
#if __ARM_ARCH >= 6
	__asm__ volatile("cpsie i" ::: "memory");
#else
	uint32_t cpsr;
	__asm__ volatile("mrs %0, cpsr\n\tbic %0, %0, #0x80\n\tmsr cpsr_c, %0" : "=r"(cpsr)::"memory");
#endif
}

void board_irq_disable(void)
{
#if __ARM_ARCH >= 6
	__asm__ volatile("cpsid i" ::: "memory");
#else
	uint32_t cpsr;
	__asm__ volatile("mrs %0, cpsr\n\torr %0, %0, #0x80\n\tmsr cpsr_c, %0" : "=r"(cpsr)::"memory");
#endif
}

void board_wait_for_interrupt(void)
{
#if __ARM_ARCH >= 7
	__asm__ volatile("dsb\n\twfi" ::: "memory");
#elif __ARM_ARCH == 6
	/* ARMv6 (ARM1176) has no DSB/WFI instructions: CP15 c7, c10, 4 is the data synchronization
	 * barrier and c7, c0, 4 "wait for interrupt" (ARM1176JZF-S TRM, c7 cache operations). */
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 4\n\tmcr p15, 0, %0, c7, c0, 4" : : "r"(0) : "memory");
#else
	/* ARMv5: CP15 c7, c0, 4 is "wait for interrupt". */
	__asm__ volatile("mcr p15, 0, %0, c7, c0, 4" : : "r"(0) : "memory");
#endif
}
