# rpi4: Raspberry Pi 4 in 32-bit mode (BCM2711, Cortex-A72 in AArch32 = ARMv8-A: GCC inlines LDREX/STREX and DMB). No QEMU machine.
BOARD_CPU_FLAGS := -mcpu=cortex-a72 -marm -mfloat-abi=soft
include boards/bcm283x/bcm283x.mk
BOARD_SRCS := boards/common/startup_armv7a.S $(BCM2711_SRCS) boards/common/mmu.c
BOARD_INCLUDES := -Iboards/bcm283x
BOARD_LINKER_SCRIPT := linker/rpi4.ld
BOARD_QEMU_MACHINES :=
BOARD_QEMU_FLAGS :=
# What `make sdcard` tells the user to copy: the Pi 4 boots from its EEPROM, no bootcode.bin.
BOARD_FIRMWARE_FILES := start4.elf fixup4.dat
# make BOARD_UART_CLOCK_HZ=<hz>: use this UART clock instead of asking the firmware mailbox.
ifneq ($(BOARD_UART_CLOCK_HZ),)
BOARD_CPU_FLAGS += -DBOARD_UART_CLOCK_HZ=$(BOARD_UART_CLOCK_HZ)
endif
