/* board_core_start and board_core_id for the boards that run one core: the 32-bit start-ups park the others for good, the microcontrollers start none. */
#include "board.h"

int board_core_start(uint32_t core, void (*function)(void *context), void *context)
{
	(void)core;
	(void)function;
	(void)context;
	return -1;
}

/* Weak: a microcontroller with a second core its user may start (the RP2040) says which. */
__attribute__((weak)) uint32_t board_core_id(void *context)
{
	(void)context;
	return 0;
}
