# vexpress-a9: QEMU's Versatile Express with four Cortex-A9 cores (ARMv7-A, GIC, SP804).
BOARD_CPU_FLAGS := -mcpu=cortex-a9 -marm -mfloat-abi=soft
BOARD_SRCS := boards/common/startup_armv7a.S boards/common/gic_board.c boards/common/gic.c \
	boards/common/sp804_gic_board.c boards/common/sp804.c boards/common/one_shot_tick.c \
	boards/common/gic_sgi_cores.c
BOARD_COMMON_SRCS := $(filter-out boards/common/single_core.c,$(BOARD_COMMON_SRCS)) boards/common/core_start.c
BOARD_LINKER_SCRIPT := linker/vexpress-a9.ld
BOARD_QEMU_MACHINES := vexpress-a9
BOARD_QEMU_FLAGS := -smp 4 -m 128M -nic none -global pl041.audiodev=noaudio
