/* Public API of the pl011 driver, as a reference card: the full contracts are in docs/api.md,
 * the instance's private layout in pl011_instance.h (included last). */
#ifndef PL011_H
#define PL011_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pl011_options.h" /* PL011_STATS, PL011_INTERRUPTS: the build options */

#define PL011_VERSION_MAJOR 0
#define PL011_VERSION_MINOR 2
#define PL011_VERSION_PATCH 0
#define PL011_VERSION_STRING "0.2.0"

/* Errors are negative; success is 0 or a count. A failed call leaves the instance usable
 * (an instance that failed pl011_init is simply not started). */
enum pl011_error {
	PL011_EINVAL = -1,    /* NULL pointer, or a configuration field out of range */
	PL011_EBAUD = -2,     /* baud unreachable from this clock, or off by more than tolerance */
	PL011_EAGAIN = -3,    /* nothing to read now (non-blocking getc) */
	PL011_ETIMEDOUT = -4, /* a bounded wait ran out */
	PL011_ESHUTDOWN = -5, /* instance not started, or shut down / shutting down */
	PL011_EFRAMING = -6,  /* getc: the character had a framing error (it is consumed) */
	PL011_EPARITY = -7,   /* getc: the character had a parity error (it is consumed) */
	PL011_EBREAK = -8,    /* getc: a break condition was received (it is consumed) */
	PL011_ESTALLED = -9,  /* the FIFO never drained (CTS held off?), or a context never let go */
	PL011_EBUSY = -10,    /* init: port running; line control: RX held off, or RTS not ours */
};

/* A constant name for a result: "PL011_ETIMEDOUT" for an error code, "success" for 0 or a
 * count, "unknown" for any other negative value. */
const char *pl011_error_name(int error);

enum pl011_parity {
	PL011_PARITY_NONE = 0,
	PL011_PARITY_ODD,
	PL011_PARITY_EVEN,
	PL011_PARITY_MARK,  /* parity bit always 1 (stick parity, TRM LCR_H.SPS) */
	PL011_PARITY_SPACE, /* parity bit always 0 */
};

/* FIFO trigger levels. DEFAULT lets the mode pick. */
enum pl011_level {
	PL011_LEVEL_DEFAULT = 0,
	PL011_LEVEL_1_8,
	PL011_LEVEL_1_4,
	PL011_LEVEL_1_2,
	PL011_LEVEL_3_4,
	PL011_LEVEL_7_8,
};

/* How TX works (docs/api.md, "TX modes"): POLLED writes from the caller (a zeroed config); the
 * others queue and the TX interrupt refills: HALF_FIFO blind, POLL_FULL reading FR, HYBRID both,
 * ADAPTIVE moving the trigger on underruns, MEASURED timing its latency (recommended). The
 * polled-only build (PL011_INTERRUPTS 0) has POLLED only. */
enum pl011_tx_mode {
	PL011_TX_POLLED = 0,
	PL011_TX_HALF_FIFO,
	PL011_TX_POLL_FULL,
	PL011_TX_HYBRID,
	PL011_TX_ADAPTIVE,
	PL011_TX_MEASURED,
};

/* The ring modes' strategies, one constant object each: a firmware links only those it
 * names (docs/api.md, "Strategies as objects"). */
struct pl011_tx_strategy;
extern const struct pl011_tx_strategy pl011_tx_half_fifo;
extern const struct pl011_tx_strategy pl011_tx_poll_full;
extern const struct pl011_tx_strategy pl011_tx_hybrid;
extern const struct pl011_tx_strategy pl011_tx_adaptive;
extern const struct pl011_tx_strategy pl011_tx_measured;
/* The object of a ring mode; NULL for PL011_TX_POLLED, a value that is no mode, and every mode
 * in the polled-only build. */
static inline const struct pl011_tx_strategy *pl011_tx_strategy_for_mode(enum pl011_tx_mode mode);

/* How RX works (docs/api.md, "RX modes"): POLLED reads the FIFO in getc/read; LOW_LATENCY and
 * FEW_IRQS interrupt at 1/8 and 3/4 full plus receive timeout (config.rx_trigger overrides).
 * A full RX ring pauses RX until a read makes room for a FIFO's worth. */
