/* Receive path: error decoding, the interrupt drain with back-pressure, overrun counting, read. */
#include "pl011_internal.h"

int pl011_rx_decode(struct pl011 *uart, uint32_t dr)
{
	/* The overrun DR.OE reports was counted when MIS or RSR showed it, which they do at once,
	 * where DR.OE waits for a next character that a trailing overrun never has. A break is
	 * counted once, as a break (pl011_hw_decode_dr). */
	int byte = pl011_hw_decode_dr(dr);
	if (byte == PL011_EBREAK)
		uart->stats.rx_break++;
	else if (byte == PL011_EFRAMING)
		uart->stats.rx_framing++;
	else if (byte == PL011_EPARITY)
		uart->stats.rx_parity++;
	return byte;
}

#if PL011_INTERRUPTS
/* ---- back-pressure (interrupt modes) ----
 *
 * When the ring cannot take the next character the handler leaves it in the FIFO and masks RX
 * and RT (RT would fire again at once while data waits: embassy-rp found that on the RP2040's
 * PL011). The FIFO then fills: with PL011_FLAG_RTS_CTS the PL011 deasserts nUARTRTS once the
 * FIFO holds the RX trigger level, its watermark, and the sender stops after the character it
 * is sending (TRM, "Hardware flow control"; the same words in AMD's Versal TRM AM011, "RTS
 * Flow Control", whose UART is a PL011). Without it the FIFO adds its entries to the buffering
 * and then characters are lost: OE is masked too, or each lost character would cost an
 * interrupt while the reader needs the CPU to catch up; RIS keeps its latch, so the resume's
 * unmask brings one OE interrupt that counts the pause's overrun.
 * The pause is the state of those bits in the IMSC word, so that one swap changes both what
 * IMSC holds and whether RX is paused: a writer of TXIM, or a reader preempted in its resume,
 * can never leave RX unmasked with the pause on record.
 * The reader unmasks them once it has freed a FIFO's worth of ring (or the whole ring, if
 * smaller): the handler then takes in a full FIFO at once instead of being paused again after
 * every byte the reader takes.
 */

static size_t resume_room(const struct pl011 *uart)
{
	size_t depth = uart->line.fifo_depth;
	return depth < uart->rx.ring.size ? depth : uart->rx.ring.size;
}

static uint32_t pause_bits(const struct pl011 *uart)
{
	return uart->line.rx_imsc & PL011_RX_PAUSE_BITS;
}

bool pl011_rx_paused(const struct pl011 *uart)
{
	uint32_t bits = pause_bits(uart);
	pl011_io_atomic_point();
	return bits != 0 && (pl011_atomic_load(&uart->imsc, __ATOMIC_SEQ_CST) & bits) == 0;
}

/* Unmask RX, RT and OE if RX is paused and the ring has room; either side may call it. One
 * swap ends the pause, so two contexts that both see room unmask once. */
static void rx_resume_if_room(struct pl011 *uart)
{
	uint32_t bits = pause_bits(uart);
	if (!pl011_rx_paused(uart) || pl011_ring_space(&uart->rx.ring) < resume_room(uart))
		return;
	pl011_io_atomic_point();
	uint32_t word = pl011_atomic_load(&uart->imsc, __ATOMIC_SEQ_CST);
	while ((word & bits) == 0) {
		pl011_io_atomic_rmw_point();
		if (pl011_atomic_swap(&uart->imsc, &word, word | bits)) {
			pl011_imsc_publish(uart);
			return;
		}
	}
}

/* Handler only. Mask (which is the pause), then look at the ring again: a reader that freed
 * room before it could see the pause is seen here, and one that sees the pause finds RX
 * masked. IMSC is written even when the word was paused already: a stale write may have
 * unmasked RX, which is how the handler got here. */
static void rx_pause(struct pl011 *uart)
{
	uint32_t bits = pause_bits(uart);
	if ((pl011_imsc_update(uart, bits, 0) & bits) != 0)
		PL011_COUNT(uart, rx_pauses, 1);
	pl011_atomic_fence();
	rx_resume_if_room(uart);
}

/*
 * Move up to limit characters from the FIFO into the ring, each only once the ring has room for
 * it. Bad characters are counted and dropped. Returns whether it stopped because the ring was
 * full with a character waiting.
 */
static bool drain_fifo(struct pl011 *uart, struct pl011_ring *ring, uint32_t limit)
{
	uint8_t *segment = NULL;
	size_t room = 0;
	size_t filled = 0;
	bool full = false;
	for (uint32_t i = 0; i < limit; i++) {
		if (pl011_reg_read(uart, PL011_FR) & PL011_FR_RXFE)
			break;
		if (filled == room) {
			pl011_ring_commit(ring, filled);
			filled = 0;
			room = pl011_ring_reserve(ring, &segment);
			if (room == 0) {
				full = true;
				break;
			}
		}
		int byte = pl011_rx_decode(uart, pl011_reg_read(uart, PL011_DR));
		if (byte < 0)
			continue;
		segment[filled++] = (uint8_t)byte;
		PL011_COUNT(uart, rx_bytes, 1);
	}
	pl011_ring_commit(ring, filled);
	return full;
}

