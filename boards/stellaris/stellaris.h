/* Stellaris LM3S / Tiva TM4C family: what the two boards share (GPTM tick, UART0, NVIC lines). */
#ifndef BOARD_STELLARIS_H
#define BOARD_STELLARIS_H

#include <stdint.h>

/* Same addresses and interrupt numbers on the LM3S6965 and the TM4C123GH6PM: LM3S6965
 * datasheet (DS-LM3S6965) table 2-4 "Memory map" and table 2-9 "Interrupts"; TM4C123GH6PM
 * datasheet (SPMS376E) table 2-4 "Memory map" and table 2-9 "Interrupts". */
#define STELLARIS_SYSCTL_BASE 0x400FE000u
#define STELLARIS_GPIOA_BASE 0x40004000u /* APB aperture on the TM4C123 */
#define STELLARIS_UART0_BASE 0x4000C000u
#define STELLARIS_TIMER0_BASE 0x40030000u /* GPTM 0; a 16/32-bit timer on the TM4C123 */
#define STELLARIS_IRQ_TIMER0A 19u

/* System control (DS-LM3S6965 section 6.5, SPMS376E section 5.5). */
#define STELLARIS_SYSCTL_RIS 0x050u
#define STELLARIS_SYSCTL_RCC 0x060u
#define STELLARIS_SYSCTL_RIS_PLLLRIS (1u << 6)
#define STELLARIS_RCC_MOSCDIS (1u << 0)
#define STELLARIS_RCC_OSCSRC_MASK (3u << 4)
#define STELLARIS_RCC_BYPASS (1u << 11)
#define STELLARIS_RCC_PWRDN (1u << 13)
#define STELLARIS_RCC_USESYSDIV (1u << 22)
#define STELLARIS_RCC_SYSDIV_SHIFT 23u
#define STELLARIS_RCC_SYSDIV_MASK (0xFu << 23)

/* GPIO alternate function and digital enable (DS-LM3S6965 section 8.5, SPMS376E 10.5). */
#define STELLARIS_GPIO_AFSEL 0x420u
#define STELLARIS_GPIO_DEN 0x51Cu
#define STELLARIS_PA0_PA1 0x3u /* U0Rx on PA0, U0Tx on PA1 on both parts */

/* The PLL lock wait is bounded in loop passes (no clock runs yet): 100,000 reads of RIS are
 * tens of milliseconds even at the 12-16 MHz reset clock, far above the lock time. */
#define STELLARIS_PLL_LOCK_POLLS 100000u

/* Everything after the clock set-up: interrupt lines off, the SysTick microsecond clock at
 * cpu_hz, the pins of UART0 (clocks already gated on by the board), the console at uart_hz. */
void stellaris_start(uint32_t cpu_hz, uint32_t uart_hz);

/* Poll the raw interrupt status for the PLL lock, boundedly; true once locked. */
int stellaris_wait_pll_lock(void);

#endif