enum pl011_rx_mode {
	PL011_RX_POLLED = 0,
	PL011_RX_LOW_LATENCY,
	PL011_RX_FEW_IRQS,
};

#define PL011_FLAG_LOOPBACK (1u << 0) /* config.flags: CR.LBE, TX routed to RX inside */
#define PL011_FLAG_RTS_CTS (1u << 1)  /* CR.RTSEn | CTSEn: a slow reader stops the sender */
/* Adopt the line a boot loader set: init reads IBRD, FBRD, LCR_H and writes no divisor; baud is
 * then only for time bounds when clock_hz is 0 (docs/api.md, "PL011_FLAG_ADOPT_LINE"). */
#define PL011_FLAG_ADOPT_LINE (1u << 2)
#define PL011_FLAG_NO_ID (1u << 3) /* no PCellID to check (SBSA UART); fifo_depth then required */

#define PL011_WAIT_AUTO UINT32_MAX /* wait bounds are in us; AUTO: derived from the backlog */
#define PL011_NO_WAIT 0u
#define PL011_BAUD_TOLERANCE_PPM 20000u /* default baud error accepted: 2%, both ends */
#define PL011_SPINS_PER_US_MAX 10000u   /* spins_per_us at most: a 10 GHz core */
struct pl011;

/* Optional microsecond clock, may wrap; a stopped one is detected (docs/waiting.md). */
typedef uint32_t (*pl011_clock_fn)(void *context);
/* Optional, each step of a bounded wait (WFI, a yield, a watchdog kick); never in a panic. */
typedef void (*pl011_wait_fn)(void *context);
/* Optional: the calling core's number, so a panic need not wait for its own core (docs/api.md). */
typedef uint32_t (*pl011_core_fn)(void *context);

/* ---- events (docs/events.md; the callback's contract: docs/api.md, "Events") ----
 * config.event gets the kinds of config.event_mask that happened, ORed, once per handler entry
 * (or tick), never with TX owned. It may read, write with PL011_NO_WAIT, panic-write and get;
 * not init, shut down, flush or send a break; it should return soon. The TX kinds need an
 * interrupt TX mode (TX_DONE also config.event_timer), the RX kinds an interrupt RX mode. */
#define PL011_EVENT_TX_DONE (1u << 0)  /* the last stop bit has left, once per drain */
#define PL011_EVENT_TX_SPACE (1u << 1) /* the TX ring half free again; sure after a short write */
#define PL011_EVENT_RX_DATA (1u << 2)  /* the interrupt drained bytes; the RX ring holds some */
#define PL011_EVENT_RX_IDLE (1u << 3)  /* quiet after a burst, once: RT, or 5 frames by the tick */
#define PL011_EVENT_BREAK (1u << 4)    /* a break was received (stats.rx_break), one per break */
#define PL011_EVENT_ERROR (1u << 5)    /* rx_framing, rx_parity or rx_overrun was counted */
#define PL011_EVENT_MODEM (1u << 6)    /* CTS, DSR, DCD or RI changed (read FR); any mode */
#define PL011_EVENT_ALL 0x7Fu
typedef void (*pl011_event_fn)(struct pl011 *uart, uint32_t events, void *context);
/* The events' code (lib/pl011_events.c), linked only if config.event_driver names it. */
struct pl011_event_driver;
extern const struct pl011_event_driver pl011_event_driver;
/* Arm a one-shot timer that calls pl011_event_tick(uart) from an interrupt no earlier than
 * delay_us from now, replacing one armed. Called with TX owned: it must only arm a timer. */
typedef void (*pl011_timer_fn)(uint32_t delay_us, void *context);

/* ---- RS-485 (docs/events.md): nUARTRTS drives DE around each send (not a panic's). Needs an
 * interrupt TX mode and config.event_timer, not PL011_FLAG_RTS_CTS; else PL011_EINVAL. ---- */
