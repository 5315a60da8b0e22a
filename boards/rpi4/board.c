/* Raspberry Pi 4 board (32-bit): GIC-400 interrupts, system timer tick, console UART0. */
#include <stddef.h>

#include "bcm283x.h"
#include "board.h"
#include "board_common.h"
#include "mmio.h"

/* board_now_us (the 1 MHz system timer) lives in boards/common/bcm283x.c. */

/* GICv2 registers (ARM IHI 0048B, 4.1.2 and 4.1.3). */
#define GICD_CTLR 0x000u
#define GICD_TYPER 0x004u
#define GICD_IGROUPR 0x080u
#define GICD_ISENABLER 0x100u
#define GICD_ICENABLER 0x180u
#define GICD_ICPENDR 0x280u
#define GICD_IPRIORITYR 0x400u
#define GICD_ITARGETSR 0x800u
#define GICD_ICFGR 0xC00u
#define GICC_CTLR 0x000u
#define GICC_PMR 0x004u
#define GICC_IAR 0x00Cu
#define GICC_EOIR 0x010u
#define GIC_ID_MASK 0x3FFu
#define GIC_FIRST_SPURIOUS_ID 1020u
#define GIC_PRIORITY 0xA0u
#define GIC_CPU0 0x01u
/* Interrupts one dispatch call acknowledges at most (a bound; the rest re-enter). */
#define GIC_DISPATCH_PASSES 4u

#define GIC_ID_TICK BOARD_GIC_ID_VIDEOCORE(BCM283X_GPU_IRQ_TICK)   /* 97 */

static uintptr_t gicd(uint32_t offset)
{
	return (uintptr_t)BOARD_GICD_BASE + offset;
}

static uintptr_t gicc(uint32_t offset)
{
	return (uintptr_t)BOARD_GICC_BASE + offset;
}

/* Read-modify-write the 8-bit field of `id` in a byte-per-interrupt register bank. */
static void gic_set_byte(uint32_t bank, uint32_t id, uint32_t value)
{
	uintptr_t reg = gicd(bank + (id & ~3u));
	uint32_t shift = (id & 3u) * 8u;
	uint32_t word = mmio_read(reg);
	mmio_write(reg, (word & ~(0xFFu << shift)) | (value << shift));
}

static void gic_init(void)
{
	/*
	 * The firmware's armstub may leave us Non-secure (then group and secure-only fields are
	 * read-as-zero/write-ignored, and bit 0 of each CTLR enables group 1, where the armstub
	 * put every interrupt) or Secure (then group 0 is ours and bit 0 enables it). Writing
	 * only bit 0 and group 0 works in both.
	 */
	uint32_t lines = 32u * ((mmio_read(gicd(GICD_TYPER)) & 0x1Fu) + 1u);
	bcm283x_barrier();
	mmio_write(gicd(GICD_CTLR), 0);
	/* From ID 0: the banked SGIs and PPIs too. The generic timer's PPI may still be enabled,
	 * and pending, from an earlier program (a JTAG restart); the start-up stopped the timer. */
	for (uint32_t id = 0; id < lines; id += 32u) {
		mmio_write(gicd(GICD_ICENABLER + id / 8u), 0xFFFFFFFFu);
		mmio_write(gicd(GICD_ICPENDR + id / 8u), 0xFFFFFFFFu);
	}
	mmio_write(gicd(GICD_CTLR), 1u);
	mmio_write(gicc(GICC_PMR), 0xFFu);
	mmio_write(gicc(GICC_CTLR), 1u);
	bcm283x_barrier();
}

static void gic_enable(uint32_t id, bool enable)
{
	uint32_t bit = 1u << (id & 31u);
	bcm283x_barrier();
	if (!enable) {
		mmio_write(gicd(GICD_ICENABLER + (id / 32u) * 4u), bit);
		bcm283x_barrier();
		return;
	}
	gic_set_byte(GICD_IPRIORITYR, id, GIC_PRIORITY);
	gic_set_byte(GICD_ITARGETSR, id, GIC_CPU0);
	uintptr_t group = gicd(GICD_IGROUPR + (id / 32u) * 4u);
	mmio_write(group, mmio_read(group) & ~bit);
	/* Both sources are level-sensitive: ICFGR bit 2n+1 clear. */
	uintptr_t config = gicd(GICD_ICFGR + (id / 16u) * 4u);
	mmio_write(config, mmio_read(config) & ~(2u << ((id & 15u) * 2u)));
	mmio_write(gicd(GICD_ISENABLER + (id / 32u) * 4u), bit);
	bcm283x_barrier();
}

static void tick_route(bool enable)
{
	gic_enable(GIC_ID_TICK, enable);
}

void board_tick_start(uint32_t period_us, void (*tick)(void *context), void *context)
{
	bcm283x_tick_start(period_us, tick, context, tick_route);
}

void board_console_route(bool enable)
{
	gic_enable(BOARD_UART_IRQ, enable);
}

void board_irq_dispatch(void)
{
	/* GIC, then UART or timer, then GIC: a barrier at every switch (BCM 1.3). */
	for (uint32_t pass = 0; pass < GIC_DISPATCH_PASSES; pass++) {
		bcm283x_barrier();
		uint32_t iar = mmio_read(gicc(GICC_IAR));
		uint32_t id = iar & GIC_ID_MASK;
		bcm283x_barrier();
		if (id >= GIC_FIRST_SPURIOUS_ID)
			return;
		if (id == BOARD_UART_IRQ) {
			board_console_irq();
		} else if (id == GIC_ID_TICK && bcm283x_tick_acknowledge()) {
			board_tick_run();
		}
		bcm283x_barrier();
		mmio_write(gicc(GICC_EOIR), iar);
	}
	bcm283x_barrier();
}

void board_init(void)
{
	gic_init();
	bcm283x_tick_timer_stop();
	/* The mailbox clock query runs with the caches still off: no cache maintenance. */
	bcm283x_console_init(bcm2711_uart0_pins_pulls);
	bcm283x_memory_init();
}
