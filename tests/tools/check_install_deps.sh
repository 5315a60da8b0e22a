#!/bin/sh
# Check tools/install-deps.sh without installing anything: fake apt-get, dpkg-query and id.
#
# Usage: sh tests/tools/check_install_deps.sh   (make installer-check, part of make test)
# Cases: nothing missing runs no apt-get; a missing package as root runs update and install;
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
# add; id says $FAKE_UID.
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
FAKE
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
case_ "missing package as root: update, then install" 0 2 "installing pkg-that-is-missing" \
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
case_ "unknown Debian compiler: its gcc package" 0 2 "installing gcc-nonexistent-elf" \
	-- cc=nonexistent-elf-
case_ "32-bit host tests: i386 added, then update and install" 0 3 \
	"installing gcc-[0-9]+-multilib libcmocka-dev:i386" -- host32
if ! grep -qx "dpkg --add-architecture i386" "$fake/log" ||
	[ "$(head -n 1 "$fake/log")" != "dpkg --add-architecture i386" ]; then
	failed=$((failed + 1))
	echo "FAIL 32-bit host tests: dpkg --add-architecture i386 is not the first call"
	sed 's/^/     /' "$fake/log"
fi
case_ "32-bit host tests, not root: the command adds i386 first" 1 0 \
	"dpkg --add-architecture i386 && apt-get update" FAKE_UID=1000 -- host32

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
