/* The register seam: the only place in lib/ that touches hardware (DESIGN.md contract 1). */
#ifndef PL011_IO_H
#define PL011_IO_H

#include <stdint.h>

#ifdef PL011_IO_HOOKS
/* A host harness (the behavioural model) defines these two. */
uint32_t pl011_io_read(uintptr_t addr);
void pl011_io_write(uintptr_t addr, uint32_t value);
#else
static inline uint32_t pl011_io_read(uintptr_t addr)
{
	return *(volatile const uint32_t *)addr;
}

static inline void pl011_io_write(uintptr_t addr, uint32_t value)
{
	*(volatile uint32_t *)addr = value;
}
#endif

#endif
