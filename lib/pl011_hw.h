/* The register steps that need no instance: the early console and the instance's start and line
 * change share them. Inline: a firmware calls each once or twice, and a call would cost more
 * than its few accesses; pl011_compute_baud is lib/pl011_hw.c's. */
#ifndef PL011_HW_H
#define PL011_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "pl011.h"
#include "pl011_io.h"
#include "pl011_regs.h"

/* TXFE alone is not "sent": BUSY covers the character still shifting (TRM 3.3.3, FR). */
#define PL011_FR_DRAINED_MASK (PL011_FR_TXFE | PL011_FR_BUSY)
#define PL011_FR_DRAINED PL011_FR_TXFE

/* TRM 3.3.16: the four PCellID registers read the PrimeCell preamble (reads only). */
static inline bool pl011_hw_is_primecell(uintptr_t base)
{
	uint32_t id = 0, shift = 0;
	for (uint32_t offset = PL011_CELLID0; offset <= PL011_CELLID3; offset += 4u, shift += 8u)
		id |= (pl011_io_read(base + offset) & PL011_CELLID_BYTE_MASK) << shift;
	return id == PL011_CELLID_PRIMECELL;
}

/* Flush both FIFOs: FEN set, then cleared, the flush happening as it goes to 0 (TRM 3.3.7), so
 * that a port that ran without FIFOs (FEN already clear) drops the character in its holding
 * register too, which it would otherwise send before the next run's data. BRK is cleared. */
static inline void pl011_hw_flush_fifos(uintptr_t base)
{
	uint32_t lcr_h = pl011_io_read(base + PL011_LCR_H) & ~PL011_LCR_H_BRK;
	pl011_io_write(base + PL011_LCR_H, lcr_h | PL011_LCR_H_FEN);
	pl011_io_write(base + PL011_LCR_H, lcr_h & ~PL011_LCR_H_FEN);
}

/* IBRD, FBRD, then LCR_H, whose write latches all three (TRM 3.3.7); the UART disabled. */
static inline void pl011_hw_program_line(uintptr_t base, const struct pl011_baud *baud,
					 uint32_t lcr_h)
{
	pl011_io_write(base + PL011_IBRD, baud->ibrd);
	pl011_io_write(base + PL011_FBRD, baud->fbrd);
	/* LCR_H last: its write latches IBRD and FBRD too (TRM 3.3.7). */
	pl011_io_write(base + PL011_LCR_H, lcr_h);
}

/* A DR read as getc returns it: the byte, or the error it carries. A break also shows FE (the
 * stop bit is low too), so BE is looked at first; DR.OE only says an earlier character was lost
 * (TRM 3.3.1), this one is whole. */
static inline int pl011_hw_decode_dr(uint32_t dr)
{
	if (dr & PL011_DR_BE)
		return PL011_EBREAK;
	if (dr & PL011_DR_FE)
		return PL011_EFRAMING;
	if (dr & PL011_DR_PE)
		return PL011_EPARITY;
	return (int)(dr & PL011_DR_DATA);
}

#endif
