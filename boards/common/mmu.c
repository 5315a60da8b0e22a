/* Identity-mapped MMU for ARMv6/ARMv7 boards from the board's region table: RAM Normal write-back cacheable, peripherals Device. */
#include <stdint.h>

#include "board.h"
#include "board_common.h"

/*
 * Why: with the MMU off every data access is Strongly-ordered, and an LDREX/STREX pair to such
 * memory depends on an exclusive monitor in the interconnect, which the BCM283x chips are not
 * documented to have (bare-metal users report STREX never succeeding): the driver's TX lock
 * would spin. With RAM mapped Normal and non-shareable, the core's local monitor serves the
 * exclusives, the caches work, and unaligned accesses to RAM are legal.
 *
 * Short-descriptor 1 MiB sections (ARMv7-A ARM B3.5.1; ARM1176JZF-S TRM 6.11 with SCTLR.XP).
 *
 * That is right for one core. A board whose other cores share the RAM says BOARD_MMU_SMP in
 * board.h: RAM is then mapped Shareable, each core sets ACTLR.SMP (bit 6 on the Cortex-A7, A9
 * and A15: their TRMs, "Auxiliary Control Register") before its caches go on, so that its
 * caches take part in the coherency of the cluster, and cores 1-3 turn their MMU on with core
 * 0's table before they run anything (board_core_run_prepare below). Without it a second core
 * runs with its MMU off, Strongly-ordered and uncached, beside core 0's write-back cache: it
 * reads stale memory where core 0's lines are dirty. QEMU has no caches, so only silicon shows
 * the difference.
 */
#define SECTION 0x2u
#define SECTION_BYTES 0x100000u
#define SECTION_B (1u << 2)
#define SECTION_C (1u << 3)
#define SECTION_XN (1u << 4)
#define SECTION_AP_FULL (3u << 10)
#define SECTION_TEX(n) ((uint32_t)(n) << 12)
#define SECTION_S (1u << 16)
#ifdef BOARD_MMU_SMP
#define SECTION_RAM_SHARING SECTION_S
#else
#define SECTION_RAM_SHARING 0u
#endif
/* TEX 001, C, B: Normal, inner and outer write-back write-allocate; non-shareable, or Shareable
 * with BOARD_MMU_SMP. */
#define SECTION_NORMAL_CACHED (SECTION_TEX(1) | SECTION_C | SECTION_B | SECTION_RAM_SHARING)
/* TEX 000, C clear, B set: Shareable Device; never executed from. */
#define SECTION_DEVICE (SECTION_B | SECTION_XN)
/* Bits [1:0] = 00: a translation fault on any access. Used for addresses no region maps (on a
 * Pi the VideoCore's share of the SDRAM, and nothing at all on 512 MiB and 1 GiB boards): no
 * speculative fetch or prefetch can touch them. */
#define SECTION_FAULT 0u

#define SCTLR_M (1u << 0)
#define SCTLR_A (1u << 1)
#define SCTLR_C (1u << 2)
#define SCTLR_Z (1u << 11)
#define SCTLR_I (1u << 12)
#define SCTLR_XP (1u << 23) /* ARMv6: the ARMv7-style descriptors; fixed to 1 on ARMv7 */

#define DACR_DOMAIN0_CLIENT 1u
#define ACTLR_SMP (1u << 6)

static uint32_t translation_table[4096] __attribute__((aligned(16384)));

static void barrier_and_flush_prefetch(void)
{
#if __ARM_ARCH >= 7
	__asm__ volatile("dsb\n\tisb" ::: "memory");
#else
	/* ARMv6: CP15 c7, c10, 4 (data synchronization barrier), c7, c5, 4 (prefetch flush). */
	__asm__ volatile("mcr p15, 0, %0, c7, c10, 4\n\tmcr p15, 0, %0, c7, c5, 4"
			 : : "r"(0) : "memory");
#endif
}

