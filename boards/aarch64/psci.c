/* PSCI CPU_ON, how firmware that implements PSCI (QEMU virt, Trusted Firmware on the Pi 5) powers on another core. */
#include "psci.h"

/* PSCI 1.1 (Arm DEN 0022D) 5.1.4 and 5.6: CPU_ON, SMC64/HVC64 function ID, target MPIDR
 * affinity in x1, entry point in x2, context in x3; x0 returns 0 (SUCCESS) or an error. */
#define PSCI_CPU_ON_64 0xC4000003u

extern char _start[];

int psci_cpu_on(uint64_t target_mpidr, enum psci_conduit conduit)
{
	register uint64_t result __asm__("x0") = PSCI_CPU_ON_64;
	register uint64_t target __asm__("x1") = target_mpidr;
	register uint64_t entry __asm__("x2") = (uint64_t)(uintptr_t)_start;
	register uint64_t context __asm__("x3") = 0;
	if (conduit == PSCI_HVC)
		__asm__ volatile("hvc #0" : "+r"(result) : "r"(target), "r"(entry), "r"(context)
				 : "memory");
	else
		__asm__ volatile("smc #0" : "+r"(result) : "r"(target), "r"(entry), "r"(context)
				 : "memory");
	return result == 0 ? 0 : -1;
}
