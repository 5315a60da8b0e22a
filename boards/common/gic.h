/* The GIC interface every GIC board uses, with two drivers behind it: gic.c (GICv2: GIC-400 on the Pi 4/5, QEMU virt, the Cortex-A9 and A15 MPCore's GIC) and gic_v3.c (GICv3, AArch64). */
#ifndef GIC_H
#define GIC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A board links one driver: boards/common/gic.c for a GICv2 (ARM IHI 0048B), or
 * boards/common/gic_v3.c for a GICv3 (ARM IHI 0069; AArch64 only: its CPU interface is the
 * ICC_*_EL1 system registers). The functions below mean the same with either; where they
 * differ:
 * - the second address of gic_init and gic_core_wake_enable is the GIC's per-core part: a
 *   GICv2's CPU interface (board.h BOARD_GICC_BASE), a GICv3's redistributor region
 *   (BOARD_GICR_BASE); the shared board code passes BOARD_GIC_CORE_BASE, defined below from
 *   whichever board.h gives (board.h must be included before this file);
 * - gic.c puts every interrupt in group 0, which arrives as IRQ on a GICv2; gic_v3.c in group 1
 *   (a GICv3 signals group 0 as FIQ): Non-secure group 1, or Secure group 1 where the program
 *   was entered at EL3 and runs at Secure EL1;
 * - a core number (gic_route, gic_send_sgi) is the core's MPIDR Aff0 on a GICv3 (its
 *   affinity route), a bit of the 8-bit target list on a GICv2.
 */
#ifndef BOARD_GIC_CORE_BASE
#if defined(BOARD_GICR_BASE)
#define BOARD_GIC_CORE_BASE BOARD_GICR_BASE
#elif defined(BOARD_GICC_BASE)
#define BOARD_GIC_CORE_BASE BOARD_GICC_BASE
#endif
#endif

/* Interrupt IDs (ARM IHI 0048B, 2.2.1): SGIs 0-15, PPIs 16-31 (banked per core), SPIs from 32. */
#define GIC_ID_PPI(n) (16u + (n))
#define GIC_ID_SPI(n) (32u + (n))

/*
 * Distributor and the calling core's CPU interface (GICv3: and its redistributor, found by
 * MPIDR and woken): every interrupt disabled and its pending state cleared, all priorities
 * accepted, both enabled. barrier (may be NULL) runs before the first
 * and after the last access of every GIC call: the BCM283x bus may reorder reads from
 * different peripherals (BCM2835 ARM Peripherals 1.3), so a Pi passes its DMB.
 */
void gic_init(uintptr_t distributor, uintptr_t cpu_interface, void (*barrier)(void));

/* Route interrupt `id` to `core` (an SPI; SGIs and PPIs are per core and ignore it) as a
 * level-sensitive interrupt of the driver's group and enable it, or disable it (enable false). */
void gic_route(uint32_t id, uint32_t core, bool enable);

/* Acknowledge pending interrupts one by one, call handle(id) for each, signal the end of it;
 * bounded, so an interrupt that keeps firing re-enters instead of starving the caller. */
void gic_dispatch(void (*handle)(uint32_t id));

/* The IDs pending now (an asserted level counts, enabled or not), lowest first, at most max. */
uint32_t gic_lines_pending(uint32_t *lines, uint32_t max);

/* Raise software-generated interrupt `id` (0-15) on `core`: how a parked core is woken. */
void gic_send_sgi(uint32_t id, uint32_t core);

/* On the calling core, before it sleeps parked: its CPU interface on and SGI `id` enabled, so
 * that gic_send_sgi ends its WFI. Takes the addresses itself: it runs before core 0's gic_init
 * (the distributor's enable, which core 0 sets, is shared). */
void gic_core_wake_enable(uintptr_t distributor, uintptr_t cpu_interface, uint32_t id);

#endif
