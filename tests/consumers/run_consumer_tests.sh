#!/bin/sh
# Build a tiny out-of-tree firmware the ways README.md promises, run each on QEMU versatilepb.
#
# Usage: sh tests/consumers/run_consumer_tests.sh   (make consumer-test; BUILD= the build folder)
# Ways: plain make with the README's snippet (the library's sources in the firmware), plain make
# linking `make lib`'s libpl011.a, CMake with add_subdirectory(), CMake with FetchContent. Each
# must build, link, print the firmware's line on the UART and exit 0 by semihosting.
# Ends with 'N passed, N failed'; exits 1 if any failed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
case "$build" in /*) ;; *) build=$root/$build ;; esac
out=$build/consumers
expected="pl011 consumer: ok"
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# verdict LABEL STATUS: count and report one way, with its log when it failed.
verdict() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok   $1"
	else
		failed=$((failed + 1))
		echo "FAIL $1"
		tail -n 25 "$log" | sed 's/^/     /'
	fi
}

# run_firmware ELF: QEMU versatilepb as `make run` starts it; the UART must say the line.
qemu=$(make -s --no-print-directory -C "$root" BOARD=versatilepb print-qemu) || exit 1
run_firmware() {
	# shellcheck disable=SC2086 # the QEMU command line from make
	timeout 30 $qemu -nographic -kernel "$1" </dev/null >"$log.uart" 2>&1
	status=$?
	cat "$log.uart" >>"$log"
	if ! grep -qF "$expected" "$log.uart"; then
		echo "the UART did not say '$expected' (QEMU exit $status)" >>"$log"
		return 1
	fi
	[ "$status" -eq 0 ] || { echo "QEMU exit status $status, not 0" >>"$log"; return 1; }
}

rm -rf "$out"
mkdir -p "$out/make"

# Plain make, the README's snippet: the first ```make block of README.md, for this checkout.
# shellcheck disable=SC2016 # $(PL011) is for make, not the shell
awk '/^```make$/ { inside = 1; next } inside && /^```/ { exit } inside' "$root/README.md" |
	sed 's|path/to/pl011|$(PL011)|g' >"$out/make/readme-snippet.mk"
{
	echo "README snippet:"
	cat "$out/make/readme-snippet.mk"
	[ -s "$out/make/readme-snippet.mk" ] || { echo "no \`\`\`make block in README.md"; false; } &&
		make --no-print-directory -f "$root/tests/consumers/make/Makefile" PL011="$root" \
			OUT="$out/make" "$out/make/sources.elf" &&
		run_firmware "$out/make/sources.elf"
} >"$log" 2>&1
verdict "plain make, README snippet (library sources in the firmware)" $?

# Plain make, linking the library `make lib BOARD=versatilepb` built.
{
	make --no-print-directory -C "$root" BOARD=versatilepb BUILD="$build" lib &&
		make --no-print-directory -f "$root/tests/consumers/make/Makefile" PL011="$root" \
			OUT="$out/make" LIBRARY="$build/versatilepb/libpl011.a" "$out/make/library.elf" &&
		run_firmware "$out/make/library.elf"
} >"$log" 2>&1
verdict "plain make, libpl011.a from make lib" $?

# CMake, both ways of taking the library, with the project's toolchain file.
for way in subdirectory fetchcontent; do
	{
		cmake -S "$root/tests/consumers/cmake" -B "$out/cmake-$way" \
			-DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
			-DARM_CPU_FLAGS="-mcpu=arm926ej-s -marm -mfloat-abi=soft" \
			-DPL011_SOURCE_DIR="$root" -DPL011_BY=$way &&
			cmake --build "$out/cmake-$way" &&
			run_firmware "$out/cmake-$way/firmware.elf"
	} >"$log" 2>&1
	verdict "cmake, $way" $?
done

rm -f "$log.uart"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
