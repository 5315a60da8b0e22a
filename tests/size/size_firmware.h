/* What the size firmwares share: their entry points, the line they configure, a clock (start.c). */
#ifndef SIZE_FIRMWARE_H
#define SIZE_FIRMWARE_H

#include <stdint.h>

/* The line every size firmware configures; any address: the images are measured, never run. */
#define SIZE_BASE 0x40034000u
#define SIZE_CLOCK_HZ 24000000u
#define SIZE_LINE_CONFIG                                                                          \
	.base = SIZE_BASE, .clock_hz = SIZE_CLOCK_HZ, .baud = 115200u, .data_bits = 8, .stop_bits = 1

void size_main(void);
void size_irq(void);
uint32_t size_clock_us(void *context);

#endif
