/* The register seam: the only place in lib/ that touches hardware, plus the test hook points. */
#ifndef PL011_IO_H
#define PL011_IO_H

#include <stdbool.h>
#include <stdint.h>

/*
 * PL011_SINGLE_CORE (0 or 1, default 0), set when building lib/: the firmware declares that
 * every context calling the driver runs on one core, and that a context preempting another
 * (an interrupt, a fault) runs to completion before the other resumes. The driver then uses no
 * barrier, no exclusive pair and no atomic helper: program order orders the shared words, and
 * each read-modify-write is a load and a store with interrupts masked (privileged code only:
 * the mask is CPSR, PRIMASK or DAIF). Time-sliced threads that call the driver at once need 0.
 */
#ifndef PL011_SINGLE_CORE
#define PL011_SINGLE_CORE 0
#endif
#if PL011_SINGLE_CORE && defined(PL011_IO_MULTI_CORE)
#error "PL011_SINGLE_CORE=1 and PL011_IO_MULTI_CORE contradict each other"
#endif
#if PL011_SINGLE_CORE && defined(__thumb__) && !defined(__thumb2__) && \
	!(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
/* Thumb-1 has no MRS or MSR to mask interrupts with (ARMv4T, ARMv5T, ARMv6 in Thumb state). */
#error "PL011_SINGLE_CORE=1 needs ARM state (-marm) or Thumb-2 on this core"
#endif

/*
 * ARMv5 and ARMv6-M cores are single (no exclusives, no coherent second core): there the only
 * other context is an interrupt on the same core, and program order is all the ordering the
 * shared words need. GCC does not know that and calls __sync_synchronize, a function, around
 * every ordered atomic access on ARMv5; the pl011_atomic_* helpers below give such cores a
 * relaxed access between two compiler barriers instead, and everyone else the order asked for.
 * A board with two ARMv6-M cores (the RP2040) defines PL011_IO_MULTI_CORE: its ordered
 * accesses then get the DMBs GCC inlines on ARMv6-M, and its board supplies the
 * read-modify-writes with a hardware spinlock (boards/common/atomics_irqmask.c).
 */
#if PL011_SINGLE_CORE || (defined(__ARM_ARCH) && !defined(__aarch64__) && \
			  (__ARM_ARCH < 6 || defined(__ARM_ARCH_6M__)) && !defined(PL011_IO_MULTI_CORE))
#define PL011_IO_ONE_CORE 1
#else
#define PL011_IO_ONE_CORE 0
#endif

