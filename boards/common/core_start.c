/* board_core_start and board_core_id for the boards whose start-up parks cores 1-3 until a function is posted for them (AArch64, ARMv7-A SMP). */
#include <stddef.h>

#include "board.h"
#include "board_common.h"

/* Per core: the function and its context that the parked core runs (boards/aarch64/startup.S,
 * boards/common/startup_armv7a.S). In .data, not .bss: the ARMv7-A secondaries read their slot
 * before core 0 has zeroed .bss, and .data arrives with the image. */
__attribute__((section(".data"))) uintptr_t board_core_entries[BOARD_CORES_MAX][2];

int board_core_start(uint32_t core, void (*function)(void *context), void *context)
{
	if (core == 0 || core >= BOARD_CORES_MAX)
		return -1;
	board_core_entries[core][1] = (uintptr_t)context;
	/* Release: the context is visible before the function that the parked core polls for. */
	__atomic_store_n(&board_core_entries[core][0], (uintptr_t)function, __ATOMIC_RELEASE);
	/* The parked core reads its slot with its MMU off, from memory, not from this core's cache:
	 * clean the line to memory (a no-op with the caches off, and under QEMU). */
	board_dcache_flush(board_core_entries[core], sizeof board_core_entries[core]);
	__asm__ volatile("dsb sy\n\tsev" ::: "memory");
	return board_core_power_on(core);
}

/* MPIDR (Arm ARM D17.2 MPIDR_EL1; ARMv7-A B4.1.106 MPIDR): these boards number their cores in
 * Aff0 (Cortex-A9, A53, A72) or Aff1 (Cortex-A76, whose Aff0 is the thread), the other field 0:
 * either way the OR is unique per core. */
uint32_t board_core_id(void *context)
{
	(void)context;
#if defined(__aarch64__)
	uint64_t mpidr;
	__asm__ volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
#else
	uint32_t mpidr;
	__asm__ volatile("mrc p15, 0, %0, c0, c0, 5" : "=r"(mpidr));
#endif
	return (uint32_t)((mpidr & 0xFFu) | ((mpidr >> 8) & 0xFFu));
}
