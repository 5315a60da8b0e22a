/* The divisors for a clock and a baud rate (TRM 2.4.3), shared by the early console, the
 * instance's start and the line change; the other register steps are pl011_hw.h's. */
#include "pl011_internal.h"

int pl011_compute_baud(uint32_t clock_hz, uint32_t baud, uint32_t tolerance_ppm,
		       struct pl011_baud *out)
{
	if (out == NULL || clock_hz == 0 || baud == 0)
		return PL011_EINVAL;
	/* 64 * BRD = 4 * clock / baud, rounded to the nearest (TRM 2.4.3); UINT32_MAX where it
	 * does not fit 32 bits. q = 64 * IBRD + FBRD: IBRD 1 to 65535, FBRD 0 with 65535 (TRM
	 * 3.3.6). */
	uint32_t q = pl011_divide_product(clock_hz, 4u, baud / 2u, baud);
	if (q < 64u || q > PL011_IBRD_MAX * 64u)
		return PL011_EBAUD;
	uint32_t ibrd = q >> 6;
	uint32_t fbrd = q & PL011_FBRD_MASK;
	/* actual = clock / (16 * q / 64) = 4 * clock / q. */
	uint32_t actual = pl011_divide_product(clock_hz, 4u, q / 2u, q);
	/* q is 4 * clock / baud within a half and at least 64, and actual rounds to the nearest:
	 * off is below baud, so the quotient fits. C's signed division truncates toward zero: the
	 * magnitude's quotient, signed, is the same number. */
	uint32_t off = actual > baud ? actual - baud : baud - actual;
	uint32_t error_ppm = pl011_divide_product(off, 1000000u, 0, baud);
	uint32_t tolerance = tolerance_ppm != 0 ? tolerance_ppm : PL011_BAUD_TOLERANCE_PPM;
	if (error_ppm > tolerance)
		return PL011_EBAUD;
	out->ibrd = ibrd;
	out->fbrd = fbrd;
	out->actual_baud = actual;
	out->error_ppm = actual > baud ? (int32_t)error_ppm : -(int32_t)error_ppm;
	return 0;
}

