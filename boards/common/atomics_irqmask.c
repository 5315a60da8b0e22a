/* Atomic helpers GCC calls on cores without LDREX/STREX (ARMv5, ARMv6-M), by masking IRQs. */
#include <stdbool.h>
#include <stdint.h>

/*
 * Part of libpl011.a (make lib, the CMake target): compiled for every core, it defines the
 * helpers only where GCC calls them, on 32-bit ARM without exclusives (__ARM_FEATURE_LDREX
 * undefined: ARMv5, ARMv6-M); elsewhere it is empty, and GCC inlines LDREX/STREX or LDXR/STXR.
 */
#if defined(__arm__) && !defined(__ARM_FEATURE_LDREX)

/*
 * Single core, and the interrupt handler is the only other context: with IRQs masked a
 * read-modify-write cannot be interleaved, so it is atomic. A board with a second core
 * without exclusives (the RP2040) defines BOARD_ATOMICS_SPINLOCK as the address of a hardware
 * spinlock register: reading it returns non-zero when this core got the lock, writing it
 * releases it (RP2040 datasheet 2.3.1.3, SIO "Hardware Spinlocks"); each read-modify-write then
 * takes it with IRQs masked, so it is atomic against the other core too. The ARMv5 form masks CPSR.I, the
 * ARMv6-M form PRIMASK; each restores the previous mask, so the helpers may be called with
 * IRQs already masked (inside a handler, or in a section the caller masked). GCC passes the
 * memory orders too; masking gives sequential consistency on one core, so they are ignored.
 */
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
static inline uint32_t irq_mask_save(void)
{
	uint32_t primask;
	__asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
	return primask;
}

static inline void irq_mask_restore(uint32_t primask)
{
	__asm__ volatile("msr primask, %0" : : "r"(primask) : "memory");
}
#else
static inline uint32_t irq_mask_save(void)
{
	uint32_t cpsr;
	uint32_t masked;
	__asm__ volatile("mrs %0, cpsr\n\torr %1, %0, #0x80\n\tmsr cpsr_c, %1"
			 : "=r"(cpsr), "=r"(masked)::"memory");
	return cpsr;
}

static inline void irq_mask_restore(uint32_t cpsr)
{
	__asm__ volatile("msr cpsr_c, %0" : : "r"(cpsr) : "memory");
}

void __sync_synchronize(void);

void __sync_synchronize(void)
{
	/* ARM926: CP15 c7, c10, 4 drains the write buffer, the ARMv5 form of a barrier. (ARMv6-M
	 * has DMB, which GCC inlines.) */
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 4" : : "r"(0) : "memory");
}
#endif

unsigned int __atomic_exchange_4(volatile void *pointer, unsigned int value, int memorder);
/* GCC's built-in prototype has a `weak` flag, but the library call it emits drops it (the
 * libatomic signature): a different C name with the symbol's name avoids the mismatch. */
bool atomic_compare_exchange_word(volatile void *pointer, void *expected, unsigned int desired,
				  int success_order, int failure_order)
	__asm__("__atomic_compare_exchange_4");
unsigned int __atomic_fetch_add_4(volatile void *pointer, unsigned int value, int memorder);
unsigned int __atomic_fetch_or_4(volatile void *pointer, unsigned int value, int memorder);

enum word_update { WORD_SET, WORD_ADD, WORD_OR };

#ifdef BOARD_ATOMICS_SPINLOCK
/* The DMBs keep the protected accesses inside the lock as the other core sees them. */
static void cross_core_lock(void)
{
	while (*(volatile uint32_t *)(BOARD_ATOMICS_SPINLOCK) == 0)
		;
	__asm__ volatile("dmb" ::: "memory");
}

static void cross_core_unlock(void)
{
	__asm__ volatile("dmb" ::: "memory");
	*(volatile uint32_t *)(BOARD_ATOMICS_SPINLOCK) = 1u;
}
#else
static void cross_core_lock(void)
{
}

static void cross_core_unlock(void)
{
}
#endif

static uint32_t atomic_section_enter(void)
{
	uint32_t mask = irq_mask_save();
	cross_core_lock();
	return mask;
}

static void atomic_section_leave(uint32_t mask)
{
	cross_core_unlock();
	irq_mask_restore(mask);
}

/* One masked read-modify-write; returns the value before. */
static unsigned int word_update(volatile void *pointer, unsigned int value, enum word_update how)
{
	volatile unsigned int *word = pointer;
	uint32_t mask = atomic_section_enter();
	unsigned int old = *word;
	switch (how) {
	case WORD_SET: *word = value; break;
	case WORD_ADD: *word = old + value; break;
	case WORD_OR: *word = old | value; break;
	}
	atomic_section_leave(mask);
	return old;
}

unsigned int __atomic_exchange_4(volatile void *pointer, unsigned int value, int memorder)
{
	(void)memorder;
	return word_update(pointer, value, WORD_SET);
}

unsigned int __atomic_fetch_add_4(volatile void *pointer, unsigned int value, int memorder)
{
	(void)memorder;
	return word_update(pointer, value, WORD_ADD);
}

unsigned int __atomic_fetch_or_4(volatile void *pointer, unsigned int value, int memorder)
{
	(void)memorder;
	return word_update(pointer, value, WORD_OR);
}

bool atomic_compare_exchange_word(volatile void *pointer, void *expected, unsigned int desired,
				  int success_order, int failure_order)
{
	(void)success_order;
	(void)failure_order;
	volatile unsigned int *word = pointer;
	unsigned int *wanted = expected;
	uint32_t mask = atomic_section_enter();
	unsigned int old = *word;
	bool equal = old == *wanted;
	if (equal)
		*word = desired;
	atomic_section_leave(mask);
	if (!equal)
		*wanted = old;
	return equal;
}
#else
/* ISO C wants a declaration in every translation unit. */
typedef int pl011_atomics_inline;
#endif
