/* The ARM generic timer as the board clock and tick: the counter for microseconds, the EL1 physical timer for the tick. */
#ifndef GENERIC_TIMER_H
#define GENERIC_TIMER_H

#include <stdbool.h>
#include <stdint.h>

/* GIC interrupt IDs of the EL1 physical timer (Arm ARM D11.2.4, and the Server Base System
 * Architecture's PPI assignment, which QEMU virt and the Pi 4/5 follow): Non-secure PPI 14,
 * Secure PPI 13. */
#define GENERIC_TIMER_ID_NONSECURE 30u
#define GENERIC_TIMER_ID_SECURE 29u

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
