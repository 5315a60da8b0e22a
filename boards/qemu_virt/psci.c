/* QEMU virt (AArch64): other cores are powered on through PSCI, which QEMU implements behind HVC. */
#include "board.h"
#include "board_common.h"

/* PSCI 1.1 (Arm DEN 0022D) 5.1.4: CPU_ON, SMC64/HVC64 function ID; returns 0 (SUCCESS) or a
 * negative error. QEMU's virt machine without EL2/EL3 answers HVC itself (its device tree says
 * method = "hvc"). The target is MPIDR affinity, the entry point the image's _start. */
#define PSCI_CPU_ON_64 0xC4000003u

extern char _start[];

int board_core_power_on(uint32_t core)
{
	register uint64_t function __asm__("x0") = PSCI_CPU_ON_64;
	register uint64_t target __asm__("x1") = core;
	register uint64_t entry __asm__("x2") = (uint64_t)(uintptr_t)_start;
	register uint64_t context __asm__("x3") = 0;
	__asm__ volatile("hvc #0" : "+r"(function) : "r"(target), "r"(entry), "r"(context) : "memory");
	return (int64_t)function == 0 ? 0 : -1;
}