/*
 * Bounded by two FIFOs' worth per call: characters arriving while we drain are caught by the
 * next pass or by RT. MIS.OE is set when the overrun happens (TRM 3.3.2: OE in RSR and the
 * interrupt at once, DR.OE on the next character in), and the handler acknowledges it before
 * this runs: each OE cause is one overrun event (one or more characters lost) counted once.
 */
void pl011_rx_service(struct pl011 *uart, uint32_t mis)
{
	if (mis & PL011_INT_OE)
		uart->stats.rx_overrun++;
	if (drain_fifo(uart, &uart->rx.ring, 2u * uart->line.fifo_depth))
		rx_pause(uart);
	else
		rx_resume_if_room(uart);
}
#endif

/* ---- overruns nobody saw, init and shutdown ---- */

/*
 * RX_POLLED, after a call read DR: RSR.OE is set at the overrun (TRM 3.3.2) and stays until a
 * write to ECR. Looking after every call that read something is enough: an overrun needs a full
 * FIFO, which stays non-empty until this reader reads it, so a call that finds the FIFO empty
 * has nothing unseen before it.
 */
static void count_polled_overrun(struct pl011 *uart)
{
	if ((pl011_reg_read(uart, PL011_RSR_ECR) & PL011_RSR_OE) == 0)
		return;
	uart->stats.rx_overrun++;
	pl011_reg_write(uart, PL011_RSR_ECR, 0);
}

/* With the interrupt masked an overrun shows only in the raw status. */
void pl011_rx_count_masked_overrun(struct pl011 *uart)
{
	if (!pl011_rx_uses_ring(uart)) {
		count_polled_overrun(uart);
		return;
	}
	if ((pl011_reg_read(uart, PL011_RIS) & PL011_INT_OE) == 0)
		return;
	uart->stats.rx_overrun++;
	pl011_reg_write(uart, PL011_ICR, PL011_INT_OE);
}

static void discard_fifo(struct pl011 *uart, uint32_t limit)
{
	for (uint32_t i = 0; i < limit; i++) {
		if (pl011_reg_read(uart, PL011_FR) & PL011_FR_RXFE)
			return;
		if (pl011_rx_decode(uart, pl011_reg_read(uart, PL011_DR)) >= 0)
			uart->stats.rx_discarded++;
	}
}

#if PL011_INTERRUPTS
void pl011_rx_take_fifo(struct pl011 *uart, struct pl011_ring *received)
{
	uint32_t limit = 2u * uart->line.fifo_depth;
	(void)drain_fifo(uart, received, limit);
	discard_fifo(uart, limit);
}
#endif

void pl011_rx_discard_fifo(struct pl011 *uart)
{
	discard_fifo(uart, 2u * uart->line.fifo_depth);
}

#if PL011_INTERRUPTS
static void attach_ring(struct pl011 *uart, const struct pl011_config *config)
{
	(void)pl011_ring_init(&uart->rx.ring, config->rx_buffer, config->rx_buffer_size);
}

/* Here, below lib/pl011.c, for the events' part too. */
void pl011_start_unmask(struct pl011 *uart)
{
	pl011_io_barrier(); /* RUNNING seen by another core before its interrupt comes */
	pl011_imsc_publish(uart);
}

const struct pl011_rx_ring_driver pl011_rx_ring_driver = {
	.attach = attach_ring,
	.take_fifo = pl011_rx_take_fifo,
	.unmask = pl011_start_unmask,
};

/* Whether two rings' storage shares a byte without being the same ring storage. */
static bool storage_overlaps(const struct pl011_ring *a, const struct pl011_ring *b)
{
	uintptr_t a_start = (uintptr_t)a->storage;
	uintptr_t b_start = (uintptr_t)b->storage;
	return a_start < b_start + b->size && b_start < a_start + a->size;
}

static void reverse_bytes(uint8_t *bytes, size_t from, size_t to)
{
	while (from + 1u < to) {
		to--;
		uint8_t byte = bytes[from];
		bytes[from] = bytes[to];
		bytes[to] = byte;
		from++;
	}
}

/* memmove, which the library may not call (only memcpy and memset): byte stores in the
 * direction the overlap needs, relaxed atomic so that the compiler does not make them a
 * memmove call again. */
static void move_bytes(uint8_t *to, const uint8_t *from, size_t count)
{
	if ((uintptr_t)to <= (uintptr_t)from) {
		for (size_t i = 0; i < count; i++)
			__atomic_store_n(&to[i], from[i], __ATOMIC_RELAXED);
	} else {
		for (size_t i = count; i-- > 0;)
			__atomic_store_n(&to[i], from[i], __ATOMIC_RELAXED);
	}
}

/*
 * The new ring (empty) reuses storage of the old one: the old buffer at another size, or a part
 * of it. Line the old bytes up, oldest first, at the start of the old storage (where they wrap,
 * by three reversals in place), then move as many as fit to the new ring's start, which
 * move_bytes does whatever the overlap. The rest stay in *from, to be counted.
 */
