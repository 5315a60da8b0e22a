# musca-b1: QEMU's Arm Musca-B1 (SSE-200, Cortex-M33, ARMv8-M Mainline with LDREX/STREX), run in Secure state.
BOARD_CPU_FLAGS := -mcpu=cortex-m33 -mthumb -mfloat-abi=soft
include boards/cortex-m/cortex_m.mk
BOARD_SRCS += boards/musca-b1/board.c boards/cortex-m/systick.c boards/cortex-m/cmsdk_timer.c \
	boards/common/one_shot_tick.c
BOARD_LINKER_SCRIPT := linker/musca-b1.ld
BOARD_QEMU_MACHINES := musca-b1
