/* CPU-level helpers shared by every AArch64 board: interrupt mask, WFI, semihosting exit, caches. */
#include <stddef.h>

#include "board.h"
#include "board_common.h"

void board_irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2" ::: "memory");
}

void board_irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" ::: "memory");
}

void board_wait_for_interrupt(void)
{
	__asm__ volatile("dsb sy\n\twfi" ::: "memory");
}

void board_semihosting_exit(int status)
{
	/* AArch64 semihosting (Arm "Semihosting for AArch32 and AArch64" 2.0): HLT #0xF000 with
	 * w0 = SYS_EXIT (0x18) and x1 pointing at {ADP_Stopped_ApplicationExit, exit code}. */
	static uint64_t block[2];
	block[0] = 0x20026u;
	block[1] = (uint64_t)(int64_t)status;
	register uint64_t operation __asm__("x0") = 0x18u;
	register uint64_t parameter __asm__("x1") = (uint64_t)(uintptr_t)block;
	__asm__ volatile("hlt #0xf000" : "+r"(operation) : "r"(parameter) : "memory");
}

void board_dcache_flush(const volatile void *start, uint32_t size)
{
	/* CTR_EL0.DminLine (bits 19:16): log2 of the smallest data cache line in words. */
	uint64_t ctr;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	uintptr_t line_size = (uintptr_t)4u << ((ctr >> 16) & 0xFu);
	uintptr_t line = (uintptr_t)start & ~(line_size - 1u);
	uintptr_t end = (uintptr_t)start + size;
	__asm__ volatile("dsb sy" ::: "memory");
	for (; line < end; line += line_size)
		__asm__ volatile("dc civac, %0" : : "r"(line) : "memory");
	__asm__ volatile("dsb sy" ::: "memory");
}
