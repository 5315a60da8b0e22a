#!/bin/sh
# make flash: load an example into a board's RAM through OpenOCD (JTAG) and start it.
#
# Usage: sh tools/flash.sh ELF BOARD_OPENOCD_CFG ADAPTER_CFG [RPI_CHIP]
# ADAPTER_CFG may be "" when the board's script names its adapter (the TM4C123's ICDI).
# Environment: OPENOCD (openocd), READELF (arm-none-eabi-readelf).
# The board's script defines pl011_load_and_start (docs/porting.md): halt, mask interrupts,
# load and verify the image, resume at the entry point. OpenOCD then exits and leaves it running.
# When OpenOCD fails, a line after its messages says what to check (no probe, no permission).
set -eu
elf=$1
board_cfg=$2
adapter_cfg=$3
chip=${4:-}
openocd=${OPENOCD:-openocd}

entry=$("${READELF:-arm-none-eabi-readelf}" -h "$elf" | awk '/Entry point address/ { print $4 }')
[ -n "$entry" ] || { echo "make flash: no entry point in $elf" >&2; exit 1; }
echo "  OPENOCD $elf at $entry through ${adapter_cfg:-the adapter $board_cfg names}"
set --
[ -z "$adapter_cfg" ] || set -- -f "$adapter_cfg"
[ -z "$chip" ] || set -- "$@" -c "set RPI_CHIP $chip"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
{ "$openocd" "$@" -f "$board_cfg" -c init -c "pl011_load_and_start $elf $entry" -c shutdown 2>&1 ||
	echo "$?" >"$log.status"; } | tee "$log"
[ ! -e "$log.status" ] || { status=$(cat "$log.status"); rm -f "$log.status"; }
[ "$status" -eq 0 ] && exit 0

# OpenOCD's own words for a missing probe are terse ("open failed" from the TI ICDI driver):
# say what to look at.
adapter=${adapter_cfg:-the adapter $board_cfg names}
if grep -qE "LIBUSB_ERROR_ACCESS|Permission denied" "$log"; then
	echo "make flash: the probe ($adapter) is there but not yours to open: run as root, or add" \
		"OpenOCD's udev rules (contrib/60-openocd.rules) and plug it in again" >&2
elif grep -qiE "open failed|no .*device found|unable to (find|open)|not found|No J-Link" "$log"; then
	echo "make flash: OpenOCD found no debug probe ($adapter): is it plugged in and powered" \
		"(lsusb lists it)? Another adapter: OPENOCD_INTERFACE=interface/...cfg" >&2
	if grep -q "ti_ek-tm4c123gxl" "$board_cfg"; then
		echo "make flash: the LaunchPad's probe is its on-board ICDI: the USB port marked DEBUG," \
			"power switch on DEBUG; lsusb shows it as 1cbe:00fd" >&2
	fi
else
	echo "make flash: OpenOCD failed (exit $status): its messages are above" >&2
fi
exit "$status"
