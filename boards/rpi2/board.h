/* Raspberry Pi 2 / 3 in 32-bit mode (BCM2836/7, Cortex-A7/A53): the board name, plus the SoC's addresses and the board API. */
#ifndef BOARD_H
#define BOARD_H

#include "bcm2837.h"
#include "board_api.h"

#define BOARD_NAME "rpi2"

#endif
