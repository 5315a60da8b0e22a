# tm4c123: TI TM4C123GH6PM (Cortex-M4F, ARMv7E-M; soft-float code, GCC inlines LDREX/STREX and DMB) on the EK-TM4C123GXL. No QEMU machine.
BOARD_CPU_FLAGS := -mcpu=cortex-m4 -mthumb -mfloat-abi=soft
include boards/cortex-m/cortex_m.mk
include boards/stellaris/stellaris.mk
BOARD_SRCS += boards/tm4c123/board.c
BOARD_LINKER_SCRIPT := linker/tm4c123.ld
# make flash: the LaunchPad's own debugger (ICDI) is named by OpenOCD's board script, which
# boards/tm4c123/openocd.cfg sources; no separate interface script unless one is given.
OPENOCD_INTERFACE ?=
# make BOARD=tm4c123 TM4C123_CLOCK=piosc: run from the 16 MHz PIOSC instead of the 80 MHz PLL.
ifeq ($(TM4C123_CLOCK),piosc)
BOARD_CPU_FLAGS += -DBOARD_CLOCK_PIOSC
endif
