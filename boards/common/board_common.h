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

/* Semihosting SYS_EXIT: status 0 ends QEMU with 0, anything else with 1. Returns when no
 * debugger or emulator took the call (the SVC vector returns at once). */
void board_semihosting_exit(int status);

/* Identity map: the whole 1 MiB sections inside [ram_start, ram_end) Normal cacheable RAM,
 * the rest below device_start faulting (no access, no speculative fetch), device_start and
 * above Device, never executed; turn on the MMU and caches (ARMv6/ARMv7 boards;
 * boards/bcm283x/mmu.c). */
void board_mmu_enable(uint32_t ram_start, uint32_t ram_end, uint32_t device_start);

/* Called from the IRQ vector (startup.S) with IRQs masked. */
void board_irq_dispatch(void);

#endif
