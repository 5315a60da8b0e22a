#!/bin/sh
# Build a tiny out-of-tree firmware the ways README.md promises, run each on QEMU versatilepb.
#
# Usage: sh tests/consumers/run_consumer_tests.sh   (make consumer-test; BUILD= the build folder)
# First: the atomic helpers docs/building.md lists are the ones the library calls, and it
# defines them. Ways: plain make with the README's snippet (the library's sources in the firmware), plain make
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
trap 'rm -f "$log" "$log.uart" "$log.mixed"' EXIT

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

# The atomic helpers GCC calls on ARMv5 and ARMv6-M: docs/building.md lists them, in the
# paragraph after its atomic-helpers marker; docs/porting.md and CMakeLists.txt name the same
# set. The library built for versatilepb (ARMv5) and rp2040 (ARMv6-M) calls exactly them and
# defines every one it calls (boards/common/atomics_irqmask.c is part of it); built for a core
# with exclusives (lm3s6965, ARMv7-M) it defines none.
# helpers_in FILE: the helper names after FILE's marker, up to the next blank (or bare #) line.
helpers_in() {
	awk '/atomic-helpers/ { inside = 1; next } inside && /^[[:space:]#]*$/ { exit } inside' "$1" |
		grep -oE '__(atomic|sync)_[a-z0-9_]+' | sort -u | tr '\n' ' '
}
listed=$(helpers_in "$root/docs/building.md")
(
	echo "docs/building.md lists: $listed"
	[ -n "$listed" ] || { echo "no helper after docs/building.md's atomic-helpers marker"; exit 1; }
	status=0
	# Each board calls only listed helpers, and the two together call every one.
	every=""
	for board in versatilepb rp2040 lm3s6965; do
		make --no-print-directory -s -C "$root" BOARD=$board BUILD="$build" lib || exit 1
		called=$(arm-none-eabi-nm -u "$build/$board/libpl011.a" | awk '{ print $2 }' |
			grep -E '^__(atomic|sync)_' | sort -u | tr '\n' ' ')
		defined=$(arm-none-eabi-nm -g --defined-only "$build/$board/libpl011.a" |
			awk 'NF == 3 { print $3 }' | grep -E '^__(atomic|sync)_' | sort -u | tr '\n' ' ')
		echo "libpl011.a for $board calls: $called; defines: $defined"
		if [ "$board" = lm3s6965 ]; then
			[ -z "$called$defined" ] || { echo "  a core with LDREX/STREX needs no helper"; status=1; }
			continue
		fi
		for helper in $called; do
			case " $listed " in
			*" $helper "*) ;;
			*) echo "  $helper is not in docs/building.md's list"; status=1 ;;
			esac
			case " $defined " in
			*" $helper "*) ;;
			*) echo "  $helper is called but not defined in libpl011.a"; status=1 ;;
			esac
		done
		every="$every $called"
	done
	# shellcheck disable=SC2086 # one word per helper
	every=$(printf '%s\n' $every | sort -u | tr '\n' ' ')
	[ "$every" = "$listed" ] || { echo "  together they call $every, not what docs/building.md lists"; status=1; }
	for file in docs/porting.md CMakeLists.txt; do
		named=$(helpers_in "$root/$file")
		echo "$file lists: $named"
		[ "$named" = "$listed" ] || { echo "  not what docs/building.md lists"; status=1; }
	done
	exit $status
) >"$log" 2>&1
verdict "libpl011.a defines the atomic helpers it calls on ARMv5 and ARMv6-M, and none elsewhere" $?

# Every function of the library, kept from --gc-sections by --whole-archive, links with
# libpl011.a and -lgcc alone on the ARMv5 and ARMv6-M cores, the two without exclusives:
# whatever a firmware calls, nothing else is needed.
(
	make --no-print-directory -s -C "$root" BOARD=versatilepb BUILD="$build" lib &&
		arm-none-eabi-gcc -mcpu=arm926ej-s -marm -mfloat-abi=soft --specs=nano.specs \
			-nostartfiles -T "$root/tests/consumers/firmware/firmware.ld" \
			"$root/tests/consumers/firmware/start.S" "$root/tests/consumers/firmware/main.c" \
			-I "$root/include" -Wl,--whole-archive "$build/versatilepb/libpl011.a" \
			-Wl,--no-whole-archive -lgcc -o "$out/whole-library.elf" &&
		# The Cortex-M0+ (ARMv6-M, the RP2040) too: every symbol resolved, nothing run.
		make --no-print-directory -s -C "$root" BOARD=rp2040 BUILD="$build" lib &&
		arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb -mfloat-abi=soft --specs=nano.specs \
			-nostartfiles -Wl,--entry=0 -Wl,--whole-archive "$build/rp2040/libpl011.a" \
			-Wl,--no-whole-archive -lgcc -o "$out/whole-library-m0plus.elf"
) >"$log" 2>&1
verdict "the whole library links on the ARM926 and the Cortex-M0+ with libpl011.a and -lgcc alone" $?

