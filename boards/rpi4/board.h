/* Raspberry Pi 4 in 32-bit mode (BCM2711, Cortex-A72): the board name, plus the SoC's addresses and the board API. */
#ifndef BOARD_H
#define BOARD_H

#include "bcm2711.h"
#include "board_api.h"

#define BOARD_NAME "rpi4"

#endif
