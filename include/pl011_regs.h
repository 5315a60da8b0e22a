/* PL011 register offsets and bit masks, named as ARM DDI 0183 (PL011 TRM r1p5) names them. */
#ifndef PL011_REGS_H
#define PL011_REGS_H

/* Register offsets from the UART base (TRM 3.3, table 3-1). */
#define PL011_DR 0x000u
#define PL011_RSR_ECR 0x004u
#define PL011_FR 0x018u
#define PL011_ILPR 0x020u
#define PL011_IBRD 0x024u
#define PL011_FBRD 0x028u
#define PL011_LCR_H 0x02Cu
#define PL011_CR 0x030u
#define PL011_IFLS 0x034u
#define PL011_IMSC 0x038u
#define PL011_RIS 0x03Cu
#define PL011_MIS 0x040u
#define PL011_ICR 0x044u
#define PL011_DMACR 0x048u
#define PL011_PERIPHID0 0xFE0u
#define PL011_PERIPHID1 0xFE4u
#define PL011_PERIPHID2 0xFE8u
#define PL011_PERIPHID3 0xFECu
#define PL011_CELLID0 0xFF0u
#define PL011_CELLID1 0xFF4u
#define PL011_CELLID2 0xFF8u
#define PL011_CELLID3 0xFFCu

/* DR (TRM 3.3.1): on read, bits 11:8 are the error flags of that character. */
#define PL011_DR_DATA 0x0FFu
#define PL011_DR_FE (1u << 8)
#define PL011_DR_PE (1u << 9)
#define PL011_DR_BE (1u << 10)
#define PL011_DR_OE (1u << 11)
#define PL011_DR_ERRORS (PL011_DR_FE | PL011_DR_PE | PL011_DR_BE | PL011_DR_OE)

/* RSR/ECR (TRM 3.3.2): any write clears all four. */
#define PL011_RSR_FE (1u << 0)
#define PL011_RSR_PE (1u << 1)
#define PL011_RSR_BE (1u << 2)
#define PL011_RSR_OE (1u << 3)

/* FR (TRM 3.3.3). BUSY stays set until the last stop bit of the last character has left. */
#define PL011_FR_CTS (1u << 0)
#define PL011_FR_DSR (1u << 1)
#define PL011_FR_DCD (1u << 2)
#define PL011_FR_BUSY (1u << 3)
#define PL011_FR_RXFE (1u << 4)
#define PL011_FR_TXFF (1u << 5)
#define PL011_FR_RXFF (1u << 6)
#define PL011_FR_TXFE (1u << 7)
#define PL011_FR_RI (1u << 8)

/* IBRD / FBRD (TRM 3.3.6). */
#define PL011_IBRD_MAX 0xFFFFu
#define PL011_FBRD_MASK 0x3Fu

/* LCR_H (TRM 3.3.7): writing it also latches IBRD and FBRD, so it is written last. */
#define PL011_LCR_H_BRK (1u << 0)
#define PL011_LCR_H_PEN (1u << 1)
#define PL011_LCR_H_EPS (1u << 2)
#define PL011_LCR_H_STP2 (1u << 3)
#define PL011_LCR_H_FEN (1u << 4)
#define PL011_LCR_H_WLEN_SHIFT 5u
#define PL011_LCR_H_WLEN_MASK (3u << PL011_LCR_H_WLEN_SHIFT)
#define PL011_LCR_H_WLEN_5 (0u << PL011_LCR_H_WLEN_SHIFT)
#define PL011_LCR_H_WLEN_6 (1u << PL011_LCR_H_WLEN_SHIFT)
#define PL011_LCR_H_WLEN_7 (2u << PL011_LCR_H_WLEN_SHIFT)
#define PL011_LCR_H_WLEN_8 (3u << PL011_LCR_H_WLEN_SHIFT)
#define PL011_LCR_H_SPS (1u << 7)

/* CR (TRM 3.3.8); reset value 0x300 (TXE | RXE). */
#define PL011_CR_UARTEN (1u << 0)
#define PL011_CR_SIREN (1u << 1)
#define PL011_CR_SIRLP (1u << 2)
#define PL011_CR_LBE (1u << 7)
#define PL011_CR_TXE (1u << 8)
#define PL011_CR_RXE (1u << 9)
#define PL011_CR_DTR (1u << 10)
#define PL011_CR_RTS (1u << 11)
#define PL011_CR_RTSEN (1u << 14)
#define PL011_CR_CTSEN (1u << 15)

/* IFLS (TRM 3.3.9): level code 0..4 = 1/8, 1/4, 1/2, 3/4, 7/8 full. Reset 0x12. */
#define PL011_IFLS_TXIFLSEL_SHIFT 0u
#define PL011_IFLS_RXIFLSEL_SHIFT 3u
#define PL011_IFLS_LEVEL_MASK 7u

/*
 * Interrupt bits, at the same position in IMSC, RIS, MIS and ICR (TRM 3.3.10 to 3.3.13):
 * the TRM calls them xxxIM, xxxRIS, xxxMIS and xxxIC; one name serves all four here.
 */
#define PL011_INT_RI (1u << 0)
#define PL011_INT_CTS (1u << 1)
#define PL011_INT_DCD (1u << 2)
#define PL011_INT_DSR (1u << 3)
#define PL011_INT_RX (1u << 4)
#define PL011_INT_TX (1u << 5)
#define PL011_INT_RT (1u << 6)
#define PL011_INT_FE (1u << 7)
#define PL011_INT_PE (1u << 8)
#define PL011_INT_BE (1u << 9)
#define PL011_INT_OE (1u << 10)
#define PL011_INT_ERRORS (PL011_INT_FE | PL011_INT_PE | PL011_INT_BE | PL011_INT_OE)
#define PL011_INT_MODEM (PL011_INT_RI | PL011_INT_CTS | PL011_INT_DCD | PL011_INT_DSR)
#define PL011_INT_ALL 0x7FFu

/* PeriphID2 bits 7:4 (TRM 3.3.15): revision 3 (r1p5) and later have 32-entry FIFOs. */
#define PL011_PERIPHID2_REVISION_SHIFT 4u
#define PL011_PERIPHID2_REVISION_MASK 0xFu
#define PL011_REVISION_32_DEEP_FIFO 3u

/* PCellID0-3 (TRM 3.3.16): low bytes 0x0D, 0xF0, 0x05, 0xB1, the PrimeCell preamble; read as
 * one word, PCellID0 the lowest byte. */
#define PL011_CELLID_BYTE_MASK 0xFFu
#define PL011_CELLID_PRIMECELL 0xB105F00Du

#endif
