#!/bin/sh
# Check that a built libpl011.a needs nothing from outside but memcpy/memset and compiler
# runtime helpers (__aeabi_*, __atomic_*, __sync_*): the freestanding promise of lib/.
# NM is the board's nm (make passes $(CROSS_COMPILE)nm): arm-none-eabi-nm cannot read the
# 64-bit libraries, aarch64-linux-gnu-nm can. On AArch64 the outline-atomics helpers
# (__aarch64_swp4_acq_rel...) are not in the set: the boards build with -mno-outline-atomics.
set -eu
library=$1
nm=${NM:-arm-none-eabi-nm}
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
