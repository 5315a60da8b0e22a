/* Cortex-M core registers (SysTick, NVIC, SCB) and the helpers the M-profile boards share. */
#ifndef BOARD_CORTEX_M_H
#define BOARD_CORTEX_M_H

#include <stdbool.h>
#include <stdint.h>

/* System Control Space addresses, the same on ARMv6-M and ARMv7-M (ARMv7-M ARM B3.2.2 and
 * B3.3.2, ARMv6-M ARM B3.2.2 and B3.3.2; Cortex-M0+/M3/M4 Generic User Guides, 4.1-4.4). */
#define CM_SYST_CSR 0xE000E010u   /* SysTick control and status */
#define CM_SYST_RVR 0xE000E014u   /* SysTick reload value (24 bits) */
#define CM_SYST_CVR 0xE000E018u   /* SysTick current value */
#define CM_NVIC_ISER 0xE000E100u  /* interrupt set-enable, 32 lines per word */
#define CM_NVIC_ICER 0xE000E180u  /* interrupt clear-enable */
#define CM_NVIC_ISPR 0xE000E200u  /* interrupt set-pending, reads the pending state */
#define CM_NVIC_ICPR 0xE000E280u  /* interrupt clear-pending */
#define CM_SCB_ICSR 0xE000ED04u   /* interrupt control and state */
#define CM_SCB_VTOR 0xE000ED08u   /* vector table offset */
#define CM_SYST_CSR_ENABLE (1u << 0)
#define CM_SYST_CSR_TICKINT (1u << 1)
#define CM_SYST_CSR_CLKSOURCE (1u << 2) /* 1: the processor clock */
#define CM_SYST_RVR_MAX 0x00FFFFFFu
#define CM_SCB_ICSR_PENDSTSET (1u << 26) /* SysTick exception pending */
/* The vector table: 16 core exception entries, then one per external interrupt line. */
#define CM_CORE_VECTORS 16u

/* Mask (false) or unmask (true) one external interrupt line at the NVIC; unmasking first
 * clears a pending request left from before. */
void cortex_m_irq_line(uint32_t irq, bool enable);

/* Mask every external line the board has (BOARD_IRQ_COUNT) and clear what is pending. */
void cortex_m_irq_lines_off(void);

/* The external lines pending now (BOARD_IRQ_COUNT of them), lowest first, at most max: an
 * asserted line is pending even while disabled (ARMv7-M ARM B3.4.1, ARMv8-M ARM B3.9). */
uint32_t cortex_m_irq_lines_pending(uint32_t *lines, uint32_t max);

/* The external interrupt being handled: IPSR holds the exception number, 16 + the line. */
static inline uint32_t cortex_m_active_irq(void)
{
	uint32_t ipsr;
	__asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
	return (ipsr & 0x1FFu) - CM_CORE_VECTORS;
}

/* SysTick as the microsecond clock (board_now_us): counts the core clock of cpu_hz, a whole
 * number of MHz. Its exception only counts wraps, it never calls into the board. */
void cortex_m_systick_clock_start(uint32_t cpu_hz);

#endif
