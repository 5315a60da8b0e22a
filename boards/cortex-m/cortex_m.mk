# What every Cortex-M board links (vector table, CPU helpers, tick and interrupt dispatch); its board.mk includes this first.
BOARD_COMMON_SRCS := boards/cortex-m/vectors.c boards/cortex-m/cpu.c boards/cortex-m/interrupts.c \
	boards/common/console.c boards/common/newlib_syscalls.c
BOARD_INCLUDES := -Iboards/cortex-m
