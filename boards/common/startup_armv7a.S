/* ARMv7-A/ARMv8-A AArch32 start-up (Pi 2/3/4 in 32-bit mode, QEMU virt): park cores 1-3, leave HYP, VBAR, then the C run-time. */
#include "vbar.inc"
	.syntax unified
	.arm
	/* The HYP exit below uses the Virtualization Extensions' ELR_hyp and ERET. The Cortex-A7,
	 * A15 and A72 have them; naming them here lets the file assemble for any ARMv7-A core (a
	 * Cortex-A9 board reusing it): a core without HYP mode never enters that path. */
	.arch_extension virt

	.text
	.global board_reset
board_reset:
	/* First thing: only core 0 goes on. QEMU's raspi2b starts all four cores here; on
	 * hardware the Pi firmware keeps 1-3 in its own loop (QEMU virt keeps them powered off
	 * until a PSCI call), but a debugger may resume any core.
	 * MPIDR.Aff0 (bits 7:0) is the core number within the cluster. */
	mrc	p15, 0, r0, c0, c0, 5
	ands	r0, r0, #0xFF
	bne	park

	/* Current Pi firmware starts 32-bit kernels in HYP mode (Pi 2 and later), as does QEMU
	 * virt with virtualization=on; drop to SVC with
	 * IRQ, FIQ and asynchronous aborts masked (ARMv7-A ARM B1.8: ERET from HYP). */
	mrs	r0, cpsr
	and	r0, r0, #0x1F
	cmp	r0, #0x1A
	bne	in_svc
	/* Let SVC use the physical counter and timer (CNTHCTL.PL1PCTEN, PL1PCEN, bits 0 and 1,
	 * which may reset to 0: ARMv7-A ARM B4.1.26), so that it can stop the timer below and
	 * use it as clock and tick, and stop the HYP timer (CNTHP_CTL). */
	mrc	p15, 4, r0, c14, c1, 0
	orr	r0, r0, #3
	mcr	p15, 4, r0, c14, c1, 0
	mov	r0, #0
	mcr	p15, 4, r0, c14, c2, 1
	/* In HYP the banked form MSR SPSR_hyp is UNPREDICTABLE (ARMv7-A ARM B9.3.10: only
	 * Monitor mode may use it; QEMU makes it UNDEFINED): write the current mode's SPSR. */
	movw	r0, #0x1D3
	msr	spsr_cxsf, r0
	adr	r0, in_svc
	msr	elr_hyp, r0
	eret
in_svc:
	cpsid	if

	/* Stop the physical and virtual generic timers (CNTP_CTL, CNTV_CTL = 0: disabled, so
	 * their interrupt is deasserted; ARMv7-A ARM B4.1.25/B4.1.28). The Pi firmware's armstub
	 * (raspberrypi/tools armstubs/armstub7.S) enables the virtual timer with its interrupt
	 * unmasked for Linux, and after a JTAG restart the previous program's timers may still
	 * run with their interrupt pending; a board that uses the timer starts it in board_init. */
	mov	r0, #0
	mcr	p15, 0, r0, c14, c2, 1
	mcr	p15, 0, r0, c14, c3, 1

	board_vectors_at_start

	b	board_runtime_start

/* Cores 1-3: interrupts masked, asleep. Nothing routes an interrupt to them, so WFI never
 * returns in practice (and costs QEMU no instructions, which keeps -icount runs exact). */
park:
	cpsid	if
3:	wfi
	b	3b
