/* Interrupt consumer, QEMU lm3s6965evb (Cortex-M3): the vector table with the handlers of
 * docs/interrupts.md's NVIC blocks, .data and .bss, main, its status to QEMU by semihosting. */
#include <stdint.h>

extern uint32_t __stack_top[], __data_load[], __data_start[], __data_end[], __bss_start[],
	__bss_end[];
int main(void);
void systick_isr(void);
void uart0_isr(void);
void gptm0a_isr(void);
void reset(void);
void unexpected(void);

void unexpected(void)
{
	for (;;)
		;
}

void reset(void)
{
	for (uint32_t *from = __data_load, *to = __data_start; to < __data_end;)
		*to++ = *from++;
	for (uint32_t *to = __bss_start; to < __bss_end;)
		*to++ = 0;
	/* SYS_EXIT (0x18): ADP_Stopped_ApplicationExit (0x20026) for 0, RunTimeErrorUnknown
	 * (0x20023) otherwise; BKPT 0xAB is semihosting on M-profile. */
	uint32_t status = main() == 0 ? 0x20026u : 0x20023u;
	register uint32_t operation __asm__("r0") = 0x18u;
	register uint32_t reason __asm__("r1") = status;
	__asm__ volatile("bkpt 0xAB" : : "r"(operation), "r"(reason) : "memory");
	unexpected();
}

/* Entry 0 the stack, 1 reset, 15 SysTick, 16 + n interrupt n: UART0 is 5, GPTM 0 A is 19. */
#define U unexpected
__attribute__((section(".vectors"), used)) static void (*const vectors[16 + 20])(void) = {
	(void (*)(void))(uintptr_t)__stack_top, reset, U, U, U, U, U, U, U, U, U, U, U, U, U,
	systick_isr,
	U, U, U, U, U, uart0_isr, U, U, U, U, U, U, U, U, U, U, U, U, U, gptm0a_isr,
};
