/* GICv3 behind boards/common/gic.h: distributor with affinity routing, one redistributor per core found by MPIDR, the ICC_*_EL1 system-register CPU interface (AArch64). */
#include <stddef.h>

#include "gic.h"
#include "mmio.h"

/*
 * ARM IHI 0069 (GICv3 and GICv4 architecture specification). Differences from gic.c (GICv2):
 * - SPIs are routed by affinity (GICD_IROUTER, ARE set), not by a CPU bit mask; SGIs and PPIs
 *   are configured in the calling core's redistributor, not in banked distributor registers.
 * - The CPU interface is system registers (ICC_*_EL1), not memory; the second address of
 *   gic_init is the redistributors' region (board.h BOARD_GICR_BASE), one 128 KiB frame pair
 *   per core (256 KiB with GICv4 virtual LPIs), each saying in GICR_TYPER whose it is.
 * - Group 0 interrupts always arrive as FIQ, so every interrupt here is group 1, which arrives
 *   as IRQ in the security state it belongs to: Non-secure group 1 (IGROUPR 1) where the GIC
 *   has one security state (QEMU virt without secure=on: GICD_CTLR.DS reads 1) or the program
 *   runs Non-secure; Secure group 1 (IGROUPR 0, IGRPMODR 1) where the program runs Secure
 *   (entered at EL3: boards/aarch64/startup.S drops to Secure EL1 and says so in
 *   aarch64_entry_el). A redistributor starts asleep (GICR_WAKER.ProcessorSleep) and must
 *   be woken before its core's interrupts are delivered.
 */
#define GICD_CTLR 0x0000u
#define GICD_TYPER 0x0004u
#define GICD_IGROUPR 0x0080u
#define GICD_ISENABLER 0x0100u
#define GICD_ICENABLER 0x0180u
#define GICD_ISPENDR 0x0200u
#define GICD_ICPENDR 0x0280u
#define GICD_IPRIORITYR 0x0400u
#define GICD_ICFGR 0x0C00u
#define GICD_IGRPMODR 0x0D00u
#define GICD_IROUTER 0x6000u
/* GICD_CTLR (IHI 0069 12.9.4): the Non-secure view and the single-security-state view put
 * group 1's enable in bit 1 and affinity routing in bit 4; the Secure view Secure group 1's
 * enable in bit 2, ARE_S in bit 4, ARE_NS in bit 5. */
#define GICD_CTLR_ENABLE_GRP1 (1u << 1)
#define GICD_CTLR_ENABLE_GRP1S (1u << 2)
#define GICD_CTLR_ARE (1u << 4)
#define GICD_CTLR_ARE_NS (1u << 5)
#define GICD_CTLR_RWP (1u << 31)
#define GICD_TYPER_LINES_MASK 0x1Fu

/* Redistributor: RD_base frame, then the SGI_base frame 64 KiB on (IHI 0069 12.10, 12.11). */
#define GICR_CTLR 0x0000u
#define GICR_TYPER 0x0008u
#define GICR_WAKER 0x0014u
#define GICR_SGI_BASE 0x10000u
#define GICR_IGROUPR0 (GICR_SGI_BASE + 0x0080u)
#define GICR_ISENABLER0 (GICR_SGI_BASE + 0x0100u)
#define GICR_ICENABLER0 (GICR_SGI_BASE + 0x0180u)
#define GICR_ISPENDR0 (GICR_SGI_BASE + 0x0200u)
#define GICR_ICPENDR0 (GICR_SGI_BASE + 0x0280u)
#define GICR_IPRIORITYR (GICR_SGI_BASE + 0x0400u)
#define GICR_ICFGR0 (GICR_SGI_BASE + 0x0C00u)
#define GICR_IGRPMODR0 (GICR_SGI_BASE + 0x0D00u)
#define GICR_CTLR_RWP (1u << 3)
#define GICR_TYPER_VLPIS (1u << 1)
#define GICR_TYPER_LAST (1u << 4)
#define GICR_WAKER_PROCESSOR_SLEEP (1u << 1)
#define GICR_WAKER_CHILDREN_ASLEEP (1u << 2)
#define GICR_FRAMES_BYTES 0x20000u
#define GICR_FRAMES_BYTES_VLPI 0x40000u
/* Redistributors searched at most (a bound on a region whose Last bit is missing). */
#define GICR_MAX 64u

