/*
 * The early console: a PL011 programmed and used with no instance, polled, through the I/O
 * functions. Enough for a boot loader, a firmware that only prints, or to say why pl011_init
 * failed; every wait is PL011_EARLY_SPINS FR reads at most.
 */
#include "pl011_hw.h"
#include "pl011_io.h"

/* FR reads until (FR & mask) == value, at most PL011_EARLY_SPINS. */
static bool early_wait_fr(uintptr_t base, uint32_t mask, uint32_t value)
{
	for (uint32_t spins = 0; spins < PL011_EARLY_SPINS; spins++) {
		if ((pl011_io_read(base + PL011_FR) & mask) == value)
			return true;
	}
	return false;
}

static bool early_put(uintptr_t base, uint8_t byte)
{
	if (!early_wait_fr(base, PL011_FR_TXFF, 0))
		return false;
	pl011_io_write(base + PL011_DR, byte);
	return true;
}

/* A base the calls can read: not 0, word-aligned (a register access there would fault). */
static bool early_base_valid(uintptr_t base)
{
	return base != 0 && (base & 3u) == 0;
}

static bool early_enabled(uintptr_t base, uint32_t direction)
{
	uint32_t on = PL011_CR_UARTEN | direction;
	return (pl011_io_read(base + PL011_CR) & on) == on;
}

/* The TRM's sequence (3.3.8): disable, let the character in flight finish, flush the FIFOs,
 * then the divisors and format (LCR_H last, TRM 3.3.7) and enable. */
int pl011_early_init(uintptr_t base, uint32_t clock_hz, uint32_t baud)
{
	struct pl011_baud divisors;
	if (!early_base_valid(base))
		return PL011_EINVAL;
	int err = pl011_compute_baud(clock_hz, baud, 0, &divisors);
	if (err != 0)
		return err;
	if (!pl011_hw_is_primecell(base))
		return PL011_EINVAL; /* nothing written to a block that is no PL011 */
	uint32_t cr = pl011_io_read(base + PL011_CR);
	/* What an earlier owner (a boot loader) queued leaves before the flush, if it can. */
	if ((cr & (PL011_CR_UARTEN | PL011_CR_TXE)) == (PL011_CR_UARTEN | PL011_CR_TXE))
		(void)early_wait_fr(base, PL011_FR_DRAINED_MASK, PL011_FR_DRAINED);
	pl011_io_write(base + PL011_CR, cr & ~PL011_CR_UARTEN);
	(void)early_wait_fr(base, PL011_FR_BUSY, 0);
	pl011_hw_flush_fifos(base);
	pl011_io_write(base + PL011_IMSC, 0);
	pl011_io_write(base + PL011_ICR, PL011_INT_ALL);
	pl011_io_write(base + PL011_RSR_ECR, 0);
	pl011_hw_program_line(base, &divisors, PL011_LCR_H_FEN | PL011_LCR_H_WLEN_8);
	pl011_io_write(base + PL011_CR,
		       PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE | PL011_CR_RTS);
	return 0;
}

int pl011_early_write(uintptr_t base, const char *text, size_t len)
{
	if (!early_base_valid(base) || (text == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	if (!early_enabled(base, PL011_CR_TXE))
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

int pl011_early_getc(uintptr_t base)
{
	if (!early_base_valid(base))
		return PL011_EINVAL;
	if (!early_enabled(base, PL011_CR_RXE))
		return PL011_ESHUTDOWN;
	if (pl011_io_read(base + PL011_FR) & PL011_FR_RXFE)
		return PL011_EAGAIN;
	return pl011_hw_decode_dr(pl011_io_read(base + PL011_DR));
}