#define PL011_RS485_DELAY_MAX_US 10000u /* each delay at most 10 ms (docs/waiting.md) */
#define PL011_RS485_DE_LOW (1u << 0) /* nUARTRTS low (CR.RTS set) while sending, else high */
#define PL011_RS485_RX_OFF (1u << 1) /* CR.RXE clear while DE is asserted: no echo on 2 wires */
/* The code that drives DE (lib/pl011_rs485.c): settings that name it link it. */
struct pl011_rs485_driver;
extern const struct pl011_rs485_driver pl011_rs485_driver;
struct pl011_rs485 {
	const struct pl011_rs485_driver *driver; /* &pl011_rs485_driver; NULL is PL011_EINVAL */
	uint32_t flags;                          /* PL011_RS485_* */
	uint32_t delay_before_us;                /* DE asserted -> first start bit, at least */
	uint32_t delay_after_us;                 /* last stop bit -> DE released, at least */
};

/* What pl011_init sets up, read in place while the port runs: keep it unchanged until
 * pl011_shutdown returns (a static const, in flash, is simplest: docs/api.md). */
struct pl011_config {
	uintptr_t base;          /* UART base address */
	uint32_t clock_hz;       /* UARTCLK */
	uint32_t baud;           /* bits per second */
	uint8_t data_bits;       /* 5..8; 0 = 8 */
	uint8_t stop_bits;       /* 1 or 2; 0 = 1 */
	enum pl011_parity parity;
	enum pl011_tx_mode tx_mode;
	enum pl011_level tx_trigger; /* interrupt TX modes; DEFAULT = 1/2 (1/4 start for ADAPTIVE) */
	enum pl011_rx_mode rx_mode;
	enum pl011_level rx_trigger; /* interrupt RX modes; DEFAULT = the mode's level */
	uint32_t flags;              /* PL011_FLAG_* */
	uint32_t baud_tolerance_ppm; /* 0 = PL011_BAUD_TOLERANCE_PPM */
	uint32_t fifo_depth; /* 0 = PeriphID2's (16, 32 from r1p5); 16 or 32 (BCM2835/6/7: 16) */
	/* Ring storage, the caller's: sizes powers of two, overlapping neither each other nor the
	 * instance; needed by the interrupt modes only. */
	uint8_t *tx_buffer;
	size_t tx_buffer_size;
	uint8_t *rx_buffer;
	size_t rx_buffer_size;
	/* Time for bounded waits; without a clock B us = B * spins_per_us polls (docs/waiting.md). */
	pl011_clock_fn clock;
	void *clock_context;
	uint32_t spins_per_us;
	pl011_wait_fn wait_hook;
	void *wait_context;
	pl011_core_fn core_id;
	void *core_context;
	/* Events: the kinds, the callback, TX_DONE's timer. PL011_EINVAL: a kind unknown or the mode
	 * cannot give, no callback, TX_DONE without timer, a mask without event_driver. */
	uint32_t event_mask;
	pl011_event_fn event;
	void *event_context;
	pl011_timer_fn event_timer;
	void *event_timer_context;
	const struct pl011_event_driver *event_driver; /* &pl011_event_driver, or NULL */
	const struct pl011_rs485 *rs485; /* RS-485 on RTS; NULL = off; init copies it */
};

/* Divisors for a clock and baud, with the rate they really give. */
struct pl011_baud {
	uint32_t ibrd;
	uint32_t fbrd;
	uint32_t actual_baud;
	int32_t error_ppm; /* (actual - requested) / requested, parts per million */
};