#define GIC_ID_MASK 0xFFFFFFu
#define GIC_FIRST_SPURIOUS_ID 1020u
#define GIC_FIRST_SPI 32u
#define GIC_PRIORITY 0xA0u
#define GIC_PRIORITY_MASK_ALL 0xFFu
#define GIC_DISPATCH_PASSES 4u
/* Register-write-pending and wake-up polls: the GIC finishes within a few of its cycles; the
 * bound only keeps a broken one from hanging the board. */
#define GIC_POLLS 100000u

/* Set by boards/aarch64/startup.S: the exception level the image was entered at; 3 means it runs
 * at Secure EL1 (weak: absent with a start-up that does not say, taken as Non-secure). */
extern __attribute__((weak)) const volatile uint32_t aarch64_entry_el;
#define ENTERED_AT_EL3 3u

static uintptr_t gicd_base;
static uintptr_t gicr_region;
static uintptr_t gicr_base; /* the calling core's redistributor (gic_init's caller: core 0) */
static bool secure_group1;
static void (*gic_barrier)(void);

/* Secure group 1 when the program runs Secure, else (Non-secure) group 1. */
static bool runs_secure(void)
{
	return &aarch64_entry_el != NULL && aarch64_entry_el == ENTERED_AT_EL3;
}

static void no_barrier(void)
{
}

#define SYSREG_WRITE(name, value)                                                          \
	__asm__ volatile("msr " name ", %0\n\tisb" : : "r"((uint64_t)(value)) : "memory")

/* ICC_*_EL1 by encoding (IHI 0069 12.2), which every assembler takes. */
#define ICC_PMR_EL1 "s3_0_c4_c6_0"
#define ICC_IAR1_EL1 "s3_0_c12_c12_0"
#define ICC_EOIR1_EL1 "s3_0_c12_c12_1"
#define ICC_BPR1_EL1 "s3_0_c12_c12_3"
#define ICC_CTLR_EL1 "s3_0_c12_c12_4"
#define ICC_SRE_EL1 "s3_0_c12_c12_5"
#define ICC_IGRPEN1_EL1 "s3_0_c12_c12_7"
#define ICC_SGI1R_EL1 "s3_0_c12_c11_5"
#define ICC_SRE_SRE 1u

static uint64_t mpidr_affinity(void)
{
	uint64_t mpidr;
	__asm__ volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
	/* Aff3 (39:32), Aff2, Aff1, Aff0 (23:0) as GICR_TYPER's bits 63:32 hold them. */
	return ((mpidr >> 8) & 0xFF000000u) | (mpidr & 0xFFFFFFu);
}

static bool wait_clear(uintptr_t reg, uint32_t bits)
{
	for (uint32_t poll = 0; poll < GIC_POLLS; poll++) {
		if ((mmio_read(reg) & bits) == 0)
			return true;
	}
	return false;
}

/* The redistributor of the core whose affinity is `affinity`, or 0 if none says so. */
static uintptr_t redistributor_of(uintptr_t region, uint64_t affinity)
{
	uintptr_t frame = region;
	for (uint32_t i = 0; i < GICR_MAX; i++) {
		uint32_t typer = mmio_read(frame + GICR_TYPER);
		if (mmio_read(frame + GICR_TYPER + 4u) == (uint32_t)affinity)
			return frame;
		if (typer & GICR_TYPER_LAST)
			break;
		frame += (typer & GICR_TYPER_VLPIS) ? GICR_FRAMES_BYTES_VLPI : GICR_FRAMES_BYTES;
	}
	return 0;
}

/* Wake the redistributor (IHI 0069 12.11.43): ProcessorSleep clear, then ChildrenAsleep
 * clears. Its SGIs and PPIs: disabled, not pending, group 1 of our security state. */
