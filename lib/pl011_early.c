/*
 * An early console: text out of a UART that something else set up (a boot loader, the ROM, an
 * earlier pl011_init), with no instance, so a firmware can say why pl011_init failed. It
 * touches DR and reads FR and CR only, through the I/O functions.
 */
#include "pl011.h"
#include "pl011_io.h"
#include "pl011_regs.h"

/* The one byte's wait: FR reads until TXFF clears. */
static bool early_wait_room(uintptr_t base)
{
	for (uint32_t spins = 0; spins < PL011_EARLY_SPINS; spins++) {
		if ((pl011_io_read(base + PL011_FR) & PL011_FR_TXFF) == 0)
			return true;
	}
	return false;
}

static bool early_put(uintptr_t base, uint8_t byte)
{
	if (!early_wait_room(base))
		return false;
	pl011_io_write(base + PL011_DR, byte);
	return true;
}

int pl011_early_write(uintptr_t base, const char *text, size_t len)
{
	if (base == 0 || (text == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	uint32_t on = PL011_CR_UARTEN | PL011_CR_TXE;
	if ((pl011_io_read(base + PL011_CR) & on) != on)
		return PL011_ESHUTDOWN;
	size_t done = 0;
	for (; done < len; done++) {
		if (text[done] == '\n' && !early_put(base, '\r'))
			break;
		if (!early_put(base, (uint8_t)text[done]))
			break;
	}
	if (done == 0 && len != 0)
		return PL011_ETIMEDOUT;
	return (int)done;
}
