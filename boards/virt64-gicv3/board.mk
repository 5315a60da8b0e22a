# virt64-gicv3: QEMU's `virt` machine with a GICv3 (gic-version=3) and Cortex-A72 cores in AArch64 at EL1.
include boards/aarch64/aarch64.mk
BOARD_CPU_FLAGS := -mcpu=cortex-a72 $(AARCH64_CPU_FLAGS)
BOARD_SRCS := $(GIC3_GENERIC_TIMER_SRCS) boards/qemu_virt/psci_cores.c boards/aarch64/psci.c
BOARD_INCLUDES := -Iboards/qemu_virt -Iboards/aarch64
BOARD_LINKER_SCRIPT := linker/virt64-gicv3.ld
BOARD_QEMU_MACHINES := virt
# examples/smp must start cores 1 and 2 on every machine above (tests/qemu/examples.py SMP_RUNS).
BOARD_QEMU_SMP := yes
# The GIC version is a machine option: a second -machine, merged with the Makefile's -M virt.
BOARD_QEMU_FLAGS := -machine gic-version=3 -cpu cortex-a72 -m 128M -smp 4 -nic none