static void carry_within(struct pl011 *uart, struct pl011_ring *from)
{
	size_t count = pl011_ring_count(from);
	size_t offset = from->tail & (from->size - 1u);
	if (offset + count > from->size) {
		reverse_bytes(from->storage, 0, offset);
		reverse_bytes(from->storage, offset, from->size);
		reverse_bytes(from->storage, 0, from->size);
		offset = 0;
	}
	uint8_t *segment;
	size_t room = pl011_ring_reserve(&uart->rx.ring, &segment);
	size_t moved = count < room ? count : room;
	move_bytes(segment, from->storage + offset, moved);
	pl011_ring_commit(&uart->rx.ring, moved);
	from->head = (uint32_t)(count - moved);
	from->tail = 0;
}

void pl011_rx_carry_over(struct pl011 *uart, const struct pl011_ring *old)
{
	struct pl011_ring from = *old;
	if (pl011_rx_uses_ring(uart) && pl011_ring_count(&from) != 0) {
		if (from.storage == uart->rx.ring.storage && from.size == uart->rx.ring.size) {
			uart->rx.ring = from; /* the same storage: the bytes are already there */
			return;
		}
		/* A copy within storage that the new ring reuses would overwrite what it copies. */
		if (storage_overlaps(&from, &uart->rx.ring)) {
			if (pl011_ring_count(&uart->rx.ring) == 0)
				carry_within(uart, &from);
		} else {
			for (bool copy = true; copy;) {
				uint8_t *segment;
				size_t room = pl011_ring_reserve(&uart->rx.ring, &segment);
				size_t moved = pl011_ring_read(&from, segment, room);
				pl011_ring_commit(&uart->rx.ring, moved);
				copy = moved != 0;
			}
		}
	}
	uart->stats.rx_discarded += (uint32_t)pl011_ring_count(&from);
}
#endif

/* ---- the reader ---- */

/* RX_POLLED: read good characters straight from the FIFO, skipping (and counting) bad ones, with
 * at most a FIFO's worth of reads beyond len: on a line as fast as the reader a sender of
 * nothing but bad characters (a wrong baud) would otherwise keep the loop going past every
 * bound of the callers (pl011_read's wait, pl011_read_exact, pl011_discard_input). */
static size_t read_fifo(struct pl011 *uart, uint8_t *data, size_t len)
{
	size_t done = 0;
	bool read_any = false;
	size_t reads_left = len + uart->line.fifo_depth; /* len <= INT32_MAX: no wrap */
	while (done < len && reads_left != 0 &&
	       (pl011_reg_read(uart, PL011_FR) & PL011_FR_RXFE) == 0) {
		int byte = pl011_rx_decode(uart, pl011_reg_read(uart, PL011_DR));
		read_any = true;
		reads_left--;
		if (byte >= 0) {
			data[done++] = (uint8_t)byte;
			PL011_COUNT(uart, rx_bytes, 1);
		}
	}
	if (read_any)
		count_polled_overrun(uart);
	return done;
}

#if PL011_INTERRUPTS
static size_t read_ring(struct pl011 *uart, uint8_t *data, size_t len)
{
	size_t done = pl011_ring_read(&uart->rx.ring, data, len);
	if (done != 0) {
		/* Our tail store before the handler's next look at the pause (rx_pause). */
		pl011_atomic_fence();
		rx_resume_if_room(uart);
	}
	return done;
}
#endif

static size_t read_available(struct pl011 *uart, uint8_t *data, size_t len)
{
#if PL011_INTERRUPTS
	if (pl011_rx_uses_ring(uart))
		return read_ring(uart, data, len);
#endif
	return read_fifo(uart, data, len);
}

int pl011_read(struct pl011 *uart, void *data, size_t len, uint32_t bound_us)
{
	if (uart == NULL || (data == NULL && len != 0) || len > INT32_MAX)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	size_t done = read_available(uart, data, len);
	if (done != 0 || len == 0 || bound_us == PL011_NO_WAIT)
		return (int)done;
	if (bound_us == PL011_WAIT_AUTO)
		bound_us = pl011_backlog_deadline_us(uart, len);

	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, bound_us);
	while (done == 0 && !pl011_wait_expired(&wait)) {
		/* The FR read is the wait's step: it paces the loop on the bus. */
		uint32_t fr = pl011_reg_read(uart, PL011_FR);
		if (pl011_rx_uses_ring(uart) || (fr & PL011_FR_RXFE) == 0)
			done = read_available(uart, data, len);
	}
	return (int)done;
}

int pl011_getc(struct pl011 *uart)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
#if PL011_INTERRUPTS
	if (pl011_rx_uses_ring(uart)) {
		uint8_t byte;
		return read_ring(uart, &byte, 1) == 1 ? byte : PL011_EAGAIN;
	}
#endif
	if (pl011_reg_read(uart, PL011_FR) & PL011_FR_RXFE)
		return PL011_EAGAIN;
	int byte = pl011_rx_decode(uart, pl011_reg_read(uart, PL011_DR));
	count_polled_overrun(uart);
	if (byte >= 0)
		PL011_COUNT(uart, rx_bytes, 1);
	return byte;
}
