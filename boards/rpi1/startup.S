/* Raspberry Pi Zero / 1 start-up (ARM1176JZF-S): VBAR at the vector table, then the C run-time. */
#include "../common/vbar.inc"
	.syntax unified
	.arm
	.text

	.global board_reset
board_reset:
	/* The firmware (or QEMU) enters in SVC with IRQ/FIQ masked; a JTAG restart may not. */
	cpsid	if

	board_vectors_at_start
	b	board_runtime_start
