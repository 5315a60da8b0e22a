/* The AArch64 exception vector table (VBAR_EL1) every 64-bit board uses, and the IRQ entry. */
	/* Arm ARM D1.10.2: 16 entries of 0x80 bytes, the table 2 KiB aligned; groups of four
	 * (synchronous, IRQ, FIQ, SError) for: current EL with SP_EL0, current EL with SP_ELx,
	 * lower EL in AArch64, lower EL in AArch32. Only "current EL, SP_ELx, IRQ" is expected:
	 * everything else ends the program with status 3 (semihosting under QEMU) or halts. */
	.macro	unexpected
	.balign	0x80
	b	unexpected_exception
	.endm

	.section .vectors, "ax"
	.balign	2048
	.global aarch64_vectors
aarch64_vectors:
	unexpected
	unexpected
	unexpected
	unexpected
	.balign	0x80
	b	sync_entry	/* current EL, SP_ELx: synchronous */
	.balign	0x80
	b	irq_entry	/* current EL, SP_ELx: IRQ */
	unexpected
	unexpected
	unexpected
	unexpected
	unexpected
	unexpected
	unexpected
	unexpected
	unexpected
	unexpected

	.text
/*
 * IRQ: save what the AAPCS64 lets a called function change (x0-x18, x29, x30; v0-v7 and
 * v16-v31, FPSR and FPCR, since picolibc's memcpy uses SIMD registers), plus ELR and SPSR,
 * dispatch in C with IRQs masked, restore, return. 37 quadwords keep SP 16-byte aligned.
 */
	.equ	FRAME, 592
irq_entry:
	sub	sp, sp, #FRAME
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x29, [sp, #144]
	mrs	x0, elr_el1
	mrs	x1, spsr_el1
	stp	x30, x0, [sp, #160]
	mrs	x0, fpsr
	stp	x1, x0, [sp, #176]
	mrs	x0, fpcr
	str	x0, [sp, #192]
	stp	q0, q1, [sp, #208]
	stp	q2, q3, [sp, #240]
	stp	q4, q5, [sp, #272]
	stp	q6, q7, [sp, #304]
	stp	q16, q17, [sp, #336]
	stp	q18, q19, [sp, #368]
	stp	q20, q21, [sp, #400]
	stp	q22, q23, [sp, #432]
	stp	q24, q25, [sp, #464]
	stp	q26, q27, [sp, #496]
	stp	q28, q29, [sp, #528]
	stp	q30, q31, [sp, #560]

	bl	board_irq_dispatch

	ldp	q0, q1, [sp, #208]
	ldp	q2, q3, [sp, #240]
	ldp	q4, q5, [sp, #272]
	ldp	q6, q7, [sp, #304]
	ldp	q16, q17, [sp, #336]
	ldp	q18, q19, [sp, #368]
	ldp	q20, q21, [sp, #400]
	ldp	q22, q23, [sp, #432]
	ldp	q24, q25, [sp, #464]
	ldp	q26, q27, [sp, #496]
	ldp	q28, q29, [sp, #528]
	ldp	q30, q31, [sp, #560]
	ldr	x0, [sp, #192]
	msr	fpcr, x0
	ldp	x1, x0, [sp, #176]
	msr	fpsr, x0
	msr	spsr_el1, x1
	ldp	x30, x0, [sp, #160]
	msr	elr_el1, x0
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x29, [sp, #144]
	add	sp, sp, #FRAME
	eret

/*
 * Synchronous: the one expected case is the semihosting call HLT #0xF000 with no debugger or
 * emulator to take it. Without halting enabled HLT is UNDEFINED (Arm ARM C6.2 "HLT"), an
 * exception with ESR_EL1.EC 0 ("unknown reason"). Like the 32-bit boards' SVC vector, return
 * past it, so board_exit goes on to its WFI loop; anything else is unexpected. x9-x11 are
 * saved: the interrupted code does not expect them to change.
 */
	.equ	ESR_EC_SHIFT, 26
	.equ	HLT_SEMIHOSTING, 0xD45E0000	/* hlt #0xf000 */
sync_entry:
	stp	x9, x10, [sp, #-32]!
	str	x11, [sp, #16]
	mrs	x9, esr_el1
	lsr	x9, x9, #ESR_EC_SHIFT
	cbnz	x9, 1f
	mrs	x9, elr_el1
	ldr	w10, [x9]
	ldr	w11, =HLT_SEMIHOSTING
	cmp	w10, w11
	b.ne	1f
	add	x9, x9, #4
	msr	elr_el1, x9
	ldr	x11, [sp, #16]
	ldp	x9, x10, [sp], #32
	eret
1:	ldr	x11, [sp, #16]
	ldp	x9, x10, [sp], #32

unexpected_exception:
	mov	w0, #3
	bl	board_semihosting_exit
	b	board_halt
