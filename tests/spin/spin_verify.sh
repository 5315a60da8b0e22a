# Sourced by the spin-check scripts: SPIN's exhaustive search of one Promela model, and the
# check that a mutant of it is caught. The caller sets PML (the model's file, copied into the
# current folder), PAN_CC_FLAGS (e.g. -DNOREDUCE) and failed=0. PL011_TEST_DEPTH=quick (make
# test) searches the largest runs on a smaller instance; full (make test-full) as written.

# verify NAME FLAGS PAN_FLAGS: runs the search; prints its summary and leaves the error count
# in $errors.
verify() {
	rm -f pan pan.* ./*.trail
	spin -a $2 "$PML" >spin.log 2>&1 || { cat spin.log; exit 1; }
	cc -O2 -w $PAN_CC_FLAGS -o pan pan.c || exit 1
	./pan -m100000 $3 >"$1.txt" 2>&1
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$1.txt")
	states=$(sed -n 's/^ *\([0-9e.+]*\) states, stored.*/\1/p' "$1.txt")
	if grep -q "max search depth too small" "$1.txt"; then
		echo "spin-check: $1: search depth too small, the run is not exhaustive" >&2
		exit 1
	fi
	echo "  $1: $states states, $errors errors"
}

# caught NAME FLAGS PAN_FLAGS TEXT: the mutant's run must report TEXT (a fixed string).
caught() {
	verify "$1" "$2" "$3"
	grep -qF "$4" "$1.txt" || { echo "  not caught"; failed=1; }
}

# verify_sized NAME FULL_FLAGS QUICK_FLAGS [PAN_FLAGS]: the run with FULL_FLAGS at full depth,
# with QUICK_FLAGS (fewer bytes or characters: the same protocol, exhaustively) at quick depth.
verify_sized() {
	if [ "${PL011_TEST_DEPTH:-full}" = quick ]; then
		verify "$1 (quick size)" "$3" "${4:-}"
	else
		verify "$1" "$2" "${4:-}"
	fi
}
