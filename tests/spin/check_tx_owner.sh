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
# Shutdown after five bytes, with the handler on the other core owning TX through both waits.
verify "protocol with shutdown's two waits" "-DSHUTDOWN_AFTER -DWRITES=5" ""
[ "$errors" = 0 ] || failed=1
verify "protocol, the panic beside a stopped owner on the other core" \
	"-DPANIC_ON_OTHER_CORE -DWRITES=4 -DPANIC_BYTES=1" ""
[ "$errors" = 0 ] || failed=1
# Issue 33: shutdown gives up on a stopped context, init waits for it, the new run's byte
# leaves and no context of the old run touches it; a panic over its own core's shutdown.
restart="-DPANIC_ON_OTHER_CORE -DSHUTDOWN_AFTER -DSTUCK -DRESTART -DWRITES=3 -DPANIC_BYTES=1"
verify "protocol, a restart beside a context of the old run" "$restart" ""
[ "$errors" = 0 ] || failed=1
verify "protocol, a panic over its own core's shutdown" "-DSHUTDOWN_AFTER -DOVER_STOP -DWRITES=3" ""
[ "$errors" = 0 ] || failed=1
# caught NAME FLAGS PAN_FLAGS PATTERN: the mutant's run must report PATTERN.
caught() {
	verify "$1" "$2" "$3"
	grep -q "$4" "$1.txt" || { echo "  not caught"; failed=1; }
}
caught "mutant: release ignores RETRY" "-DRELEASE_IGNORES_RETRY" "" "invalid end state"
# -E: invalid end states ignored, so that the assertion named is what must fire.
caught "mutant: panic writes whenever FR shows room" "-DPANIC_WRITES_ON_ROOM" "-E" \
	"assertion violated (fifo<4)"
caught "mutant: the owner ignores a panic beside it" \
	"-DPANIC_ON_OTHER_CORE -DWRITES=4 -DPANIC_BYTES=1 -DNO_BESIDE_CHECK" "-E" \
	"assertion violated (fifo<4)"
caught "mutant: shutdown's second wait without STOPPED" \
	"-DSHUTDOWN_AFTER -DWRITES=5 -DSTOP_WITHOUT_STOPPED" "-E" "assertion violated ( !(counted)"
caught "mutant: init does not wait for the old run" "$restart -DINIT_IGNORES_OLD_RUN" "-E" \
	"assertion violated"
caught "mutant: init clears tx.beside" "$restart -DINIT_CLEARS_BESIDE" "" "invalid end state"
caught "mutant: a panic over its own core's shutdown cut off" \
	"-DSHUTDOWN_AFTER -DOVER_STOP -DOVER_STOP_CUT -DWRITES=3" "-E" \
	"assertion violated ( !(in_stop)"
[ "$failed" = 0 ] && echo "spin-check: the model holds and the seven mutants are caught"
exit "$failed"
