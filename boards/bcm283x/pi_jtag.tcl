# OpenOCD part shared by every Raspberry Pi board's openocd.cfg, sourced after the target script: reset, and the load-and-start procedure of `make flash`.

# The Pi brings out TRST but no system reset line.
reset_config trst_only

# Load an ELF into RAM and start it at its entry point, the way the firmware would have: halt
# core 0, mask IRQ and FIQ (the interrupted program may have left sources enabled; the image's
# start-up masks them too, but only after a few instructions), load, check, resume. OpenOCD
# names the AArch32 CPSR and the AArch64 PSTATE both "cpsr", with I and F at bits 7 and 6.
proc pl011_load_and_start {elf entry} {
	halt 1000
	if {[catch {
		regexp {0x[0-9a-fA-F]+} [reg cpsr] cpsr
		reg cpsr [format 0x%08x [expr {$cpsr | 0xC0}]]
	} problem]} {
		echo "pl011: CPSR left as it was ($problem)"
	}
	load_image $elf
	verify_image $elf
	resume $entry
}
