/* The ARM generic timer as the board clock and tick: the counter for microseconds, the EL1 physical timer for the tick. */
#ifndef GENERIC_TIMER_H
#define GENERIC_TIMER_H

#include <stdbool.h>
#include <stdint.h>

/* GIC interrupt ID of the EL1 physical timer (CNTP_*): PPI 14 in the Server Base System
 * Architecture's assignment, which QEMU virt (hw/arm/virt.h ARCH_TIMER_NS_EL1_IRQ) and the
 * Pi 4/5 device trees follow. In AArch64 it is the same timer in both security states (the
 * Secure one is CNTPS_*, PPI 13, which this code does not use). */
#define GENERIC_TIMER_ID 30u

/* The GIC ID of the Secure physical timer, PPI 13 (QEMU hw/cpu/a15mpcore.c wires GTIMER_SEC
 * there; the SBSA assignment too). A core that runs its program in Secure PL1 (AArch32 with
 * EL3 in AArch32: QEMU vexpress-a15 starts a bare ELF in Secure SVC) reaches this timer
 * through the same CNTP_* registers (CNTP_CTL and CNTP_CVAL are banked by security state,
 * Arm ARM G8.2), so only the ID changes: such a board says BOARD_TICK_IRQ
 * GENERIC_TIMER_SECURE_ID. Which state a machine starts in: docs/porting.md, "Which mode and
 * security state QEMU starts in". */
#define GENERIC_TIMER_SECURE_ID 29u

/* Read the counter frequency (CNTFRQ, set by firmware); fallback_hz if it reads 0. */
void generic_timer_init(uint32_t fallback_hz);

/* Microseconds since the counter started, modulo 2^32. */
uint32_t generic_timer_now_us(void);

/* The tick: start arms the comparator one period ahead, stop disarms it; acknowledge, called
 * from the interrupt, returns true if the timer fired and arms the next match one whole period
 * after the previous one (no drift), skipping periods already missed. */
void generic_timer_tick_start(uint32_t period_us);
void generic_timer_tick_stop(void);
bool generic_timer_tick_acknowledge(void);

#endif