static void redistributor_init(uintptr_t rd, bool clear, bool secure)
{
	mmio_write(rd + GICR_WAKER, mmio_read(rd + GICR_WAKER) & ~GICR_WAKER_PROCESSOR_SLEEP);
	(void)wait_clear(rd + GICR_WAKER, GICR_WAKER_CHILDREN_ASLEEP);
	if (clear) {
		mmio_write(rd + GICR_ICENABLER0, 0xFFFFFFFFu);
		mmio_write(rd + GICR_ICPENDR0, 0xFFFFFFFFu);
		(void)wait_clear(rd + GICR_CTLR, GICR_CTLR_RWP);
	}
	if (secure) {
		mmio_write(rd + GICR_IGROUPR0, 0);
		mmio_write(rd + GICR_IGRPMODR0, 0xFFFFFFFFu);
	} else {
		mmio_write(rd + GICR_IGROUPR0, 0xFFFFFFFFu);
	}
}

/* This core's CPU interface: system registers on, every priority passes, group 1 enabled. */
static void cpu_interface_init(void)
{
	uint64_t sre;
	__asm__ volatile("mrs %0, " ICC_SRE_EL1 : "=r"(sre));
	SYSREG_WRITE(ICC_SRE_EL1, sre | ICC_SRE_SRE);
	SYSREG_WRITE(ICC_PMR_EL1, GIC_PRIORITY_MASK_ALL);
	SYSREG_WRITE(ICC_BPR1_EL1, 0);
	SYSREG_WRITE(ICC_CTLR_EL1, 0); /* EOImode 0: an EOIR write also deactivates */
	SYSREG_WRITE(ICC_IGRPEN1_EL1, 1);
}

static uint32_t spi_lines(void)
{
	return 32u * ((mmio_read(gicd_base + GICD_TYPER) & GICD_TYPER_LINES_MASK) + 1u);
}

void gic_init(uintptr_t distributor, uintptr_t cpu_interface, void (*barrier)(void))
{
	gicd_base = distributor;
	gicr_region = cpu_interface;
	gic_barrier = barrier != NULL ? barrier : no_barrier;
	secure_group1 = runs_secure();
	gic_barrier();
	mmio_write(gicd_base + GICD_CTLR, 0);
	(void)wait_clear(gicd_base + GICD_CTLR, GICD_CTLR_RWP);
	uint32_t lines = spi_lines();
	for (uint32_t id = GIC_FIRST_SPI; id < lines; id += 32u) {
		mmio_write(gicd_base + GICD_ICENABLER + id / 8u, 0xFFFFFFFFu);
		mmio_write(gicd_base + GICD_ICPENDR + id / 8u, 0xFFFFFFFFu);
		if (secure_group1) {
			mmio_write(gicd_base + GICD_IGROUPR + id / 8u, 0);
			mmio_write(gicd_base + GICD_IGRPMODR + id / 8u, 0xFFFFFFFFu);
		} else {
			mmio_write(gicd_base + GICD_IGROUPR + id / 8u, 0xFFFFFFFFu);
		}
	}
	(void)wait_clear(gicd_base + GICD_CTLR, GICD_CTLR_RWP);
	mmio_write(gicd_base + GICD_CTLR, secure_group1
						  ? GICD_CTLR_ARE | GICD_CTLR_ARE_NS | GICD_CTLR_ENABLE_GRP1S
						  : GICD_CTLR_ARE | GICD_CTLR_ENABLE_GRP1);
	(void)wait_clear(gicd_base + GICD_CTLR, GICD_CTLR_RWP);
	gicr_base = redistributor_of(gicr_region, mpidr_affinity());
	if (gicr_base != 0)
		redistributor_init(gicr_base, true, secure_group1);
	cpu_interface_init();
	gic_barrier();
}

static void set_byte(uintptr_t bank, uint32_t id, uint32_t value)
{
	uintptr_t reg = bank + (id & ~3u);
	uint32_t shift = (id & 3u) * 8u;
	mmio_write(reg, (mmio_read(reg) & ~(0xFFu << shift)) | (value << shift));
}