# The README's `make lib BOARD=rp2040 OPT=-Os`: the library at -Os, smaller than the default -O2
# build of the step above (OPT ignored would build the same code twice).
(
	make --no-print-directory -s -C "$root" BOARD=rp2040 BUILD="$build/os" OPT=-Os lib &&
		o2=$(arm-none-eabi-size -t "$build/rp2040/libpl011.a" | awk 'END { print $1 }') &&
		os=$(arm-none-eabi-size -t "$build/os/rp2040/libpl011.a" | awk 'END { print $1 }') &&
		echo "libpl011.a text: $o2 B at -O2, $os B at -Os" && [ "$os" -lt "$o2" ]
) >"$log" 2>&1
verdict "make lib OPT=-Os builds the library smaller than the default -O2" $?

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
			OUT="$out/make" LIBRARY="$build/versatilepb/libpl011.a" \
			"$out/make/library.elf" &&
		run_firmware "$out/make/library.elf"
} >"$log" 2>&1
verdict "plain make, libpl011.a from make lib" $?

# The polled-only build (docs/building.md, "Polled only"): `make lib PL011_INTERRUPTS=0`, the
# firmware built with the same option, runs; built without it, it must not link.
{
	make --no-print-directory -C "$root" BOARD=versatilepb BUILD="$build/polled-only" \
		PL011_INTERRUPTS=0 lib &&
		make --no-print-directory -f "$root/tests/consumers/make/Makefile" PL011="$root" \
			OUT="$out/make" LIBRARY="$build/polled-only/versatilepb/libpl011.a" \
			OPTIONS=-DPL011_INTERRUPTS=0 "$out/make/library.elf" &&
		run_firmware "$out/make/library.elf" &&
		rm "$out/make/library.elf" &&
		if make --no-print-directory -f "$root/tests/consumers/make/Makefile" PL011="$root" \
			OUT="$out/make" LIBRARY="$build/polled-only/versatilepb/libpl011.a" \
			"$out/make/library.elf" >"$log.mixed" 2>&1; then
			echo "a firmware built without PL011_INTERRUPTS=0 linked with the polled-only library"
			false
		else
			grep -q "undefined reference to .pl011_init_named_parts'" "$log.mixed" ||
				{ cat "$log.mixed"; echo "the mixed link failed, but not for the start's name"; false; }
		fi
} >"$log" 2>&1
verdict "plain make, libpl011.a from make lib PL011_INTERRUPTS=0 (and a mismatch fails to link)" $?

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

# CMake with -DPL011_INTERRUPTS=0: the option reaches the firmware too (PUBLIC), so it links.
{
	cmake -S "$root/tests/consumers/cmake" -B "$out/cmake-polled-only" \
		-DCMAKE_TOOLCHAIN_FILE="$root/cmake/arm-none-eabi.cmake" \
		-DARM_CPU_FLAGS="-mcpu=arm926ej-s -marm -mfloat-abi=soft" \
		-DPL011_SOURCE_DIR="$root" -DPL011_BY=subdirectory -DPL011_INTERRUPTS=0 &&
		cmake --build "$out/cmake-polled-only" &&
		arm-none-eabi-nm "$out/cmake-polled-only/firmware.elf" |
		grep -q " pl011_init_named_parts_polled_only$" &&
		run_firmware "$out/cmake-polled-only/firmware.elf"
} >"$log" 2>&1
verdict "cmake -DPL011_INTERRUPTS=0 (the polled-only build)" $?

# The README's interrupt-driven example, as written, with docs/interrupts.md's hook-up for
# each controller, as written: only the start-up, the vector table and the linker script are
# this test's own (tests/consumers/irq/). Each links `make lib`'s libpl011.a for the board and
# runs on its QEMU machine: it must say hello, echo the line this script types once it did,
# switch to 9,600 baud, see TX done, and exit 0 by semihosting.
irq=$root/tests/consumers/irq
mkdir -p "$out/irq"
# The README's first ```c block, and each docs/interrupts.md block after a
# `<!-- consumer-test: KIND -->` line, behind what that page says a hook-up file starts with.
awk '/^```c$/ { inside = 1; next } inside && /^```/ { exit } inside' "$root/README.md" \
	>"$out/irq/example.c"
for kind in vic gic nvic bcm; do
	{
		printf '#include <stdint.h>\n#include "pl011.h"\nextern struct pl011 uart;\n'
		awk -v marker="<!-- consumer-test: $kind -->" '
			$0 == marker { wanted = 1; next }
			wanted && /^```c$/ { inside = 1; next }
			inside && /^```/ { inside = 0; wanted = 0; next }
			inside' "$root/docs/interrupts.md"
	} >"$out/irq/hookup-$kind.c"
