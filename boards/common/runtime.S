/* The C run-time start every board jumps to once its CPU is set up, and the IRQ entry. */
	.syntax unified
	.arm
	.text

/* Entered in SVC mode with IRQ/FIQ masked: stacks, .data, .bss, constructors, then main. */
	.global board_runtime_start
board_runtime_start:
	/* IRQ mode stack, then back to SVC with its own; IRQs stay masked. */
	msr	cpsr_c, #0xD2
	ldr	sp, =__irq_stack_top
	msr	cpsr_c, #0xD3
	ldr	sp, =__svc_stack_top

	ldr	r0, =__data_load
	ldr	r1, =__data_start
	ldr	r2, =__data_end
1:	cmp	r1, r2
	ldrlo	r3, [r0], #4
	strlo	r3, [r1], #4
	blo	1b

	ldr	r1, =__bss_start
	ldr	r2, =__bss_end
	mov	r3, #0
2:	cmp	r1, r2
	strlo	r3, [r1], #4
	blo	2b

	bl	__libc_init_array
	bl	board_init
	bl	main
	bl	board_exit
	.global board_halt
board_halt:
	b	board_halt

/* SVC: a semihosting call (svc 0x123456) that no emulator or debugger caught, as on a board
 * without a debugger, returns as a no-op, so that board_exit goes on to its WFI loop. */
	.global board_svc_return
board_svc_return:
	movs	pc, lr

/* IRQ: save the caller-saved registers, dispatch in C, return to the interrupted code. Six
 * words keep the 8-byte stack alignment the AAPCS asks for at the call. */
	.global board_irq_entry
board_irq_entry:
	sub	lr, lr, #4
	stmfd	sp!, {r0-r3, r12, lr}
	bl	board_irq_dispatch
	ldmfd	sp!, {r0-r3, r12, pc}^
