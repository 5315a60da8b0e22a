/* Interrupt consumer, QEMU virt (Cortex-A53, AArch64 at EL1): stack, .bss, VBAR_EL1, main, its
 * status to QEMU by semihosting. The IRQ vector calls irq_dispatch (docs/interrupts.md). */
	.section .text.start, "ax"
	.global _start
_start:
	mrs	x0, mpidr_el1
	and	x0, x0, #0xFF
	cbnz	x0, park		/* only core 0 (the others stay off under QEMU anyway) */
	ldr	x0, =__stack_top
	mov	sp, x0
	ldr	x0, =__bss_start
	ldr	x1, =__bss_end
1:	cmp	x0, x1
	b.hs	2f
	str	xzr, [x0], #8
	b	1b
2:	ldr	x0, =vectors
	msr	vbar_el1, x0
	isb
	bl	main
	/* SYS_EXIT (0x18) with a block {reason, subcode}: 0x20026 for 0, 0x20023 otherwise. */
	ldr	x2, =0x20026
	ldr	x3, =0x20023
	cmp	w0, #0
	csel	x2, x2, x3, eq
	ldr	x1, =exit_block
	stp	x2, xzr, [x1]
	mov	w0, #0x18
	hlt	#0xF000
park:	wfe
	b	park

/* x0-x18, x29 and x30 to or from the 176 bytes at sp (x30 paired with xzr). */
	.macro caller_saved op
	\op	x0, x1, [sp, #0]
	\op	x2, x3, [sp, #16]
	\op	x4, x5, [sp, #32]
	\op	x6, x7, [sp, #48]
	\op	x8, x9, [sp, #64]
	\op	x10, x11, [sp, #80]
	\op	x12, x13, [sp, #96]
	\op	x14, x15, [sp, #112]
	\op	x16, x17, [sp, #128]
	\op	x18, x29, [sp, #144]
	\op	x30, xzr, [sp, #160]
	.endm

	.balign 2048
vectors:
	.rept 5				/* current EL with SP0: 4; with SPx: synchronous */
	b	unexpected
	.balign 128
	.endr
	/* 0x280: current EL with SPx, IRQ: save the caller-saved registers, dispatch, return. */
	sub	sp, sp, #176
	caller_saved stp
	bl	irq_dispatch
	caller_saved ldp
	add	sp, sp, #176
	eret
	.balign 128
	.rept 10			/* the rest of this group, and the lower ELs */
	b	unexpected
	.balign 128
	.endr
unexpected:
	b	unexpected

	.bss
	.balign 16
exit_block:
	.skip 16
