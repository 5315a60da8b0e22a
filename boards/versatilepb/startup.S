/* versatilepb start-up: vector table copied to 0, SVC and IRQ stacks, .data/.bss, main. */
	.syntax unified
	.arm

	.section .vectors, "ax"
	.global _start
_start:
	ldr	pc, reset_address
	ldr	pc, undefined_address
	ldr	pc, svc_address
	ldr	pc, abort_address
	ldr	pc, abort_address
	nop
	ldr	pc, irq_address
	ldr	pc, fiq_address
reset_address:		.word reset
undefined_address:	.word halt
svc_address:		.word halt
abort_address:		.word halt
irq_address:		.word irq_entry
fiq_address:		.word halt
vectors_end:

	.text
reset:
	/* The ARM926 takes exceptions at 0 and the image is linked above it: copy the table
	 * and its address words (PC-relative loads, so they work from 0). */
	ldr	r0, =_start
	mov	r1, #0
	ldr	r2, =vectors_end
1:	ldr	r3, [r0], #4
	str	r3, [r1], #4
	cmp	r0, r2
	blo	1b

	/* IRQ mode stack, then back to SVC with its own; IRQs stay masked. */
	msr	cpsr_c, #0xD2
	ldr	sp, =__irq_stack_top
	msr	cpsr_c, #0xD3
	ldr	sp, =__svc_stack_top

	ldr	r0, =__data_load
	ldr	r1, =__data_start
	ldr	r2, =__data_end
2:	cmp	r1, r2
	ldrlo	r3, [r0], #4
	strlo	r3, [r1], #4
	blo	2b

	ldr	r1, =__bss_start
	ldr	r2, =__bss_end
	mov	r3, #0
3:	cmp	r1, r2
	strlo	r3, [r1], #4
	blo	3b

	bl	__libc_init_array
	bl	board_init
	bl	main
	bl	board_exit
halt:
	b	halt

/* IRQ: save the caller-saved registers, dispatch in C, return to the interrupted code. */
irq_entry:
	sub	lr, lr, #4
	stmfd	sp!, {r0-r3, r12, lr}
	bl	board_irq_dispatch
	ldmfd	sp!, {r0-r3, r12, pc}^
