#!/bin/sh
# make spin-check: docs/tx_owner.pml checked exhaustively by SPIN, and each mutation caught.
# Usage: check_tx_owner.sh MODEL BUILD_DIR
set -u
model=$1
out=$2
mkdir -p "$out"
cp "$model" "$out/tx_owner.pml"
cd "$out" || exit 1

# verify NAME FLAGS PAN_FLAGS: runs SPIN's exhaustive safety search; prints its summary and
# leaves the error count in $errors.
verify() {
	rm -f pan pan.* ./*.trail
	spin -a $2 tx_owner.pml >spin.log 2>&1 || { cat spin.log; exit 1; }
	cc -O2 -w -DNOREDUCE -o pan pan.c || exit 1
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
verify "protocol" "" ""
[ "$errors" = 0 ] || failed=1
verify "protocol with shutdown" "-DSHUTDOWN_AFTER" ""
[ "$errors" = 0 ] || failed=1
verify "protocol, the panic beside a stopped owner on the other core" \
	"-DPANIC_ON_OTHER_CORE -DWRITES=4" ""
[ "$errors" = 0 ] || failed=1
verify "mutant: release ignores RETRY" "-DRELEASE_IGNORES_RETRY" ""
grep -q "invalid end state" "mutant: release ignores RETRY.txt" || { echo "  not caught"; failed=1; }
# -E: invalid end states ignored, so that the overflow assertion is what must fire.
verify "mutant: panic writes whenever FR shows room" "-DPANIC_WRITES_ON_ROOM" "-E"
grep -q "assertion violated (fifo<4)" "mutant: panic writes whenever FR shows room.txt" ||
	{ echo "  not caught"; failed=1; }
verify "mutant: the owner ignores a panic beside it" \
	"-DPANIC_ON_OTHER_CORE -DWRITES=4 -DNO_BESIDE_CHECK" "-E"
grep -q "assertion violated (fifo<4)" "mutant: the owner ignores a panic beside it.txt" ||
	{ echo "  not caught"; failed=1; }
[ "$failed" = 0 ] && echo "spin-check: the model holds and the three mutants are caught"
exit "$failed"
