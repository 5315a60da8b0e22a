/* Register access for board code (the driver itself uses lib/pl011_io.h only). */
#ifndef BOARD_MMIO_H
#define BOARD_MMIO_H

#include <stdint.h>

static inline uint32_t mmio_read(uintptr_t addr)
{
	return *(volatile const uint32_t *)addr;
}

static inline void mmio_write(uintptr_t addr, uint32_t value)
{
	*(volatile uint32_t *)addr = value;
}

#endif
