/* Raspberry Pi Zero / 1 start-up (ARM1176JZF-S): VBAR at the vector table, then the C run-time. */
	.syntax unified
	.arm
	.text

	.global board_reset
board_reset:
	/* The firmware (or QEMU) enters in SVC with IRQ/FIQ masked; a JTAG restart may not. */
	cpsid	if

	/* Vectors at _start through VBAR (ARM1176JZF-S TRM, c12 Vector Base Address Register:
	 * the Security Extensions add it to ARMv6), not at address 0, which the firmware uses for
	 * the ATAGs. SCTLR.V (bit 13) must be clear or the core would use 0xFFFF0000 instead. */
	ldr	r0, =_start
	mcr	p15, 0, r0, c12, c0, 0
	mrc	p15, 0, r0, c1, c0, 0
	bic	r0, r0, #(1 << 13)
	mcr	p15, 0, r0, c1, c0, 0
	mov	r0, #0
	mcr	p15, 0, r0, c7, c5, 4		/* ARMv6 prefetch flush (ISB) */
	b	board_runtime_start
