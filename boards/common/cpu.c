/* CPU-level helpers shared by every 32-bit ARM board: interrupt mask, wait-for-interrupt, semihosting exit, cache flush. */
#include "board.h"
#include "board_common.h"

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

void board_semihosting_exit(int status)
{
	/* ARM semihosting (ARM state): r0 = SYS_EXIT (0x18), r1 = reason;
	 * ADP_Stopped_ApplicationExit (0x20026) means success, RunTimeErrorUnknown (0x20023) not. */
	register uint32_t operation __asm__("r0") = 0x18u;
	uint32_t code = 0x20023u;
	if (status == 0)
		code = 0x20026u;
	register uint32_t reason __asm__("r1") = code;
	__asm__ volatile("svc 0x123456" : : "r"(operation), "r"(reason) : "memory", "lr");
}

void board_dcache_flush(const volatile void *start, uint32_t size)
{
	/* CP15 c7, c14, 1 "clean and invalidate data cache line by MVA" has the same encoding on
	 * ARMv5 (ARM926EJ-S TRM 2.3.8), ARMv6 (ARM1176JZF-S TRM 3.2.22) and ARMv7 (DCCIMVAC).
	 * A 32-byte step covers every line size of these cores (32 or 64 bytes). Harmless with the
	 * caches off. */
	uintptr_t line = (uintptr_t)start & ~(uintptr_t)31u;
	uintptr_t end = (uintptr_t)start + size;
	for (; line < end; line += 32u)
		__asm__ volatile("mcr p15, 0, %0, c7, c14, 1" : : "r"(line) : "memory");
#if __ARM_ARCH >= 7
	__asm__ volatile("dsb" ::: "memory");
#else
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 4" : : "r"(0) : "memory");
#endif
}
