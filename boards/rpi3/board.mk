# rpi3: Raspberry Pi 3 / Zero 2 W in 64-bit mode (BCM2837, Cortex-A53 in AArch64 at EL1).
include boards/aarch64/aarch64.mk
BOARD_CPU_FLAGS := -mcpu=cortex-a53 $(AARCH64_CPU_FLAGS)
include boards/bcm283x/bcm283x.mk
BOARD_SRCS := $(BCM2835_SRCS) boards/bcm283x/spin_table.c
BOARD_INCLUDES := -Iboards/bcm283x
BOARD_LINKER_SCRIPT := linker/rpi-aarch64.ld
BOARD_QEMU_MACHINES := raspi3b
# examples/smp must start cores 1 and 2 on every machine above (tests/qemu/examples.py SMP_RUNS).
BOARD_QEMU_SMP := yes
BOARD_QEMU_FLAGS :=
# What `make sdcard` writes and tells the user to copy from the Raspberry Pi firmware repository.
BOARD_KERNEL_IMAGE := kernel8.img
BOARD_FIRMWARE_FILES := bootcode.bin start.elf fixup.dat
# make BOARD_UART_CLOCK_HZ=<hz>: use this UART clock instead of asking the firmware mailbox.
ifneq ($(BOARD_UART_CLOCK_HZ),)
BOARD_CPU_FLAGS += -DBOARD_UART_CLOCK_HZ=$(BOARD_UART_CLOCK_HZ)
endif
