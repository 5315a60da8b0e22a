# virt: QEMU's `virt` machine with a Cortex-A15 in AArch32 (ARMv7-A, GICv2, generic timer).
BOARD_CPU_FLAGS := -mcpu=cortex-a15 -marm -mfloat-abi=soft
BOARD_SRCS := boards/common/startup_armv7a.S $(GIC_GENERIC_TIMER_SRCS) boards/common/mmu.c
BOARD_INCLUDES := -Iboards/qemu_virt
BOARD_LINKER_SCRIPT := linker/virt.ld
BOARD_QEMU_MACHINES := virt
# -nic none: without it QEMU looks for a NIC option ROM (efi-virtio.rom) Debian does not ship.
BOARD_QEMU_FLAGS := -cpu cortex-a15 -m 128M -nic none
