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
#if __ARM_ARCH >= 7 || defined(__ARM_ARCH_6K__) || defined(__ARM_ARCH_6KZ__)
	__asm__ volatile("dsb\n\twfi" ::: "memory");
#else
	/* ARMv5/ARMv6 without WFI: CP15 c7, c0, 4 is "wait for interrupt". */
	__asm__ volatile("mcr p15, 0, %0, c7, c0, 4" : : "r"(0) : "memory");
#endif
}
