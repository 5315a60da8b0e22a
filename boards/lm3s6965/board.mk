# lm3s6965: Stellaris LM3S6965 (Cortex-M3, ARMv7-M; GCC inlines LDREX/STREX and DMB), QEMU lm3s6965evb.
BOARD_CPU_FLAGS := -mcpu=cortex-m3 -mthumb -mfloat-abi=soft
BOARD_SRCS := boards/lm3s6965/board.c boards/stellaris/stellaris.c boards/cortex-m/systick.c
BOARD_COMMON_SRCS := boards/cortex-m/vectors.c boards/cortex-m/cpu.c boards/common/console.c \
	boards/common/newlib_syscalls.c
BOARD_INCLUDES := -Iboards/cortex-m -Iboards/stellaris
BOARD_LINKER_SCRIPT := linker/lm3s6965.ld
BOARD_QEMU_MACHINES := lm3s6965evb
BOARD_QEMU_FLAGS :=
