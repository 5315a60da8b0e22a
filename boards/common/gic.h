/* GICv2 driver shared by every board with a GIC (GIC-400 on the Pi 4/5, QEMU virt, the Cortex-A9 MPCore's GIC). */
#ifndef GIC_H
#define GIC_H

#include <stdbool.h>
#include <stdint.h>

/* Interrupt IDs (ARM IHI 0048B, 2.2.1): SGIs 0-15, PPIs 16-31 (banked per core), SPIs from 32. */
#define GIC_ID_PPI(n) (16u + (n))
#define GIC_ID_SPI(n) (32u + (n))

/*
 * Distributor and the calling core's CPU interface: every interrupt disabled and its pending state
 * cleared, all priorities accepted, both enabled. barrier (may be NULL) runs before the first
 * and after the last access of every GIC call: the BCM283x bus may reorder reads from
 * different peripherals (BCM2835 ARM Peripherals 1.3), so a Pi passes its DMB.
 */
void gic_init(uintptr_t distributor, uintptr_t cpu_interface, void (*barrier)(void));

/* Route interrupt `id` to `core` (an SPI; SGIs and PPIs are per core and ignore it) as a
 * level-sensitive group 0 interrupt and enable it, or disable it (enable false). */
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
