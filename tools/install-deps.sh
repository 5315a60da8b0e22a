#!/bin/sh
# Install from Debian's packages what a make goal needs, and prove each need works.
#
# Usage: sh tools/install-deps.sh [NEED...]   (make passes the needs of its goals; see mk/check.mk)
#   host        make, python3, gcc linking C, an ASan+UBSan program, a TSan program and a cmocka
#               test (gcc, libc6-dev, libgcc-N-dev, libcmocka-dev)
#   host32      gcc -m32 linking a cmocka test (gcc-N-multilib, the i386 libcmocka-dev, adding
#               Debian's i386 architecture) that qemu-i386 (qemu-user) runs
#   analyze     cppcheck, clang and clang-tidy, each run on a freestanding C file
#   fuzz        clang linking and running a libFuzzer target (clang, libclang-rt-N-dev)
#   gdb         gdb-multiarch knowing ARM          openocd   openocd     cmake   cmake
#   plot        gnuplot-nox, for make bench's pictures: wanted, not required, so a user who
#               is not root gets a note instead of a failure (the tables need no gnuplot)
#   cc=PREFIX   the compiler PREFIXgcc (CROSS_COMPILE) compiling C, e.g. cc=arm-none-eabi-
#   libc=PREFIX:FLAG:...  that compiler linking memcpy from its C library with a board's CPU and
#               link flags (--specs=nano.specs: newlib nano, --specs=.../picolibc.specs: picolibc)
#   qemu=NAME:MACHINE:...  the QEMU binary NAME, listing each MACHINE
#   pkg=NAME    the Debian package NAME, installed
# Without arguments: everything the default board needs.
#
# A need is met when its probe (above) succeeds, not when a command of that name exists: clang
# without libclang-rt-N-dev compiles but cannot link a fuzzer. Each failed probe names the
# packages that provide what it tests; as root those not installed are installed with apt-get
# (waiting up to PL011_APT_WAIT seconds, default 600, retrying every PL011_APT_POLL, default 5,
# while another apt-get or dpkg holds the lock: unattended upgrades on a fresh machine), then
# every failed probe runs again, and one that still fails is an error naming its package and
# its probe. Not root, it prints the exact apt-get command and fails.
set -eu

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed_probes=$work/failed
: >"$failed_probes"
missing=""
add() { # add PACKAGE: once
	case " $missing " in
	*" $1 "*) ;;
	*) missing="$missing $1" ;;
	esac
}
installed() { # installed PACKAGE: dpkg lists it as installed
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"
}
need_package() { # need_package PACKAGE
	installed "$1" || add "$1"
}
not_debian() { # not_debian WHAT: a tool given by path is the user's to install
	echo "pl011: $1 not found; it is not from Debian's packages, so install it yourself" >&2
	exit 1
}
# probe "PACKAGES" "WHAT" COMMAND [ARG...]: run COMMAND (its output in $work/probe.log); if it
# fails, keep it to run again after installing, and add those of PACKAGES not installed. The
# arguments are words without spaces (flags, paths of this machine's tools).
probe() {
	packages=$1 what=$2
	shift 2
	"$@" >"$work/probe.log" 2>&1 && return 0
	printf '%s\t%s\t%s\n' "$packages" "$what" "$*" >>"$failed_probes"
	for package in $packages; do need_package "$package"; done
}

# The probes' programs.
cat >"$work/main.c" <<'EOF'
int main(void) { return 0; }
EOF
cat >"$work/cmocka.c" <<'EOF'
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
static void test_probe(void **state) { (void)state; assert_int_equal(2, 1 + 1); }
int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_probe) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
EOF
cat >"$work/fuzz.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return size > 0 && data[0] == 1; }
EOF
# A volatile length keeps memcpy a call: the C library's, from the multilib the flags select.
cat >"$work/freestanding.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
void *memcpy(void *to, const void *from, size_t size);
void _start(void);
static volatile size_t size = 4;
static char to[4];
static const char from[4] = "abc";
void _start(void) { memcpy(to, from, size); for (;;) { } }
EOF

links() { # links CC FLAGS... SOURCE: compile and link the last argument to $work/a.out
	"$@" -o "$work/a.out"
}
links_and_runs() { # links_and_runs CC FLAGS... SOURCE: and runs it
	links "$@" && "$work/a.out"
}
links_and_runs_i386() { # links_and_runs_i386 CC FLAGS... SOURCE: and qemu-i386 runs it
	links "$@" && qemu-i386 -L / "$work/a.out"
}
fuzzer_runs() { # fuzzer_runs CC FLAGS... SOURCE: a libFuzzer binary that runs one input
	links "$@" && "$work/a.out" -runs=1
}
gdb_knows_arm() {
	gdb-multiarch -batch -nx -ex "set architecture arm"
}
qemu_lists() { # qemu_lists QEMU MACHINE...: -machine help names every MACHINE
	qemu=$1
	shift
	"$qemu" -machine help >"$work/machines" || return 1
	for machine; do
		awk -v m="$machine" '$1 == m { found = 1 } END { exit !found }' "$work/machines" || {
			echo "$qemu has no machine '$machine'"
			return 1
		}
	done
}
tidy_runs() { # tidy_runs FILE: clang-tidy parses a freestanding file (needs clang's headers)
	clang-tidy --quiet "$1" -- -std=c11 -ffreestanding
}

