/* Interrupt consumer, versatilepb (ARM926, ARMv5): the vector table copied to 0 and an IRQ
 * stack, then the polled consumer's start (../firmware/start.S: stack, .bss, main, its status
 * by semihosting). The IRQ vector calls irq_dispatch (docs/interrupts.md). */
	.syntax unified
	.arm
	.section .text.start, "ax"
	.global vic_start
vic_start:
	/* Eight `ldr pc, [pc, #24]` and their eight addresses, copied to 0. */
	ldr	r0, =vectors
	mov	r1, #0
	mov	r2, #16
1:	ldr	r3, [r0], #4
	str	r3, [r1], #4
	subs	r2, r2, #1
	bne	1b
	msr	cpsr_c, #0xD2		/* IRQ mode, IRQ and FIQ masked */
	ldr	sp, =__irq_stack_top
	msr	cpsr_c, #0xD3		/* SVC mode, still masked: irq_start unmasks */
	b	_start

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
