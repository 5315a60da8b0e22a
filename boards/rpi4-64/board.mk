# rpi4-64: Raspberry Pi 4 / 400 / CM4 in 64-bit mode (BCM2711, Cortex-A72 in AArch64 at EL1). No QEMU machine: build and link only.
include boards/aarch64/aarch64.mk
BOARD_CPU_FLAGS := -mcpu=cortex-a72 $(AARCH64_CPU_FLAGS)
include boards/bcm283x/bcm283x.mk
BOARD_SRCS := $(BCM2711_SRCS) boards/bcm283x/spin_table.c
BOARD_INCLUDES := -Iboards/bcm283x
BOARD_LINKER_SCRIPT := linker/rpi-aarch64.ld
BOARD_QEMU_MACHINES :=
BOARD_QEMU_FLAGS :=
# What `make sdcard` writes and tells the user to copy: the Pi 4 boots from its EEPROM.
BOARD_KERNEL_IMAGE := kernel8.img
BOARD_FIRMWARE_FILES := start4.elf fixup4.dat
# make BOARD_UART_CLOCK_HZ=<hz>: use this UART clock instead of asking the firmware mailbox.
ifneq ($(BOARD_UART_CLOCK_HZ),)
BOARD_CPU_FLAGS += -DBOARD_UART_CLOCK_HZ=$(BOARD_UART_CLOCK_HZ)
endif