# A cross compiler by its prefix: arm-none-eabi- is Debian's gcc-arm-none-eabi.
need_compiler() {
	case "$1" in
	*/*) command -v "${1}gcc" >/dev/null 2>&1 || not_debian "${1}gcc (CROSS_COMPILE=$1)" ;;
	esac
	probe "gcc-${1%-}" "${1}gcc compiles C" \
		"${1}gcc" -std=c11 -ffreestanding -c "$work/freestanding.c" -o "$work/freestanding.o"
}
# The C library a board links, where its compiler looks for it (a toolchain of its own brings its
# own): Debian's libnewlib-<triple> for nano.specs, picolibc-<triple> for picolibc.specs.
need_libc() {
	prefix=${1%%:*}
	flags=""
	case "$1" in *:*) flags=$(printf '%s' "${1#*:}" | tr ':' ' ') ;; esac
	case "$flags" in
	*picolibc.specs*) package="picolibc-${prefix%-}" ;;
	*) package="libnewlib-${prefix%-}" ;;
	esac
	# shellcheck disable=SC2086 # one word per flag
	set -- links "${prefix}gcc" $flags -ffreestanding -nostartfiles -static "$work/freestanding.c"
	case "$prefix" in
	*/*) "$@" >"$work/probe.log" 2>&1 ||
		not_debian "the C library of ${prefix}gcc (CROSS_COMPILE=$prefix) for $flags" ;;
	*) probe "gcc-${prefix%-} $package" "${prefix}gcc links memcpy from its C library with $flags" "$@" ;;
	esac
}
# Debian ships qemu-system-aarch64 in qemu-system-arm; others are qemu-system-<arch>.
need_qemu() {
	binary=${1%%:*}
	machines=""
	case "$1" in *:*) machines=$(printf '%s' "${1#*:}" | tr ':' ' ') ;; esac
	# shellcheck disable=SC2100 # a package name, not arithmetic
	case "$binary" in
	qemu-system-aarch64) package=qemu-system-arm ;;
	*) package=$binary ;;
	esac
	# shellcheck disable=SC2086 # one word per machine
	probe "$package" "$binary lists the machines $machines" qemu_lists "$binary" $machines
}

[ $# -gt 0 ] || set -- host analyze fuzz gdb openocd cmake cc=arm-none-eabi- \
	libc=arm-none-eabi-:-mcpu=arm926ej-s:-marm:-mfloat-abi=soft:--specs=nano.specs \
	qemu=qemu-system-arm:versatilepb
for need in "$@"; do
	case "$need" in
	host)
		# gcc's sanitizer runtimes come with libgcc-<major>-dev; 12, Debian 12's, when gcc
		# comes in this run.
		major=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
		probe make "make runs" make --version
		probe python3 "python3 runs" python3 -V
		probe "gcc libc6-dev" "gcc links C" links_and_runs gcc "$work/main.c"
		probe "libgcc-${major:-12}-dev" "gcc links and runs an ASan+UBSan program" \
			links_and_runs gcc -fsanitize=address,undefined "$work/main.c"
		probe "libgcc-${major:-12}-dev" "gcc links a TSan program" \
			links gcc -fsanitize=thread "$work/main.c"
		probe libcmocka-dev "gcc links and runs a cmocka test" \
			links_and_runs gcc "$work/cmocka.c" -lcmocka
		;;
	analyze)
		probe cppcheck "cppcheck checks C" cppcheck -q --error-exitcode=1 "$work/freestanding.c"
		probe clang "clang compiles C" \
			clang -std=c11 -ffreestanding -c "$work/freestanding.c" -o "$work/freestanding.o"
		probe clang-tidy "clang-tidy parses freestanding C" tidy_runs "$work/freestanding.c"
		;;
	host32)
		# gcc-<major>-multilib, not the gcc-multilib metapackage: that one conflicts with
		# every Debian cross gcc (gcc-12-aarch64-linux-gnu...), and installing it removes
		# the AArch64 boards' compiler.
		major=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
		probe "gcc-${major:-12}-multilib" "gcc -m32 links a UBSan program" \
			links gcc -m32 -fsanitize=undefined "$work/main.c"
		probe "gcc-${major:-12}-multilib libcmocka-dev:i386" "gcc -m32 links a cmocka test" \
			links gcc -m32 "$work/cmocka.c" -lcmocka
		probe "qemu-user gcc-${major:-12}-multilib libcmocka-dev:i386" \
			"qemu-i386 runs a 32-bit cmocka test" \
			links_and_runs_i386 gcc -m32 "$work/cmocka.c" -lcmocka
		;;
	fuzz)
		# libFuzzer's and ASan's runtimes are in libclang-rt-<major>-dev, which Debian's clang
		# only recommends; 14, Debian 12's, when clang comes in this run.
		major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
		probe "clang libclang-rt-${major:-14}-dev" \
			"clang links and runs a libFuzzer target with -fsanitize=fuzzer,address,undefined" \
			fuzzer_runs clang -fsanitize=fuzzer,address,undefined "$work/fuzz.c"
		;;
	gdb) probe gdb-multiarch "gdb-multiarch knows ARM" gdb_knows_arm ;;
	openocd) probe openocd "openocd runs" openocd --version ;;
	cmake) probe cmake "cmake runs" cmake --version ;;
	plot)
		if [ "$(id -u)" = 0 ]; then
			probe gnuplot-nox "gnuplot runs" gnuplot -V
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

