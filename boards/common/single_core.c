/* board_core_start for the boards that run one core: the 32-bit start-ups park the others for good, the microcontrollers start none. */
#include "board.h"

int board_core_start(uint32_t core, void (*function)(void *context), void *context)
{
	(void)core;
	(void)function;
	(void)context;
	return -1;
}