/* Nothing cached may survive from before: caches, branch predictor and TLBs start empty. */
static void invalidate_caches_and_tlbs(void)
{
#if __ARM_ARCH >= 7
	/* Cortex-A7/A53/A72 invalidate their data caches at reset; the instruction cache,
	 * branch predictor and TLBs are invalidated here (ICIALLU, BPIALL, TLBIALL). */
	__asm__ volatile("mcr p15, 0, %0, c7, c5, 0\n\t"
			 "mcr p15, 0, %0, c7, c5, 6\n\t"
			 "mcr p15, 0, %0, c8, c7, 0" : : "r"(0) : "memory");
#else
	/* ARM1176 (TRM 3.2.22, c7 operations): clean and invalidate the whole data cache
	 * (c7, c14, 0), not just invalidate it: an image loaded over JTAG while the previous
	 * program's cache was on may still have dirty lines there, its own code and data among
	 * them. Then the instruction cache (c7, c5, 0), the branch targets (c7, c5, 6), the
	 * unified TLB (c8, c7, 0). */
	__asm__ volatile("mcr p15, 0, %0, c7, c14, 0\n\t"
			 "mcr p15, 0, %0, c7, c10, 4\n\t"
			 "mcr p15, 0, %0, c7, c5, 0\n\t"
			 "mcr p15, 0, %0, c7, c5, 6\n\t"
			 "mcr p15, 0, %0, c8, c7, 0" : : "r"(0) : "memory");
#endif
	barrier_and_flush_prefetch();
}

/* The section descriptor of the 1 MiB at `base`: its region's attributes if one region holds
 * the whole section, else a fault entry. */
static uint32_t section_descriptor(uint32_t base, const struct board_memory_region *map,
				   uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		const struct board_memory_region *region = &map[i];
		if (base < region->start || (uint64_t)base + SECTION_BYTES - region->start > region->size)
			continue;
		uint32_t type = region->type == BOARD_MEMORY_NORMAL ? SECTION_NORMAL_CACHED
								      : SECTION_DEVICE;
		return base | type | SECTION_AP_FULL | SECTION;
	}
	return SECTION_FAULT;
}

/* This core's MMU and caches on with translation_table (written with the caches off). */
static void mmu_on(void)
{
#ifdef BOARD_MMU_SMP
	/* Secure PL1 may write ACTLR. Non-secure, the write is ignored or traps unless the Secure
	 * firmware allowed it (NSACR; each core's TRM says which bits): a board started
	 * Non-secure relies on its firmware to have set the bit. QEMU ignores the write. */
	uint32_t actlr;
	__asm__ volatile("mrc p15, 0, %0, c1, c0, 1" : "=r"(actlr));
	if ((actlr & ACTLR_SMP) == 0)
		__asm__ volatile("mcr p15, 0, %0, c1, c0, 1\n\tisb" : : "r"(actlr | ACTLR_SMP) : "memory");
#endif
	invalidate_caches_and_tlbs();
	/* TTBCR 0: TTBR0 translates everything; walks uncached (TTBR0 low bits 0), so the table
	 * written with the caches off needs no cleaning. */
	__asm__ volatile("mcr p15, 0, %0, c2, c0, 2" : : "r"(0) : "memory");
	__asm__ volatile("mcr p15, 0, %0, c2, c0, 0" : : "r"((uint32_t)(uintptr_t)translation_table)
			 : "memory");
	__asm__ volatile("mcr p15, 0, %0, c3, c0, 0" : : "r"(DACR_DOMAIN0_CLIENT) : "memory");
	barrier_and_flush_prefetch();

	uint32_t sctlr;
	__asm__ volatile("mrc p15, 0, %0, c1, c0, 0" : "=r"(sctlr));
	sctlr &= ~SCTLR_A;
	sctlr |= SCTLR_M | SCTLR_C | SCTLR_I | SCTLR_Z | SCTLR_XP;
	__asm__ volatile("mcr p15, 0, %0, c1, c0, 0" : : "r"(sctlr) : "memory");
	barrier_and_flush_prefetch();
}

/* Set once the table is complete, before core 0's caches go on: read by cores 1-3 with their
 * MMU off, from memory. */
static volatile uint32_t table_ready;

void board_mmu_enable(const struct board_memory_region *map, uint32_t count)
{
	for (uint32_t i = 0; i < 4096u; i++)
		translation_table[i] = section_descriptor(i << 20, map, count);
	table_ready = 1;
	mmu_on();
}

#ifdef BOARD_MMU_SMP
/* boards/common/startup_armv7a.S: a parked core, its function posted (after core 0's
 * board_init built the table), joins core 0's map before it runs the function. */
void board_core_run_prepare(void)
{
	if (table_ready)
		mmu_on();
}
#endif
