#!/bin/sh
# Build a tiny out-of-tree firmware the ways README.md promises, run each on QEMU versatilepb.
#
# Usage: sh tests/consumers/run_consumer_tests.sh   (make consumer-test; BUILD= the build folder)
# First: the atomic helpers README.md lists are the ones the library calls, and the firmware
# supplies exactly those. Ways: plain make with the README's snippet (the library's sources in the firmware), plain make
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
	# The firmware says its line and exits in well under a second: 300 s of wall time only
	# ends a hang, and no load on the machine stretches a run that far.
	# shellcheck disable=SC2086 # the QEMU command line from make
	timeout 300 $qemu -nographic -kernel "$1" </dev/null >"$log.uart" 2>&1
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

# The atomic helpers a firmware provides on ARMv5 and ARMv6-M: README.md lists them, in the
# paragraph after its atomic-helpers marker; docs/porting.md and CMakeLists.txt name the same
# set, and the library built for versatilepb (ARMv5) and rp2040 (ARMv6-M) calls exactly them.
# helpers_in FILE: the helper names after FILE's marker, up to the next blank (or bare #) line.
helpers_in() {
	awk '/atomic-helpers/ { inside = 1; next } inside && /^[[:space:]#]*$/ { exit } inside' "$1" |
		grep -oE '__(atomic|sync)_[a-z0-9_]+' | sort -u | tr '\n' ' '
}
listed=$(helpers_in "$root/README.md")
(
	echo "README.md lists: $listed"
	[ -n "$listed" ] || { echo "no helper after README.md's atomic-helpers marker"; exit 1; }
	status=0
	# Each board calls only listed helpers, and the two together call every one (ARMv6-M has
	# DMB, so only ARMv5 calls __sync_synchronize).
	every=""
	for board in versatilepb rp2040; do
		make --no-print-directory -s -C "$root" BOARD=$board BUILD="$build" lib || exit 1
		called=$(arm-none-eabi-nm -u "$build/$board/libpl011.a" | awk '{ print $2 }' |
			grep -E '^__(atomic|sync)_' | sort -u | tr '\n' ' ')
		echo "libpl011.a for $board calls: $called"
		for helper in $called; do
			case " $listed " in
			*" $helper "*) ;;
			*) echo "  $helper is not in README.md's list"; status=1 ;;
			esac
		done
		every="$every $called"
	done
	every=$(printf '%s\n' $every | sort -u | tr '\n' ' ')
	[ "$every" = "$listed" ] || { echo "  together they call $every, not what README.md lists"; status=1; }
	for file in docs/porting.md CMakeLists.txt; do
		named=$(helpers_in "$root/$file")
		echo "$file lists: $named"
		[ "$named" = "$listed" ] || { echo "  not what README.md lists"; status=1; }
	done
	exit $status
) >"$log" 2>&1
verdict "the atomic helpers README.md lists are what libpl011.a calls on ARMv5 and ARMv6-M" $?

# The firmware below supplies exactly the helpers README.md lists: the project's
# atomics_irqmask.c with every other global symbol made local, so that a helper missing from
# the list is an undefined reference, as it is for a user who reads the list.
helpers=$out/helpers.o
(
	arm-none-eabi-gcc -mcpu=arm926ej-s -marm -mfloat-abi=soft -std=c11 -O2 -c \
		"$root/boards/common/atomics_irqmask.c" -o "$out/atomics_irqmask.o" || exit 1
	# shellcheck disable=SC2046,SC2086 # one -G per helper
	arm-none-eabi-objcopy $(printf -- '-G %s ' $listed) "$out/atomics_irqmask.o" "$helpers" ||
		exit 1
	defined=$(arm-none-eabi-nm -g --defined-only "$helpers" | awk '{ print $3 }' | sort -u | tr '\n' ' ')
	echo "helpers.o defines: $defined"
	[ "$defined" = "$listed" ] || { echo "  not what README.md lists: $listed"; exit 1; }
	# Every function of the library, kept from --gc-sections by --whole-archive: whatever a
	# firmware calls, these helpers are all it needs.
	make --no-print-directory -s -C "$root" BOARD=versatilepb BUILD="$build" lib &&
		arm-none-eabi-gcc -mcpu=arm926ej-s -marm -mfloat-abi=soft --specs=nano.specs \
			-nostartfiles -T "$root/tests/consumers/firmware/firmware.ld" \
			"$root/tests/consumers/firmware/start.S" "$root/tests/consumers/firmware/main.c" \
			-I "$root/include" -Wl,--whole-archive "$build/versatilepb/libpl011.a" \
			-Wl,--no-whole-archive "$helpers" -lgcc -o "$out/whole-library.elf"
) >"$log" 2>&1
verdict "helpers.o supplies exactly those helpers; the whole library links with them" $?

# Plain make, the README's snippet: the first ```make block of README.md, for this checkout.
# shellcheck disable=SC2016 # $(PL011) is for make, not the shell
awk '/^```make$/ { inside = 1; next } inside && /^```/ { exit } inside' "$root/README.md" |
	sed 's|path/to/pl011|$(PL011)|g' >"$out/make/readme-snippet.mk"
{
	echo "README snippet:"
	cat "$out/make/readme-snippet.mk"
	[ -s "$out/make/readme-snippet.mk" ] || { echo "no \`\`\`make block in README.md"; false; } &&
		make --no-print-directory -f "$root/tests/consumers/make/Makefile" PL011="$root" \
			OUT="$out/make" HELPERS="$helpers" "$out/make/sources.elf" &&
		run_firmware "$out/make/sources.elf"
} >"$log" 2>&1
verdict "plain make, README snippet (library sources in the firmware)" $?

# Plain make, linking the library `make lib BOARD=versatilepb` built.
{
	make --no-print-directory -C "$root" BOARD=versatilepb BUILD="$build" lib &&
		make --no-print-directory -f "$root/tests/consumers/make/Makefile" PL011="$root" \
			OUT="$out/make" HELPERS="$helpers" LIBRARY="$build/versatilepb/libpl011.a" \
			"$out/make/library.elf" &&
		run_firmware "$out/make/library.elf"
} >"$log" 2>&1
verdict "plain make, libpl011.a from make lib" $?

# CMake, both ways of taking the library, with the project's toolchain file.
for way in subdirectory fetchcontent; do
	{
		cmake -S "$root/tests/consumers/cmake" -B "$out/cmake-$way" \
			-DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
			-DARM_CPU_FLAGS="-mcpu=arm926ej-s -marm -mfloat-abi=soft" \
			-DPL011_SOURCE_DIR="$root" -DPL011_BY=$way -DPL011_HELPERS="$helpers" &&
			cmake --build "$out/cmake-$way" &&
			run_firmware "$out/cmake-$way/firmware.elf"
	} >"$log" 2>&1
	verdict "cmake, $way" $?
done

# CMake without a build type would compile at -O0, more than twice the code: the library's
# CMakeLists.txt gives it -Os then. Its code must be no larger than make lib's (-O2).
{
	text_of() { arm-none-eabi-size -t "$1" | awk 'END { print $1 }'; }
	cmake_text=$(text_of "$out/cmake-subdirectory/pl011/libpl011.a") &&
		make_text=$(text_of "$build/versatilepb/libpl011.a") &&
		echo "libpl011.a code: CMake without a build type $cmake_text B, make lib $make_text B" &&
		[ "$cmake_text" -le "$make_text" ]
} >"$log" 2>&1
verdict "cmake without a build type: the library is optimized" $?

rm -f "$log.uart"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
