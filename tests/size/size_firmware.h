/* What the size firmwares share: their entry points, the UART address, a clock (tests/size/start.c). */
#ifndef SIZE_FIRMWARE_H
#define SIZE_FIRMWARE_H

#include <stdint.h>

/* Any address: the images are measured, never run. */
#define SIZE_UART_BASE 0x40034000u

void size_main(void);
void size_irq(void);
uint32_t size_clock_us(void *context);

#endif
