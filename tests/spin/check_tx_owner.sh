#!/bin/sh
# make spin-check: docs/tx_owner.pml checked exhaustively by SPIN, and each mutation caught.
# Usage: check_tx_owner.sh MODEL BUILD_DIR
set -u
model=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cp "$model" "$out/tx_owner.pml"
cd "$out" || exit 1

PML=tx_owner.pml
PAN_CC_FLAGS="-DNOREDUCE"
. "$here/spin_verify.sh"

failed=0
verify "protocol" "" ""
[ "$errors" = 0 ] || failed=1
# Shutdown after five bytes, with the handler on the other core owning TX through both waits.
verify_sized "protocol with shutdown's two waits" "-DSHUTDOWN_AFTER -DWRITES=5" \
	"-DSHUTDOWN_AFTER -DWRITES=3"
[ "$errors" = 0 ] || failed=1
verify_sized "protocol, the panic beside a stopped owner on the other core" \
	"-DPANIC_ON_OTHER_CORE -DWRITES=4 -DPANIC_BYTES=1" "-DPANIC_ON_OTHER_CORE -DWRITES=3 -DPANIC_BYTES=1"
[ "$errors" = 0 ] || failed=1
# Issue 33: shutdown gives up on a stopped context, init waits for it, the new run's byte
# leaves and no context of the old run touches it; a panic over its own core's shutdown.
restart="-DPANIC_ON_OTHER_CORE -DSHUTDOWN_AFTER -DSTUCK -DRESTART -DWRITES=3 -DPANIC_BYTES=1"
verify_sized "protocol, a restart beside a context of the old run" "$restart" \
	"-DPANIC_ON_OTHER_CORE -DSHUTDOWN_AFTER -DSTUCK -DRESTART -DWRITES=2 -DPANIC_BYTES=1"
[ "$errors" = 0 ] || failed=1
verify "protocol, a panic over its own core's shutdown" "-DSHUTDOWN_AFTER -DOVER_STOP -DWRITES=3" ""
[ "$errors" = 0 ] || failed=1
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
caught "mutant: the panic's last pass lets go at every limit" \
	"-DPANIC_ON_OTHER_CORE -DWRITES=4 -DPANIC_BYTES=1 -DPANIC_PASS_LETS_GO" "-E" \
	"assertion violated  !(panic_pass)"
[ "$failed" = 0 ] && echo "spin-check: the model holds and the eight mutants are caught"
exit "$failed"
