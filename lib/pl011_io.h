/* The register seam: the only place in lib/ that touches hardware, plus the test hook points. */
#ifndef PL011_IO_H
#define PL011_IO_H

#include <stdint.h>

#ifdef PL011_IO_HOOKS
/* A host harness (the behavioural model) defines these. pl011_io_atomic_point is called before
 * every atomic operation on a word that two contexts share, so that a test can deliver an
 * interrupt (or switch cores) there as it can at every register access. */
uint32_t pl011_io_read(uintptr_t addr);
void pl011_io_write(uintptr_t addr, uint32_t value);
void pl011_io_atomic_point(void);
void pl011_io_barrier(void);
#else
static inline uint32_t pl011_io_read(uintptr_t addr)
{
	return *(volatile const uint32_t *)addr;
}

static inline void pl011_io_write(uintptr_t addr, uint32_t value)
{
	*(volatile uint32_t *)addr = value;
}

static inline void pl011_io_atomic_point(void)
{
}

/*
 * Order a register write before what another core does after it sees our next atomic store.
 * A DMB with the inner-shareable option (what GCC emits for C11 fences) is not guaranteed to
 * order Device accesses against normal memory as other observers see them; the full-system
 * DMB SY is (ARM ARM, "Memory barriers"). ARMv6 spells it as a CP15 operation; ARMv5 and
 * ARMv6-M cores are single, where program order is enough.
 */
static inline void pl011_io_barrier(void)
{
#if defined(__aarch64__) || (defined(__ARM_ARCH) && __ARM_ARCH >= 7)
	__asm__ volatile("dmb sy" ::: "memory");
#elif defined(__ARM_ARCH) && __ARM_ARCH == 6 && !defined(__ARM_ARCH_6M__)
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 5" : : "r"(0) : "memory");
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}
#endif

#endif
