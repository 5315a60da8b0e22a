/* Entry of the size firmwares: a table the linker keeps, pointing at main and the UART interrupt. */
#include "size_firmware.h"

void size_start(void);

/* Firmwares without interrupts link this empty one. */
__attribute__((weak)) void size_irq(void)
{
}

/* A free-running microsecond counter at a fixed address, like a board's timer. */
uint32_t size_clock_us(void *context)
{
	(void)context;
	return *(volatile const uint32_t *)0x40054028u;
}

void size_start(void)
{
	size_main();
	for (;;)
		;
}

/* The two entries a vector table would hold; the linker script keeps this section. */
__attribute__((used, section(".size_entries"))) void (*const size_entries[])(void) = {size_start,
										     size_irq};
