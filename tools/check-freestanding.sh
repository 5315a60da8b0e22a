#!/bin/sh
# Check that a built libpl011.a needs nothing from outside but memcpy/memset and compiler
# runtime helpers (__aeabi_*, __atomic_*, __sync_*): the freestanding promise of lib/.
set -eu
library=$1
# The board's nm: arm-none-eabi-nm reads the 32-bit libraries, aarch64-linux-gnu-nm the 64-bit ones.
nm=${NM:-arm-none-eabi-nm}
# (arm-none-eabi-nm exits 0 on an AArch64 object, only saying so on stderr).
if [ -z "${NM:-}" ] && $nm "$library" 2>&1 >/dev/null | grep -q "format not recognized"; then
	nm=aarch64-linux-gnu-nm
fi
defined=$($nm -g --defined-only "$library" | awk 'NF == 3 { print $3 }' | sort -u)
needed=$($nm -u "$library" | awk '{ print $NF }' | grep -v ':$' | sort -u)
bad=""
for symbol in $needed; do
	case "$symbol" in
	memcpy | memset | __aeabi_* | __atomic_* | __sync_*) continue ;;
	esac
	if ! printf '%s\n' "$defined" | grep -qx "$symbol"; then
		bad="$bad $symbol"
	fi
done
if [ -n "$bad" ]; then
	echo "FAIL $library needs symbols outside the freestanding set:$bad"
	exit 1
fi
echo "ok   $library is freestanding (outside needs: $(printf '%s\n' "$needed" | grep -vxF "$defined" | tr '\n' ' '))"