/* `order` is one of __ATOMIC_RELAXED, _ACQUIRE, _RELEASE, _SEQ_CST, a constant once inlined. */
static inline uint32_t pl011_atomic_load(const uint32_t *word, int order)
{
#if PL011_IO_ONE_CORE
	(void)order;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint32_t value = __atomic_load_n(word, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return value;
#else
	return __atomic_load_n(word, order);
#endif
}

#ifdef PL011_IO_HOOKS
/* (Declared again below with the other hooks.) A host harness may switch contexts before a
 * plain store to a shared word too, as before a read-modify-write: the schedules where another
 * context changes the word between a load and a store that overwrites it need that point. */
void pl011_io_atomic_point(void);
#endif

static inline void pl011_atomic_store(uint32_t *word, uint32_t value, int order)
{
#ifdef PL011_IO_HOOKS
	pl011_io_atomic_point();
#endif
#if PL011_IO_ONE_CORE
	(void)order;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(word, value, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
	__atomic_store_n(word, value, order);
#endif
}

/* A full fence between our stores and our later loads (another core's view). */
static inline void pl011_atomic_fence(void)
{
#if PL011_IO_ONE_CORE
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

#if PL011_SINGLE_CORE && !defined(PL011_IO_HOOKS)
/* Mask interrupts (IRQ and FIQ) on this core; returns what pl011_interrupts_restore puts back. */
static inline uintptr_t pl011_interrupts_mask(void)
{
	uintptr_t saved;
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
	__asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(saved) : : "memory");
#elif defined(__aarch64__)
	__asm__ volatile("mrs %0, daif\n\tmsr daifset, #3" : "=r"(saved) : : "memory");
#elif defined(__ARM_ARCH)
	__asm__ volatile("mrs %0, cpsr" : "=r"(saved) : : "memory");
	__asm__ volatile("msr cpsr_c, %0" : : "r"(saved | 0xC0u) : "memory"); /* CPSR.I and .F */
#else
#error "PL011_SINGLE_CORE: no way to mask interrupts known for this target"
#endif
	return saved;
}

static inline void pl011_interrupts_restore(uintptr_t saved)
{
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
	__asm__ volatile("msr primask, %0" : : "r"(saved) : "memory");
#elif defined(__aarch64__)
	__asm__ volatile("msr daif, %0" : : "r"(saved) : "memory");
#else
	__asm__ volatile("msr cpsr_c, %0" : : "r"(saved) : "memory");
#endif
}

/* After an unmask followed at once by a mask: an ISB, so that an interrupt pending meanwhile
 * is taken in between (docs/building.md, "One core", cites why; ARMv5 and ARMv6 A-profile
 * cores have no ISB instruction: there the window may close before it is taken). */
static inline void pl011_interrupts_settle(void)
{
#if defined(__aarch64__) || (defined(__ARM_ARCH) && __ARM_ARCH >= 7) || \
	(defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
	__asm__ volatile("isb" ::: "memory");
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}
#elif PL011_SINGLE_CORE
/* The host harness: it switches contexts only at the points, so a section without one is
 * as atomic as a masked one. */
static inline uintptr_t pl011_interrupts_mask(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 0;
}

static inline void pl011_interrupts_restore(uintptr_t saved)
{
	(void)saved;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline void pl011_interrupts_settle(void)
{
	pl011_io_atomic_point(); /* where an interrupt may come */
}
#endif

#if PL011_SINGLE_CORE
/* One core: the compare and swap for a caller that holds interrupts masked already (the TX
 * interrupt's service, lib/pl011_tx_ring.c), a load and a store only a fault can come between. */
static inline bool pl011_atomic_swap_masked(uint32_t *word, uint32_t *expected, uint32_t desired)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint32_t now = __atomic_load_n(word, __ATOMIC_RELAXED);
	bool equal = now == *expected;
	if (equal)
		__atomic_store_n(word, desired, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*expected = now;
	return equal;
}
#endif

/*
 * The atomic read-modify-writes, each preceded at its call site by pl011_io_atomic_rmw_point.
 * Compare and swap: if *word equals *expected, store desired and return true; otherwise
 * return false with *expected set to the word as it is. Sequentially consistent, or on one
 * core (PL011_SINGLE_CORE) a load and a store with interrupts masked.
 */
static inline bool pl011_atomic_swap(uint32_t *word, uint32_t *expected, uint32_t desired)
{
#if PL011_SINGLE_CORE
	uintptr_t saved = pl011_interrupts_mask();
	bool equal = pl011_atomic_swap_masked(word, expected, desired);
	pl011_interrupts_restore(saved);
	return equal;
#else
	return __atomic_compare_exchange_n(word, expected, desired, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
#endif
}

/* Add and return the word as it was; `order` as for pl011_atomic_load. */
static inline uint32_t pl011_atomic_add(uint32_t *word, uint32_t delta, int order)
{
#if PL011_SINGLE_CORE
	(void)order;
	uintptr_t saved = pl011_interrupts_mask();
	uint32_t before = __atomic_load_n(word, __ATOMIC_RELAXED);
	__atomic_store_n(word, before + delta, __ATOMIC_RELAXED);
	pl011_interrupts_restore(saved);
	return before;
#else
	return __atomic_fetch_add(word, delta, order);
#endif
}

#ifdef PL011_IO_HOOKS
/* A host harness (the behavioural model) defines these. pl011_io_atomic_point is called before
 * every plain atomic load or store of a word that two contexts share, and
 * pl011_io_atomic_rmw_point before every atomic read-modify-write of one (compare-exchange,
 * fetch-and-op, exchange), so that a test can deliver an interrupt (or switch cores) there as
 * it can at every register access. Both are the same preemption point; the second also lets
 * the harness count read-modify-writes apart (each costs an exclusive pair or a helper call on
 * the target, where a plain access is an ordinary load or store). tools/check_atomic_points.py
 * checks that every atomic access in lib/ passes one. */
uint32_t pl011_io_read(uintptr_t addr);
void pl011_io_write(uintptr_t addr, uint32_t value);
void pl011_io_atomic_point(void);
void pl011_io_atomic_rmw_point(void);
#if PL011_SINGLE_CORE
/* One core: the barrier below is a compiler barrier, and the harness counts none. */
static inline void pl011_io_barrier(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}
#else
void pl011_io_barrier(void);
#endif
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

static inline void pl011_io_atomic_rmw_point(void)
{
}

/*
 * The hand-over premise, stated once: a register write made by one TX owner must reach the
 * UART before the next owner, on another core, can see the owner word free and read FR.
 * The C11 atomics compile to DMB ISH (or LDAXR/STLXR), whose ordering covers the
 * inner-shareable domain; the UART is a Device-nGnRE location outside it, and the ARM ARM
 * (ARMv8-A, B2.3 "Definition of the memory model" and the DMB description in C6.2; ARMv7-A
 * A3.8.3 "Memory barriers") promises ordering of every explicit access against every other,
 * as every observer sees them, only for a DMB whose domain is the full system: DMB SY. So
 * the driver does not rely on the atomics for register writes: every release of TX ownership
 * (tx_release, the polled release), every ARMED change after an IMSC write, the handler's
 * ICR before its request, and a panic's last beside write before it is accounted are
 * preceded by this barrier; and every successful take of TX (tx_acquired) is followed by it,
 * the mirror on the acquiring side, so the new owner's first FR read cannot be satisfied
 * before the swap that handed it TX. Its cost is one DMB SY per release and one per take.
 * Every DMB above is also a full fence for normal memory, which the take relies on (and a
 * target without one gets the C11 seq_cst fence): see tx_acquired in lib/pl011_tx.c. ARMv6 spells it as a CP15
 * operation; ARMv5 and ARMv6-M cores are treated as single, where program order is enough.
 * The model's posted-writes option (tests/model) holds each core's writes until its next
 * barrier or register read, and the call-matrix explorer fails without these barriers.
 */
static inline void pl011_io_barrier(void)
{
#if PL011_SINGLE_CORE
	/* One core: its own accesses to the UART are in program order (Device memory). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#elif defined(__aarch64__) || (defined(__ARM_ARCH) && __ARM_ARCH >= 7)
	__asm__ volatile("dmb sy" ::: "memory");
#elif defined(__ARM_ARCH) && __ARM_ARCH == 6 && !defined(__ARM_ARCH_6M__)
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 5" : : "r"(0) : "memory");
#elif defined(__ARM_ARCH_6M__) && defined(PL011_IO_MULTI_CORE)
	__asm__ volatile("dmb" ::: "memory"); /* ARMv6-M's one DMB: full system */
#else
	pl011_atomic_fence(); /* at least the C11 fence tx_acquired relies on */
#endif
}
#endif

#endif