#define PL011_EXTRA_HISTOGRAM_BINS 33 /* 0 .. 32 characters beyond the guaranteed count */
/* Counters, wrapping modulo 2^32; a snapshot is exact per field (docs/api.md, "Counters"). */
struct pl011_stats {
	uint32_t tx_bytes;            /* bytes written to DR, every path */
	uint32_t rx_bytes;            /* good bytes delivered (ring or getc) */
	uint32_t irq_entries;         /* calls of pl011_irq_handler that found a cause */
	uint32_t irq_tx;              /* TX interrupt causes serviced */
	uint32_t irq_rx;              /* RX trigger causes serviced */
	uint32_t irq_rt;              /* receive timeout causes serviced */
	uint32_t irq_error;           /* FE/PE/BE/OE interrupt causes serviced */
	uint32_t tx_refills;          /* FIFO refills from the ring (interrupt and caller) */
	uint32_t tx_fr_reads;         /* FR reads in the ring modes' TX path (POLLED: not counted) */
	uint32_t tx_refill_full;      /* refills that stopped because FR showed TXFF */
	uint32_t tx_extra_chars;      /* characters loaded beyond the guaranteed count */
	uint32_t tx_extra_histogram[PL011_EXTRA_HISTOGRAM_BINS]; /* refills by extra characters */
	uint32_t tx_underruns;        /* refills that found TXFE set (ADAPTIVE, POLL_FULL, stall guard) */
	uint32_t tx_trigger_changes;  /* ADAPTIVE trigger moves */
	uint32_t tx_stalls;           /* waits that saw no TX progress and refilled themselves */
	uint32_t tx_timeouts;         /* bounded TX waits that ran out */
	uint32_t tx_discarded;        /* accepted bytes discarded by shutdown (never silent) */
	uint32_t tx_fifo_abandoned;   /* shutdowns whose FIFO never drained (bytes uncounted) */
	uint32_t rx_overrun;          /* overrun events (OE), each one or more bytes lost */
	uint32_t rx_framing;          /* characters flagged FE (dropped) */
	uint32_t rx_parity;           /* characters flagged PE (dropped) */
	uint32_t rx_break;            /* breaks received (dropped) */
	uint32_t rx_discarded;        /* received bytes thrown away by shutdown or re-init */
	uint32_t rx_pauses;           /* times the full RX ring stopped the drain (back-pressure) */
};

/* Two cores at once (every pair: docs/api.md, "Two cores"): one writer, one reader, the
 * handler on one core at a time, init/restart/shutdown by the port's owner alone; panic writes
 * and getters anywhere. "Context" below says where each call may run. */
/* Divisors: IBRD.FBRD = round(4 * clock / baud) / 64 (TRM 2.4.3). Errors: PL011_EINVAL (NULL
 * out, zero clock or baud); PL011_EBAUD (IBRD 0 or above 0xFFFF, or 0xFFFF with FBRD, or
 * |error| > tolerance_ppm, 0 = PL011_BAUD_TOLERANCE_PPM). Context: any (pure). */
int pl011_compute_baud(uint32_t clock_hz, uint32_t baud, uint32_t tolerance_ppm,
		       struct pl011_baud *out);
/* The field a check refused ("data_bits") and its rule ("5..8, or 0 for 8"); "" if none. */
struct pl011_config_fault {
	const char *field;
	const char *rule;
};
/* What pl011_init (_port) would say of a config: 0, PL011_EINVAL or PL011_EBAUD, and *fault
 * the field and rule (docs/configuration.md). Reads the ID registers (and an adopted line's),
 * writes nothing; the port's state is not judged. Context: any. */
int pl011_config_check(const struct pl011 *uart, const struct pl011_config *config,
		       struct pl011_config_fault *fault);
int pl011_config_check_port(const struct pl011 *uart, const struct pl011_config *config,
			    const struct pl011_tx_strategy *strategy,
			    struct pl011_config_fault *fault);

/* Start a stopped port: check the config, program the UART (TRM sequence), zero the counters
 * (docs/api.md, "pl011_init"); strategy must be config.tx_mode's. Errors, nothing touched:
 * PL011_EINVAL (pl011_config_check names the field; no PL011 at base), PL011_EBAUD, PL011_EBUSY
 * (running: use pl011_restart), PL011_ESTALLED (a context of the last run still inside:
 * retry). Context: thread; not from a callback. */
int pl011_init_port(struct pl011 *uart, const struct pl011_config *config,
		    const struct pl011_tx_strategy *strategy);
/* pl011_init_port naming only the strategy and parts the config needs (where the compiler
 * sees the config: docs/api.md, "Strategies as objects"). Errors, context: as above. */
