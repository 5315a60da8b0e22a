# The Raspberry Pi SoC parts each Pi board.mk includes: one file per peripheral, plus the board file of its SoC generation.
BCM283X_SRCS := boards/bcm283x/system_timer.c boards/bcm283x/gpio.c boards/bcm283x/mailbox.c \
	boards/bcm283x/console.c boards/bcm283x/memory.c boards/bcm283x/exclusives.c
# BCM2835/6/7 (Pi 1, 2, 3, Zero): the ARM interrupt controller. BCM2711 (Pi 4): a GIC-400.
BCM2835_SRCS := boards/bcm283x/bcm2835_board.c boards/bcm283x/bcm2835_irq.c $(BCM283X_SRCS)
BCM2711_SRCS := boards/bcm283x/bcm2711_board.c boards/common/gic_board.c boards/common/gic.c \
	$(BCM283X_SRCS)
