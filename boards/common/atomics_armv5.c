/* Atomic helpers GCC calls on ARMv5, which has no LDREX/STREX: single core, so masking IRQs
 * makes each read-modify-write atomic against the interrupt handler, the only other context. */
#include <stdbool.h>
#include <stdint.h>

unsigned int __atomic_exchange_4(volatile void *pointer, unsigned int value, int memorder);
bool __atomic_compare_exchange_4(volatile void *pointer, void *expected, unsigned int desired,
				 bool weak, int success_memorder, int failure_memorder);
unsigned int __atomic_fetch_add_4(volatile void *pointer, unsigned int value, int memorder);
void __sync_synchronize(void);

static uint32_t irq_mask(void)
{
	uint32_t cpsr;
	uint32_t masked;
	__asm__ volatile("mrs %0, cpsr\n\torr %1, %0, #0x80\n\tmsr cpsr_c, %1"
			 : "=r"(cpsr), "=r"(masked)::"memory");
	return cpsr;
}

static void irq_restore(uint32_t cpsr)
{
	__asm__ volatile("msr cpsr_c, %0" : : "r"(cpsr) : "memory");
}

unsigned int __atomic_exchange_4(volatile void *pointer, unsigned int value, int memorder)
{
	(void)memorder;
	volatile unsigned int *word = pointer;
	uint32_t cpsr = irq_mask();
	unsigned int old = *word;
	*word = value;
	irq_restore(cpsr);
	return old;
}

bool __atomic_compare_exchange_4(volatile void *pointer, void *expected, unsigned int desired,
				 bool weak, int success_memorder, int failure_memorder)
{
	(void)weak;
	(void)success_memorder;
	(void)failure_memorder;
	volatile unsigned int *word = pointer;
	unsigned int *wanted = expected;
	uint32_t cpsr = irq_mask();
	unsigned int old = *word;
	bool swapped = old == *wanted;
	if (swapped)
		*word = desired;
	irq_restore(cpsr);
	if (!swapped)
		*wanted = old;
	return swapped;
}

unsigned int __atomic_fetch_add_4(volatile void *pointer, unsigned int value, int memorder)
{
	(void)memorder;
	volatile unsigned int *word = pointer;
	uint32_t cpsr = irq_mask();
	unsigned int old = *word;
	*word = old + value;
	irq_restore(cpsr);
	return old;
}

void __sync_synchronize(void)
{
	/* ARM926: CP15 c7, c10, 4 drains the write buffer, the ARMv5 form of a barrier. */
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 4" : : "r"(0) : "memory");
}
