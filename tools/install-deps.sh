#!/bin/sh
# Install what the build and the tests need from Debian's packages, if anything is missing.
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -eu

missing=""
need() { # need PACKAGE TEST...
	package=$1
	shift
	if ! "$@" >/dev/null 2>&1; then
		missing="$missing $package"
	fi
}

need make command -v make
need gcc command -v gcc
need gcc-arm-none-eabi command -v arm-none-eabi-gcc
need libnewlib-arm-none-eabi test -f /usr/lib/arm-none-eabi/lib/libc_nano.a
need gcc-aarch64-linux-gnu command -v aarch64-linux-gnu-gcc
need picolibc-aarch64-linux-gnu test -f /usr/lib/picolibc/aarch64-linux-gnu/picolibc.specs
need qemu-system-arm command -v qemu-system-arm
need qemu-system-arm command -v qemu-system-aarch64
need libcmocka-dev test -f /usr/include/cmocka.h
need openocd command -v openocd
need gdb-multiarch command -v gdb-multiarch
need python3 command -v python3
need cppcheck command -v cppcheck
need clang command -v clang
need clang-tidy command -v clang-tidy

[ -z "$missing" ] && exit 0

command="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "pl011: missing packages:$missing" >&2
	echo "pl011: run as root:  apt-get update && $command" >&2
	exit 1
fi
echo "pl011: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
$command >/dev/null
