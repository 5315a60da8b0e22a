#!/bin/sh
# Check tools/install-deps.sh without installing anything: fake apt-get, dpkg-query and id.
#
# Usage: sh tests/tools/check_install_deps.sh   (make installer-check, part of make test)
# Cases: nothing missing runs no apt-get; a probe that fails (a missing fuzzer, ASan or Thumb
# runtime, qemu-i386, a QEMU machine) installs its packages, and one still failing after that
# is an error naming the package and the probe; a missing package as root runs update and install;
# another apt-get holding the lock is waited for, and for no longer than PL011_APT_WAIT; an
# update that fails otherwise (a mirror mid-sync) still lets the install try; a
# non-root user gets the command instead; a CROSS_COMPILE with a path that does not exist is
# refused; the compiler's own newlib is found by asking it; an i386 package first adds the
# i386 architecture to dpkg.
# Ends with 'N passed, N failed'; exits 1 if any case failed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
passed=0
failed=0

# The fakes: apt-get logs its calls and reports the lock held for its first $LOCKED calls, and
# an index it could not fetch on update if $FAIL_UPDATE is set;
# dpkg-query knows no package; dpkg has no foreign architecture and logs what it is asked to
# add; id says $FAKE_UID. apt-get install with $FAKE_INSTALL_FIXES set marks the machine fixed.
# Wrappers of gcc, clang and qemu-i386 fail as a missing runtime would, until the machine is
# fixed, when called with an argument matching $FAKE_BREAK_ARGS (gcc, clang) or when named in
# $FAKE_BREAK_COMMANDS; otherwise they run the real tool.
cat >"$fake/apt-get" <<'FAKE'
#!/bin/sh
echo "apt-get $*" >>"$FAKE_LOG"
calls=$(grep -c . "$FAKE_LOG")
if [ "$calls" -le "${LOCKED:-0}" ]; then
	echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
	exit 100
fi
if [ "$1" = update ] && [ -n "${FAIL_UPDATE:-}" ]; then
	echo "E: Some index files failed to download. They have been ignored, or old ones used instead." >&2
	exit 100
fi
if [ "$1" = install ]; then
	echo "0 upgraded, 3 newly installed, 0 to remove and 0 not upgraded."
	echo "Need to get 12.3 MB of archives."
	[ -z "${FAKE_INSTALL_FIXES:-}" ] || : >"$FAKE_LOG.fixed"
fi
FAKE
for tool in gcc clang qemu-i386; do
	real=$(command -v "$tool") || continue
	cat >"$fake/$tool" <<FAKE