static inline int pl011_init(struct pl011 *uart, const struct pl011_config *config);

/* Restart with config: a running port is shut down first (counters, unread RX kept, into any
 * storage), a stopped one just started; keep the old config until it returns. Errors:
 * PL011_EINVAL, PL011_EBAUD (nothing touched), PL011_ESTALLED (a context did not let go: left
 * stopped), else as pl011_init. Context: as pl011_init. */
int pl011_restart_port(struct pl011 *uart, const struct pl011_config *config,
		       const struct pl011_tx_strategy *strategy);
static inline int pl011_restart(struct pl011 *uart, const struct pl011_config *config);

/* Write up to len bytes, waiting up to bound_us for room; returns the count, short only if the
 * wait ran out or bound_us was PL011_NO_WAIT. Errors: PL011_EINVAL, PL011_ESHUTDOWN (not
 * started, or shutting down). Context: thread; one writer at a time. */
int pl011_write(struct pl011 *uart, const void *data, size_t len, uint32_t bound_us);
/* Write one byte, waiting up to the backlog deadline (through the ring in interrupt modes).
 * Returns 0. Errors: PL011_EINVAL, PL011_ESHUTDOWN, PL011_ETIMEDOUT. Context: thread. */
int pl011_putc(struct pl011 *uart, uint8_t byte);
/* Panic-safe bounded write, any mode: queued bytes then data, or beside a TX owner byte by byte
 * (docs/api.md, "pl011_write_panic"). Returns the data bytes written. Errors: PL011_EINVAL (NULL,
 * len > INT32_MAX), PL011_ESHUTDOWN (never started, shut down, or a shutdown it did not preempt
 * took TX). Context: any, on any core: thread, any interrupt, fault handlers. */
int pl011_write_panic(struct pl011 *uart, const void *data, size_t len);

/* Read up to len bytes, all there is; bound_us 0 returns at once, else waits for the first
 * byte (PL011_WAIT_AUTO: backlog deadline for len). RX_POLLED counts and skips bad characters.
 * Returns the count. Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: thread; one reader. */
int pl011_read(struct pl011 *uart, void *data, size_t len, uint32_t bound_us);
/* Read one byte without waiting: 0..255, or PL011_EAGAIN; RX_POLLED: PL011_EFRAMING,
 * PL011_EPARITY, PL011_EBREAK for a bad character (consumed, counted; an overrun alone is
 * only counted). Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: thread; one reader. */
int pl011_getc(struct pl011 *uart);
/* Bytes a read can take now: the RX ring's count (at most INT32_MAX); RX_POLLED: 0, 1 or the
 * FIFO depth (FR). Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: thread; one reader. */
int pl011_rx_available(struct pl011 *uart);
/* Bytes a write can take now: the TX ring's free space (at most INT32_MAX); TX_POLLED: 0, 1
 * or the FIFO depth. Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: any (a snapshot). */
int pl011_tx_free(struct pl011 *uart);
/* Read exactly len bytes within bound_us (PL011_WAIT_AUTO: backlog deadline for len); returns
 * len; *got (if not NULL) holds the count stored either way. Errors: PL011_EINVAL,
 * PL011_ESHUTDOWN, PL011_ETIMEDOUT (also NO_WAIT with fewer there). Context: thread; one reader. */
int pl011_read_exact(struct pl011 *uart, void *data, size_t len, uint32_t bound_us, size_t *got);
/* Read up to and including the first `delimiter` (nothing after it), at most len bytes, within
 * bound_us; *got as for pl011_read_exact. Returns the count. Errors: PL011_EINVAL,
 * PL011_ESHUTDOWN, PL011_ETIMEDOUT. Context: thread; one reader. */
int pl011_read_until(struct pl011 *uart, void *data, size_t len, uint8_t delimiter,
		     uint32_t bound_us, size_t *got);
/* Throw away what the RX ring and FIFO hold now (at most ring size + a FIFO; interrupt modes
 * wait up to the backlog deadline of 0 for the FIFO below the trigger to empty); returns the
 * count. Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: thread; one reader. */
