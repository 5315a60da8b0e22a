/* CPU-level helpers shared by every AArch64 board: interrupt mask, WFI, semihosting exit, caches, other cores. */
#include <stddef.h>

#include "board.h"
#include "board_common.h"

/* Per core: the function and its context that the parked core runs (boards/aarch64/startup.S). */
uint64_t aarch64_core_entries[BOARD_CORES_MAX][2];

/* MPIDR_EL1 (Arm ARM D17.2): the boards number their cores in Aff0 (Cortex-A53, A72) or Aff1
 * (Cortex-A76, whose Aff0 is the thread), the other field 0: either way the OR is unique. */
uint32_t board_core_id(void *context)
{
	(void)context;
	uint64_t mpidr;
	__asm__ volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
	return (uint32_t)((mpidr & 0xFFu) | ((mpidr >> 8) & 0xFFu));
}

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

int board_core_start(uint32_t core, void (*function)(void *context), void *context)
{
	if (core == 0 || core >= BOARD_CORES_MAX)
		return -1;
	aarch64_core_entries[core][1] = (uint64_t)(uintptr_t)context;
	/* Release: the context is visible before the function that the parked core polls for. */
	__atomic_store_n(&aarch64_core_entries[core][0], (uint64_t)(uintptr_t)function,
			 __ATOMIC_RELEASE);
	__asm__ volatile("dsb sy\n\tsev" ::: "memory");
	return board_core_power_on(core);
}
