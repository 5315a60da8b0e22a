/* versatilepb start-up (ARM926EJ-S): the vector table copied to address 0, then the C run-time. */
	.syntax unified
	.arm
	.text

	.global board_reset
board_reset:
	/* The ARM926 takes exceptions at 0 (it has no VBAR) and the image is linked above it:
	 * copy the table and its address words there (they are loaded PC-relative). */
	ldr	r0, =_start
	mov	r1, #0
	ldr	r2, =__vectors_end
1:	ldr	r3, [r0], #4
	str	r3, [r1], #4
	cmp	r0, r2
	blo	1b
	b	board_runtime_start