# still_unmet: run every failed probe again; report each that still fails with its package and
# its output, and fail if any did.
still_unmet() {
	unmet=0
	tab=$(printf '\t')
	while IFS=$tab read -r packages what command; do
		set -f
		# shellcheck disable=SC2086 # the probe's words, as probe() was given them
		set -- $command
		set +f
		"$@" >"$work/probe.log" 2>&1 && continue
		unmet=1
		echo "pl011: unmet: $what; it needs $packages (probe: $command)" >&2
		tail -n 5 "$work/probe.log" | sed 's/^/pl011:     /' >&2
	done <"$failed_probes"
	return "$unmet"
}

if [ -z "$missing" ]; then
	[ -s "$failed_probes" ] || exit 0
	# Every package a failed probe names is installed: installing again would change nothing.
	still_unmet || exit 1
	exit 0
fi

# A package of another architecture (libcmocka-dev:i386) is known to apt only once dpkg has
# that architecture: added before the update that fetches its package lists.
foreign=""
for package in $missing; do
	case "$package" in
	*:*) dpkg --print-foreign-architectures 2>/dev/null | grep -qx "${package#*:}" ||
		foreign="$foreign ${package#*:}" ;;
	esac
done
add_architectures=""
for architecture in $(printf '%s\n' $foreign | sort -u); do
	add_architectures="${add_architectures}dpkg --add-architecture $architecture && "
done

if [ "$(id -u)" != 0 ]; then
	echo "pl011: missing packages:$missing" >&2
	cut -f2 "$failed_probes" | sed 's/^/pl011:   failed: /' >&2
	echo "pl011: run as root:  ${add_architectures}apt-get update && apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi

wait_limit=${PL011_APT_WAIT:-600}
poll=${PL011_APT_POLL:-5}
log=$work/apt.log

# apt_get ARGS...: apt-get, retried every $poll s while another apt-get or dpkg holds its lock;
# 2 if the lock was still held after $wait_limit s, 1 on any other failure. Shows apt's summary
# (package count, download size, disk space) as it comes: a first install takes minutes.
apt_get() {
	waited=0
	while :; do
		# awk flushes each line: grep and sed would hold them in a pipe's buffer until the end.
		{ apt-get "$@" 2>&1; echo "$?" >"$log.status"; } | tee "$log" |
			awk '/^[0-9]+ upgraded, [0-9]+ newly installed|^Need to get|^After this operation/ {
				print "pl011:   apt: " $0; fflush() }' || :
		[ "$(cat "$log.status")" -ne 0 ] || return 0
		if ! grep -qE "Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock" "$log"; then
			cat "$log" >&2
			return 1
		fi
		if [ "$waited" -ge "$wait_limit" ]; then
			cat "$log" >&2
			echo "pl011: the apt/dpkg lock was still held after ${waited} s" >&2
			return 2
		fi
		[ "$waited" -gt 0 ] || echo "pl011: another apt-get or dpkg holds the lock; waiting up to ${wait_limit} s" >&2
		sleep "$poll"
		waited=$((waited + poll))
	done
}

# shellcheck disable=SC2086 # one word per package
count=$(printf '%s\n' $missing | grep -c .)
echo "pl011: installing$missing ($count packages and what they depend on)"
cut -f2 "$failed_probes" | sed 's/^/pl011:   for: /'
started=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
for architecture in $(printf '%s\n' $foreign | sort -u); do
	dpkg --add-architecture "$architecture"
done
# A mirror caught mid-sync fails one index (seen: bookworm-security's i386 list with the wrong
# size) and apt-get update exits non-zero; the lists it did fetch may still hold every package.
status=0
apt_get update -q || status=$?
[ "$status" -ne 2 ] || exit 1
[ "$status" -eq 0 ] || echo "pl011: apt-get update reported errors (above); installing from the lists it fetched" >&2
# shellcheck disable=SC2086 # one word per package
apt_get install -y --no-install-recommends $missing
echo "pl011: installed in $(($(date +%s) - started)) s; checking again"
still_unmet
