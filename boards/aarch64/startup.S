/* AArch64 start-up shared by every 64-bit board: drop to EL1, park the other cores, MMU on, then C. */
	.equ	CURRENT_EL_EL3, (3 << 2)
	.equ	CURRENT_EL_EL2, (2 << 2)
	/* SCR_EL3 (Arm ARM D13.2.117): RW (lower ELs in AArch64), bits 5:4 RES1; NS clear keeps
	 * EL1 Secure, where a GIC's group 0 (which gic.c uses) is ours. */
	.equ	SCR_EL3_VALUE, (1 << 10) | (3 << 4)
	/* HCR_EL2.RW: EL1 is AArch64 (D13.2.48). */
	.equ	HCR_EL2_VALUE, (1 << 31)
	/* CPTR_EL2 without VHE: bits 13:12 and 9:0 RES1, TFP (bit 10) clear: no FP/SIMD traps. */
	.equ	CPTR_EL2_VALUE, 0x33FF
	/* SPSR for the ERET: EL1h (SP_EL1), D, A, I, F masked. */
	.equ	SPSR_EL1H_MASKED, 0x3C5
	/* SCTLR_EL1 with MMU, caches and alignment checks off, little-endian; bits 29:28, 23:22,
	 * 20 and 11 are RES1 in ARMv8.0 (D13.2.118). */
	.equ	SCTLR_EL1_RESET, 0x30D00800
	/* CPACR_EL1.FPEN = 0b11: FP/SIMD at EL1 without traps (picolibc and GCC use them). */
	.equ	CPACR_EL1_FPEN, (3 << 20)
	/* Per-core stack size; __stack_top (linker) is core 0's. */
	.equ	CORE_STACK_SIZE, 0x4000

	/* ICC_SRE_ELx (IHI 0069 12.2.23, 12.3.2, 12.4.4): SRE, DFB, DIB and Enable (lower ELs may
	 * use the GICv3 system registers); written only where ID_AA64PFR0_EL1.GIC (27:24) says the
	 * core has that CPU interface. */
	.equ	ICC_SRE_ALL, 0xF
	.macro	gicv3_sre_enable icc_sre_elx
	mrs	x0, id_aa64pfr0_el1
	ubfx	x0, x0, #24, #4
	cbz	x0, 1f
	mov	x0, #ICC_SRE_ALL
	msr	\icc_sre_elx, x0
	isb
1:
	.endm

	.section .text.boot, "ax"
	.global _start
_start:
	mrs	x0, CurrentEL
	and	x0, x0, #0xC
	/* Say where the image was entered (aarch64_entry_el, below): every core writes the same. */
	ldr	x1, =aarch64_entry_el
	lsr	w2, w0, #2
	str	w2, [x1]
	cmp	x0, #CURRENT_EL_EL3
	b.eq	from_el3
	cmp	x0, #CURRENT_EL_EL2
	b.eq	from_el2
	b	at_el1

/* QEMU with secure=on, or a Pi with an armstub that stays at EL3. */
from_el3:
	gicv3_sre_enable s3_6_c12_c12_5	/* ICC_SRE_EL3 */
	mov	x0, #SCR_EL3_VALUE
	msr	scr_el3, x0
	msr	cptr_el3, xzr
	mov	x0, #SPSR_EL1H_MASKED
	msr	spsr_el3, x0
	adr	x0, at_el1
	msr	elr_el3, x0
	eret

/* The Pi firmware's armstub (every Pi with arm_64bit=1), QEMU with virtualization=on. */
from_el2:
	gicv3_sre_enable s3_4_c12_c9_5	/* ICC_SRE_EL2 */
	mov	x0, #HCR_EL2_VALUE
	msr	hcr_el2, x0
	/* EL1 may read the physical counter and use the physical timer: CNTHCTL_EL2.EL1PCTEN
	 * and EL1PCEN (bits 0, 1), no virtual offset. */
	mrs	x0, cnthctl_el2
	orr	x0, x0, #3
	msr	cnthctl_el2, x0
	msr	cntvoff_el2, xzr
	mov	x0, #CPTR_EL2_VALUE
	msr	cptr_el2, x0
	msr	hstr_el2, xzr
	/* EL1 reads MIDR/MPIDR through these, which reset to UNKNOWN values on hardware. */
	mrs	x0, midr_el1
	msr	vpidr_el2, x0
	mrs	x0, mpidr_el1
	msr	vmpidr_el2, x0
	mov	x0, #SPSR_EL1H_MASKED
	msr	spsr_el2, x0
	adr	x0, at_el1
	msr	elr_el2, x0
	eret

at_el1:
	ldr	x0, =SCTLR_EL1_RESET
	msr	sctlr_el1, x0
	mov	x0, #CPACR_EL1_FPEN
	msr	cpacr_el1, x0
	ldr	x0, =aarch64_vectors
	msr	vbar_el1, x0
	isb
	/* Core number: Aff0 on the Cortex-A53/A72, Aff1 on the multi-threaded Cortex-A76 (Pi 5),
	 * whose Aff0 is the thread (0); Aff1 is 0 on the others. */
	mrs	x0, mpidr_el1
	ubfx	x1, x0, #8, #8
	and	x0, x0, #0xFF
	add	x20, x0, x1
	ldr	x0, =__stack_top
	mov	x1, #CORE_STACK_SIZE
	msub	x0, x1, x20, x0
	mov	sp, x0
	cbnz	x20, secondary

	/* Core 0: zeroed .tbss and .bss, then the MMU before any C library code (with the MMU
	 * off every access is Device: unaligned ones and DC ZVA fault). Stores here are aligned
	 * 16-byte ones. */
	ldr	x0, =__bss_start
	ldr	x1, =__bss_end
1:	cmp	x0, x1
	b.hs	2f
	stp	xzr, xzr, [x0], #16
	b	1b
2:	bl	mmu_enable
	ldr	x0, =__tls_base
	bl	_set_tls
	bl	__libc_init_array
	bl	board_init
	bl	main
	bl	board_exit

/* Cores 1-3 (QEMU raspi3b starts all four here; the Pi firmware's spin table and QEMU virt's
 * PSCI send them here once board_core_start asked): sleep until board_core_start has stored a
 * function for this core, then run it with its context on this core's stack. WFI, not WFE:
 * QEMU halts a core in WFI but lets it spin through WFE; board_core_power_on sends the
 * interrupt that ends the WFI where one is needed. */
secondary:
	ldr	x21, =board_core_entries
	add	x21, x21, x20, lsl #4
3:	ldar	x1, [x21]
	cbnz	x1, 5f
	wfi
	b	3b
5:
	bl	mmu_enable
	ldp	x1, x0, [x21]
	blr	x1
	.global board_halt
board_halt:
4:	wfi
	b	4b

/* board_mmu_enable(board_memory_map, board_memory_map_count), from the start-up of each core. */
mmu_enable:
	ldr	x0, =board_memory_map_count
	ldr	w1, [x0]
	ldr	x0, =board_memory_map
	b	board_mmu_enable

/* The exception level the image was entered at, 1 to 3 (boards/qemu_virt/psci_cores.c, gic_v3.c). Entered at
 * EL3 it runs at Secure EL1 (SCR_EL3.NS clear): boards/common/gic_v3.c then puts its interrupts
 * in Secure group 1; QEMU virt's PSCI is behind HVC, SMC or absent by it
 * (boards/qemu_virt/psci_cores.c). In .data, written before .bss is zeroed. */
	.section .data.aarch64_entry_el, "aw"
	.balign	4
	.global	aarch64_entry_el
aarch64_entry_el:
	.word	0
