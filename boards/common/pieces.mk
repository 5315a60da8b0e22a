# The shared board pieces as source lists for board.mk (docs/porting.md, "Pick the shared
# pieces"). Read by the Makefile after the board.mk defaults, before board.mk.

# A GIC board whose clock and tick are the ARM generic timer (QEMU virt, Versatile Express A15,
# Pi 5): board_init, the memory map, the clock, the tick and the interrupt dispatch from board.h.
GIC_GENERIC_TIMER_SRCS := boards/common/gic_board.c boards/common/generic_timer_board.c \
	boards/common/generic_timer.c boards/common/gic.c
# The same with a GICv3 (AArch64; board.h names BOARD_GICR_BASE, the redistributors).
GIC3_GENERIC_TIMER_SRCS := $(filter-out boards/common/gic.c,$(GIC_GENERIC_TIMER_SRCS)) boards/common/gic_v3.c
# A GIC board whose clock and tick are an SP804 (RealView PBX-A9, Versatile Express A9).
GIC_SP804_SRCS := boards/common/gic_board.c boards/common/gic.c boards/common/sp804_gic_board.c \
	boards/common/sp804.c boards/common/one_shot_tick.c
# BOARD_COMMON_SRCS of an ARMv7-A GIC board that starts cores 1-3 (examples/smp): core_start.c
# instead of single_core.c, and the parked cores woken by an SGI (gic_sgi_cores.c).
ARMV7A_GIC_SMP_COMMON_SRCS := $(filter-out boards/common/single_core.c,$(BOARD_COMMON_SRCS)) \
	boards/common/core_start.c boards/common/gic_sgi_cores.c
