/* Interrupt consumer, versatilepb (ARM926, ARMv5): vectors at 0, IRQ and SVC stacks, .bss,
 * main, its status to QEMU by semihosting. The IRQ vector calls irq_dispatch (docs/interrupts.md). */
	.syntax unified
	.arm
	.section .text.start, "ax"
	.global _start
_start:
	/* The vector table: eight `ldr pc, [pc, #24]` and their eight addresses, copied to 0. */
	ldr	r0, =vectors
	mov	r1, #0
	mov	r2, #16
1:	ldr	r3, [r0], #4
	str	r3, [r1], #4
	subs	r2, r2, #1
	bne	1b
	msr	cpsr_c, #0xD2		/* IRQ mode, IRQ and FIQ masked */
	ldr	sp, =__irq_stack_top
	msr	cpsr_c, #0xD3		/* SVC mode, masked: irq_start unmasks */
	ldr	sp, =__stack_top
	ldr	r0, =__bss_start
	ldr	r1, =__bss_end
	mov	r2, #0
2:	cmp	r0, r1
	strlo	r2, [r0], #4
	blo	2b
	bl	main
	/* SYS_EXIT (0x18): ADP_Stopped_ApplicationExit (0x20026) for 0, RunTimeErrorUnknown
	 * (0x20023) otherwise. */
	cmp	r0, #0
	ldreq	r1, =0x20026
	ldrne	r1, =0x20023
	mov	r0, #0x18
	svc	0x123456
3:	b	3b

irq_vector:
	sub	lr, lr, #4
	stmfd	sp!, {r0-r3, r12, lr}
	bl	irq_dispatch
	ldmfd	sp!, {r0-r3, r12, pc}^

unexpected:
	b	unexpected

	.balign 4
vectors:
	.rept 8
	ldr	pc, [pc, #24]
	.endr
	.word unexpected, unexpected, unexpected, unexpected
	.word unexpected, unexpected, irq_vector, unexpected
