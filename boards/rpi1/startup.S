/* Raspberry Pi Zero / 1 start-up (ARM1176JZF-S): VBAR at the vector table, then the C run-time. */
#include "../common/vbar.inc"
	.syntax unified
	.arm
	.text

	.global board_reset
board_reset:
	/* The firmware (or QEMU) enters in SVC with IRQ/FIQ masked; a JTAG restart may not. */
	cpsid	if

	/* SCTLR.U (bit 22) on, A (bit 1) off: ARMv6 unaligned access support (ARM1176JZF-S TRM
	 * 3.2.7, c1 Control Register). GCC assumes it for ARMv6 (-munaligned-access is the
	 * default there) and emits unaligned LDR/STR; with U clear the ARM1176 would instead
	 * rotate the loaded word (legacy ARMv5 behaviour). ARMv7 has U fixed at 1. */
	mrc	p15, 0, r0, c1, c0, 0
	orr	r0, r0, #(1 << 22)
	bic	r0, r0, #(1 << 1)
	mcr	p15, 0, r0, c1, c0, 0

	board_vectors_at_start
	b	board_runtime_start