int pl011_discard_input(struct pl011 *uart);

/* Service every cause (at most 4 MIS passes): count errors, drain RX, refill TX. Context: the
 * UART's interrupt handler, one call at a time (not nested, not on two cores: docs/api.md).
 * Not in the polled-only build. */
void pl011_irq_handler(struct pl011 *uart);
/* Wait up to bound_us until every accepted byte has left (ring empty, TXFE, not BUSY). Returns
 * 0. Errors: PL011_EINVAL, PL011_ESHUTDOWN, PL011_ETIMEDOUT (*pending, if not NULL: bytes still
 * queued). Context: thread. */
int pl011_flush(struct pl011 *uart, uint32_t bound_us, size_t *pending);
/* Stop the port, losing nothing silently: drain within bound_us (0: discard the ring), disable.
 * Returns the bytes discarded (also stats.tx_discarded). Errors: PL011_EINVAL, PL011_ESHUTDOWN
 * (not started), PL011_ESTALLED (the FIFO never drained, or a handler or TX owner did not let
 * go: docs/api.md, "pl011_shutdown"). Context: thread; not from a callback. */
int pl011_shutdown(struct pl011 *uart, uint32_t bound_us);

/* Copy the counters (PL011_STATS 0: those not kept read 0). Errors: PL011_EINVAL. Context: any. */
int pl011_get_stats(const struct pl011 *uart, struct pl011_stats *out);
/* The divisors programmed and the rate they give. Errors: PL011_EINVAL, PL011_ESHUTDOWN. */
int pl011_get_baud(const struct pl011 *uart, struct pl011_baud *out);
/* FIFO depth in use (16 or 32). Errors: PL011_EINVAL, PL011_ESHUTDOWN. */
int pl011_get_fifo_depth(const struct pl011 *uart);
/* Bytes queued, not yet in the FIFO (0: TX_POLLED, NULL, stopped). Context: any (a snapshot). */
size_t pl011_tx_queued(const struct pl011 *uart);
/* Backlog deadline in us: (queued + depth) frames, plus a quarter, plus 1000, at most
 * PL011_WAIT_AUTO - 1; 1000 for NULL or a port never started. Context: any. */
uint32_t pl011_backlog_deadline_us(const struct pl011 *uart, size_t queued);
/* Send a break: drain TX, hold the line low for duration_us (two frames at least), release.
 * Errors: PL011_EINVAL, PL011_ESHUTDOWN, PL011_ETIMEDOUT (TX did not drain; no break).
 * Context: thread; not beside pl011_set_line (both write LCR_H). */
int pl011_send_break(struct pl011 *uart, uint32_t duration_us);

/* ---- Line control on a running port, modem lines (docs/api.md, "Line control") ---- */
struct pl011_line_config {
	uint32_t baud;     /* bits per second; pl011_get_line: the rate the divisors give */
	uint8_t data_bits; /* 5..8; 0 = 8 */
	uint8_t stop_bits; /* 1 or 2; 0 = 1 */
	enum pl011_parity parity;
	bool flow_control;           /* RTS/CTS, as PL011_FLAG_RTS_CTS */
	uint32_t baud_tolerance_ppm; /* 0 = the config's (or PL011_BAUD_TOLERANCE_PPM) */
	/* RS-485: NULL keeps it as is, else on with these (copied); rs485_off: off (docs/api.md) */
	const struct pl011_rs485 *rs485;
	bool rs485_off;
};
/* Change the line of a running port, losing no byte; rings, counters kept (docs/api.md,
 * "pl011_set_line"). Errors, nothing changed: PL011_EINVAL (NULL, a field out of range, RS-485
 * with flow control or as init refuses, rs485 with rs485_off), PL011_ESHUTDOWN, PL011_EBAUD,
 * PL011_EBUSY (RX paused or unread: read first), PL011_ETIMEDOUT (TX did not drain or let go),
 * PL011_ESTALLED (a handler on another core did not return). Context: thread; not beside init,
 * shutdown, send_break, set_modem_lines or another set_line. */
