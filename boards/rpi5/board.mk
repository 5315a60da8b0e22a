# rpi5: Raspberry Pi 5 (BCM2712, Cortex-A76 in AArch64 at EL1), the SoC's PL011 on the 3-pin debug connector. No QEMU machine: build and link only.
include boards/aarch64/aarch64.mk
BOARD_CPU_FLAGS := -mcpu=cortex-a76 $(AARCH64_CPU_FLAGS)
BOARD_SRCS := $(GIC_GENERIC_TIMER_SRCS) boards/rpi5/cores.c boards/aarch64/psci.c
BOARD_INCLUDES := -Iboards/aarch64
BOARD_LINKER_SCRIPT := linker/rpi-aarch64.ld
BOARD_QEMU_MACHINES :=
BOARD_QEMU_FLAGS :=
# What `make sdcard` writes and tells the user to copy: the Pi 5 boots from its EEPROM and
# carries its firmware there; the SD card needs only the image and config.txt.
BOARD_KERNEL_IMAGE := kernel_2712.img
BOARD_FIRMWARE_FILES := (none: the Pi 5 firmware is in its EEPROM)
# make BOARD_UART_CLOCK_HZ=<hz>: the debug UART's clock (boards/rpi5/board.h).
ifneq ($(BOARD_UART_CLOCK_HZ),)
BOARD_CPU_FLAGS += -DBOARD_UART_CLOCK_HZ=$(BOARD_UART_CLOCK_HZ)
endif
