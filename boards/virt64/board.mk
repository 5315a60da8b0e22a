# virt64: QEMU's `virt` machine with a Cortex-A53 in AArch64 at EL1 (GICv2, generic timer).
# gcc-aarch64-linux-gnu used freestanding, with picolibc for printf (Debian has no AArch64 newlib).
PICOLIBC_SPECS := /usr/lib/picolibc/aarch64-linux-gnu/picolibc.specs
BOARD_CROSS_COMPILE := aarch64-linux-gnu-
# The picolibc headers for every C file (lib/ uses <string.h>); its specs file only at the link.
BOARD_CPU_FLAGS := -mcpu=cortex-a53 -mstrict-align -isystem /usr/lib/picolibc/aarch64-linux-gnu/include
BOARD_COMMON_SRCS := boards/aarch64/startup.S boards/aarch64/vectors.S boards/aarch64/cpu.c \
	boards/aarch64/mmu.c boards/aarch64/picolibc_stdio.c boards/common/console.c
BOARD_SRCS := boards/qemu_virt/virt_board.c boards/qemu_virt/psci.c boards/common/gic.c \
	boards/common/generic_timer.c
BOARD_INCLUDES := -Iboards/qemu_virt
BOARD_LDFLAGS := --specs=$(PICOLIBC_SPECS) -nostartfiles -static -Wl,--no-warn-rwx-segments
BOARD_LDLIBS := -lgcc
BOARD_LINKER_SCRIPT := linker/virt64.ld
BOARD_QEMU := qemu-system-aarch64
BOARD_QEMU_MACHINES := virt
BOARD_QEMU_FLAGS := -cpu cortex-a53 -m 128M -smp 4 -nic none
