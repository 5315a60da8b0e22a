# versatilepb: QEMU's ARM926EJ-S Versatile PB (ARMv5TE, no LDREX: atomics via IRQ masking).
BOARD_CPU_FLAGS := -mcpu=arm926ej-s -marm -mfloat-abi=soft
BOARD_SRCS := boards/versatilepb/startup.S boards/versatilepb/board.c \
	boards/common/sp804.c boards/common/one_shot_tick.c
BOARD_LINKER_SCRIPT := linker/versatilepb.ld
BOARD_QEMU_MACHINES := versatilepb
BOARD_QEMU_FLAGS := -m 128M -global pl041.audiodev=noaudio
