/* The exception vector table every board uses; each board supplies board_reset. */
	.syntax unified
	.arm

	/* PC-relative loads only, so the table works wherever it is copied or pointed at. VBAR
	 * ignores the low 5 bits: keep it 32-byte aligned (the linker puts it first). */
	.section .vectors, "ax"
	.balign 32
	.global _start
	.global __vectors_end
_start:
	ldr	pc, reset_address
	ldr	pc, undefined_address
	ldr	pc, svc_address
	ldr	pc, abort_address
	ldr	pc, abort_address
	nop
	ldr	pc, irq_address
	ldr	pc, fiq_address
reset_address:		.word board_reset
undefined_address:	.word board_halt
svc_address:		.word board_svc_return
abort_address:		.word board_halt
irq_address:		.word board_irq_entry
fiq_address:		.word board_halt
__vectors_end:
