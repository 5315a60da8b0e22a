/* Size firmware "early console hi": the smallest console, no instance: programmed, one write. */
#include "pl011.h"
#include "size_firmware.h"

void size_main(void)
{
	if (pl011_early_init(SIZE_BASE, SIZE_CLOCK_HZ, 115200u) == 0)
		(void)pl011_early_write(SIZE_BASE, "hi\n", 3);
}
