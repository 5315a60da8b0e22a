# What the Stellaris/Tiva boards share (GPTM tick, UART0 pins, SysTick clock); included after cortex_m.mk.
BOARD_SRCS += boards/stellaris/stellaris.c boards/cortex-m/systick.c boards/common/one_shot_tick.c
BOARD_INCLUDES += -Iboards/stellaris
