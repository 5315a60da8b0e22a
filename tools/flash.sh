#!/bin/sh
# make flash: load an example into a board's RAM through OpenOCD (JTAG) and start it.
#
# Usage: sh tools/flash.sh ELF BOARD_OPENOCD_CFG ADAPTER_CFG [RPI_CHIP]
# ADAPTER_CFG may be "" when the board's script names its adapter (the TM4C123's ICDI).
# Environment: OPENOCD (openocd), READELF (arm-none-eabi-readelf).
# The board's script defines pl011_load_and_start (docs/porting.md): halt, mask interrupts,
# load and verify the image, resume at the entry point. OpenOCD then exits and leaves it running.
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
exec "$openocd" "$@" -f "$board_cfg" -c init \
	-c "pl011_load_and_start $elf $entry" -c shutdown
