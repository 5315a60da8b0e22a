#!/bin/sh
# make fresh-test: the README's commands on a minimal Debian 12, in a chroot built for the run.
#
# Usage: sh tools/fresh-test.sh   (as root; make fresh-test; not part of make test: it takes
# 15-40 minutes and downloads about 700 MB)
# It builds a debootstrap minbase chroot of Debian 12 (bookworm) with git and make in
# FRESH_TEST_DIR (default /var/tmp/pl011-fresh-test, removed first), clones this repository's
# HEAD commit into /root/pl011 there (uncommitted changes are not in it), and runs as root, one
# after the other, the commands FRESH_TEST_COMMANDS names (default "make run" and "make test",
# the README's quick start), printing each one's exit status, time and how much it installed.
# FRESH_TEST_MIRROR is the Debian mirror (default http://deb.debian.org/debian).
# FRESH_TEST_LEAVE_OUT=PACKAGE edits the clone's installer to never install PACKAGE: the run
# must then fail, naming PACKAGE and the probe that found it missing (docs/testing.md).
# The chroot's mounts are removed on every exit path; the chroot itself is left for a look.
# Exits 0 only if every command exited 0.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${FRESH_TEST_DIR:-/var/tmp/pl011-fresh-test}
mirror=${FRESH_TEST_MIRROR:-http://deb.debian.org/debian}
commands=${FRESH_TEST_COMMANDS:-make run;make test}
leave_out=${FRESH_TEST_LEAVE_OUT:-}

[ "$(id -u)" = 0 ] || { echo "fresh-test: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null 2>&1 ||
	{ echo "fresh-test: needs debootstrap: apt-get install debootstrap (make deps)" >&2; exit 1; }
case "$dir" in
/?*) ;;
*) echo "fresh-test: FRESH_TEST_DIR must be an absolute path, not '$dir'" >&2; exit 1 ;;
esac

mounted=""
cleanup() {
	status=$?
	trap - EXIT INT TERM HUP
	# The last mounted first; lazily, so that a process still running there cannot keep one.
	for mount in $mounted; do
		umount "$mount" 2>/dev/null || umount -l "$mount" 2>/dev/null ||
			echo "fresh-test: could not unmount $mount" >&2
	done
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
mount_in() { # mount_in TARGET MOUNT-ARGS...: mount, and remember it for cleanup
	target=$dir$1
	shift
	mkdir -p "$target"
	mount "$@" "$target"
	mounted="$target $mounted"
}

# Left over from an earlier run that was killed before its cleanup: never delete through a mount.
if grep -q " $dir/" /proc/mounts; then
	echo "fresh-test: $dir still has mounts (a killed run?); unmount them first:" >&2
	grep " $dir/" /proc/mounts | cut -d' ' -f2 >&2
	exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
commit=$(git -C "$root" rev-parse HEAD)
git -C "$root" diff --quiet HEAD 2>/dev/null ||
	echo "fresh-test: uncommitted changes are not tested: the chroot gets commit $commit"

elapsed() { echo $(($(date +%s) - $1)); }
started=$(date +%s)
echo "fresh-test: debootstrap --variant=minbase bookworm from $mirror into $dir"
debootstrap --variant=minbase --include=git,make,ca-certificates bookworm "$dir" "$mirror" \
	>"$dir.debootstrap.log" 2>&1 ||
	{ tail -n 20 "$dir.debootstrap.log" >&2; echo "fresh-test: debootstrap failed" >&2; exit 1; }
echo "fresh-test: debootstrap: ok in $(elapsed "$started") s"
# A Debian 12 as its installer leaves it: the updates and the security archive too.
security=$(printf '%s' "$mirror" | sed 's|/debian$|/debian-security|')
cat >"$dir/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
cp /etc/resolv.conf "$dir/etc/resolv.conf"
mount_in /proc -t proc proc
mount_in /sys -t sysfs sysfs
mount_in /dev --bind /dev
mount_in /dev/pts --bind /dev/pts

git clone -q --no-hardlinks "$root" "$dir/root/pl011"
git -C "$dir/root/pl011" checkout -q "$commit"
echo "fresh-test: cloned $commit into /root/pl011"
if [ -n "$leave_out" ]; then
	installer=$dir/root/pl011/tools/install-deps.sh
	sed -i "s/need_package \"\$package\"; done/[ \"\$package\" = $leave_out ] || need_package \"\$package\"; done/" \
		"$installer"
	grep -q "= $leave_out ] || need_package" "$installer" ||
		{ echo "fresh-test: could not edit the installer to leave out $leave_out" >&2; exit 1; }
	echo "fresh-test: the clone's installer edited to never install $leave_out"
fi

in_chroot() { # in_chroot COMMAND: a login-like root shell in the clone
	chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		sh -c "cd /root/pl011 && $1"
}
installed_mib() { # the installed size of every package in the chroot, in MiB
	in_chroot "dpkg-query -W -f='\${Installed-Size}\n'" | awk '{ kib += $1 } END { print int(kib / 1024) }'
}

failed=""
summary=""
old_ifs=$IFS
IFS=';'
for command in $commands; do
	IFS=$old_ifs
	before=$(installed_mib)
	echo "fresh-test: === $command"
	command_started=$(date +%s)
	status=0
	in_chroot "$command" </dev/null || status=$?
	line="fresh-test: $command: exit $status in $(elapsed "$command_started") s, installed $(($(installed_mib) - before)) MiB of packages"
	echo "$line"
	summary="$summary$line
"
	[ "$status" -eq 0 ] || failed="$failed '$command'"
	IFS=';'
done
IFS=$old_ifs
printf '%s' "$summary"
echo "fresh-test: total $(elapsed "$started") s (commit $commit${leave_out:+, installer without $leave_out})"
[ -z "$failed" ] || { echo "fresh-test: failed:$failed" >&2; exit 1; }
