# Settings every AArch64 board.mk includes: the Debian cross compiler used freestanding, picolibc
# for printf (Debian ships no newlib for AArch64), the shared start-up, and qemu-system-aarch64.
PICOLIBC_DIR := /usr/lib/picolibc/aarch64-linux-gnu
BOARD_CROSS_COMPILE := aarch64-linux-gnu-
# -mstrict-align: board code runs before the MMU is on, where unaligned accesses fault.
# -mno-outline-atomics: the Debian compiler otherwise calls libgcc's __aarch64_swp4_* helpers,
# which pick LSE or LDXR/STXR at run time; inline LDXR/STXR run on every ARMv8-A core. The
# picolibc headers serve every C file (lib/ uses <string.h>); its specs file only the link.
AARCH64_CPU_FLAGS := -mstrict-align -mno-outline-atomics -isystem $(PICOLIBC_DIR)/include
BOARD_COMMON_SRCS := boards/aarch64/startup.S boards/aarch64/vectors.S boards/aarch64/cpu.c \
	boards/aarch64/mmu.c boards/aarch64/picolibc_stdio.c boards/common/console.c \
	boards/common/core_start.c
BOARD_LDFLAGS := --specs=$(PICOLIBC_DIR)/picolibc.specs -nostartfiles -static \
	-Wl,--no-warn-rwx-segments
BOARD_LDLIBS := -lgcc
BOARD_QEMU := qemu-system-aarch64
# picolibc is not newlib, which make deps derives from nano.specs: named here (mk/check.mk).
BOARD_DEPS := picolibc-aarch64-linux-gnu
