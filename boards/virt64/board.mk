# virt64: QEMU's `virt` machine with a Cortex-A53 in AArch64 at EL1 (GICv2, generic timer).
include boards/aarch64/aarch64.mk
BOARD_CPU_FLAGS := -mcpu=cortex-a53 $(AARCH64_CPU_FLAGS)
BOARD_SRCS := $(GIC_GENERIC_TIMER_SRCS) boards/qemu_virt/psci_cores.c boards/aarch64/psci.c
BOARD_INCLUDES := -Iboards/qemu_virt -Iboards/aarch64
BOARD_LINKER_SCRIPT := linker/virt64.ld
BOARD_QEMU_MACHINES := virt
# examples/smp must start cores 1 and 2 on every machine above (tests/qemu/examples.py SMP_RUNS).
BOARD_QEMU_SMP := yes
# -smp 4 for the smp example (the other cores stay off until it starts them through PSCI);
# -nic none: without it QEMU looks for a NIC option ROM (efi-virtio.rom) Debian does not ship.
BOARD_QEMU_FLAGS := -cpu cortex-a53 -m 128M -smp 4 -nic none