#!/bin/sh
if [ ! -e "\$FAKE_LOG.fixed" ]; then
	case " \${FAKE_BREAK_COMMANDS:-} " in
	*" $tool "*) echo "fake $tool: broken" >&2; exit 1 ;;
	esac
	for arg; do
		case "\$arg" in
		\${FAKE_BREAK_ARGS:-//none//}) echo "fake $tool: cannot find the runtime for \$arg" >&2; exit 1 ;;
		esac
	done
fi
exec "$real" "\$@"
FAKE
	chmod +x "$fake/$tool"
done
printf '#!/bin/sh\nexit 1\n' >"$fake/dpkg-query"
cat >"$fake/dpkg" <<'FAKE'
#!/bin/sh
[ "$1" = --print-foreign-architectures ] || echo "dpkg $*" >>"$FAKE_LOG"
FAKE
# shellcheck disable=SC2016 # expanded by the fake, not here
printf '#!/bin/sh\necho "${FAKE_UID:-0}"\n' >"$fake/id"
chmod +x "$fake/apt-get" "$fake/dpkg-query" "$fake/dpkg" "$fake/id"

# case LABEL EXPECTED-STATUS EXPECTED-APT-CALLS OUTPUT-PATTERN ENV... -- NEEDS...
case_() {
	label=$1 want_status=$2 want_calls=$3 pattern=$4
	shift 4
	: >"$fake/log"
	rm -f "$fake/log.fixed"
	env_vars=""
	while [ "$1" != -- ]; do
		env_vars="$env_vars $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # one word per variable
	output=$(env FAKE_LOG="$fake/log" PL011_APT_POLL=1 $env_vars PATH="$fake:$PATH" \
		sh "$root/tools/install-deps.sh" "$@" 2>&1)
	status=$?
	calls=$(grep -c . "$fake/log")
	problem=""
	[ "$status" -eq "$want_status" ] || problem="exit status $status, expected $want_status"
	[ "$calls" -eq "$want_calls" ] || problem="$problem; $calls apt-get calls, expected $want_calls"
	printf '%s\n' "$output" | grep -qE "$pattern" || problem="$problem; output lacks /$pattern/"
	if [ -z "$problem" ]; then
		passed=$((passed + 1))
		echo "ok   $label"
	else
		failed=$((failed + 1))
		echo "FAIL $label: $problem"
		printf '%s\n' "$output" "--- apt-get calls:" | sed 's/^/     /'
		sed 's/^/     /' "$fake/log"
	fi
}

case_ "nothing missing: no apt-get" 0 0 "^$" -- cc=arm-none-eabi- libc=arm-none-eabi-
case_ "missing package as root: update, then install" 0 2 "installing pkg-that-is-missing \(1 packages" \
	-- pkg=pkg-that-is-missing
case_ "installing shows apt's download size" 0 2 "apt: Need to get 12.3 MB of archives" \
	-- pkg=pkg-that-is-missing
case_ "lock held twice: waits, then installs" 0 4 "holds the lock; waiting up to 30 s" \
	LOCKED=2 PL011_APT_WAIT=30 -- pkg=pkg-that-is-missing
case_ "lock held for ever: gives up after PL011_APT_WAIT" 1 4 "still held after 3 s" \
	LOCKED=100 PL011_APT_WAIT=3 -- pkg=pkg-that-is-missing
case_ "update fails on one index: the install still runs" 0 2 "installing from the lists it fetched" \
	FAIL_UPDATE=1 -- pkg=pkg-that-is-missing
case_ "not root: prints the command, installs nothing" 1 0 \
	"apt-get install -y --no-install-recommends pkg-that-is-missing" FAKE_UID=1000 -- \
	pkg=pkg-that-is-missing
case_ "CROSS_COMPILE path without a compiler: refused" 1 0 "/nowhere/arm-none-eabi-gcc .*not found" \
	-- cc=/nowhere/arm-none-eabi-
case_ "CROSS_COMPILE path to the compiler: its newlib found by asking it" 0 0 "^$" \
	-- "cc=$(dirname "$(command -v arm-none-eabi-gcc)")/arm-none-eabi-" \
	"libc=$(dirname "$(command -v arm-none-eabi-gcc)")/arm-none-eabi-"
case_ "unknown Debian compiler: its gcc package, still unmet after it" 1 2 \
	"unmet: nonexistent-elf-gcc compiles C; it needs gcc-nonexistent-elf" -- cc=nonexistent-elf-
case_ "32-bit host tests: i386 added, then update and install" 0 3 \
	"installing gcc-[0-9]+-multilib libcmocka-dev:i386 qemu-user \(3 packages" \
	FAKE_BREAK_ARGS=-m32 FAKE_INSTALL_FIXES=1 -- host32
if ! grep -qx "dpkg --add-architecture i386" "$fake/log" ||
	[ "$(head -n 1 "$fake/log")" != "dpkg --add-architecture i386" ]; then
	failed=$((failed + 1))
	echo "FAIL 32-bit host tests: dpkg --add-architecture i386 is not the first call"
	sed 's/^/     /' "$fake/log"
fi
case_ "32-bit host tests, not root: the command adds i386 first" 1 0 \
	"dpkg --add-architecture i386 && apt-get update" FAKE_UID=1000 FAKE_BREAK_ARGS=-m32 -- host32
case_ "everything works: no apt-get, whatever dpkg says" 0 0 "^$" -- host host32 analyze fuzz
# The capability probes: a tool that exists but cannot do what it is for.
case_ "fuzzer runtime missing: libclang-rt installed, then found" 0 2 \
	"installing clang libclang-rt-[0-9]+-dev \(2 packages" \
	"FAKE_BREAK_ARGS=-fsanitize=fuzzer*" FAKE_INSTALL_FIXES=1 -- fuzz
case_ "fuzzer runtime still missing after installing: names package and probe" 1 2 \
	"unmet: clang links and runs a libFuzzer target.*; it needs clang libclang-rt-[0-9]+-dev \(probe: fuzzer_runs clang" \
	"FAKE_BREAK_ARGS=-fsanitize=fuzzer*" -- fuzz
case_ "fuzzer runtime missing, not root: the command names it and the probe" 1 0 \
	"failed: clang links and runs a libFuzzer target" "FAKE_BREAK_ARGS=-fsanitize=fuzzer*" \
	FAKE_UID=1000 -- fuzz
case_ "gcc's ASan runtime missing: names libgcc-N-dev" 1 2 \
	"unmet: gcc links and runs an ASan\+UBSan program; it needs libgcc-[0-9]+-dev" \
	"FAKE_BREAK_ARGS=-fsanitize=address*" -- host
case_ "qemu-i386 missing: names qemu-user" 1 3 \
	"unmet: qemu-i386 runs a 32-bit cmocka test; it needs qemu-user" \
	FAKE_BREAK_COMMANDS=qemu-i386 -- host32
case_ "a Thumb multilib that does not link: names newlib" 1 2 \
	"unmet: arm-none-eabi-gcc links memcpy .*-mcpu=cortex-m0plus.*; it needs gcc-arm-none-eabi libnewlib-arm-none-eabi" \
	-- libc=arm-none-eabi-:-mcpu=cortex-m0plus:-mthumb:-mfloat-abi=hard:--specs=nano.specs
case_ "picolibc's specs missing: names picolibc" 1 2 \
	"it needs gcc-aarch64-linux-gnu picolibc-aarch64-linux-gnu" \
	-- libc=aarch64-linux-gnu-:-mcpu=cortex-a53:--specs=/nowhere/picolibc.specs
case_ "QEMU without a machine the tests use: names the machine" 1 2 \
	"qemu-system-arm has no machine 'no-such-machine'" -- qemu=qemu-system-arm:versatilepb:no-such-machine

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
