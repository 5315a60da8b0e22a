/* Discrete-event behavioural PL011 model: registers, FIFOs, line timing, interrupts, CPU costs. */
#include "pl011_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl011_io.h"
#include "pl011_regs.h"

#define FIFO_MAX 32u
#define RT_BIT_PERIODS 32u          /* TRM 2.8: receive timeout after 32 idle bit periods */
#define STORM_LIMIT 10000000u       /* dispatches without time moving: the handler never clears */
#define MAX_JITTER_NS (1ull << 40)  /* keeps the jitter arithmetic inside 64 bits */
#define NS_PER_S 1000000000ull

/*
 * Cost defaults, for an ARM11 / Cortex-A7 class core at 0.7-1 GHz (the project's boards):
 *  - read 50 ns: a device-memory load stalls the core for the whole round trip through the
 *    interconnect and the APB bridge to the UART; a handful of APB cycles at 100-250 MHz plus
 *    bridge overhead is 30-80 ns. 50 ns is the middle.
 *  - write 10 ns: device writes are posted into the write buffer; the core goes on after a few
 *    cycles, so the cost seen by the CPU is the issue cost, ~10 cycles.
 *  - clock read 50 ns: the boards' clocks (SP804, the Pi system timer) are device reads too.
 *  - IRQ entry 300 ns: exception entry and register save, one or two acknowledge reads of the
 *    interrupt controller (each a device read), the dispatch, the end-of-interrupt write and the
 *    return: 200-400 cycles at 1 GHz.
 *  - latency 1000 ns: assertion to handler on an idle bare-metal system: controller
 *    synchronisation plus finishing the current short IRQ-masked section. The loaded-CPU mode
 *    adds jitter for long masked sections and other handlers.
 */
void pl011_model_default_config(struct pl011_model_config *config)
{
	memset(config, 0, sizeof(*config));
	config->base = 0x101F1000u;
	config->uartclk_hz = 48000000u;
	config->fifo_depth = 16;
	config->read_cost_ns = 50;
	config->write_cost_ns = 10;
	config->clock_read_cost_ns = 50;
	config->irq_entry_cost_ns = 300;
	config->irq_latency_ns = 1000;
	config->latency_seed = 1;
	config->latency_jitter_ns = 0;
	config->time_limit_ns = 60ull * NS_PER_S;
}

struct rx_event {
	uint64_t at;
	uint16_t value; /* data | DR error bits */
};

struct pl011_model {
	struct pl011_model_config cfg;
	uint64_t now;
	struct pl011_model_counters c;

	/* Registers. IBRD/FBRD writes go to holding registers; the LCR_H write latches them with
	 * LCR_H itself (TRM 3.3.7), and only the latched copies drive the line. */
	uint32_t ibrd_hold, fbrd_hold;
	uint32_t ibrd, fbrd, lcr_h;
	uint32_t cr, ifls, imsc, ris, dmacr, ilpr, rsr;
	uint32_t last_dr; /* what a read of an empty RX FIFO returns */

	/* TX: FIFO (or the one-entry holding register when FEN=0) and the shift register. */
	uint8_t txf[FIFO_MAX];
	unsigned tx_head, tx_count;
	bool shifting;
	uint8_t shift_byte;
	uint64_t shift_start, shift_end;
	bool tx_irq_broken, tx_stalled, cts;

	/* RX: FIFO, overrun carry, receive-timeout timer, characters still on their way. */
	uint16_t rxf[FIFO_MAX];
	unsigned rx_head, rx_count;
	bool oe_pending;
	bool rt_armed;
	uint64_t rt_deadline;
	struct rx_event *rxq;
	size_t rxq_first, rxq_end, rxq_cap;

	/* The RX line partner: a sender that may honour nUARTRTS. */
	uint8_t *partner_data;
	size_t partner_len, partner_next;
	uint64_t partner_frame_ns, partner_end;
	bool partner_sending, partner_honours_rts;

	/* Interrupt delivery. */
	void (*handler)(void *context);
	void *handler_context;
	bool irq_pending, in_irq;
	uint64_t irq_at;
	uint32_t rng;
	uint64_t (*latency_fn)(void *context, uint64_t now_ns); /* NULL: the config's latency */
	void *latency_context;
	uint64_t storm_now, storm_count;

	/* Underrun accounting. */
	size_t (*probe)(void *context);
	void *probe_context;
	bool underrun_idle;
	uint64_t underrun_since;

	/* What reached the wire. */
	uint8_t *wire_byte;
	uint64_t *wire_start, *wire_end;
	size_t wire_len, wire_cap;
	/* Line control (issue 23): the latched divisor (64 * IBRD + FBRD) and LCR_H each frame
	 * was sent with, and the modem status inputs DSR, DCD, RI as FR bits. */
	uint32_t *wire_divisor, *wire_lcr_h;
	uint32_t modem_inputs;
	uint64_t *brk_start, *brk_end;
	size_t brk_len, brk_cap;
	/* nUARTRTS edges made by CR writes (RS-485 driver enable): time and the new level. */
	uint64_t *rts_at;
	bool *rts_to;
	size_t rts_len, rts_cap;
	bool rts_last;
};

static struct pl011_model *registry[PL011_MODEL_MAX];
static void (*preempt_hook)(void *context);
static void *preempt_context;

static void run_until(struct pl011_model *m, uint64_t budget_ns);

/* ---------------------------------------------------------------- helpers */

static void fail(const char *what, uintptr_t detail)
{
	fprintf(stderr, "pl011_model: %s (0x%lx)\n", what, (unsigned long)detail);
	abort();
}

static void *grow(void *array, size_t *cap, size_t elem)
{
	size_t new_cap = *cap ? *cap * 2u : 64u;
	void *p = realloc(array, new_cap * elem);
	if (!p)
		fail("out of memory", new_cap);
	*cap = new_cap;
	return p;
}

