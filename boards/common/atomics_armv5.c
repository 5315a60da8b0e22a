/* Atomic helpers GCC calls on ARMv5, which has no LDREX/STREX: single core, so masking IRQs
 * makes the exchange atomic against the interrupt handler, the only other context. */
#include <stdint.h>

unsigned int __atomic_exchange_4(volatile void *pointer, unsigned int value, int memorder);
void __sync_synchronize(void);

unsigned int __atomic_exchange_4(volatile void *pointer, unsigned int value, int memorder)
{
	(void)memorder;
	volatile unsigned int *word = pointer;
	uint32_t cpsr;
	uint32_t masked;
	__asm__ volatile("mrs %0, cpsr\n\torr %1, %0, #0x80\n\tmsr cpsr_c, %1"
			 : "=r"(cpsr), "=r"(masked)::"memory");
	unsigned int old = *word;
	*word = value;
	__asm__ volatile("msr cpsr_c, %0" : : "r"(cpsr) : "memory");
	return old;
}

void __sync_synchronize(void)
{
	/* ARM926: CP15 c7, c10, 4 drains the write buffer, the ARMv5 form of a barrier. */
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 4" : : "r"(0) : "memory");
}
