/* Size firmware "polled console hi": the smallest use of the driver, polled init and one write. */
#include "pl011.h"
#include "size_firmware.h"

static struct pl011 uart;

void size_main(void)
{
	static const struct pl011_config config = {
		SIZE_LINE_CONFIG,
	};
	if (pl011_init(&uart, &config) == 0)
		(void)pl011_write(&uart, "hi\n", 3, PL011_WAIT_AUTO);
}
