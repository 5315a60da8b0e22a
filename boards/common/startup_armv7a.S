/* ARMv7-A/ARMv8-A AArch32 start-up (Pi 2/3/4 in 32-bit mode, QEMU virt, RealView PBX-A9): leave HYP, park cores 1-3, VBAR, then the C run-time. */
#include "vbar.inc"
	.syntax unified
	.arm
	/* The HYP exit below uses the Virtualization Extensions' ELR_hyp and ERET. The Cortex-A7,
	 * A15 and A72 have them; naming them here lets the file assemble for any ARMv7-A core (a
	 * Cortex-A9 board uses it): a core without HYP mode never enters that path. */
	.arch_extension virt
	/* Per-core stack of cores 1-3, below core 0's (linker/common_sections.ld reserves them). */
	.equ	CORE_STACK_SHIFT, 14
	.equ	CORES_MAX, 4

	.text
	.global board_reset
board_reset:
	/* Current Pi firmware starts 32-bit kernels in HYP mode (Pi 2 and later), as does QEMU
	 * virt with virtualization=on; drop to SVC with
	 * IRQ, FIQ and asynchronous aborts masked (ARMv7-A ARM B1.8: ERET from HYP). Every core
	 * does this, so that a parked core later runs its function in SVC like core 0. */
	mrs	r0, cpsr
	and	r0, r0, #0x1F
	cmp	r0, #0x1A
	bne	in_svc
	/* Let SVC use the physical counter and timer (CNTHCTL.PL1PCTEN, PL1PCEN, bits 0 and 1,
	 * which may reset to 0: ARMv7-A ARM B4.1.26), so that it can stop the timer below and
	 * use it as clock and tick, and stop the HYP timer (CNTHP_CTL). A core in HYP mode has
	 * the Virtualization Extensions, which the Generic Timer comes with on every core that
	 * has them (A7, A15, A53, A72). */
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

	/* Only core 0 goes on. QEMU's raspi2b and realview-pbx-a9 start all four cores here
	 * (a bare ELF is no Linux kernel, so QEMU gives the secondaries no boot stub); on
	 * hardware the Pi firmware keeps 1-3 in its own loop (QEMU virt keeps them powered off
	 * until a PSCI call), but a debugger may resume any core.
	 * MPIDR.Aff0 (bits 7:0) is the core number within the cluster. */
	mrc	p15, 0, r0, c0, c0, 5
	ands	r0, r0, #0xFF
	bne	park

	/* Stop the physical and virtual generic timers (CNTP_CTL, CNTV_CTL = 0: disabled, so
	 * their interrupt is deasserted; ARMv7-A ARM B4.1.25/B4.1.28). The Pi firmware's armstub
	 * (raspberrypi/tools armstubs/armstub7.S) enables the virtual timer with its interrupt
	 * unmasked for Linux, and after a JTAG restart the previous program's timers may still
	 * run with their interrupt pending; a board that uses the timer starts it in board_init.
	 * Only where the core has that timer: ID_PFR1.GenTimer (bits 19:16, ARMv7-A ARM B4.1.94)
	 * is 0 on the Cortex-A9, whose CP15 c14 is UNDEFINED: the write would take the Undefined
	 * Instruction vector before anything is printed. */
	mrc	p15, 0, r0, c0, c1, 1
	tst	r0, #(0xF << 16)
	beq	vectors
	mov	r0, #0
	mcr	p15, 0, r0, c14, c2, 1
	mcr	p15, 0, r0, c14, c3, 1
vectors:
	board_vectors_at_start

	b	board_runtime_start

/*
 * Cores 1-3: interrupts masked, asleep in WFI until board_core_start (boards/common/core_start.c)
 * has stored a function for this core, then run it with its context on this core's stack. WFI,
 * not WFE: QEMU halts a core in WFI (no -icount instructions used) but lets it spin through
 * WFE. A board whose wake-up is an interrupt readies this core's side of its controller in
 * board_core_wait_prepare (the GIC's banked CPU interface: realview-pbx-a9); it runs before
 * core 0 has set up .data and .bss, so it may use only its stack and constants. On a board
 * that links no core_start.c (no board_core_entries), a parked core sleeps for good.
 */
	.weak	board_core_entries
park:
	cmp	r0, #CORES_MAX
	bhs	sleep
	mov	r4, r0
	ldr	r5, =board_core_entries
	cmp	r5, #0
	beq	sleep
	ldr	r1, =__svc_stack_top
	sub	sp, r1, r4, lsl #CORE_STACK_SHIFT
	bl	board_core_wait_prepare
	add	r5, r5, r4, lsl #3
1:	ldr	r1, [r5]
	dmb
	cmp	r1, #0
	bne	2f
	wfi
	b	1b
	/* Before the function: board_core_run_prepare (weak, nothing by default; with
	 * BOARD_MMU_SMP, boards/common/mmu.c joins this core to core 0's MMU and caches). It may
	 * clobber r0-r3, so the slot is read again after it. */
2:	bl	board_core_run_prepare
	ldr	r1, [r5]
	ldr	r0, [r5, #4]
	blx	r1
sleep:
	cpsid	if
3:	wfi
	b	3b

/* The defaults: nothing to prepare (a board whose wake-up needs no interrupt, or none at all;
 * a board whose secondaries run with the MMU off, under QEMU only). */
	.weak	board_core_wait_prepare
board_core_wait_prepare:
	.weak	board_core_run_prepare
board_core_run_prepare:
	bx	lr
