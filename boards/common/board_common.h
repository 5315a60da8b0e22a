/* Pieces shared by the boards' own code (not part of the API examples see). */
#ifndef BOARD_COMMON_H
#define BOARD_COMMON_H

#include <stdbool.h>
#include <stdint.h>

/* Start the console: polled, 115,200 8N1, with the board clock as time source. */
void board_console_start(uintptr_t base, uint32_t clock_hz);

/* The board's IRQ dispatcher calls this when the console UART's line is pending. */
void board_console_irq(void);

/* Board part of board_console_irq_enable: the UART's line at the interrupt controller. */
void board_console_route(bool enable);

/* Remember the tick function (board_tick_start does the timer part). */
void board_tick_set(void (*tick)(void *context), void *context);

/* Called by the board's timer interrupt. */
void board_tick_run(void);

/*
 * The drift-free schedule for a board's one-shot tick timer or absolute alarm: each moment is
 * one period after the previous *moment*, not after "now", and a moment already passed (or
 * closer than a margin) skips the whole periods lost, since an alarm set into the past would
 * never fire. board_tick_schedule remembers tick and context (board_tick_set) and the period,
 * the first moment one period after now; it returns false when the tick is stopped (period 0
 * or no function). board_tick_due gives the moment to program next, as seen at now.
 * board_tick_advance, from the timer interrupt, moves to the following moment; false when
 * stopped.
 */
bool board_tick_schedule(uint32_t period_us, void (*tick)(void *context), void *context,
			 uint32_t now);
uint32_t board_tick_due(uint32_t now);
bool board_tick_advance(void);

/* Semihosting SYS_EXIT: status 0 ends QEMU with 0, anything else with 1. Returns when no
 * debugger or emulator took the call (the SVC vector returns at once; on M-profile the BKPT
 * becomes a HardFault, which halts). */
void board_semihosting_exit(int status);

/* Identity map: the whole 1 MiB sections inside [ram_start, ram_end) Normal cacheable RAM,
 * the rest below device_start faulting (no access, no speculative fetch), device_start and
 * above Device, never executed; turn on the MMU and caches (ARMv6/ARMv7 boards;
 * boards/bcm283x/mmu.c). */
void board_mmu_enable(uint32_t ram_start, uint32_t ram_end, uint32_t device_start);

/* Called from the IRQ vector (startup.S) with IRQs masked. */
void board_irq_dispatch(void);

#endif
