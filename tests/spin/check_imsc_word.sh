#!/bin/sh
# make spin-check: docs/imsc_word.pml (the IMSC word and the RX pause in it) checked
# exhaustively by SPIN, and each mutation caught.
# Usage: check_imsc_word.sh MODEL BUILD_DIR
set -u
model=$1
out=$2
mkdir -p "$out"
cp "$model" "$out/imsc_word.pml"
cd "$out" || exit 1

# verify NAME FLAGS PAN_FLAGS: runs SPIN's exhaustive safety search (partial order reduction
# on: every step touches a global in an atomic block); prints its summary and leaves the
# error count in $errors.
verify() {
	rm -f pan pan.* ./*.trail
	spin -a $2 imsc_word.pml >spin.log 2>&1 || { cat spin.log; exit 1; }
	cc -O2 -w -o pan pan.c || exit 1
	./pan -m100000 $3 >"$1.txt" 2>&1
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$1.txt")
	states=$(sed -n 's/^ *\([0-9e.+]*\) states, stored.*/\1/p' "$1.txt")
	if grep -q "max search depth too small" "$1.txt"; then
		echo "spin-check: $1: search depth too small, the run is not exhaustive" >&2
		exit 1
	fi
	echo "  $1: $states states, $errors errors"
}

failed=0
# FIFO 2, ring 2, 5 characters, two TXIM arm-disarm pairs, one MIS pass.
verify "IMSC word, one core" "" ""
[ "$errors" = 0 ] || failed=1
verify "IMSC word, one core, a ring of 4 resumed at half, two MIS passes" \
	"-DSIZE=4 -DTOTAL=7 -DPASSES=2" ""
[ "$errors" = 0 ] || failed=1
verify "IMSC word, the handler on the other core" "-DTWO_CORES -DTOTAL=4 -DARMS=1" ""
[ "$errors" = 0 ] || failed=1
# caught NAME FLAGS PAN_FLAGS TEXT: the mutant's run must report TEXT (a fixed string).
caught() {
	verify "$1" "$2" "$3"
	grep -qF "$4" "$1.txt" || { echo "  not caught"; failed=1; }
}
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
[ "$failed" = 0 ] && echo "spin-check: the IMSC word holds and the five mutants are caught"
exit "$failed"