void gic_route(uint32_t id, uint32_t core, bool enable)
{
	uint32_t bit = 1u << (id & 31u);
	bool banked = id < GIC_FIRST_SPI;
	if (banked && gicr_base == 0)
		return;
	gic_barrier();
	if (!enable) {
		mmio_write(banked ? gicr_base + GICR_ICENABLER0
				  : gicd_base + GICD_ICENABLER + (id / 32u) * 4u, bit);
		gic_barrier();
		return;
	}
	set_byte(banked ? gicr_base + GICR_IPRIORITYR : gicd_base + GICD_IPRIORITYR, id,
		 GIC_PRIORITY);
	/* Level-sensitive: ICFGR bit 2n+1 clear, as in gic.c. */
	uintptr_t config = (banked ? gicr_base + GICR_ICFGR0 : gicd_base + GICD_ICFGR) + (id / 16u) * 4u;
	mmio_write(config, mmio_read(config) & ~(2u << ((id & 15u) * 2u)));
	if (banked) {
		mmio_write(gicr_base + GICR_ISENABLER0, bit);
	} else {
		/* IROUTER: Interrupt_Routing_Mode 0 and the core's affinity; these boards number
		 * their cores in Aff0 (QEMU virt), the other fields 0. */
		mmio_write(gicd_base + GICD_IROUTER + id * 8u, core & 0xFFu);
		mmio_write(gicd_base + GICD_IROUTER + id * 8u + 4u, 0);
		mmio_write(gicd_base + GICD_ISENABLER + (id / 32u) * 4u, bit);
	}
	gic_barrier();
}

void gic_dispatch(void (*handle)(uint32_t id))
{
	for (uint32_t pass = 0; pass < GIC_DISPATCH_PASSES; pass++) {
		gic_barrier();
		uint64_t iar;
		__asm__ volatile("mrs %0, " ICC_IAR1_EL1 : "=r"(iar) : : "memory");
		uint32_t id = (uint32_t)iar & GIC_ID_MASK;
		gic_barrier();
		if (id >= GIC_FIRST_SPURIOUS_ID && id <= GIC_FIRST_SPURIOUS_ID + 3u)
			return;
		handle(id);
		gic_barrier();
		SYSREG_WRITE(ICC_EOIR1_EL1, iar);
	}
	gic_barrier();
}

void gic_send_sgi(uint32_t id, uint32_t core)
{
	/* ICC_SGI1R_EL1 (IHI 0069 12.2.25): INTID in 27:24, TargetList bit n is Aff0 n, Aff1-3 0. */
	gic_barrier();
	__asm__ volatile("dsb ishst" ::: "memory");
	SYSREG_WRITE(ICC_SGI1R_EL1, ((uint64_t)(id & 0xFu) << 24) | (1u << (core & 15u)));
	gic_barrier();
}

void gic_core_wake_enable(uintptr_t distributor, uintptr_t cpu_interface, uint32_t id)
{
	/* On the parked core itself, before core 0's gic_init (so no static variable: .bss is not
	 * set up yet): its own redistributor awake, the SGI in group 1 and enabled at priority 0,
	 * its CPU interface on. Distributor settings are core 0's (its gic_init). */
	(void)distributor;
	uintptr_t rd = redistributor_of(cpu_interface, mpidr_affinity());
	if (rd == 0)
		return;
	redistributor_init(rd, false, runs_secure());
	set_byte(rd + GICR_IPRIORITYR, id & 0xFu, 0);
	mmio_write(rd + GICR_ISENABLER0, 1u << (id & 0xFu));
	cpu_interface_init();
}

uint32_t gic_lines_pending(uint32_t *lines, uint32_t max)
{
	uint32_t count = 0;
	gic_barrier();
	uint32_t ids = spi_lines();
	for (uint32_t id = 0; id < ids && count < max; id++) {
		uintptr_t reg = id < GIC_FIRST_SPI ? gicr_base + GICR_ISPENDR0
						   : gicd_base + GICD_ISPENDR + (id / 32u) * 4u;
		if ((id >= GIC_FIRST_SPI || gicr_base != 0) && (mmio_read(reg) & (1u << (id & 31u))))
			lines[count++] = id;
	}
	gic_barrier();
	return count;
}
