# rpi1: Raspberry Pi Zero / 1 (BCM2835, ARM1176JZF-S = ARMv6KZ: GCC inlines LDREX/STREX and CP15 barriers).
BOARD_CPU_FLAGS := -mcpu=arm1176jzf-s -marm -mfloat-abi=soft
include boards/bcm283x/bcm283x.mk
BOARD_SRCS := boards/rpi1/startup.S $(BCM2835_SRCS) boards/common/mmu.c
BOARD_INCLUDES := -Iboards/bcm283x
BOARD_LINKER_SCRIPT := linker/rpi1.ld
BOARD_QEMU_MACHINES := raspi0 raspi1ap
BOARD_QEMU_FLAGS :=
# What `make sdcard` tells the user to copy from the Raspberry Pi firmware repository.
BOARD_FIRMWARE_FILES := bootcode.bin start.elf fixup.dat
# make BOARD_UART_CLOCK_HZ=<hz>: use this UART clock instead of asking the firmware mailbox.
ifneq ($(BOARD_UART_CLOCK_HZ),)
BOARD_CPU_FLAGS += -DBOARD_UART_CLOCK_HZ=$(BOARD_UART_CLOCK_HZ)
endif
