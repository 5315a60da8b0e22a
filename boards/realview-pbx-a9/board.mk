# realview-pbx-a9: QEMU's RealView PBX-A9 (four Cortex-A9 cores, ARMv7-A without the Generic Timer; GIC, SP804).
BOARD_CPU_FLAGS := -mcpu=cortex-a9 -marm -mfloat-abi=soft
BOARD_SRCS := boards/common/startup_armv7a.S boards/common/gic_board.c boards/common/gic.c \
	boards/common/sp804_gic_board.c boards/common/sp804.c boards/common/one_shot_tick.c \
	boards/common/gic_sgi_cores.c
BOARD_COMMON_SRCS := $(filter-out boards/common/single_core.c,$(BOARD_COMMON_SRCS)) boards/common/core_start.c
BOARD_LINKER_SCRIPT := linker/realview-pbx-a9.ld
BOARD_QEMU_MACHINES := realview-pbx-a9
# -smp 4 for the smp example; -nic none: no LAN9118; the PL041 on the silent audio backend.
BOARD_QEMU_FLAGS := -smp 4 -m 128M -nic none -global pl041.audiodev=noaudio
