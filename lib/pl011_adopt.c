/* The adopted line (PL011_FLAG_ADOPT_LINE): the divisors and format a boot loader left, read
 * back as init's plan through pl011_adopt_driver (which pl011_init names only for a config with
 * the flag), and whether a quiesce may leave that format alone. Core layer: it calls only the
 * registers and pl011_divide. */
#include "pl011_internal.h"

int pl011_line_adopt(const struct pl011_config *config, struct pl011_baud *baud, uint32_t *lcr_h)
{
	/* The holding registers read back what was written; the line runs on the latched copies,
	 * which the last LCR_H write made equal to them (TRM 3.3.6, 3.3.7). */
	uint32_t ibrd = pl011_io_read(config->base + PL011_IBRD) & PL011_IBRD_MAX;
	uint32_t fbrd = pl011_io_read(config->base + PL011_FBRD) & PL011_FBRD_MASK;
	if (ibrd == 0)
		return PL011_EBAUD; /* never programmed: no line to adopt (IBRD 0 is invalid) */
	baud->ibrd = ibrd;
	baud->fbrd = fbrd;
	baud->error_ppm = 0;
	baud->actual_baud = config->baud;
	if (config->clock_hz != 0) {
		/* baud = clock / (16 * (IBRD + FBRD / 64)) = 4 * clock / (64 * IBRD + FBRD). */
		uint32_t q = ibrd * 64u + fbrd;
		baud->actual_baud = pl011_divide_product(config->clock_hz, 4u, q / 2u, q);
	}
	if (baud->actual_baud == 0)
		return PL011_EBAUD;
	/* BRK is an action, not part of the line; the FIFOs are the driver's premise. */
	*lcr_h = (pl011_io_read(config->base + PL011_LCR_H) & ~PL011_LCR_H_BRK) | PL011_LCR_H_FEN;
	return 0;
}

bool pl011_line_keeps_format(const struct pl011 *uart)
{
	return uart->line.adopted != 0 &&
	       (pl011_reg_read(uart, PL011_FR) & PL011_FR_TXFE) != 0;
}

const struct pl011_adopt_driver pl011_adopt_driver = {
	.read_line = pl011_line_adopt,
};
