/* QEMU virt with a Cortex-A53 in AArch64: the board name, plus the machine's constants and the board API. */
#ifndef BOARD_H
#define BOARD_H

#define BOARD_NAME "virt64"
#include "virt_machine.h"

#endif
