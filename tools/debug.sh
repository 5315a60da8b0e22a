#!/bin/sh
# make debug: an example in QEMU halted at its entry point with a gdb server, gdb-multiarch attached.
#
# Usage: QEMU="qemu-system-arm -M ..." sh tools/debug.sh ELF
# Environment: GDB (gdb-multiarch), GDB_PORT (1234), DEBUG_SERIAL (QEMU -serial value,
# default file:debug-uart.log), PYTHON (python3).
# QEMU runs in its own session, so that Ctrl-C in gdb interrupts the target instead of killing
# QEMU; it is stopped when gdb exits. Without a terminal (or with CI=true) gdb runs in batch
# mode: it checks the stub by running to main, then ends QEMU.
set -eu
elf=$1
gdb=${GDB:-gdb-multiarch}
port=${GDB_PORT:-1234}
serial=${DEBUG_SERIAL:-file:debug-uart.log}
python=${PYTHON:-python3}
qemu_command=${QEMU:?QEMU must hold the QEMU command line}

echo "  QEMU    halted; gdb server on localhost:$port; UART to $serial"
# shellcheck disable=SC2086 # a command line, split into words
setsid $qemu_command -display none -monitor none -serial "$serial" -gdb "tcp:localhost:$port" -S \
	-kernel "$elf" &
qemu=$!
# On the way out, stop QEMU (gdb may have ended it already) and keep gdb's exit status.
stop_qemu() {
	exit_status=$?
	kill "$qemu" 2>/dev/null || true
	wait "$qemu" 2>/dev/null || true
	exit "$exit_status"
}
trap stop_qemu EXIT
trap '' INT

# The gdb server listens a moment after QEMU starts: poll for it, 10 s at most.
tries=0
until "$python" -c "import socket, sys; sys.exit(socket.socket().connect_ex(('localhost', $port)))"; do
	tries=$((tries + 1))
	if [ "$tries" -ge 100 ] || ! kill -0 "$qemu" 2>/dev/null; then
		echo "make debug: no gdb server on port $port after $((tries / 10)) s" >&2
		exit 1
	fi
	sleep 0.1
done

if [ "${CI:-}" = true ] || [ ! -t 0 ]; then
	echo "  GDB     batch mode (CI=true or no terminal): run to main, show where, stop"
	timeout 60 "$gdb" -q -nx -batch -ex "target remote localhost:$port" \
		-ex "break main" -ex continue -ex "info registers pc" -ex kill "$elf"
else
	"$gdb" -q -ex "target remote localhost:$port" -ex "break main" "$elf"
fi
