/* Consumer-test start-up: a stack, .bss zeroed, main, then its status to QEMU by semihosting. */
	.syntax unified
	.arm
	.section .text.start, "ax"
	.global _start
_start:
	ldr	sp, =__stack_top
	ldr	r0, =__bss_start
	ldr	r1, =__bss_end
	mov	r2, #0
1:	cmp	r0, r1
	strlo	r2, [r0], #4
	blo	1b
	bl	main
	/* SYS_EXIT (0x18): ADP_Stopped_ApplicationExit (0x20026) for 0, RunTimeErrorUnknown
	 * (0x20023) otherwise; QEMU -semihosting catches SVC 0x123456 in ARM state. */
	cmp	r0, #0
	ldreq	r1, =0x20026
	ldrne	r1, =0x20023
	mov	r0, #0x18
	svc	0x123456
2:	b	2b
