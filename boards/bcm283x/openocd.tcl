# OpenOCD procedures shared by the Raspberry Pi boards' openocd.cfg: load and start an image over a running one.
#
# The program that was running may have left the MMU and the caches on (every image of this
# project does: boards/common/mmu.c, boards/aarch64/mmu.c). The start-up code of the next image expects them off,
# as the firmware leaves them: it builds its translation table and asks the firmware mailbox
# with the data cache off. So before loading, the D-cache is cleaned and invalidated to the
# point of coherency, then the MMU and the caches are turned off, then the instruction cache,
# the branch predictor and the TLBs are invalidated. Only CP15 operations are used (through
# `arm mcr/mrc` on the arm11 and cortex_a targets, `aarch64 mcr/mrc` on the aarch64 ones,
# core in AArch32), so nothing depends on how a given OpenOCD version handles caches itself.

# SCTLR bits (ARM1176JZF-S TRM 3.2.7; ARMv7-A ARM B4.1.130): M, C, Z (branch prediction), I.
set PL011_SCTLR_M 0x1
set PL011_SCTLR_C 0x4
set PL011_SCTLR_Z 0x800
set PL011_SCTLR_I 0x1000

# The command group that reaches CP15 on the current target.
proc pl011_cp15_group {} {
	if {[[target current] cget -type] eq "aarch64"} {
		return aarch64
	}
	return arm
}

# Read (no value) or write a CP15 register: op1 CRn CRm op2 as in MRC/MCR p15.
proc pl011_cp15 {group op1 crn crm op2 {value ""}} {
	if {$value eq ""} {
		return [$group mrc 15 $op1 $crn $crm $op2]
	}
	$group mcr 15 $op1 $crn $crm $op2 $value
}

# CP15 barriers: DSB (c7, c10, 4) and ISB (c7, c5, 4). Architected on ARMv6; on ARMv7/v8 they
# are the deprecated CP15 forms, which SCTLR.CP15BEN may disable, so a failure is ignored
# there (each instruction the debugger issues completes before the next one anyway).
proc pl011_cp15_barriers {group} {
	catch {pl011_cp15 $group 0 7 10 4 0}
	catch {pl011_cp15 $group 0 7 5 4 0}
}

# ARMv7/ARMv8 AArch32: clean and invalidate every data or unified cache level up to the point
# of coherency by set/way (DCCISW, c7, c14, 2), walking CLIDR, CSSELR and CCSIDR (ARMv7-A ARM
# B4.2.1, B6.2.2 "cache maintenance by set/way"). On the Pi 2-4 this is L1 and L2: 8,704
# (Cortex-A7, 32 KiB + 512 KiB) to 16,896 (Cortex-A72, 32 KiB + 1 MiB) operations, each a few
# JTAG transactions: not timed on hardware, expect seconds to tens of seconds.
proc pl011_dcache_flush_by_set_way {group} {
	set clidr [pl011_cp15 $group 1 0 0 1]
	set loc [expr {($clidr >> 24) & 7}]
	for {set level 0} {$level < $loc} {incr level} {
		set type [expr {($clidr >> (3 * $level)) & 7}]
		if {$type < 2} {
			continue
		}
		pl011_cp15 $group 2 0 0 0 [expr {$level << 1}]
		pl011_cp15_barriers $group
		set ccsidr [pl011_cp15 $group 1 0 0 0]
		set line_shift [expr {($ccsidr & 7) + 4}]
		set ways [expr {(($ccsidr >> 3) & 0x3FF) + 1}]
		set sets [expr {(($ccsidr >> 13) & 0x7FFF) + 1}]
		set way_bits 0
		while {(1 << $way_bits) < $ways} {
			incr way_bits
		}
		set way_shift [expr {32 - $way_bits}]
		for {set way 0} {$way < $ways} {incr way} {
			for {set index 0} {$index < $sets} {incr index} {
				set operand [expr {(($way << $way_shift) | ($index << $line_shift) | ($level << 1)) & 0xFFFFFFFF}]
				pl011_cp15 $group 0 7 14 2 $operand
			}
		}
	}
	pl011_cp15_barriers $group
}

# Clean the data caches to memory and turn the MMU and the caches off, on the halted current
# core. The data caches need cleaning only when SCTLR shows the MMU or the D-cache on (after
# one of our images); the firmware's armstub (armstub7.S) leaves just the I-cache on, which
# is turned off and invalidated. Nothing at all to do with M, C and I clear. Usable on its own
# before a manual gdb `load`: `monitor pl011_caches_off`.
proc pl011_caches_off {} {
	global PL011_SCTLR_M PL011_SCTLR_C PL011_SCTLR_Z PL011_SCTLR_I
	set group [pl011_cp15_group]
	set sctlr [pl011_cp15 $group 0 1 0 0]
	set on [expr {$PL011_SCTLR_M | $PL011_SCTLR_C | $PL011_SCTLR_I}]
	if {($sctlr & $on) == 0} {
		return
	}
	if {($sctlr & ($PL011_SCTLR_M | $PL011_SCTLR_C)) == 0} {
		# Only the I-cache was on: nothing dirty to write back.
	} elseif {[[target current] cget -type] eq "arm11"} {
		# ARM1176JZF-S TRM 3.2.22: clean and invalidate the entire data cache (c7, c14, 0).
		# Not c7, c7, 0, which would throw dirty lines away without writing them.
		pl011_cp15 $group 0 7 14 0 0
		pl011_cp15_barriers $group
	} else {
		pl011_dcache_flush_by_set_way $group
	}
	pl011_cp15 $group 0 1 0 0 [expr {$sctlr & ~($on | $PL011_SCTLR_Z)}]
	pl011_cp15_barriers $group
	# Instruction cache (c7, c5, 0), branch predictor (c7, c5, 6), unified TLB (c8, c7, 0).
	pl011_cp15 $group 0 7 5 0 0
	pl011_cp15 $group 0 7 5 6 0
	pl011_cp15 $group 0 8 7 0 0
	pl011_cp15_barriers $group
	echo [format "pl011: SCTLR was 0x%08x: MMU and caches off, data written back" $sctlr]
}

# Load an ELF into RAM and start it at its entry point, the way the firmware would have: halt
# core 0, mask IRQ and FIQ (the interrupted program may have left sources enabled; the image's
# start-up masks them too, but only after a few instructions), caches and MMU off, load,
# check, resume. What the previous program left in the peripherals (interrupt sources, the
# generic timer, pin functions) is reset by the image's start-up and board_init.
proc pl011_load_and_start {elf entry} {
	halt 1000
	if {[catch {
		regexp {0x[0-9a-fA-F]+} [reg cpsr] cpsr
		reg cpsr [format 0x%08x [expr {$cpsr | 0xC0}]]
	} problem]} {
		echo "pl011: CPSR left as it was ($problem)"
	}
	# OpenOCD 0.12's `aarch64 mcr/mrc` work only on a core halted in AArch32: a 64-bit Pi image
	# (rpi3, rpi4-64) leaves the core in AArch64, where they fail. There the image's start-up
	# writes SCTLR_EL1 with the MMU and caches off before anything else (boards/aarch64/startup.S).
	if {[catch pl011_caches_off problem]} {
		if {[[target current] cget -type] ne "aarch64"} {
			error $problem
		}
		echo "pl011: core in AArch64, caches left to the image's start-up ($problem)"
	}
	load_image $elf
	verify_image $elf
	resume $entry
}
