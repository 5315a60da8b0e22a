/* The register seam: the only place in lib/ that touches hardware, plus the test hook points. */
#ifndef PL011_IO_H
#define PL011_IO_H

#include <stdbool.h>
#include <stdint.h>

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
#if defined(__ARM_ARCH) && !defined(__aarch64__) && (__ARM_ARCH < 6 || defined(__ARM_ARCH_6M__)) && \
	!defined(PL011_IO_MULTI_CORE)
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
#if PL011_IO_ONE_CORE
	(void)order;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(word, value, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
#ifdef PL011_IO_HOOKS
	pl011_io_atomic_point();
#endif
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
#if defined(__aarch64__) || (defined(__ARM_ARCH) && __ARM_ARCH >= 7)
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
