/* GICv2 distributor and CPU interface: set-up, routing one ID to a core, dispatch. */
#include <stddef.h>

#include "gic.h"
#include "mmio.h"

/* Distributor and CPU interface registers (ARM IHI 0048B, 4.1.2 and 4.1.3). */
#define GICD_CTLR 0x000u
#define GICD_TYPER 0x004u
#define GICD_IGROUPR 0x080u
#define GICD_ISENABLER 0x100u
#define GICD_ICENABLER 0x180u
#define GICD_ISPENDR 0x200u
#define GICD_ICPENDR 0x280u
#define GICD_IPRIORITYR 0x400u
#define GICD_ITARGETSR 0x800u
#define GICD_ICFGR 0xC00u
#define GICD_SGIR 0xF00u
#define GICC_CTLR 0x000u
#define GICC_PMR 0x004u
#define GICC_IAR 0x00Cu
#define GICC_EOIR 0x010u
#define GICD_TYPER_LINES_MASK 0x1Fu
#define GIC_ID_MASK 0x3FFu
#define GIC_FIRST_SPURIOUS_ID 1020u
#define GIC_FIRST_SPI 32u
#define GIC_PRIORITY 0xA0u
#define GIC_PRIORITY_MASK_ALL 0xFFu
/* Interrupts one dispatch call acknowledges at most (a bound; the rest re-enter). */
#define GIC_DISPATCH_PASSES 4u

static uintptr_t gicd_base;
static uintptr_t gicc_base;
static void (*gic_barrier)(void);

static void no_barrier(void)
{
}

static uintptr_t gicd(uint32_t offset)
{
	return gicd_base + offset;
}

static uintptr_t gicc(uint32_t offset)
{
	return gicc_base + offset;
}

/* Read-modify-write the 8-bit field of `id` in a byte-per-interrupt register bank. */
static void gic_set_byte(uint32_t bank, uint32_t id, uint32_t value)
{
	uintptr_t reg = gicd(bank + (id & ~3u));
	uint32_t shift = (id & 3u) * 8u;
	uint32_t word = mmio_read(reg);
	mmio_write(reg, (word & ~(0xFFu << shift)) | (value << shift));
}

void gic_init(uintptr_t distributor, uintptr_t cpu_interface, void (*barrier)(void))
{
	gicd_base = distributor;
	gicc_base = cpu_interface;
	gic_barrier = barrier != NULL ? barrier : no_barrier;
	/*
	 * Firmware (the Pi's armstub) may leave us Non-secure: then group and Secure-only fields
	 * are read-as-zero/write-ignored, and bit 0 of each CTLR enables group 1, where the
	 * firmware put every interrupt. Secure, or on a GIC without the Security Extensions (QEMU
	 * virt), group 0 is ours and bit 0 enables it. Writing only bit 0 and group 0 works in
	 * every case (IHI 0048B 4.3.1, 4.4.1).
	 */
	gic_barrier();
	uint32_t lines = 32u * ((mmio_read(gicd(GICD_TYPER)) & GICD_TYPER_LINES_MASK) + 1u);
	mmio_write(gicd(GICD_CTLR), 0);
	/* From ID 0: the calling core's banked SGIs and PPIs too. The generic timer's PPI may
	 * still be enabled, and pending, from an earlier program (a JTAG restart); the start-up
	 * stopped the timer. */
	for (uint32_t id = 0; id < lines; id += 32u) {
		mmio_write(gicd(GICD_ICENABLER + id / 8u), 0xFFFFFFFFu);
		mmio_write(gicd(GICD_ICPENDR + id / 8u), 0xFFFFFFFFu);
	}
	mmio_write(gicd(GICD_CTLR), 1u);
	mmio_write(gicc(GICC_PMR), GIC_PRIORITY_MASK_ALL);
	mmio_write(gicc(GICC_CTLR), 1u);
	gic_barrier();
}

void gic_route(uint32_t id, uint32_t core, bool enable)
{
	uint32_t bit = 1u << (id & 31u);
	gic_barrier();
	if (!enable) {
		mmio_write(gicd(GICD_ICENABLER + (id / 32u) * 4u), bit);
		gic_barrier();
		return;
	}
	gic_set_byte(GICD_IPRIORITYR, id, GIC_PRIORITY);
	/* ITARGETSR is read-only for SGIs and PPIs (IHI 0048B 4.3.12). */
	if (id >= GIC_FIRST_SPI)
		gic_set_byte(GICD_ITARGETSR, id, 1u << (core & 7u));
	uintptr_t group = gicd(GICD_IGROUPR + (id / 32u) * 4u);
	mmio_write(group, mmio_read(group) & ~bit);
	/* Level-sensitive: ICFGR bit 2n+1 clear (the PL011, the timers: all level outputs). */
	uintptr_t config = gicd(GICD_ICFGR + (id / 16u) * 4u);
	mmio_write(config, mmio_read(config) & ~(2u << ((id & 15u) * 2u)));
	mmio_write(gicd(GICD_ISENABLER + (id / 32u) * 4u), bit);
	gic_barrier();
}

void gic_dispatch(void (*handle)(uint32_t id))
{
	/* GIC, then the device, then GIC: the barrier at every switch. */
	for (uint32_t pass = 0; pass < GIC_DISPATCH_PASSES; pass++) {
		gic_barrier();
		uint32_t iar = mmio_read(gicc(GICC_IAR));
		uint32_t id = iar & GIC_ID_MASK;
		gic_barrier();
		if (id >= GIC_FIRST_SPURIOUS_ID)
			return;
		handle(id);
		gic_barrier();
		mmio_write(gicc(GICC_EOIR), iar);
	}
	gic_barrier();
}

void gic_send_sgi(uint32_t id, uint32_t core)
{
	/* SGIR: CPUTargetList in bits 23:16, TargetListFilter 0 (that list), the SGI in 3:0
	 * (IHI 0048B 4.3.15). */
	gic_barrier();
	mmio_write(gicd(GICD_SGIR), (1u << (16u + (core & 7u))) | (id & 0xFu));
	gic_barrier();
}

void gic_core_wake_enable(uintptr_t distributor, uintptr_t cpu_interface, uint32_t id)
{
	/* All three are banked per core (IHI 0048B 4.3.5, 4.4.1, 4.4.2): only the core itself can
	 * write them. The SGI's priority is its reset value 0, which passes any mask. */
	mmio_write(distributor + GICD_ISENABLER, 1u << (id & 0xFu));
	mmio_write(cpu_interface + GICC_PMR, GIC_PRIORITY_MASK_ALL);
	mmio_write(cpu_interface + GICC_CTLR, 1u);
}

uint32_t gic_lines_pending(uint32_t *lines, uint32_t max)
{
	/* ISPENDR reads a level-sensitive interrupt whose input is high as pending, enabled or
	 * not (IHI 0048B 4.3.7); IDs 0-31 are this core's banked SGIs and PPIs. */
	uint32_t count = 0;
	gic_barrier();
	uint32_t ids = 32u * ((mmio_read(gicd(GICD_TYPER)) & GICD_TYPER_LINES_MASK) + 1u);
	for (uint32_t id = 0; id < ids && count < max; id++) {
		if (mmio_read(gicd(GICD_ISPENDR + (id / 32u) * 4u)) & (1u << (id & 31u)))
			lines[count++] = id;
	}
	gic_barrier();
	return count;
}
