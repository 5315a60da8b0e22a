#!/bin/sh
# Check that every board's OpenOCD script parses, without hardware: OpenOCD's dummy adapter.
#
# Usage: sh tests/openocd/check_configs.sh [cfg ...]   (default: every boards/*/openocd.cfg)
#
# With interface/dummy.cfg nothing answers on JTAG, so `init` always fails at the scan chain;
# that failure is expected and proves the script got that far. What fails a script:
#  - OpenOCD stopped before our marker command ran: a Tcl error while reading the script (its
#    output then names "<file>:<line>: Error", e.g. "Can't find target/x.cfg", "invalid
#    command name", "missing close-brace");
#  - the script does not define pl011_load_and_start, which `make flash` calls;
#  - a Tcl error later on (an event handler with a bad command shows "invalid command name");
#  - OpenOCD still running after the timeout;
#  - its pl011_caches_off (if it has one), run on a simulated CP15 by caches_off_check.tcl,
#    leaves the MMU or caches on or skips a cache level (one more verdict line per script).
# Each script is also checked in a deliberately broken copy (an unknown command appended),
# which must fail: that shows the check can fail for that script.
# A script with variants lists each as a comment line "# pl011-check-variant: <tcl command>"
# (run before the script, e.g. "set RPI_CHIP bcm2837"); each variant is checked as well.
# The dummy adapter speaks only JTAG. A script for an SWD target or an adapter-specific board
# file names what to use instead in "# pl011-check-interface: <interface script>" (an adapter
# whose probe is absent: init then stops at "no device"), or "none" when the script names its
# adapter itself.
# Ends with 'N passed, N failed'; exits 1 if any script failed.
set -u

openocd=${OPENOCD:-openocd}
# OpenOCD parses a script and stops in about a second: the wall-time limit only ends a hang,
# far above what a loaded machine takes.
timeout_s=${OPENOCD_CHECK_TIMEOUT:-300}
marker="pl011-check: script parsed"
caches_check=$(dirname "$0")/caches_off_check.tcl

if [ $# -eq 0 ]; then
	set -- boards/*/openocd.cfg
	[ -e "$1" ] || set --
fi
if ! command -v "$openocd" >/dev/null 2>&1; then
	echo "FAIL $openocd not found (make deps installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi

passed=0
failed=0
broken=""
log=$(mktemp)
broken_cfg=""
trap 'rm -f "$log" "$log.variants" ${broken_cfg:+"$broken_cfg"}' EXIT
trap 'exit 130' INT TERM

# check_one CFG [TCL-COMMAND]: one OpenOCD run, one verdict line.
check_one() {
	cfg=$1
	variant=${2:-}
	label=$cfg${variant:+ ($variant)}
	interface=$(sed -n 's/^# pl011-check-interface: *//p' "$cfg" | head -n 1)
	case $interface in
	"") set -- -f interface/dummy.cfg ;;
	none) set -- ;;
	*) set -- -f "$interface" ;;
	esac
	# No servers: nothing listens on 3333/4444/6666, so checks can run beside a real session.
	timeout "$timeout_s" "$openocd" \
		-c "gdb_port disabled; telnet_port disabled; tcl_port disabled" \
		-c "${variant:-#}" "$@" -f "$cfg" \
		-c "if {[llength [info procs pl011_load_and_start]]} {echo {$marker}} else {echo {pl011-check: pl011_load_and_start is not defined}}" \
		-c "init" -c "shutdown" >"$log" 2>&1
	status=$?
	problem=""
	if [ "$status" -eq 124 ]; then
		problem="OpenOCD did not finish within ${timeout_s}s"
	elif grep -q "pl011-check: pl011_load_and_start is not defined" "$log"; then
		problem="parsed, but pl011_load_and_start (used by make flash) is not defined"
	elif ! grep -qF "$marker" "$log"; then
		problem=$(grep -E "\.cfg:[0-9]+: Error|Error: " "$log" | head -n 2 | tr '\n' ' ')
		[ -n "$problem" ] || problem="OpenOCD stopped before the end of the script (exit $status)"
	elif grep -qE "invalid command name|wrong # args|can't read|Can't find|in procedure '" "$log"; then
		problem=$(grep -E "invalid command name|wrong # args|can't read|Can't find|in procedure '" "$log" |
			head -n 2 | tr '\n' ' ')
	fi
	if [ -n "$broken" ]; then
		# A deliberately broken copy: the check must catch it, for the command appended.
		case $problem in
		*pl011_no_such_command*) ;;
		*) problem="" ;;
		esac
		if [ -n "$problem" ]; then
			passed=$((passed + 1))
			echo "ok   $broken: the check rejects it ($(echo "$problem" | cut -c1-100))"
		else
			failed=$((failed + 1))
			echo "FAIL $broken: a broken script passed the check"
		fi
		return
	fi
	if [ -n "$problem" ]; then
		failed=$((failed + 1))
		echo "FAIL $label: $problem"
		sed 's/^/     /' "$log" | grep -v "does not have valid IDCODE" | tail -n 12
		return
	fi
	passed=$((passed + 1))
	if grep -qE "IR capture error|double-check your JTAG setup|examination failed|scan chain interrogation failed" "$log"; then
		echo "ok   $label: parsed; init stopped at the JTAG scan, as expected with the dummy adapter"
	elif grep -qE "unable to find a matching CMSIS-DAP device|open failed" "$log"; then
		echo "ok   $label: parsed; init stopped at opening the probe, as expected without one"
	else
		echo "ok   $label: parsed (exit $status; no JTAG scan failure seen)"
	fi
	check_caches "$cfg" "$variant" "$label" "$@"
}

# check_caches CFG VARIANT LABEL [ADAPTER ARGS]: run the script's pl011_caches_off on a
# simulated CP15 (caches_off_check.tcl, before init) and report its verdict; scripts without
# it are skipped.
check_caches() {
	cfg=$1
	variant=$2
	label=$3
	shift 3
	timeout "$timeout_s" "$openocd" \
		-c "gdb_port disabled; telnet_port disabled; tcl_port disabled" \
		-c "${variant:-#}" "$@" -f "$cfg" -f "$caches_check" -c "shutdown" >"$log" 2>&1
	verdict=$(grep "^pl011-check: caches " "$log" | head -n 1)
	case $verdict in
	"pl011-check: caches ok"*)
		passed=$((passed + 1))
		echo "ok   $label: ${verdict#pl011-check: }" ;;
	"pl011-check: caches skipped"*) ;;
	*)
		failed=$((failed + 1))
		echo "FAIL $label: ${verdict:+${verdict#pl011-check: }}${verdict:-pl011_caches_off check gave no verdict}"
		sed 's/^/     /' "$log" | grep -v "does not have valid IDCODE" | tail -n 8 ;;
	esac
}

for cfg in "$@"; do
	check_one "$cfg"
	# Variants, one per line; sed prints only the command after the tag.
	sed -n 's/^# pl011-check-variant: *//p' "$cfg" >"$log.variants"
	while IFS= read -r variant; do
		check_one "$cfg" "$variant"
	done <"$log.variants"
	rm -f "$log.variants"
	# The same script with an unknown command at its end must fail, or the check proves
	# nothing for it. The copy sits beside the original, so that what it sources relative to
	# its own folder is found.
	broken_cfg=$(dirname "$cfg")/.pl011-check-broken-$$.cfg
	{ cat "$cfg"; echo "pl011_no_such_command"; } >"$broken_cfg"
	broken="broken copy of $cfg"
	check_one "$broken_cfg"
	rm -f "$broken_cfg"
	broken=""
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
