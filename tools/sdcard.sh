#!/bin/sh
# make sdcard: a folder with what a Raspberry Pi needs on its FAT SD card besides the firmware.
#
# Usage: sh tools/sdcard.sh FOLDER IMAGE CONFIG_TXT "EXAMPLE for BOARD" "FIRMWARE FILES" [KERNEL_NAME]
# KERNEL_NAME: the file the firmware loads (kernel.img; kernel8.img, kernel_2712.img on 64-bit).
set -eu
folder=$1
image=$2
config=$3
what=$4
firmware=$5
kernel=${6:-kernel.img}
firmware_url=https://github.com/raspberrypi/firmware/tree/master/boot

rm -rf "$folder"
mkdir -p "$folder"
cp "$image" "$folder/$kernel"
cp "$config" "$folder/config.txt"
printf '%s\n' "$what: copy every file here to the root of a FAT32 SD card," \
	"together with these files from $firmware_url:" "  $firmware" \
	"The UART is on GPIO 14 (TX, header pin 8) and 15 (RX, pin 10), 115200 8N1." \
	"No overlay is needed: the kernel takes the PL011 back from Bluetooth itself." \
	>"$folder/README.txt"
echo "  SDCARD  $folder/: $kernel ($what), config.txt, README.txt"
echo "          add from $firmware_url: $firmware"
