# rpi2: Raspberry Pi 2 (BCM2836, Cortex-A7) and Pi 3 in 32-bit mode (BCM2837, Cortex-A53); ARMv7-A code, GCC inlines LDREX/STREX and DMB.
BOARD_CPU_FLAGS := -mcpu=cortex-a7 -marm -mfloat-abi=soft
include boards/bcm283x/bcm283x.mk
BOARD_SRCS := boards/common/startup_armv7a.S $(BCM2835_SRCS) boards/common/mmu.c
BOARD_INCLUDES := -Iboards/bcm283x
BOARD_LINKER_SCRIPT := linker/rpi2.ld
BOARD_QEMU_MACHINES := raspi2b
BOARD_QEMU_FLAGS :=
# What `make sdcard` tells the user to copy from the Raspberry Pi firmware repository.
BOARD_FIRMWARE_FILES := bootcode.bin start.elf fixup.dat
# make BOARD_UART_CLOCK_HZ=<hz>: use this UART clock instead of asking the firmware mailbox.
ifneq ($(BOARD_UART_CLOCK_HZ),)
BOARD_CPU_FLAGS += -DBOARD_UART_CLOCK_HZ=$(BOARD_UART_CLOCK_HZ)
endif
