#!/bin/sh
# Check that a built libpl011.a uses no floating-point or SIMD register: an interrupt entry that
# saves only the general registers may call the driver (lib/ is built with -mgeneral-regs-only).
# OBJDUMP is the board's objdump (make passes $(CROSS_COMPILE)objdump). In the disassembly, an
# FP/SIMD register is an operand b0-b31, h, s, d, q or v<n> (AArch64; v<n>.4s...) or s, d, q<n>
# (VFP/Neon on 32-bit ARM); comments and branch targets (address <symbol>) are left out.
set -eu
library=$1
objdump=${OBJDUMP:-arm-none-eabi-objdump}
found=$($objdump -d --no-show-raw-insn "$library" | awk -F'\t' 'NF >= 3 {
	operands = $3 " " $4
	sub(/[;@\/].*/, "", operands)
	gsub(/[0-9a-f]* *<[^>]*>/, "", operands)
	if (operands ~ /(^|[^a-z0-9_])[bhsdqv][0-9][0-9]?([^a-z0-9_]|$)/) print
}')
if [ -n "$found" ]; then
	echo "FAIL $library uses FP/SIMD registers ($(printf '%s\n' "$found" | grep -c .) instructions):"
	printf '%s\n' "$found" | head -n 5 | sed 's/^/     /'
	exit 1
fi
echo "ok   $library uses only the general registers"
