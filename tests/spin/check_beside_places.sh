#!/bin/sh
# make spin-check: docs/beside_places.pml (the places of panics writing beside the TX owner)
# checked exhaustively by SPIN, and each mutation caught.
# Usage: check_beside_places.sh MODEL BUILD_DIR
set -u
model=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cp "$model" "$out/beside_places.pml"
cd "$out" || exit 1

PML=beside_places.pml
PAN_CC_FLAGS=""
. "$here/spin_verify.sh"

failed=0
# FIFO 6, trigger 2, 2 places; the owner's passes look before they read FR or MIS.
verify_sized "beside places, 3 panics of 1 character, 3 owner passes" "" "-DOWNER_PASSES=2"
[ "$errors" = 0 ] || failed=1
verify "beside places, 2 panics of 2 characters, 3 owner passes" "-DPANICS=2 -DPANIC_BYTES=2" ""
[ "$errors" = 0 ] || failed=1
# FIFO 8, trigger 4: the blind refill leaves 2 of its look's 6 to the top-up on FR.
verify_sized "beside places, FIFO 8, trigger 4, 3 panics of 1 character, 2 owner passes" \
	"-DDEPTH=8 -DTRIGGER=4 -DOWNER_PASSES=2" "-DDEPTH=8 -DTRIGGER=4 -DPANICS=2 -DPANIC_BYTES=2"
[ "$errors" = 0 ] || failed=1
caught "mutant: 3 places, room left for 2" "-DPLACES_3" "" "assertion violated (fifo<6)"
caught "mutant: the place given back before the write" "-DPLACE_FREED_BEFORE_WRITE" "" \
	"assertion violated (fifo<6)"
caught "mutant: a panic writes whenever FR shows room" "-DWRITES_ON_ROOM" "" \
	"assertion violated (fifo<6)"
caught "mutant: a burst after TXFE of the whole depth" "-DBURST_FULL_DEPTH" "" \
	"assertion violated (fifo<6)"
caught "mutant: a trigger of 1 entry, its refill depth - 1" "-DTRIGGER_1" "" \
	"assertion violated (fifo<6)"
# lib/ before the places were modelled: each broke the rule, each overflows.
caught "mutant: a burst's first character on FR read before its look" "-DFR_BEFORE_LOOK" "" \
	"assertion violated (fifo<6)"
caught "mutant: the blind refill on MIS read before the look" "-DMIS_BEFORE_LOOK" "" \
	"assertion violated (fifo<6)"
caught "mutant: depth - 1 characters between two looks" "-DPER_LOOK_DEPTH_1" "" \
	"assertion violated (fifo<6)"
caught "mutant: the top-up ignores the blind part's characters (FIFO 8)" \
	"-DDEPTH=8 -DTRIGGER=4 -DOWNER_PASSES=2 -DTOPUP_WHOLE_LOOK" "" "assertion violated (fifo<8)"
[ "$failed" = 0 ] && echo "spin-check: the beside places hold and the nine mutants are caught"
exit "$failed"
