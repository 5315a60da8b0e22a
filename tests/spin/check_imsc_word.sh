#!/bin/sh
# make spin-check: docs/imsc_word.pml (the IMSC word and the RX pause in it) checked
# exhaustively by SPIN, and each mutation caught.
# Usage: check_imsc_word.sh MODEL BUILD_DIR
set -u
model=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cp "$model" "$out/imsc_word.pml"
cd "$out" || exit 1

PML=imsc_word.pml
PAN_CC_FLAGS=""
. "$here/spin_verify.sh"

failed=0
# FIFO 2, ring 2, 5 characters, two TXIM arm-disarm pairs, one MIS pass, one line switch.
verify "IMSC word, one core" "" ""
[ "$errors" = 0 ] || failed=1
# -w26: a hash table for the 30 million states of the larger runs.
verify_sized "IMSC word, one core, a ring of 4 resumed at half, two MIS passes" \
	"-DSIZE=4 -DTOTAL=7 -DPASSES=2" "-DSIZE=4 -DTOTAL=6 -DPASSES=2" "-w26"
[ "$errors" = 0 ] || failed=1
# Two cores: 3 characters and one TXIM pair (none at quick depth), the line switch beside.
verify_sized "IMSC word, the handler on the other core" "-DTWO_CORES -DTOTAL=3 -DARMS=1" \
	"-DTWO_CORES -DTOTAL=3 -DARMS=0" "-w26"
[ "$errors" = 0 ] || failed=1
# -E: invalid end states ignored, so that the assertion named is what must fire.
# NO_RETURN_CHECK: without check (5), which fires first, the run shows the storm that follows.
caught "mutant: the old design (a paused flag beside the word, no repair)" \
	"-DOLD_DESIGN -DNO_RETURN_CHECK" "-E" "assertion violated (entries<=(5+2))"
caught "mutant: a pause that publishes only a change, no repair" \
	"-DNO_REPAIR -DNO_RETURN_CHECK" "-E" "assertion violated (entries<=(5+2))"
caught "mutant: publish without the look again" "-DNO_RECHECK" "-E" \
	"assertion violated (imsc==word)"
caught "mutant: a pause without its look at the ring" \
	"-DTWO_CORES -DTOTAL=4 -DARMS=1 -DNO_LOOK_AFTER_PAUSE" "-E" \
	"assertion violated  !(((ring==0)&&((word&1)==0)))"
caught "mutant: no repair, the pause still publishing" "-DNO_REPAIR_CALL" "-E" \
	"assertion violated  !((((imsc&1)!=0)&&((word&1)==0)))"
# NO_FROZEN_CHECK on one core: a stale write during the switch's take calls a handler over it.
caught "mutant: a handler that serves under the freeze" "-DNO_FROZEN_CHECK" "-E" \
	"assertion violated  !(owns)"
[ "$failed" = 0 ] && echo "spin-check: the IMSC word holds and the six mutants are caught"
exit "$failed"
