/* The BCM2835 interrupt controller (Pi 1, 2, 3): lines on and off, dispatch to UART and tick. */
#include "bcm283x.h"
#include "board.h"
#include "board_common.h"
#include "mmio.h"

/* BCM2835 interrupt controller registers (BCM 7.5), from periph + 0xB200. */
#define INTERRUPT_PENDING1 BCM283X_PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x04u)
#define INTERRUPT_PENDING2 BCM283X_PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x08u)
#define INTERRUPT_FIQ_CONTROL BCM283X_PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x0Cu)
#define INTERRUPT_ENABLE1 BCM283X_PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x10u)
#define INTERRUPT_ENABLE2 BCM283X_PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x14u)
#define INTERRUPT_DISABLE1 BCM283X_PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x1Cu)
#define INTERRUPT_DISABLE2 BCM283X_PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x20u)
#define INTERRUPT_DISABLE_BASIC BCM283X_PERIPHERAL(BCM283X_INTERRUPT_OFFSET + 0x24u)

void bcm2835_irq_controller_init(void)
{
	/* Whatever ran before (the firmware, an earlier image loaded over JTAG) may have left
	 * sources enabled: start from none, and no FIQ. */
	bcm283x_barrier();
	mmio_write(INTERRUPT_FIQ_CONTROL, 0);
	mmio_write(INTERRUPT_DISABLE1, 0xFFFFFFFFu);
	mmio_write(INTERRUPT_DISABLE2, 0xFFFFFFFFu);
	mmio_write(INTERRUPT_DISABLE_BASIC, 0xFFFFFFFFu);
#ifdef BOARD_LOCAL_CORE0_TIMER_CONTROL
	/* BCM2836/7: the generic timers' interrupts too (the start-up stopped the timers). */
	bcm283x_barrier();
	mmio_write(BOARD_LOCAL_CORE0_TIMER_CONTROL, 0);
#endif
	bcm283x_barrier();
}

void bcm2835_irq_line_enable(uint32_t gpu_irq, bool enable)
{
	uintptr_t reg;
	if (gpu_irq < 32u)
		reg = enable ? INTERRUPT_ENABLE1 : INTERRUPT_DISABLE1;
	else
		reg = enable ? INTERRUPT_ENABLE2 : INTERRUPT_DISABLE2;
	bcm283x_barrier();
	mmio_write(reg, 1u << (gpu_irq & 31u));
	bcm283x_barrier();
}

uint32_t bcm2835_irq_lines_asserted(uint32_t *lines, uint32_t max)
{
	/* The pending registers show only enabled GPU interrupts (QEMU hw/intc/bcm2835_ic.c:
	 * level AND enable), so every line is enabled for the read, with IRQs masked at the CPU,
	 * then all are disabled again. */
	bcm283x_barrier();
	mmio_write(INTERRUPT_ENABLE1, 0xFFFFFFFFu);
	mmio_write(INTERRUPT_ENABLE2, 0xFFFFFFFFu);
	uint64_t pending = ((uint64_t)mmio_read(INTERRUPT_PENDING2) << 32) | mmio_read(INTERRUPT_PENDING1);
	mmio_write(INTERRUPT_DISABLE1, 0xFFFFFFFFu);
	mmio_write(INTERRUPT_DISABLE2, 0xFFFFFFFFu);
	bcm283x_barrier();
	uint32_t count = 0;
	for (uint32_t line = 0; line < 64u && count < max; line++) {
		if (pending & ((uint64_t)1u << line))
			lines[count++] = line;
	}
	return count;
}

void bcm2835_irq_dispatch(void)
{
	/* Interrupt controller, then UART, then timer: a barrier at every switch (BCM 1.3). */
	bcm283x_barrier();
	uint32_t pending1 = mmio_read(INTERRUPT_PENDING1);
	uint32_t pending2 = mmio_read(INTERRUPT_PENDING2);
	bcm283x_barrier();
	if (pending2 & (1u << (BCM283X_GPU_IRQ_UART0 - 32u))) {
		board_console_irq();
		bcm283x_barrier();
	}
	if ((pending1 & (1u << BCM283X_GPU_IRQ_TICK)) && bcm283x_tick_acknowledge()) {
		board_tick_run();
		bcm283x_barrier();
	}
}
