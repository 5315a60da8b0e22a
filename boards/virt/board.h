/* QEMU virt with a Cortex-A15 in AArch32: the board name, plus the machine's constants and the board API. */
#ifndef BOARD_H
#define BOARD_H

#define BOARD_NAME "virt"
#include "virt_machine.h"

#endif
