#!/bin/sh
# Install from Debian's packages what a make goal needs, if anything is missing.
#
# Usage: sh tools/install-deps.sh [NEED...]   (make passes the needs of its goals; see mk/check.mk)
#   host        make, gcc, python3, cmocka     analyze   cppcheck, clang, clang-tidy
#   fuzz        clang (libFuzzer)              gdb       gdb-multiarch
#   openocd     openocd                        cmake     cmake
#   plot        gnuplot-nox, for make bench's pictures: wanted, not required, so a user who
#               is not root gets a note instead of a failure (the tables need no gnuplot)
#   cc=PREFIX   the compiler PREFIXgcc (CROSS_COMPILE), e.g. cc=arm-none-eabi-
#   libc=PREFIX that compiler's newlib (libc_nano.a), asked of the compiler itself
#   qemu=NAME   the QEMU binary NAME           pkg=NAME  the Debian package NAME
# Without arguments: everything the default board needs.
# As root it runs apt-get, waiting up to PL011_APT_WAIT seconds (default 600, retrying every
# PL011_APT_POLL, default 5) while another apt-get or dpkg holds the lock (unattended upgrades
# on a fresh machine); otherwise it prints the exact command and fails.
set -eu

missing=""
add() { # add PACKAGE: once
	case " $missing " in
	*" $1 "*) ;;
	*) missing="$missing $1" ;;
	esac
}
need_command() { # need_command PACKAGE COMMAND
	command -v "$2" >/dev/null 2>&1 || add "$1"
}
need_package() { # need_package PACKAGE
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed" || add "$1"
}
not_debian() { # not_debian WHAT: a tool given by path is the user's to install
	echo "pl011: $1 not found; it is not from Debian's packages, so install it yourself" >&2
	exit 1
}
# A cross compiler by its prefix: arm-none-eabi- is Debian's gcc-arm-none-eabi.
need_compiler() {
	command -v "${1}gcc" >/dev/null 2>&1 && return 0
	case "$1" in
	*/*) not_debian "${1}gcc (CROSS_COMPILE=$1)" ;;
	esac
	add "gcc-${1%-}"
}
# Newlib where the compiler in use looks for it (a toolchain of its own brings its own); a
# Debian compiler that is not installed yet comes with Debian's libnewlib-<triple>.
need_libc() {
	if command -v "${1}gcc" >/dev/null 2>&1; then
		case $("${1}gcc" -print-file-name=libc_nano.a) in
		*/*) return 0 ;;
		esac
	fi
	case "$1" in
	*/*) not_debian "newlib for ${1}gcc (CROSS_COMPILE=$1)" ;;
	esac
	add "libnewlib-${1%-}"
}
# Debian ships qemu-system-aarch64 in qemu-system-arm; others are qemu-system-<arch>.
need_qemu() {
	case "$1" in
	qemu-system-aarch64) need_command qemu-system-arm "$1" ;;
	*) need_command "$1" "$1" ;;
	esac
}

[ $# -gt 0 ] || set -- host analyze fuzz gdb openocd cmake cc=arm-none-eabi- \
	libc=arm-none-eabi- qemu=qemu-system-arm
for need in "$@"; do
	case "$need" in
	host)
		need_command make make
		need_command gcc gcc
		need_command python3 python3
		[ -f /usr/include/cmocka.h ] || add libcmocka-dev
		;;
	analyze)
		need_command cppcheck cppcheck
		need_command clang clang
		need_command clang-tidy clang-tidy
		;;
	fuzz) need_command clang clang ;;
	gdb) need_command gdb-multiarch gdb-multiarch ;;
	openocd) need_command openocd openocd ;;
	cmake) need_command cmake cmake ;;
	plot)
		if [ "$(id -u)" = 0 ]; then
			need_command gnuplot-nox gnuplot
		elif ! command -v gnuplot >/dev/null 2>&1; then
			echo "pl011: gnuplot not found: make bench prints its tables without pictures;" \
				"as root: apt-get install -y --no-install-recommends gnuplot-nox" >&2
		fi
		;;
	cc=*) need_compiler "${need#cc=}" ;;
	libc=*) need_libc "${need#libc=}" ;;
	qemu=*) need_qemu "${need#qemu=}" ;;
	pkg=*) need_package "${need#pkg=}" ;;
	*)
		echo "pl011: install-deps.sh: unknown need '$need'" >&2
		exit 2
		;;
	esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "pl011: missing packages:$missing" >&2
	echo "pl011: run as root:  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi

wait_limit=${PL011_APT_WAIT:-600}
poll=${PL011_APT_POLL:-5}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# apt_get ARGS...: apt-get, retried every $poll s while another apt-get or dpkg holds its lock.
apt_get() {
	waited=0
	until apt-get "$@" >"$log" 2>&1; do
		if ! grep -qE "Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock" "$log"; then
			cat "$log" >&2
			return 1
		fi
		if [ "$waited" -ge "$wait_limit" ]; then
			cat "$log" >&2
			echo "pl011: the apt/dpkg lock was still held after ${waited} s" >&2
			return 1
		fi
		[ "$waited" -gt 0 ] || echo "pl011: another apt-get or dpkg holds the lock; waiting up to ${wait_limit} s" >&2
		sleep "$poll"
		waited=$((waited + poll))
	done
}

echo "pl011: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt_get update -q
# shellcheck disable=SC2086 # one word per package
apt_get install -y --no-install-recommends $missing
