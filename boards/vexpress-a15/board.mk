# vexpress-a15: QEMU's Versatile Express with four Cortex-A15 cores (ARMv7-A, GICv2, generic timer).
BOARD_CPU_FLAGS := -mcpu=cortex-a15 -marm -mfloat-abi=soft
BOARD_SRCS := boards/common/startup_armv7a.S $(GIC_GENERIC_TIMER_SRCS) boards/common/mmu.c
BOARD_COMMON_SRCS := $(ARMV7A_GIC_SMP_COMMON_SRCS)
BOARD_LINKER_SCRIPT := linker/vexpress-a15.ld
BOARD_QEMU_MACHINES := vexpress-a15
# examples/smp must start cores 1 and 2 on every machine above (tests/qemu/examples.py SMP_RUNS).
BOARD_QEMU_SMP := yes
# -smp 4 for the smp example; -nic none: no LAN9118; the PL041 on the silent audio backend.
BOARD_QEMU_FLAGS := -smp 4 -m 128M -nic none -global pl041.audiodev=noaudio
