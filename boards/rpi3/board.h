/* Raspberry Pi 3 / Zero 2 W in 64-bit mode (BCM2837, Cortex-A53): the board name, plus the SoC's addresses and the board API. */
#ifndef BOARD_H
#define BOARD_H

#include "bcm2837.h"
#include "board_api.h"

#define BOARD_NAME "rpi3"

#endif
