# lm3s6965: Stellaris LM3S6965 (Cortex-M3, ARMv7-M; GCC inlines LDREX/STREX and DMB), QEMU lm3s6965evb.
BOARD_CPU_FLAGS := -mcpu=cortex-m3 -mthumb -mfloat-abi=soft
include boards/cortex-m/cortex_m.mk
include boards/stellaris/stellaris.mk
BOARD_SRCS += boards/lm3s6965/board.c
BOARD_LINKER_SCRIPT := linker/lm3s6965.ld
BOARD_QEMU_MACHINES := lm3s6965evb
