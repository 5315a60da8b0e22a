# Runs a board's pl011_caches_off against a simulated CP15 (no hardware) and checks what it did.
#
# Sourced by check_configs.sh after the board's openocd.cfg, before `init`: the target exists
# then (so `target current` and its type are real) but nothing talks to it. The `arm` and
# `aarch64` command groups are replaced by a model of the CP15 registers the procedure uses:
# SCTLR, CLIDR, CSSELR, CCSIDR, and counters for the cache operations. The cache geometry is
# the one of the core the target type stands for (Cortex-A7 TRM, Cortex-A53/A72 TRMs: 64-byte
# lines; L1 D 32 KiB 4-way on A7/A53, 2-way on A72; L2 512 KiB 8-way on BCM2836, 16-way on
# A53 and on the A72's 1 MiB). Prints one "pl011-check: caches ok|FAIL ..." line.

# CCSIDR for a cache of `kib` KiB, `ways` ways, 64-byte lines (ARMv7-A ARM B4.1.19).
proc pl011_fake_ccsidr {kib ways} {
	set sets [expr {$kib * 1024 / 64 / $ways}]
	return [expr {(($sets - 1) << 13) | (($ways - 1) << 3) | 2}]
}

proc pl011_fake_cp15 {op cp op1 crn crm op2 args} {
	global pl011_fake
	incr pl011_fake(ops)
	if {$cp != 15} {
		error "coprocessor $cp"
	}
	set key "$op1,$crn,$crm,$op2"
	if {$op eq "mrc"} {
		switch -- $key {
			0,1,0,0 { return $pl011_fake(sctlr) }
			1,0,0,1 { return $pl011_fake(clidr) }
			1,0,0,0 { return $pl011_fake(ccsidr,$pl011_fake(csselr)) }
		}
		error "unexpected mrc p15, $key"
	}
	set value [lindex $args 0]
	switch -- $key {
		0,1,0,0 { set pl011_fake(sctlr) $value }
		2,0,0,0 { set pl011_fake(csselr) $value }
		0,7,14,2 {
			incr pl011_fake(dccisw)
			if {$value > $pl011_fake(dccisw_max)} {
				set pl011_fake(dccisw_max) $value
			}
			set level [expr {($value >> 1) & 7}]
			if {[lsearch $pl011_fake(dccisw_levels) $level] < 0} {
				lappend pl011_fake(dccisw_levels) $level
			}
		}
		0,7,14,0 { incr pl011_fake(dcciall) }
		0,7,5,0 { incr pl011_fake(icache) }
		0,8,7,0 { incr pl011_fake(tlb) }
	}
	return ""
}

proc pl011_check_caches {} {
	global pl011_fake
	set pl011_fake(type) [[target current] cget -type]
	set pl011_fake(ops) 0
	set pl011_fake(dccisw) 0
	set pl011_fake(dccisw_max) 0
	set pl011_fake(dccisw_levels) {}
	set pl011_fake(dcciall) 0
	set pl011_fake(icache) 0
	set pl011_fake(tlb) 0
	set pl011_fake(csselr) 0
	# CLIDR: LoC 2, L1 separate I and D (type 3), L2 unified (type 4).
	set pl011_fake(clidr) [expr {(2 << 24) | (4 << 3) | 3}]
	switch $pl011_fake(type) {
		cortex_a {
			set pl011_fake(ccsidr,0) [pl011_fake_ccsidr 32 4]
			set pl011_fake(ccsidr,2) [pl011_fake_ccsidr 512 8]
			set pl011_fake(expect_dccisw) [expr {128 * 4 + 1024 * 8}]
		}
		aarch64 {
			set pl011_fake(ccsidr,0) [pl011_fake_ccsidr 32 2]
			set pl011_fake(ccsidr,2) [pl011_fake_ccsidr 1024 16]
			set pl011_fake(expect_dccisw) [expr {256 * 2 + 1024 * 16}]
		}
		default {
			set pl011_fake(expect_dccisw) 0
		}
	}

	foreach group {arm aarch64} {
		catch {rename $group {}}
		proc $group {op args} "pl011_fake_cp15 \$op {*}\$args"
	}

	set problems {}
	# 1. Fresh from the firmware (M, C, I clear): nothing but the SCTLR read.
	set pl011_fake(sctlr) 0x00C50078
	pl011_caches_off
	if {$pl011_fake(ops) != 1} {
		lappend problems "with the MMU and caches off it issued $pl011_fake(ops) CP15 operations, expected 1"
	}
	# 2. Fresh from the firmware's armstub, which turns the I-cache on: no data cache work.
	set pl011_fake(sctlr) 0x00C51078
	pl011_caches_off
	if {$pl011_fake(sctlr) != 0x00C50078 || $pl011_fake(icache) != 1} {
		lappend problems [format "I-cache only: SCTLR 0x%08x, %d I-cache invalidations (expected 0x00c50078, 1)" \
			$pl011_fake(sctlr) $pl011_fake(icache)]
	}
	if {$pl011_fake(dccisw) + $pl011_fake(dcciall) != 0} {
		lappend problems "I-cache only: the data cache was cleaned for nothing"
	}
	foreach counter {dccisw dcciall icache tlb} {
		set pl011_fake($counter) 0
	}
	# 3. After a run of one of our images (SCTLR as QEMU showed it at main: M, C, Z, I set).
	set pl011_fake(sctlr) 0x00C5187D
	pl011_caches_off
	if {$pl011_fake(sctlr) & 0x1805} {
		lappend problems [format "SCTLR left at 0x%08x (M, C, Z or I still set)" $pl011_fake(sctlr)]
	}
	if {($pl011_fake(sctlr) | 0x1805) != 0x00C5187D} {
		lappend problems [format "SCTLR 0x%08x: bits other than M, C, Z, I changed" $pl011_fake(sctlr)]
	}
	if {$pl011_fake(icache) == 0 || $pl011_fake(tlb) == 0} {
		lappend problems "instruction cache or TLB not invalidated"
	}
	if {$pl011_fake(type) eq "arm11"} {
		if {$pl011_fake(dcciall) != 1} {
			lappend problems "ARM1176: $pl011_fake(dcciall) whole-D-cache clean+invalidate operations, expected 1"
		}
	} else {
		if {$pl011_fake(dccisw) != $pl011_fake(expect_dccisw)} {
			lappend problems "$pl011_fake(dccisw) set/way operations, expected $pl011_fake(expect_dccisw)"
		}
		if {[lsort $pl011_fake(dccisw_levels)] ne {0 1}} {
			lappend problems "set/way operations on levels {$pl011_fake(dccisw_levels)}, expected L1 and L2 (0 1)"
		}
		# The last way's index sits in the top bits: way 3 of 4 (A7) is 0xC0000000 and up.
		if {$pl011_fake(dccisw_max) < 0x80000000 || $pl011_fake(dccisw_max) > 0xFFFFFFFF} {
			lappend problems [format "largest set/way operand 0x%x: way field misplaced" $pl011_fake(dccisw_max)]
		}
	}
	if {[llength $problems]} {
		echo "pl011-check: caches FAIL ($pl011_fake(type)): [join $problems {; }]"
	} else {
		echo [format "pl011-check: caches ok (%s): %d set/way, %d whole-cache operations, SCTLR 0x%08x" \
			$pl011_fake(type) $pl011_fake(dccisw) $pl011_fake(dcciall) $pl011_fake(sctlr)]
	}
}

if {[llength [info procs pl011_caches_off]]} {
	pl011_check_caches
} else {
	echo "pl011-check: caches skipped (the script defines no pl011_caches_off)"
}