done

# run_typing ELF QEMU...: run the firmware, type "ping" and a return once it says hello.
run_typing() {
	elf=$1
	shift
	rm -f "$out/irq/input"
	mkfifo "$out/irq/input"
	# A hang guard only: the firmware is done in well under a second of CPU time.
	timeout 300 "$@" -nographic -kernel "$elf" <"$out/irq/input" >"$log.uart" 2>&1 &
	pid=$!
	exec 3>"$out/irq/input"
	waited=0
	until grep -qF "hello: type a line" "$log.uart"; do
		kill -0 "$pid" 2>/dev/null || break
		waited=$((waited + 1))
		[ "$waited" -lt 3000 ] || break
		sleep 0.1
	done
	printf 'ping\r' >&3
	wait "$pid"
	status=$?
	exec 3>&-
	cat "$log.uart" >>"$log"
	for said in "hello: type a line" "got: ping" "now at 9600 baud" "tx done"; do
		grep -qF "$said" "$log.uart" || { echo "the UART did not say '$said'" >>"$log"; return 1; }
	done
	[ "$status" -eq 0 ] || { echo "QEMU exit status $status, not 0" >>"$log"; return 1; }
}

warnings="-std=c11 -O2 -Wall -Wextra -Werror -ffunction-sections -fdata-sections"
# irq_consumer KIND BOARD CC CPU_FLAGS LINK_FLAGS EXTRA_SOURCES: build and run one.
irq_consumer() {
	kind=$1 board=$2 cc=$3 cpu=$4 link=$5 extra=$6
	{
		make --no-print-directory -s -C "$root" BOARD="$board" BUILD="$build" lib || return 1
		# shellcheck disable=SC2086 # flag lists
		$cc $cpu $warnings -I "$root/include" -Wl,--gc-sections $link \
			"$out/irq/example.c" "$out/irq/hookup-$kind.c" $extra \
			"$build/$board/libpl011.a" -lgcc -o "$out/irq/$kind.elf" || return 1
		qemu=$(make -s --no-print-directory -C "$root" BOARD="$board" print-qemu) || return 1
		# shellcheck disable=SC2086 # the QEMU command line from make
		run_typing "$out/irq/$kind.elf" $qemu
	} >"$log" 2>&1
}

irq_consumer vic versatilepb arm-none-eabi-gcc "-mcpu=arm926ej-s -marm -mfloat-abi=soft" \
	"--specs=nano.specs -nostartfiles -T $irq/vic.ld" "$irq/vic_start.S $root/tests/consumers/firmware/start.S"
verdict "interrupt-driven, README example + VIC hook-up, versatilepb" $?

irq_consumer gic virt64 aarch64-linux-gnu-gcc \
	"-mcpu=cortex-a53 -mgeneral-regs-only -mstrict-align -mno-outline-atomics -ffreestanding -fno-builtin -fno-tree-loop-distribute-patterns -DUART_BASE=0x09000000u -DUART_CLOCK_HZ=24000000u" \
	"-nostdlib -static -T $irq/gic.ld" "$irq/gic_start.S $irq/gic_libc.c"
verdict "interrupt-driven, README example + GIC hook-up, virt64 (AArch64)" $?

irq_consumer nvic lm3s6965 arm-none-eabi-gcc \
	"-mcpu=cortex-m3 -mthumb -mfloat-abi=soft -DUART_BASE=0x4000C000u -DUART_CLOCK_HZ=12000000u -DCPU_HZ=12000000u" \
	"--specs=nano.specs -nostartfiles -T $irq/nvic.ld" "$irq/nvic_start.c"
verdict "interrupt-driven, README example + NVIC hook-up, lm3s6965evb" $?

# The BCM2835 blocks have no QEMU run here (the raspi machines are not among the three): they
# compile and link with the README's example for the ARM1176 (rpi1), nothing run.
# shellcheck disable=SC2086 # the flag list
{
	make --no-print-directory -s -C "$root" BOARD=rpi1 BUILD="$build" lib &&
		arm-none-eabi-gcc -mcpu=arm1176jzf-s -marm -mfloat-abi=soft $warnings -I "$root/include" \
			--specs=nano.specs -nostartfiles -Wl,--entry=main -Wl,--gc-sections \
			"$out/irq/example.c" "$out/irq/hookup-bcm.c" "$build/rpi1/libpl011.a" -lgcc \
			-o "$out/irq/bcm.elf"
} >"$log" 2>&1
verdict "interrupt-driven, README example + BCM2835 hook-up, rpi1: compiles and links" $?

rm -f "$log.uart"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
