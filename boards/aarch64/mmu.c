/* Identity-mapped MMU for AArch64 boards from the board's region table: RAM Normal write-back cacheable, peripherals Device. */
#include <stdbool.h>
#include <stdint.h>

#include "board_common.h"

/*
 * Why: with the MMU off every EL1 data access is Device-nGnRnE, where unaligned accesses and
 * DC ZVA (both used by picolibc's memcpy/memset) fault, and where the BCM283x interconnect has
 * no exclusive monitor for LDXR/STXR. The start-up calls this before any C library code.
 *
 * 4 KiB granule, 39-bit input addresses (T0SZ 25), so the walk starts at level 1: each of its
 * 512 entries maps 1 GiB, either as one block or through a level-2 table of 2 MiB blocks when
 * the board's regions split that GiB (Arm ARM D5.2, D5.3). 512 GiB covers the Pi 5's
 * peripherals at 0x10_0000_0000 and up.
 */
#define ENTRIES 512u
#define LEVEL1_SHIFT 30u
#define LEVEL2_SHIFT 21u
#define LEVEL2_TABLES 4u
#define DESCRIPTOR_BLOCK 0x1u
#define DESCRIPTOR_TABLE 0x3u
#define ATTR_INDEX(n) ((uint64_t)(n) << 2)
#define ATTR_SH_INNER (3ull << 8) /* Inner Shareable: coherent for every core */
#define ATTR_AF (1ull << 10)      /* access flag set: no access-flag faults */
#define ATTR_PXN (1ull << 53)
#define ATTR_UXN (1ull << 54)
/* MAIR_EL1 (D13.2.95): index 0 Device-nGnRnE (0x00), index 1 Normal inner/outer write-back
 * read/write-allocate (0xFF). */
#define MAIR_VALUE 0xFF00ull
#define BLOCK_NORMAL (ATTR_INDEX(1) | ATTR_SH_INNER | ATTR_AF | DESCRIPTOR_BLOCK)
#define BLOCK_DEVICE (ATTR_INDEX(0) | ATTR_AF | ATTR_PXN | ATTR_UXN | DESCRIPTOR_BLOCK)
/* TCR_EL1 (D13.2.131): T0SZ 25, walks Inner/Outer write-back cacheable and Inner Shareable,
 * 4 KiB granule, no TTBR1 walks (EPD1); IPS from the CPU's physical address range. */
#define TCR_T0SZ 25ull
#define TCR_IRGN0_WB (1ull << 8)
#define TCR_ORGN0_WB (1ull << 10)
#define TCR_SH0_INNER (3ull << 12)
#define TCR_EPD1 (1ull << 23)
#define TCR_IPS_SHIFT 32u
#define SCTLR_M (1ull << 0)
#define SCTLR_A (1ull << 1)
#define SCTLR_C (1ull << 2)
#define SCTLR_I (1ull << 12)

static uint64_t level1[ENTRIES] __attribute__((aligned(4096)));
static uint64_t level2[LEVEL2_TABLES][ENTRIES] __attribute__((aligned(4096)));
static bool tables_built;

/* The block descriptor bits of the region holding `address`, or 0 (a fault entry). */
static uint64_t block_attributes(uint64_t address, const struct board_memory_region *map,
				 uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		const struct board_memory_region *region = &map[i];
		if (address >= region->start && address - region->start < region->size)
			return region->type == BOARD_MEMORY_NORMAL ? BLOCK_NORMAL : BLOCK_DEVICE;
	}
	return 0;
}

/* True if one region (or none) covers the whole GiB at `start`. */
static bool gib_is_uniform(uint64_t start, const struct board_memory_region *map, uint32_t count)
{
	uint64_t end = start + (1ull << LEVEL1_SHIFT);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t low = map[i].start;
		uint64_t high = low + map[i].size;
		if ((low > start && low < end) || (high > start && high < end))
			return false;
	}
	return true;
}

static uint64_t map_entry(uint64_t address, const struct board_memory_region *map, uint32_t count)
{
	uint64_t attributes = block_attributes(address, map, count);
	return attributes != 0 ? address | attributes : 0;
}

static void build_tables(const struct board_memory_region *map, uint32_t count)
{
	uint32_t tables_used = 0;
	for (uint32_t i = 0; i < ENTRIES; i++) {
		uint64_t gib = (uint64_t)i << LEVEL1_SHIFT;
		if (gib_is_uniform(gib, map, count) || tables_used == LEVEL2_TABLES) {
			level1[i] = map_entry(gib, map, count);
			continue;
		}
		uint64_t *table = level2[tables_used++];
		for (uint32_t j = 0; j < ENTRIES; j++)
			table[j] = map_entry(gib + ((uint64_t)j << LEVEL2_SHIFT), map, count);
		level1[i] = (uint64_t)(uintptr_t)table | DESCRIPTOR_TABLE;
	}
	tables_built = true;
}

static uint64_t sctlr_read(void)
{
	uint64_t value;
	__asm__ volatile("mrs %0, sctlr_el1" : "=r"(value));
	return value;
}

/* Core 0 builds the tables (from the start-up, before C library code); every other core
 * started later only loads the same registers. Written with the caches off, the tables need
 * no cleaning: the caches hold nothing yet (they reset invalid). */
void board_mmu_enable(const struct board_memory_region *map, uint32_t count)
{
	if (sctlr_read() & SCTLR_M)
		return;
	if (!tables_built)
		build_tables(map, count);
	uint64_t mmfr0;
	__asm__ volatile("mrs %0, id_aa64mmfr0_el1" : "=r"(mmfr0));
	/* PARange (bits 3:0) uses the same encoding as TCR_EL1.IPS; 40 bits (2) or more is
	 * capped to 48 bits (5), the largest 4 KiB-granule ARMv8.0 value. */
	uint64_t ips = mmfr0 & 0xFu;
	if (ips > 5u)
		ips = 5u;
	uint64_t tcr = TCR_T0SZ | TCR_IRGN0_WB | TCR_ORGN0_WB | TCR_SH0_INNER | TCR_EPD1 |
		       (ips << TCR_IPS_SHIFT);
	__asm__ volatile("msr mair_el1, %0\n\t"
			 "msr tcr_el1, %1\n\t"
			 "msr ttbr0_el1, %2\n\t"
			 "dsb ish\n\t"
			 "tlbi vmalle1\n\t"
			 "ic iallu\n\t"
			 "dsb ish\n\t"
			 "isb"
			 : : "r"(MAIR_VALUE), "r"(tcr), "r"((uint64_t)(uintptr_t)level1) : "memory");
	uint64_t sctlr = (sctlr_read() & ~SCTLR_A) | SCTLR_M | SCTLR_C | SCTLR_I;
	__asm__ volatile("msr sctlr_el1, %0\n\tisb" : : "r"(sctlr) : "memory");
}