/* xorshift32 (Marsaglia 2003): tiny, deterministic for a seed, good enough for jitter. */
static uint32_t xorshift32(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

static bool fen(const struct pl011_model *m)
{
	return (m->lcr_h & PL011_LCR_H_FEN) != 0;
}

/* FEN=0 turns each FIFO into a one-character holding register (TRM 2.4.4). */
static unsigned eff_depth(const struct pl011_model *m)
{
	return fen(m) ? m->cfg.fifo_depth : 1u;
}

/* IFLS code 0..4 = 1/8, 1/4, 1/2, 3/4, 7/8 of the depth (TRM 3.3.9); reserved codes act as 1/2. */
static unsigned level_entries(const struct pl011_model *m, uint32_t code)
{
	static const unsigned eighths[5] = {1, 2, 4, 6, 7};
	if (code > 4u)
		code = 2u;
	return m->cfg.fifo_depth * eighths[code] / 8u;
}

/* TX fires when the level drops to <= this; with FEN=0, when the holding register empties. */
static unsigned tx_trigger(const struct pl011_model *m)
{
	return fen(m) ? level_entries(m, m->ifls & PL011_IFLS_LEVEL_MASK) : 0u;
}

/* RX fires while the level is >= this; with FEN=0, when the holding register fills. */
static unsigned rx_trigger(const struct pl011_model *m)
{
	uint32_t code = (m->ifls >> PL011_IFLS_RXIFLSEL_SHIFT) & PL011_IFLS_LEVEL_MASK;
	return fen(m) ? level_entries(m, code) : 1u;
}

/* 1 start + 5..8 data + optional parity + 1 or 2 stop (TRM 2.4.3, LCR_H fields). */
static uint64_t frame_bits(const struct pl011_model *m)
{
	uint64_t data = 5u + ((m->lcr_h & PL011_LCR_H_WLEN_MASK) >> PL011_LCR_H_WLEN_SHIFT);
	uint64_t parity = (m->lcr_h & PL011_LCR_H_PEN) ? 1u : 0u;
	uint64_t stop = (m->lcr_h & PL011_LCR_H_STP2) ? 2u : 1u;
	return 1u + data + parity + stop;
}

/* One bit is 16 * (IBRD + FBRD/64) UARTCLK cycles: bits * (64*IBRD + FBRD) / (4 * UARTCLK) s. */
static uint64_t line_ns(const struct pl011_model *m, uint64_t bits)
{
	uint64_t div = (uint64_t)m->ibrd * 64u + m->fbrd;
	uint64_t den = 4u * (uint64_t)m->cfg.uartclk_hz;
	uint64_t ns = (bits * div * NS_PER_S + den / 2u) / den;
	return ns ? ns : 1u;
}

static bool tx_busy(const struct pl011_model *m)
{
	return m->tx_count > 0 || m->shifting;
}

/* ---------------------------------------------------------------- interrupt line */

/* Loaded CPU: a truncated Pareto-like tail. With u uniform in (0, 1], jitter =
 * J/100 * (1/u - 1) capped at J: median J/100, about 1% of dispatches wait the full J. */
static uint64_t draw_latency(struct pl011_model *m)
{
	if (m->latency_fn != NULL)
		return m->latency_fn(m->latency_context, m->now);
	uint64_t j_max = m->cfg.latency_jitter_ns;
	if (j_max == 0)
		return m->cfg.irq_latency_ns;
	const uint64_t scale = 1ull << 24;
	uint64_t u = (uint64_t)(xorshift32(&m->rng) >> 8) + 1u; /* 1 .. 2^24 */
	uint64_t j = j_max * (scale - u) / (100u * u);
	if (j > j_max)
		j = j_max;
	return m->cfg.irq_latency_ns + j;
}

/*
 * Level-sensitive line = (RIS & IMSC) != 0. On assertion a dispatch is scheduled one latency
 * later; if the line drops before then the dispatch is cancelled (the CPU samples the level),
 * and a new assertion starts a new latency. Inside the handler nothing is scheduled (IRQs are
 * masked); the dispatcher re-checks the line when the handler returns.
 */
static void update_line(struct pl011_model *m)
{
	bool line = (m->ris & m->imsc) != 0;
	if (line && !m->irq_pending && !m->in_irq && m->handler) {
		m->irq_pending = true;
		m->irq_at = m->now + draw_latency(m);
	} else if (!line && m->irq_pending) {
		m->irq_pending = false;
	}
}

static void set_ris(struct pl011_model *m, uint32_t bits)
{
	m->ris |= bits;
	update_line(m);
}

static void clear_ris(struct pl011_model *m, uint32_t bits)
{
	m->ris &= ~bits;
	update_line(m);
}

/* CPU time spent by driver code (an access, a clock read, an IRQ entry): events run meanwhile. */
static void spend(struct pl011_model *m, uint64_t ns)
{
	m->c.cpu_ns += ns;
	if (m->in_irq)
		m->c.irq_cpu_ns += ns;
	run_until(m, ns);
}

static void dispatch_irq(struct pl011_model *m)
{
	m->irq_pending = false;
	if (m->now == m->storm_now) {
		if (++m->storm_count > STORM_LIMIT)
			fail("interrupt storm: handler dispatched 10M times without time moving",
			     m->ris & m->imsc);
	} else {
		m->storm_now = m->now;
		m->storm_count = 0;
	}
	m->c.irq_dispatches++;
	m->in_irq = true;
	spend(m, m->cfg.irq_entry_cost_ns);
	m->handler(m->handler_context);
	m->in_irq = false;
	update_line(m); /* still asserted: dispatch again one latency later */
}

/* ---------------------------------------------------------------- TX */

static void record_wire(struct pl011_model *m)
{
	if (m->wire_len == m->wire_cap) {
		size_t cap = m->wire_cap;
		m->wire_byte = grow(m->wire_byte, &cap, sizeof(*m->wire_byte));
		cap = m->wire_cap;
		m->wire_start = grow(m->wire_start, &cap, sizeof(*m->wire_start));
		cap = m->wire_cap;
		m->wire_end = grow(m->wire_end, &cap, sizeof(*m->wire_end));
		cap = m->wire_cap;
		m->wire_divisor = grow(m->wire_divisor, &cap, sizeof(*m->wire_divisor));
		cap = m->wire_cap;
		m->wire_lcr_h = grow(m->wire_lcr_h, &cap, sizeof(*m->wire_lcr_h));
		m->wire_cap = cap;
	}
	/* The latched copies drive the frame; a change while it shifts is counted apart
	 * (reprogram_while_shifting), so the values at its end are the ones it was sent with. */
	m->wire_divisor[m->wire_len] = m->ibrd * 64u + m->fbrd;
	m->wire_lcr_h[m->wire_len] = m->lcr_h & ~PL011_LCR_H_BRK;
	m->wire_byte[m->wire_len] = m->shift_byte;
	m->wire_start[m->wire_len] = m->shift_start;
	m->wire_end[m->wire_len] = m->shift_end;
	m->wire_len++;
	m->c.tx_wire_bytes++;
}

/* TRM 2.8 transition rule: TXRIS sets when the level goes from above the trigger to at or
 * below it; a level that merely sits low (UART just enabled, TXIM just unmasked) never sets it. */
static uint8_t tx_pop(struct pl011_model *m)
{
	unsigned before = m->tx_count;
	uint8_t b = m->txf[m->tx_head];
	m->tx_head = (m->tx_head + 1u) % FIFO_MAX;
	m->tx_count--;
	unsigned trig = tx_trigger(m);
	if (!m->tx_irq_broken && before > trig && m->tx_count <= trig)
		set_ris(m, PL011_INT_TX);
	return b;
}

static bool tx_can_start(const struct pl011_model *m)
{
	if (m->shifting || m->tx_count == 0)
		return false;
	if (!(m->cr & PL011_CR_UARTEN) || !(m->cr & PL011_CR_TXE))
		return false;
	if (m->tx_stalled || ((m->cr & PL011_CR_CTSEN) && !m->cts))
		return false;
	/* Modelling choice: a held break keeps new characters in the FIFO; IBRD=0 is invalid
	 * (TRM 3.3.6) and stops the transmitter rather than sending at an undefined rate. */
	if ((m->lcr_h & PL011_LCR_H_BRK) || m->ibrd == 0)
		return false;
	return true;
}

/* Move the oldest FIFO entry into the shift register if the transmitter may run now. */
static void tx_kick(struct pl011_model *m)
{
	if (!tx_can_start(m))
		return;
	m->shift_byte = tx_pop(m);
	m->shifting = true;
	m->shift_start = m->now;
	m->shift_end = m->now + line_ns(m, frame_bits(m)); /* settings latched now */
	if (m->underrun_idle) {
		m->c.underrun_idle_ns += m->now - m->underrun_since;
		m->underrun_idle = false;
	}
}

static void rx_arrive(struct pl011_model *m, uint16_t value);

static void tx_complete(struct pl011_model *m)
{
	m->shifting = false;
	record_wire(m);
	/* Loopback (TRM 3.3.8 LBE): the character is recorded on the wire and also received. */
	if (m->cr & PL011_CR_LBE)
		rx_arrive(m, m->shift_byte);
	tx_kick(m);
	if (!m->shifting && m->tx_count == 0 && m->probe && m->probe(m->probe_context) > 0) {
		m->c.underruns++;
		m->underrun_idle = true;
		m->underrun_since = m->now;
	}
}

static void dr_write(struct pl011_model *m, uint32_t value)
{
	if (m->tx_count >= eff_depth(m)) {
		m->c.tx_overflows++; /* the PL011 drops it silently; here it is a driver bug */
		return;
	}
	m->txf[(m->tx_head + m->tx_count) % FIFO_MAX] = (uint8_t)(value & PL011_DR_DATA);
	m->tx_count++;
	if (m->tx_count > tx_trigger(m))
		clear_ris(m, PL011_INT_TX);
	tx_kick(m);
}

/* ---------------------------------------------------------------- RX */

/*
 * nUARTRTS (TRM, "Hardware flow control"): with RTSEn it is asserted until the RX FIFO is
 * filled up to the watermark, the RX interrupt trigger level, and asserted again once reading
 * takes the FIFO below it; without RTSEn it follows CR.RTS.
 */
static bool rts_asserted(const struct pl011_model *m)
{
	if (m->cr & PL011_CR_RTSEN)
		return m->rx_count < rx_trigger(m);
	return (m->cr & PL011_CR_RTS) != 0;
}

/* The partner starts its next character if it has one and may: it looks at RTS only between
 * characters, so the one in flight always completes. */
static void partner_kick(struct pl011_model *m)
{
	if (m->partner_sending || m->partner_next >= m->partner_len)
		return;
	if (m->partner_honours_rts && !rts_asserted(m))
		return;
	m->partner_sending = true;
	m->partner_end = m->now + m->partner_frame_ns;
}

static uint32_t error_ints(uint16_t value)
{
	uint32_t ints = 0;
	if (value & PL011_DR_FE)
		ints |= PL011_INT_FE;
	if (value & PL011_DR_PE)
		ints |= PL011_INT_PE;
	if (value & PL011_DR_BE)
		ints |= PL011_INT_BE;
	return ints;
}

/* A character's stop bit has just ended on the RX line. */
static void rx_arrive(struct pl011_model *m, uint16_t value)
{
	if (!(m->cr & PL011_CR_UARTEN) || !(m->cr & PL011_CR_RXE)) {
		m->c.rx_dropped_disabled++;
		return;
	}
	m->rt_armed = true; /* reception activity restarts the 32-bit-period timeout */
	m->rt_deadline = m->now + line_ns(m, RT_BIT_PERIODS);
	if (m->rx_count >= eff_depth(m)) {
		/* TRM 3.3.2: overrun keeps the FIFO, loses the new character, sets OE at once; the
		 * next character that gets in carries DR.OE. */
		m->c.rx_overruns++;
		if ((m->ris & PL011_INT_OE) == 0)
			m->c.rx_overrun_events++;
		m->rsr |= PL011_RSR_OE;
		m->oe_pending = true;
		set_ris(m, PL011_INT_OE);
		return;
	}
	if (m->oe_pending) {
		value |= (uint16_t)PL011_DR_OE;
		m->oe_pending = false;
	}
	m->rxf[(m->rx_head + m->rx_count) % FIFO_MAX] = value;
	m->rx_count++;
	m->c.rx_received++;
	uint32_t ints = error_ints(value);
	/* TRM 2.8: RXRIS is raised when the FIFO *reaches* the trigger, i.e. on an arrival; an
	 * IFLS write alone does not raise it, and after ICR it waits for the next arrival. */
	if (m->rx_count >= rx_trigger(m))
		ints |= PL011_INT_RX;
	if (ints)
		set_ris(m, ints);
}

static uint32_t dr_read(struct pl011_model *m)
{
	if (m->rx_count == 0) {
		m->c.rx_empty_reads++;
		return m->last_dr;
	}
	uint16_t value = m->rxf[m->rx_head];
	m->rx_head = (m->rx_head + 1u) % FIFO_MAX;
	m->rx_count--;
	/* TRM 3.3.2: RSR shows the errors of the character just read (OE is set on overrun);
	 * the bits stay until a write to ECR. */
	m->rsr |= (uint32_t)(value & (PL011_DR_FE | PL011_DR_PE | PL011_DR_BE)) >> 8;
	uint32_t clear = 0;
	if (m->rx_count < rx_trigger(m))
		clear |= PL011_INT_RX;
	if (m->rx_count == 0) {
		clear |= PL011_INT_RT; /* emptying the FIFO clears the timeout (TRM 2.8) */
		m->rt_armed = false;
	}
	clear_ris(m, clear);
	m->last_dr = value;
	partner_kick(m);
	return value;
}

static void rt_expire(struct pl011_model *m)
{
	m->rt_armed = false;
	if (m->rx_count > 0)
		set_ris(m, PL011_INT_RT);
}

static void rxq_push(struct pl011_model *m, uint64_t at, uint16_t value)
{
	if (m->rxq_end == m->rxq_cap) {
		if (m->rxq_first > 0) {
			memmove(m->rxq, m->rxq + m->rxq_first,
				(m->rxq_end - m->rxq_first) * sizeof(*m->rxq));
			m->rxq_end -= m->rxq_first;
			m->rxq_first = 0;
		}
		if (m->rxq_end == m->rxq_cap)
			m->rxq = grow(m->rxq, &m->rxq_cap, sizeof(*m->rxq));
	}
	/* Keep arrival order sorted; equal times keep injection order. */
	size_t i = m->rxq_end;
	while (i > m->rxq_first && m->rxq[i - 1].at > at) {
		m->rxq[i] = m->rxq[i - 1];
		i--;
	}
	m->rxq[i].at = at;
	m->rxq[i].value = value;
	m->rxq_end++;
}

/* ---------------------------------------------------------------- event loop */

enum event { EV_NONE, EV_TX_DONE, EV_RX_ARRIVE, EV_PARTNER, EV_RT, EV_IRQ };

/* Earliest due event; ties go in the order TX, RX, RT, IRQ so the handler sees settled state. */
static enum event next_event(const struct pl011_model *m, uint64_t *at)
{
	enum event kind = EV_NONE;
	uint64_t t = UINT64_MAX;
	if (m->shifting && m->shift_end < t) {
		t = m->shift_end;
		kind = EV_TX_DONE;
	}
	if (m->rxq_first < m->rxq_end && m->rxq[m->rxq_first].at < t) {
		t = m->rxq[m->rxq_first].at;
		kind = EV_RX_ARRIVE;
	}
	if (m->partner_sending && m->partner_end < t) {
		t = m->partner_end;
		kind = EV_PARTNER;
	}
	if (m->rt_armed && m->rt_deadline < t) {
		t = m->rt_deadline;
		kind = EV_RT;
	}
	if (m->irq_pending && !m->in_irq && m->irq_at < t) {
		t = m->irq_at;
		kind = EV_IRQ;
	}
	*at = t;
	return kind;
}

static void handle_event(struct pl011_model *m, enum event kind)
{
	switch (kind) {
	case EV_TX_DONE:
		tx_complete(m);
		break;
	case EV_RX_ARRIVE:
		rx_arrive(m, m->rxq[m->rxq_first++].value);
		break;
	case EV_PARTNER:
		m->partner_sending = false;
		rx_arrive(m, m->partner_data[m->partner_next++]);
		partner_kick(m);
		break;
	case EV_RT:
		rt_expire(m);
		break;
	case EV_IRQ:
		dispatch_irq(m);
		break;
	case EV_NONE:
		break;
	}
}

/*
 * The current context (thread or handler) spends budget_ns of CPU time. Events due within it
 * are handled in order; a handler dispatched meanwhile adds its own time on top (the
 * preempted work still needs its full budget), so `now` may end beyond now + budget_ns.
 */
static void run_until(struct pl011_model *m, uint64_t budget_ns)
{
	uint64_t remaining = budget_ns;
	for (;;) {
		uint64_t at;
		enum event kind = next_event(m, &at);
		if (at < m->now)
			at = m->now;
		if (kind == EV_NONE || at - m->now > remaining) {
			m->now += remaining;
			break;
		}
		remaining -= at - m->now;
		m->now = at;
		handle_event(m, kind);
	}
	if (m->cfg.time_limit_ns && m->now > m->cfg.time_limit_ns)
		fail("simulated time limit passed (driver spinning?), now ns", (uintptr_t)m->now);
}

/* ---------------------------------------------------------------- registers */

static bool is_id_register(uint32_t off)
{
	return off >= PL011_PERIPHID0 && off <= PL011_CELLID3;
}

static uint32_t id_register(const struct pl011_model *m, uint32_t off)
{
	/* TRM 3.3.15-3.3.16: part 0x011, designer 0x41 (ARM); revision 3 = r1p5, 32-deep FIFOs. */
	unsigned claimed = m->cfg.id_fifo_depth ? m->cfg.id_fifo_depth : m->cfg.fifo_depth;
	uint32_t revision = claimed == 32u ? 3u : 1u;
	static const uint32_t cell[4] = {0x0Du, 0xF0u, 0x05u, 0xB1u};
	switch (off) {
	case PL011_PERIPHID0:
		return 0x11u;
	case PL011_PERIPHID1:
		return 0x10u;
	case PL011_PERIPHID2:
		return (revision << PL011_PERIPHID2_REVISION_SHIFT) | 0x4u;
	case PL011_PERIPHID3:
		return 0x00u;
	default: {
		uint32_t shift = 8u * ((off - PL011_CELLID0) / 4u);
		return cell[(off - PL011_CELLID0) / 4u] ^ ((m->cfg.cell_id_flipped_bits >> shift) & 0xFFu);
	}
	}
}

static uint32_t fr_value(const struct pl011_model *m)
{
	uint32_t fr = 0;
	if (m->cts)
		fr |= PL011_FR_CTS;
	fr |= m->modem_inputs;
	if (tx_busy(m))
		fr |= PL011_FR_BUSY; /* even with UARTEN clear (TRM 3.3.3) */
	if (m->rx_count == 0)
		fr |= PL011_FR_RXFE;
	if (m->rx_count >= eff_depth(m))
		fr |= PL011_FR_RXFF;
	if (m->tx_count >= eff_depth(m))
		fr |= PL011_FR_TXFF;
	if (m->tx_count == 0)
		fr |= PL011_FR_TXFE; /* the shift register is not looked at: BUSY is */
	return fr;
}

/* Value a read returns, without side effects. Aborts on a reserved offset. */
static uint32_t reg_value(const struct pl011_model *m, uint32_t off)
{
	switch (off) {
	case PL011_DR:
		return m->rx_count ? m->rxf[m->rx_head] : m->last_dr;
	case PL011_RSR_ECR:
		return m->rsr;
	case PL011_FR:
		return fr_value(m);
	case PL011_ILPR:
		return m->ilpr;
	case PL011_IBRD:
		return m->ibrd_hold;
	case PL011_FBRD:
		return m->fbrd_hold;
	case PL011_LCR_H:
		return m->lcr_h;
	case PL011_CR:
		return m->cr;
	case PL011_IFLS:
		return m->ifls;
	case PL011_IMSC:
		return m->imsc;
	case PL011_RIS:
		return m->ris;
	case PL011_MIS:
		return m->ris & m->imsc;
	case PL011_ICR:
		return 0;
	case PL011_DMACR:
		return m->dmacr;
	default:
		if (is_id_register(off))
			return id_register(m, off);
		fail("access to a reserved PL011 offset", off);
		return 0;
	}
}

static uint32_t reg_read(struct pl011_model *m, uint32_t off)
{
	if (off == PL011_DR)
		return dr_read(m);
	if (off == PL011_ICR)
		m->c.misuse++; /* write-only (TRM 3.3.13) */
	return reg_value(m, off);
}

/* TRM 3.3.7: IBRD, FBRD and LCR_H must not change while the UART is enabled. */
static void check_divisor_write(struct pl011_model *m, uint32_t old_value, uint32_t new_value)
{
	if ((m->cr & PL011_CR_UARTEN) && old_value != new_value)
		m->c.order_violations++;
}

static void break_edge(struct pl011_model *m, bool on)
{
	if (on) {
		if (m->brk_len == m->brk_cap) {
			size_t cap = m->brk_cap;
			m->brk_start = grow(m->brk_start, &cap, sizeof(*m->brk_start));
			cap = m->brk_cap;
			m->brk_end = grow(m->brk_end, &cap, sizeof(*m->brk_end));
			m->brk_cap = cap;
		}
		m->brk_start[m->brk_len] = m->now;
		m->brk_end[m->brk_len] = UINT64_MAX;
		m->brk_len++;
	} else if (m->brk_len > 0) {
		m->brk_end[m->brk_len - 1] = m->now;
	}
}

/* Clearing FEN empties both FIFOs (the flush step of TRM 3.3.8). No TX transition is taken. */
static void flush_fifos(struct pl011_model *m)
{
	m->c.tx_fen_flushed += m->tx_count;
	m->c.rx_fen_flushed += m->rx_count;
	m->tx_count = 0;
	m->rx_count = 0;
	m->rt_armed = false;
	clear_ris(m, PL011_INT_RX | PL011_INT_RT);
}

static void lcr_h_write(struct pl011_model *m, uint32_t value)
{
	uint32_t old = m->lcr_h;
	bool changes = ((old ^ value) & ~PL011_LCR_H_BRK) || m->ibrd_hold != m->ibrd ||
		       m->fbrd_hold != m->fbrd;
	if (changes && (m->cr & PL011_CR_UARTEN))
		m->c.order_violations++;
	if (changes && m->shifting)
		m->c.reprogram_while_shifting++;
	m->ibrd = m->ibrd_hold;
	m->fbrd = m->fbrd_hold;
	m->lcr_h = value;
	if ((old & PL011_LCR_H_FEN) && !(value & PL011_LCR_H_FEN))
		flush_fifos(m);
	partner_kick(m);
	if ((old ^ value) & PL011_LCR_H_BRK)
		break_edge(m, (value & PL011_LCR_H_BRK) != 0);
	tx_kick(m);
}

/* After a CR write: an nUARTRTS edge is logged with its time (the RS-485 tests time DE). */
static void rts_edge_record(struct pl011_model *m)
{
	bool now = rts_asserted(m);
	if (now == m->rts_last)
		return;
	m->rts_last = now;
	if (m->rts_len == m->rts_cap) {
		size_t cap = m->rts_cap;
		m->rts_at = grow(m->rts_at, &cap, sizeof(*m->rts_at));
		cap = m->rts_cap;
		m->rts_to = grow(m->rts_to, &cap, sizeof(*m->rts_to));
		m->rts_cap = cap;
	}
	m->rts_at[m->rts_len] = m->now;
	m->rts_to[m->rts_len] = now;
	m->rts_len++;
}

static void cr_write(struct pl011_model *m, uint32_t value)
{
	if (tx_busy(m))
		m->c.cr_writes_while_busy++;
	/* Clearing UARTEN lets the character in the shift register finish (tx_complete does not
	 * look at UARTEN); the FIFO then waits for the next enable. */
	m->cr = value;
	rts_edge_record(m);
	tx_kick(m);
	partner_kick(m);
}

static void ifls_write(struct pl011_model *m, uint32_t value)
{
	uint32_t tx = value & PL011_IFLS_LEVEL_MASK;
	uint32_t rx = (value >> PL011_IFLS_RXIFLSEL_SHIFT) & PL011_IFLS_LEVEL_MASK;
	if (tx > 4u || rx > 4u)
		m->c.misuse++; /* reserved codes (TRM 3.3.9) */
	m->ifls = value;
	partner_kick(m);
}

static void reg_write(struct pl011_model *m, uint32_t off, uint32_t value)
{
	switch (off) {
	case PL011_DR:
		dr_write(m, value);
		break;
	case PL011_RSR_ECR:
		m->rsr = 0; /* any write clears (TRM 3.3.2) */
		break;
	case PL011_ILPR:
		m->ilpr = value & 0xFFu;
		break;
	case PL011_IBRD:
		check_divisor_write(m, m->ibrd_hold, value & PL011_IBRD_MAX);
		m->ibrd_hold = value & PL011_IBRD_MAX;
		break;
	case PL011_FBRD:
		check_divisor_write(m, m->fbrd_hold, value & PL011_FBRD_MASK);
		m->fbrd_hold = value & PL011_FBRD_MASK;
		break;
	case PL011_LCR_H:
		lcr_h_write(m, value & 0xFFu);
		break;
	case PL011_CR:
		cr_write(m, value & 0xFFFFu);
		break;
	case PL011_IFLS:
		ifls_write(m, value & 0x3Fu);
		break;
	case PL011_IMSC:
		m->imsc = value & PL011_INT_ALL;
		update_line(m);
		break;
	case PL011_ICR:
		if ((value & PL011_INT_ALL) == PL011_INT_TX)
			m->c.icr_tx_only++;
		clear_ris(m, value & PL011_INT_ALL);
		break;
	case PL011_DMACR:
		m->dmacr = value & 0x7u;
		break;
	case PL011_FR:
	case PL011_RIS:
	case PL011_MIS:
		m->c.misuse++; /* read-only */
		break;
	default:
		if (!is_id_register(off))
			fail("write to a reserved PL011 offset", off);
		m->c.misuse++;
		break;
	}
}

/* ---------------------------------------------------------------- the seam */

static struct pl011_model *lookup(uintptr_t addr, uint32_t *off)
{
	for (unsigned i = 0; i < PL011_MODEL_MAX; i++) {
		struct pl011_model *m = registry[i];
		if (m && addr >= m->cfg.base && addr - m->cfg.base < PL011_MODEL_WINDOW) {
			*off = (uint32_t)(addr - m->cfg.base);
			if (*off & 3u)
				fail("unaligned PL011 access", addr);
			return m;
		}
	}
	fail("register access outside every live model", addr);
	return NULL;
}

void pl011_model_set_preempt_hook(void (*hook)(void *context), void *context)
{
	preempt_hook = hook;
	preempt_context = context;
}

/* ---- posted writes (pl011_model_set_posted_writes) ---- */

#define POSTED_MAX 64u

struct posted_write {
	uintptr_t addr;
	uint32_t value;
};

static struct {
	int (*core_of)(void);
	unsigned other_points;
	bool ignore_barriers;
	struct posted_write pending[2][POSTED_MAX];
	unsigned count[2];
	unsigned age[2]; /* points the other core passed since the oldest pending write */
} posted;

static void write_now(uintptr_t addr, uint32_t value);

static void land_posted(int core)
{
	unsigned n = posted.count[core];
	posted.count[core] = 0;
	posted.age[core] = 0;
	for (unsigned i = 0; i < n; i++)
		write_now(posted.pending[core][i].addr, posted.pending[core][i].value);
}

static int posting_core(void)
{
	return posted.core_of() != 0 ? 1 : 0;
}

void pl011_model_set_posted_writes(int (*core_of)(void), unsigned other_points,
				   bool ignore_barriers)
{
	if (posted.core_of != NULL) {
		land_posted(0);
		land_posted(1);
	}
	posted.core_of = core_of;
	posted.other_points = other_points;
	posted.ignore_barriers = ignore_barriers;
}

static void age_posted(void)
{
	int other = 1 - posting_core();
	if (posted.count[other] != 0 && ++posted.age[other] >= posted.other_points)
		land_posted(other);
}

/* A preemption point: where another context may run (before every access and atomic). */
static void preemption_point(void)
{
	if (posted.core_of != NULL)
		age_posted();
	if (preempt_hook)
		preempt_hook(preempt_context);
}

enum sync_kind { SYNC_BARRIER, SYNC_ATOMIC, SYNC_RMW };

/* Count one synchronisation operation in every live model (the bench has one). A
 * read-modify-write is an atomic point too, counted once more among the RMWs. */
static void count_sync(enum sync_kind kind)
{
	for (unsigned i = 0; i < PL011_MODEL_MAX; i++) {
		struct pl011_model *m = registry[i];
		if (m == NULL)
			continue;
		if (kind == SYNC_BARRIER) {
			m->c.barriers++;
			m->c.irq_barriers += m->in_irq;
			continue;
		}
		m->c.atomic_points++;
		m->c.irq_atomic_points += m->in_irq;
		if (kind == SYNC_RMW) {
			m->c.rmw_points++;
			m->c.irq_rmw_points += m->in_irq;
		}
	}
}

void pl011_io_atomic_point(void)
{
	count_sync(SYNC_ATOMIC);
	preemption_point();
}

/* The same preemption point as pl011_io_atomic_point: the explorers' schedules do not depend
 * on which of the two the driver calls. */
void pl011_io_atomic_rmw_point(void)
{
	count_sync(SYNC_RMW);
	preemption_point();
}

/* Without posted writes the model orders everything already: a barrier changes nothing. */
#if !PL011_SINGLE_CORE /* one core: lib/pl011_io.h's barrier is a compiler barrier */
void pl011_io_barrier(void)
{
	count_sync(SYNC_BARRIER);
	if (posted.core_of != NULL && !posted.ignore_barriers)
		land_posted(posting_core());
}
#endif

/* The access takes effect after its cost: an interrupt due meanwhile runs before it. */
uint32_t pl011_io_read(uintptr_t addr)
{
	preemption_point();
	if (posted.core_of != NULL)
		land_posted(posting_core());
	uint32_t off;
	struct pl011_model *m = lookup(addr, &off);
	m->c.reads[off / 4u]++;
	m->c.total_reads++;
	spend(m, m->cfg.read_cost_ns);
	return reg_read(m, off);
}

static void write_now(uintptr_t addr, uint32_t value)
{
	uint32_t off;
	struct pl011_model *m = lookup(addr, &off);
	reg_write(m, off, value);
}

void pl011_io_write(uintptr_t addr, uint32_t value)
{
	preemption_point();
	uint32_t off;
	struct pl011_model *m = lookup(addr, &off);
	m->c.writes[off / 4u]++;
	m->c.total_writes++;
	spend(m, m->cfg.write_cost_ns);
	if (posted.core_of == NULL) {
		reg_write(m, off, value);
		return;
	}
	int core = posting_core();
	if (posted.count[core] == POSTED_MAX)
		land_posted(core);
	posted.pending[core][posted.count[core]++] = (struct posted_write){addr, value};
}

/* ---------------------------------------------------------------- lifecycle */

static void check_config(const struct pl011_model_config *cfg)
{
	if (cfg->fifo_depth != 16u && cfg->fifo_depth != 32u)
		fail("fifo_depth must be 16 or 32", cfg->fifo_depth);
	if (cfg->id_fifo_depth != 0u && cfg->id_fifo_depth != 16u && cfg->id_fifo_depth != 32u)
		fail("id_fifo_depth must be 0, 16 or 32", cfg->id_fifo_depth);
	if (cfg->uartclk_hz == 0)
		fail("uartclk_hz must not be 0", 0);
	if (cfg->base & (PL011_MODEL_WINDOW - 1u))
		fail("base must be 4 KiB aligned", cfg->base);
	if (cfg->latency_jitter_ns > MAX_JITTER_NS)
		fail("latency_jitter_ns too large", (uintptr_t)cfg->latency_jitter_ns);
}

static void register_model(struct pl011_model *m)
{
	unsigned free_slot = PL011_MODEL_MAX;
	for (unsigned i = 0; i < PL011_MODEL_MAX; i++) {
		if (!registry[i]) {
			if (free_slot == PL011_MODEL_MAX)
				free_slot = i;
		} else if (registry[i]->cfg.base == m->cfg.base) {
			fail("two live models at the same base", m->cfg.base);
		}
	}
	if (free_slot == PL011_MODEL_MAX)
		fail("more than PL011_MODEL_MAX live models", PL011_MODEL_MAX);
	registry[free_slot] = m;
}

struct pl011_model *pl011_model_create(const struct pl011_model_config *config)
{
	check_config(config);
	struct pl011_model *m = calloc(1, sizeof(*m));
	if (!m)
		fail("out of memory", sizeof(*m));
	m->cfg = *config;
	m->cr = PL011_CR_TXE | PL011_CR_RXE; /* reset 0x300 */
	m->ifls = 0x12u;                     /* reset: both at 1/2 */
	m->cts = true;
	m->rng = config->latency_seed ? config->latency_seed : 0x9E3779B9u;
	m->storm_now = UINT64_MAX;
	register_model(m);
	return m;
}

void pl011_model_destroy(struct pl011_model *model)
{
	if (!model)
		return;
	for (unsigned i = 0; i < PL011_MODEL_MAX; i++)
		if (registry[i] == model)
			registry[i] = NULL;
	free(model->rxq);
	free(model->partner_data);
	free(model->wire_byte);
	free(model->wire_start);
	free(model->wire_end);
	free(model->wire_divisor);
	free(model->wire_lcr_h);
	free(model->brk_start);
	free(model->brk_end);
	free(model->rts_at);
	free(model->rts_to);
	free(model);
}

/* ---------------------------------------------------------------- time */

uint64_t pl011_model_now_ns(const struct pl011_model *model)
{
	return model->now;
}

uint32_t pl011_model_clock_us(void *model)
{
	struct pl011_model *m = model;
	m->c.clock_reads++;
	spend(m, m->cfg.clock_read_cost_ns);
	return (uint32_t)(m->now / 1000u);
}

void pl011_model_advance(struct pl011_model *model, uint64_t ns)
{
	run_until(model, ns);
}

void pl011_model_advance_to(struct pl011_model *model, uint64_t t_ns)
{
	if (t_ns > model->now)
		run_until(model, t_ns - model->now);
}

/* ---------------------------------------------------------------- interrupt, faults, inputs */

void pl011_model_set_irq_handler(struct pl011_model *model, void (*handler)(void *context),
				 void *context)
{
	model->handler = handler;
	model->handler_context = context;
	model->irq_pending = false;
	update_line(model);
}

bool pl011_model_irq_line(const struct pl011_model *model)
{
	return (model->ris & model->imsc) != 0;
}

bool pl011_model_in_irq(const struct pl011_model *model)
{
	return model->in_irq;
}

void pl011_model_run_as_irq(struct pl011_model *model, void (*fn)(void *context), void *context)
{
	bool outer = model->in_irq;
	model->in_irq = true;
	/* This UART's dispatch, if one is scheduled, stays so: another source's handler delays it
	 * (run_until dispatches it once this returns, if its latency has passed) but does not
	 * restart its latency, which would starve it under a tick shorter than the latency. */
	model->c.irq_dispatches++;
	spend(model, model->cfg.irq_entry_cost_ns);
	fn(context);
	model->in_irq = outer;
	update_line(model);
}

void pl011_model_set_tx_irq_broken(struct pl011_model *model, bool broken)
{
	model->tx_irq_broken = broken;
}

void pl011_model_set_tx_stalled(struct pl011_model *model, bool stalled)
{
	model->tx_stalled = stalled;
	tx_kick(model);
}

void pl011_model_set_cts(struct pl011_model *model, bool asserted)
{
	/* TRM 3.3.13: CTSRMIS is set by a change of nUARTCTS, either way. */
	if (model->cts != asserted)
		set_ris(model, PL011_INT_CTS);
	model->cts = asserted;
	tx_kick(model);
}

void pl011_model_set_modem_inputs(struct pl011_model *model, bool dsr, bool dcd, bool ri)
{
	model->modem_inputs = (dsr ? PL011_FR_DSR : 0u) | (dcd ? PL011_FR_DCD : 0u) |
			      (ri ? PL011_FR_RI : 0u);
}

void pl011_model_set_backlog_probe(struct pl011_model *model, size_t (*probe)(void *context),
				   void *context)
{
	model->probe = probe;
	model->probe_context = context;
}

void pl011_model_set_latency_fn(struct pl011_model *model,
				uint64_t (*latency)(void *context, uint64_t now_ns), void *context)
{
	model->latency_fn = latency;
	model->latency_context = context;
}

void pl011_model_rx_inject(struct pl011_model *model, uint8_t byte, unsigned errors,
			   uint64_t at_ns)
{
	if (errors & ~(unsigned)(PL011_DR_FE | PL011_DR_PE | PL011_DR_BE))
		fail("rx_inject: errors may hold only PL011_DR_FE, PE, BE", errors);
	if (at_ns < model->now)
		fail("rx_inject: arrival time in the past", (uintptr_t)at_ns);
	rxq_push(model, at_ns, (uint16_t)(byte | errors));
}

uint64_t pl011_model_rx_inject_stream(struct pl011_model *model, const uint8_t *data, size_t n,
				      uint64_t start_ns)
{
	if (model->ibrd == 0)
		fail("rx_inject_stream: no baud latched (IBRD 0)", 0);
	uint64_t frame = line_ns(model, frame_bits(model));
	uint64_t at = start_ns;
	for (size_t i = 0; i < n; i++) {
		at += frame;
		pl011_model_rx_inject(model, data[i], 0, at);
	}
	return at;
}

size_t pl011_model_rx_pending(const struct pl011_model *model)
{
	return model->rxq_end - model->rxq_first;
}

void pl011_model_rx_partner_start(struct pl011_model *model, const uint8_t *data, size_t n,
				  uint64_t frame_ns, bool honours_rts)
{
	if (model->partner_sending || model->partner_next < model->partner_len)
		fail("rx_partner_start: the partner is still sending", model->partner_len);
	if (frame_ns == 0) {
		if (model->ibrd == 0)
			fail("rx_partner_start: no baud latched (IBRD 0)", 0);
		frame_ns = line_ns(model, frame_bits(model));
	}
	free(model->partner_data);
	model->partner_data = malloc(n ? n : 1u);
	if (!model->partner_data)
		fail("out of memory", n);
	memcpy(model->partner_data, data, n);
	model->partner_len = n;
	model->partner_next = 0;
	model->partner_frame_ns = frame_ns;
	model->partner_honours_rts = honours_rts;
	partner_kick(model);
}

size_t pl011_model_rx_partner_sent(const struct pl011_model *model)
{
	return model->partner_next;
}

bool pl011_model_rts(const struct pl011_model *model)
{
	return rts_asserted(model);
}

/* ---------------------------------------------------------------- observation */

const struct pl011_model_counters *pl011_model_counters(const struct pl011_model *model)
{
	return &model->c;
}

void pl011_model_reset_counters(struct pl011_model *model)
{
	memset(&model->c, 0, sizeof(model->c));
}

size_t pl011_model_wire_len(const struct pl011_model *model)
{
	return model->wire_len;
}

static void check_index(size_t i, size_t len)
{
	if (i >= len)
		fail("record index out of range", i);
}

uint8_t pl011_model_wire_byte(const struct pl011_model *model, size_t i)
{
	check_index(i, model->wire_len);
	return model->wire_byte[i];
}

uint64_t pl011_model_wire_start_ns(const struct pl011_model *model, size_t i)
{
	check_index(i, model->wire_len);
	return model->wire_start[i];
}

uint64_t pl011_model_wire_end_ns(const struct pl011_model *model, size_t i)
{
	check_index(i, model->wire_len);
	return model->wire_end[i];
}

uint32_t pl011_model_wire_divisor(const struct pl011_model *model, size_t i)
{
	check_index(i, model->wire_len);
	return model->wire_divisor[i];
}

uint32_t pl011_model_wire_lcr_h(const struct pl011_model *model, size_t i)
{
	check_index(i, model->wire_len);
	return model->wire_lcr_h[i];
}

size_t pl011_model_break_count(const struct pl011_model *model)
{
	return model->brk_len;
}

uint64_t pl011_model_break_start_ns(const struct pl011_model *model, size_t i)
{
	check_index(i, model->brk_len);
	return model->brk_start[i];
}

uint64_t pl011_model_break_end_ns(const struct pl011_model *model, size_t i)
{
	check_index(i, model->brk_len);
	return model->brk_end[i];
}

size_t pl011_model_rts_edge_count(const struct pl011_model *model)
{
	return model->rts_len;
}

uint64_t pl011_model_rts_edge_ns(const struct pl011_model *model, size_t i)
{
	check_index(i, model->rts_len);
	return model->rts_at[i];
}

bool pl011_model_rts_edge_asserted(const struct pl011_model *model, size_t i)
{
	check_index(i, model->rts_len);
	return model->rts_to[i];
}

unsigned pl011_model_tx_level(const struct pl011_model *model)
{
	return model->tx_count;
}

unsigned pl011_model_rx_level(const struct pl011_model *model)
{
	return model->rx_count;
}

bool pl011_model_tx_shifting(const struct pl011_model *model)
{
	return model->shifting;
}

uint32_t pl011_model_ris(const struct pl011_model *model)
{
	return model->ris;
}

uint32_t pl011_model_peek(const struct pl011_model *model, uint32_t offset)
{
	return reg_value(model, offset);
}

uint64_t pl011_model_frame_ns(const struct pl011_model *model)
{
	return line_ns(model, frame_bits(model));
}

uint64_t pl011_model_bit_ns(const struct pl011_model *model)
{
	return line_ns(model, 1u);
}
