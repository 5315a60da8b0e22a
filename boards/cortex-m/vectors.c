/* M-profile start: the vector table (NVIC lines to board_irq_dispatch), reset, C run-time. */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "board_common.h"
#include "cortex_m.h"
#include "mmio.h"

extern uint32_t __stack_top[];
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];

void board_reset(void);
void board_runtime_start(void);
void board_halt(void);
void board_systick_handler(void);
void __libc_init_array(void);
int main(void);

/* Faults, NMI, SVC and PendSV: nothing here raises them on purpose. Halting keeps the state
 * for a debugger; semihosting BKPT without a debugger also ends here (HardFault). */
void board_halt(void)
{
	board_irq_disable();
	for (;;)
		board_wait_for_interrupt();
}

/* Boards without a SysTick clock (rp2040) leave SysTick unused; a stray one halts. */
void board_systick_handler(void) __attribute__((weak, alias("board_halt")));

/*
 * Word 0 is the initial SP and word 1 the reset handler (Thumb: bit 0 set, which the linker
 * adds for a Thumb function). An M-profile core calls handlers as AAPCS functions, saving
 * r0-r3, r12, lr, pc and xPSR itself, so board_irq_dispatch is the vector of every external
 * line. VTOR needs the table aligned to its size rounded up to a power of two (ARMv7-M ARM
 * B3.2.5); BOARD_VECTOR_ALIGN in board.h says how much that is.
 */
typedef void (*vector_fn)(void);
__attribute__((section(".vectors"), used, aligned(BOARD_VECTOR_ALIGN)))
const vector_fn board_vectors[CM_CORE_VECTORS + BOARD_IRQ_COUNT] = {
	[0] = (vector_fn)(uintptr_t)__stack_top,
	[1] = board_reset,
	[2 ... 14] = board_halt,
	[15] = board_systick_handler,
	[CM_CORE_VECTORS ... CM_CORE_VECTORS + BOARD_IRQ_COUNT - 1] = board_irq_dispatch,
};

/* The reset vector, and the entry point when a debugger or a boot ROM jumps to the image: the
 * stack and the table are set here, not taken for granted from the reset fetch. */
__attribute__((naked, section(".text.board_reset"))) void board_reset(void)
{
	__asm__ volatile("cpsid i\n\t"
			 "ldr r0, =__stack_top\n\t"
			 "mov sp, r0\n\t"
			 /* Not "b": its Thumb-1 encoding reaches 2 KiB, and the linker may place
			  * board_runtime_start further (the RP2040's smp example did). */
			 "ldr r0, =board_runtime_start\n\t"
			 "bx r0\n\t"
			 ".ltorg");
}

void board_runtime_start(void)
{
	mmio_write(CM_SCB_VTOR, (uint32_t)(uintptr_t)board_vectors);
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	/* Sizes from the addresses: the linker's symbols are distinct objects to C, whose pointers
	 * may not be subtracted (C11 6.5.6p9). */
	memcpy(__data_start, __data_load, (uintptr_t)__data_end - (uintptr_t)__data_start);
	memset(__bss_start, 0, (uintptr_t)__bss_end - (uintptr_t)__bss_start);
	__libc_init_array();
	board_init();
	board_exit(main());
}