int pl011_set_line(struct pl011 *uart, const struct pl011_line_config *line, uint32_t bound_us);
/* The line in use (adopted without a clock: config.baud). Errors: PL011_EINVAL,
 * PL011_ESHUTDOWN. Context: any (a snapshot; during a set_line it may mix old and new). */
int pl011_get_line(const struct pl011 *uart, struct pl011_line_config *out);
/* Modem lines: outputs RTS and DTR (CR), inputs CTS, DSR, DCD and RI (FR). 1 = asserted. */
#define PL011_MODEM_RTS (1u << 0)
#define PL011_MODEM_DTR (1u << 1)
#define PL011_MODEM_CTS (1u << 2)
#define PL011_MODEM_DSR (1u << 3)
#define PL011_MODEM_DCD (1u << 4)
#define PL011_MODEM_RI (1u << 5)
/* Set the outputs in `mask` (RTS, DTR) to `values`, others kept. Errors, nothing changed:
 * PL011_EINVAL (NULL, other bits), PL011_ESHUTDOWN, PL011_EBUSY (RTS driven by flow control or
 * RS-485). Context: thread; not beside set_line, init or shutdown. */
int pl011_set_modem_lines(struct pl011 *uart, uint32_t mask, uint32_t values);
/* CTS | DSR | DCD | RI as FR shows them, RTS | DTR as set (RTS as programmed; flow control
 * drives the pin). Returns the bits, or PL011_EINVAL, PL011_ESHUTDOWN. Context: any. */
int pl011_get_modem_status(const struct pl011 *uart);
/* ---- events and the console (docs/events.md) ---- */
/* config.event_timer's call: TX_DONE or RX_IDLE when due, else the timer armed again for the
 * earlier. Harmless for NULL, a stopped port, an early or late call. Context: as events. */
void pl011_event_tick(struct pl011 *uart);
/* pl011_write for text, "\n" as "\r\n", bound_us per piece (at most (2 x newlines + 1) x
 * bound_us). Returns the text bytes consumed (a "\n" once both went), short only if a bound
 * ran out. Errors: as pl011_write (when nothing was consumed). Context: as pl011_write. */
int pl011_write_console(struct pl011 *uart, const char *text, size_t len, uint32_t bound_us);
/* pl011_write_console of a NUL-terminated string, with PL011_WAIT_AUTO. */
int pl011_puts(struct pl011 *uart, const char *text);
/* ---- the early console: polled, no instance (docs/api.md, "The early console"); not on a
 * UART a port of this driver runs (pl011_write_panic there). Waits: PL011_EARLY_SPINS FR reads */
#define PL011_EARLY_SPINS 1000000u /* 100 ms at 100 ns a read */
/* Program the PL011 at base for 8N1 at baud from clock_hz, 2% tolerance (TRM sequence; the
 * FIFOs' contents dropped, interrupts masked). Errors, nothing written: PL011_EINVAL (base 0 or
 * unaligned, zero clock or baud, no PL011 there), PL011_EBAUD. Context: thread. */
int pl011_early_init(uintptr_t base, uint32_t clock_hz, uint32_t baud);
/* Text ("\n" as "\r\n") to a PL011 set up (pl011_early_init, a boot loader). Returns the bytes
 * written. Errors: PL011_EINVAL (base 0 or unaligned, NULL text), PL011_ESHUTDOWN (UARTEN or TXE
 * clear), PL011_ETIMEDOUT (no text byte went whole). Context: any. */
int pl011_early_write(uintptr_t base, const char *text, size_t len);
/* One byte without waiting: 0..255, PL011_EAGAIN, or PL011_EFRAMING, PL011_EPARITY, PL011_EBREAK
 * (consumed). Errors: PL011_EINVAL (base 0 or unaligned), PL011_ESHUTDOWN (UARTEN or RXE clear). */
int pl011_early_getc(uintptr_t base);
/* The instance's layout and the inline bodies: users allocate struct pl011, never read it. */
#include "pl011_instance.h"

#endif
