/* Pieces shared by the boards' own code (not part of the API examples see). */
#ifndef BOARD_COMMON_H
#define BOARD_COMMON_H

#include <stdbool.h>
#include <stdint.h>

/* How long getchar()/read(0) waits for the first byte before reporting end of input (the
 * newlib and picolibc retargets). */
#define BOARD_STDIN_WAIT_US 10000000u

/* Cores board_core_start can address (the four of a Cortex-A53/A72/A76 cluster). */
#define BOARD_CORES_MAX 4u

/* Board part of board_core_start: wake `core` so that it reaches the start-up's parking loop
 * (PSCI CPU_ON on QEMU virt, the firmware's spin table on a Pi, an SGI on the Cortex-A9 MPCore); 0, or -1 if it cannot. */
int board_core_power_on(uint32_t core);

/* ARMv7-A SMP boards: run by each parked core on itself before it first sleeps, so that the
 * board's wake-up interrupt ends its WFI (boards/common/startup_armv7a.S; the default does
 * nothing). Runs before core 0 has set up .data and .bss: constants and the stack only. */
void board_core_wait_prepare(void);

/* ARMv7-A SMP boards: run by a parked core once its function is posted, before it runs it
 * (boards/common/startup_armv7a.S; the default does nothing). With BOARD_MMU_SMP in board.h,
 * boards/common/mmu.c defines it: the core sets ACTLR.SMP and turns on the MMU and caches with
 * core 0's table, so it shares RAM coherently with core 0 (docs/porting.md, "SMP on silicon"). */
void board_core_run_prepare(void);

/* Start the console: polled, 115,200 8N1, with the board clock as time source. */
void board_console_start(uintptr_t base, uint32_t clock_hz);

/* The board's IRQ dispatcher calls this when the console UART's line is pending. */
void board_console_irq(void);

/* Board part of board_console_irq_enable: the UART's line at the interrupt controller. */
void board_console_route(bool enable);

/* Board part of board_uart_irq_attach: mask or unmask one line at the interrupt controller. */
void board_irq_line_route(uint32_t line, bool enable);

/* The board's IRQ dispatcher calls this for a line that is neither the console's nor the tick's:
 * true if an attached extra UART uses it (its handler has run). */
bool board_uart_irq(uint32_t line);

/* Remember the tick function (board_tick_start does the timer part). */
void board_tick_set(void (*tick)(void *context), void *context);

/* A tick timer: start it with a period, stop it; acknowledge, from the interrupt, returns true
 * if it fired (and re-arms it). */
struct board_tick_timer {
	void (*start)(uint32_t period_us);
	void (*stop)(void);
	bool (*acknowledge)(void);
};

/* The board's tick timer, where the board's shared interrupt code needs it (gic_board.c,
 * cortex-m/interrupts.c). */
extern const struct board_tick_timer board_tick_timer;

/* A down-counter that interrupts once (SP804, Stellaris GPTM, CMSDK APB timer): the tick of
 * most boards. Its driver defines board_one_shot_timer; boards/common/one_shot_tick.c makes
 * board_tick_timer of it on the common schedule below, with board_now_us as the clock. Why
 * one-shot and not periodic: docs/porting.md, "The tick must be one-shot under -icount". */
struct board_one_shot_timer {
	void (*load)(uint32_t delay_us); /* stop, then count delay_us (at least 1) and interrupt once */
	void (*stop)(void);
	bool (*acknowledge)(void); /* true if its interrupt was pending, which it clears */
};
extern const struct board_one_shot_timer board_one_shot_timer;

/* board_tick_start for a board with a struct board_tick_timer and a route function that
 * unmasks (true) or masks (false) the tick's line: the line masked, the timer stopped, the
 * function recorded; then, with a period and a function, the timer started, the line unmasked
 * and IRQs enabled at the CPU. */
void board_tick_configure(uint32_t period_us, void (*tick)(void *context), void *context,
			  const struct board_tick_timer *timer, void (*route)(bool enable));

/* Called by the board's timer interrupt. */
void board_tick_run(void);

/*
 * The drift-free schedule for a tick timer that is one-shot or matches an absolute time, on the
 * microsecond clock: each moment is one period after the previous *moment*, not after "now",
 * and a moment already passed (or closer than a margin) skips the whole periods lost, since an
 * alarm set into the past would never fire. A timer's start calls board_tick_schedule (the
 * first moment one period after now), then programs board_tick_due(now); its acknowledge calls
 * board_tick_advance, then programs board_tick_due(now) again.
 */
void board_tick_schedule(uint32_t period_us, uint32_t now);
uint32_t board_tick_due(uint32_t now);
void board_tick_advance(void);

/* Semihosting SYS_EXIT: status 0 ends QEMU with 0, anything else with non-zero. Returns when
 * no debugger or emulator took the call (boards/common/cpu.c: the SVC vector returns at once;
 * boards/aarch64/cpu.c; boards/cortex-m/cpu.c: the BKPT becomes a HardFault, which halts). */
void board_semihosting_exit(int status);

/* One range of the identity map the MMU set-up builds. Normal is cacheable RAM, Device is
 * every peripheral (never executed from); addresses no region lists fault (no access, no
 * speculative fetch). */
enum board_memory_type {
	BOARD_MEMORY_NORMAL,
	BOARD_MEMORY_DEVICE,
};

struct board_memory_region {
	uint64_t start;
	uint64_t size;
	enum board_memory_type type;
};

/* The map of a machine whose peripherals all lie below its RAM: everything under the RAM
 * Device, the RAM Normal, the rest unmapped (a board.h's BOARD_MEMORY_MAP; the default of
 * boards/common/generic_timer_board.c). */
#define BOARD_MEMORY_DEVICES_BELOW_RAM(ram_start, ram_size)                                \
	{0, (ram_start), BOARD_MEMORY_DEVICE}, { (ram_start), (ram_size), BOARD_MEMORY_NORMAL }

/* A board's fixed memory map (boards whose map is known at build time: QEMU virt, the 64-bit
 * boards): start and size multiples of 1 MiB on AArch32 and 2 MiB on AArch64. */
extern const struct board_memory_region board_memory_map[];
extern const uint32_t board_memory_map_count;

/* Identity-map the `count` regions of `map` and turn on the MMU and caches
 * (boards/common/mmu.c for ARMv6/ARMv7; boards/aarch64/mmu.c, which the AArch64 start-up
 * calls with board_memory_map before any C library code, because with the MMU off every
 * access is Device and unaligned ones fault; a no-op once the MMU is on). */
void board_mmu_enable(const struct board_memory_region *map, uint32_t count);

/* Clean and invalidate the data cache lines of [start, start + size): memory another bus
 * master reads and writes (the Pi mailbox buffer) is seen the same by both sides. */
void board_dcache_flush(const volatile void *start, uint32_t size);

/* Called from the IRQ vector (startup.S) with IRQs masked. */
void board_irq_dispatch(void);

#endif
