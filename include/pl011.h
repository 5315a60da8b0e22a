/* Public API of the pl011 driver: configuration, instance, entry points, statistics. */
#ifndef PL011_H
#define PL011_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pl011_ring.h"

#define PL011_VERSION_MAJOR 0
#define PL011_VERSION_MINOR 2
#define PL011_VERSION_PATCH 0
#define PL011_VERSION_STRING "0.2.0"

/*
 * Errors are negative; success is 0 or a count. Every function that fails leaves the instance
 * usable (an instance that failed pl011_init is simply not started).
 */
enum pl011_error {
	PL011_EINVAL = -1,    /* NULL pointer, or a configuration field out of range */
	PL011_EBAUD = -2,     /* baud unreachable from this clock, or off by more than tolerance */
	PL011_EAGAIN = -3,    /* nothing to read now (non-blocking getc) */
	PL011_ETIMEDOUT = -4, /* a bounded wait ran out */
	PL011_ESHUTDOWN = -5, /* instance not started, or shut down / shutting down */
	PL011_EFRAMING = -6,  /* getc: the character had a framing error (it is consumed) */
	PL011_EPARITY = -7,   /* getc: the character had a parity error (it is consumed) */
	PL011_EBREAK = -8,    /* getc: a break condition was received (it is consumed) */
	PL011_ESTALLED = -9,  /* shutdown: the transmitter never emptied its FIFO (CTS held off?) */
	/* line control: the change is not possible now (RX held off by a full ring: read
	 * first), or RTS is driven by hardware flow control */
	PL011_EBUSY = -10,
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

/*
 * How TX works. POLLED writes straight to the FIFO from the caller. The others queue into the
 * TX ring; the caller primes the FIFO when the transmitter is idle and the TX interrupt refills
 * it, each time by one of these strategies (docs/design.md explains them, docs/benchmarks.md
 * measures them; docs/background.md tells where they come from):
 *  HALF_FIFO  write the guaranteed `depth - trigger` characters blind, no FR read (Linux's
 *             FIFO/2 with the 1/2 trigger).
 *  POLL_FULL  read FR before every character, write while TXFF is clear.
 *  HYBRID     the guaranteed count blind, then poll FR for more.
 *  ADAPTIVE   one FR read per refill: an empty FIFO (TXFE, an underrun) moves the trigger one
 *             level up (at most to 1/2) and refills it whole; otherwise the guaranteed count
 *             goes blind, and after enough refills without underrun the trigger moves one
 *             level down so that each interrupt carries more characters.
 *  MEASURED   the guaranteed count blind; the driver times its own interrupt latency with
 *             config.clock (one clock read per sampled entry, samples in bursts) from a FIFO
 *             it last saw full, and uses the lowest trigger, at most 1/2, whose headroom
 *             covers the latency with half as much again; TXFE at a burst's first sample
 *             raises it too. While entries come late it polls FR for more after the blind
 *             part (HYBRID). Starts at 1/2; without a usable clock it stays there topping up
 *             (HYBRID). The recommended mode (docs/benchmarks.md, "Verdict").
 * A blind write is only made while the interrupt has been the sole writer since its TX cause
 * was read; any other write in between makes the next refill poll FR instead.
 * A zeroed config means POLLED: the ring modes need a caller's buffer, which a zeroed config
 * does not have, and polled TX needs nothing but the registers.
 */
enum pl011_tx_mode {
	PL011_TX_POLLED = 0,
	PL011_TX_HALF_FIFO,
	PL011_TX_POLL_FULL,
	PL011_TX_HYBRID,
	PL011_TX_ADAPTIVE,
	PL011_TX_MEASURED,
};

/*
 * Each ring mode's strategy is a constant object of its own file in lib/ (its refill and its
 * state), so that a firmware links only the strategies it names. pl011_init names the one
 * config.tx_mode gives, through pl011_tx_strategy_for_mode below, which the compiler resolves
 * wherever it can prove what config.tx_mode holds at the call (-O1, -Os, -O2): a static const
 * config, or a local one with no function call between filling it and pl011_init. GCC 12
 * counts a call in pl011_init's own arguments too, as in pl011_init(get_uart(), &config): a
 * local whose address is passed on may be changed by any call of the function. Then only that
 * strategy is linked, and a POLLED config links no interrupt TX code at all. Where it cannot
 * (a config from elsewhere, such a call, -O0 or -Og) all five are linked, as when the mode was
 * a run-time switch; pl011_init_port with the object named links one whatever the compiler
 * sees. pl011_init is not in the library's symbol table: a binding that cannot compile C
 * inline functions calls pl011_init_port.
 */
struct pl011_tx_strategy;
extern const struct pl011_tx_strategy pl011_tx_half_fifo;
extern const struct pl011_tx_strategy pl011_tx_poll_full;
extern const struct pl011_tx_strategy pl011_tx_hybrid;
extern const struct pl011_tx_strategy pl011_tx_adaptive;
extern const struct pl011_tx_strategy pl011_tx_measured;

/* The object of a ring mode; NULL for PL011_TX_POLLED and for a value that is no mode. */
static inline const struct pl011_tx_strategy *pl011_tx_strategy_for_mode(enum pl011_tx_mode mode)
{
	switch (mode) {
	case PL011_TX_HALF_FIFO:
		return &pl011_tx_half_fifo;
	case PL011_TX_POLL_FULL:
		return &pl011_tx_poll_full;
	case PL011_TX_HYBRID:
		return &pl011_tx_hybrid;
	case PL011_TX_ADAPTIVE:
		return &pl011_tx_adaptive;
	case PL011_TX_MEASURED:
		return &pl011_tx_measured;
	case PL011_TX_POLLED:
	default:
		return NULL;
	}
}

/*
 * How RX works (latency and CPU cost pull in opposite directions: docs/background.md).
 *  POLLED       getc/read read the FIFO directly; no RX interrupt.
 *  LOW_LATENCY  RX interrupt at 1/8 full plus receive timeout: few bytes wait in the FIFO.
 *  FEW_IRQS     RX interrupt at 3/4 full plus receive timeout: fewer interrupts, each longer.
 * rx_trigger in the config overrides the level of either interrupt mode.
 * Both interrupt modes push back: when the RX ring cannot take the next character the handler
 * leaves it in the FIFO and masks RX and RT, and pl011_read / pl011_getc unmask them once the
 * ring has room for a FIFO's worth (or is empty, if it is smaller than a FIFO). With
 * PL011_FLAG_RTS_CTS the full FIFO then holds the sender off; without it the FIFO adds its
 * entries to the buffering and then characters are lost: OE is masked with RX and RT for the
 * pause, so the pause's overrun is one event in stats.rx_overrun (docs/design.md).
 */
enum pl011_rx_mode {
	PL011_RX_POLLED = 0,
	PL011_RX_LOW_LATENCY,
	PL011_RX_FEW_IRQS,
};

/* Config flags. */
#define PL011_FLAG_LOOPBACK (1u << 0) /* CR.LBE: TX is routed to RX inside the UART */
/* CR.RTSEn | CR.CTSEn: hardware flow control. The PL011 deasserts RTS while its RX FIFO holds
 * the RX trigger level (TRM, "Hardware flow control"): a reader that falls behind stops the
 * sender, and no byte is lost at any reader speed. */
#define PL011_FLAG_RTS_CTS (1u << 1)
/* Adopt the line as programmed (a boot loader's or firmware's console, the Pi 5 whose UART
 * clock is not public): init reads IBRD, FBRD and LCR_H instead of computing them and writes
 * neither divisor; LCR_H only if its FIFOs were off (FEN set, the format kept) or a TX FIFO that
 * did not drain must be flushed. baud, data_bits, stop_bits and parity are then not used, and
 * clock_hz may be 0 when not known: config.baud is then the rate the firmware is known to use,
 * taken for the time bounds only (one of the two must be given). pl011_get_line reports what
 * was found. Premise: the firmware's last IBRD/FBRD write was followed by an LCR_H write (the
 * TRM requires it for a divisor to take effect, 3.3.6): the line runs on the copies that write
 * latched, which no register reads back, so the holding registers are what is read. With the
 * FIFOs off, init's LCR_H write latches the holding values. After a pl011_set_line the port is
 * no longer adopted. docs/design.md, "Line control". */
#define PL011_FLAG_ADOPT_LINE (1u << 2)

/* Wait bounds are in microseconds. PL011_WAIT_AUTO derives the bound from the backlog. */
#define PL011_WAIT_AUTO UINT32_MAX
#define PL011_NO_WAIT 0u

/*
 * The largest baud error pl011_init accepts by default, in parts per million: 2%, a common
 * budget for both ends together. With IBRD >= 1 the 1/64 fractional divisor keeps the error
 * under 0.8%, so only a tighter config.baud_tolerance_ppm rejects a rate for its error.
 */
#define PL011_BAUD_TOLERANCE_PPM 20000u

/* The largest config.spins_per_us: one poll per cycle of a 10 GHz core. A larger value would
 * stretch an iteration-bounded wait past any useful bound. */
#define PL011_SPINS_PER_US_MAX 10000u

struct pl011;

/* Optional microsecond clock; may wrap (each step of a wait adds the difference modulo 2^32,
 * so a bound may be as long as 2^32 - 2 us). A clock that stops advancing is detected and the
 * wait falls back to its iteration bound (docs/waiting.md). */
typedef uint32_t (*pl011_clock_fn)(void *context);

/* Optional hook called once per step of every bounded wait of the thread calls and the
 * interrupt's callers (pl011_write, pl011_flush, pl011_shutdown, pl011_init, pl011_read,
 * pl011_send_break): WFI, an RTOS yield, a watchdog kick. Never from pl011_write_panic, which
 * may run in any interrupt or fault handler, where a yield is not allowed. Without it a wait
 * spins on FR. */
typedef void (*pl011_wait_fn)(void *context);

/* Optional: the number of the calling core (MPIDR's affinity, the RP2040's SIO CPUID). With it
 * a panic write that finds TX owned by its own core, whose owner it has preempted, writes
 * beside it at once instead of first waiting out its ownership bound, and one that finds its
 * own core shutting the port down writes its bytes before the UART is disabled
 * (pl011_write_panic). Its premise: two contexts on one core nest (an interrupt, a fault, a
 * higher-priority task; the one below runs again only once the one above returns). */
typedef uint32_t (*pl011_core_fn)(void *context);

/* ---- events (docs/events.md) ----
 *
 * One callback, config.event, receives the kinds of config.event_mask that happened, ORed
 * into one word, once per interrupt handler entry (or pl011_event_tick) that saw any.
 * Context: the UART's interrupt handler (pl011_irq_handler), and for TX_DONE the timer
 * interrupt that calls pl011_event_tick; so two cores may call it at once if those two
 * interrupts go to different cores. TX_SPACE alone may also come from the context that freed
 * the space outside the TX interrupt (below). Never with TX owned by the calling context: TX is let go
 * before the callback runs (the context it preempted may own TX, as always in a handler).
 * It may call: pl011_read / pl011_getc when it is the only reader, pl011_write with
 * PL011_NO_WAIT when it is the only writer (a thread writer that is blocked on a semaphore
 * counts as not writing), pl011_write_panic, the getters, and an RTOS's semaphore give or
 * event-flag set. Not pl011_init, pl011_shutdown, pl011_flush or pl011_send_break (they wait
 * for this handler). It should return within microseconds: pl011_shutdown waits for it.
 * The code is reached only through config.event_driver (&pl011_event_driver), which a mask
 * needs: a firmware that does not name it links none of it. Cost when unused:
 * one load of the driver per handler entry and one per emptied TX ring, no register access.
 */
/* The last stop bit of the last accepted byte has left (TX ring empty, FR.TXFE set, FR.BUSY
 * clear: TRM 3.3.3, BUSY "remains set until the complete byte, including all the stop bits,
 * has been sent"), once per drain. The PL011 has no TX-done interrupt (TXIS is a FIFO level
 * crossing, TRM 2.8), so the driver derives it: when a refill empties the ring it asks
 * config.event_timer for a call of pl011_event_tick two frames later, and the tick reads FR
 * once and asks again (one frame later once TXFE is set) until the line is idle. It fires
 * within one frame time plus the timer's latency after the stop bit. Needs an interrupt TX
 * mode and config.event_timer. */
#define PL011_EVENT_TX_DONE (1u << 0)
/* The TX ring is at least half free again: after a pl011_write that came up short (accepted
 * less than asked), once, and whenever a TX interrupt refill raised the free space from below
 * half to at least half. A writer blocked on it after a short write may queue again: it is
 * sure to come, also when the space was freed outside the TX interrupt, and then it comes
 * from that context once TX is let go: a pl011_write_panic, a wait that sent itself
 * (pl011_write, pl011_flush), pl011_set_line, the event tick, or the short pl011_write itself
 * when the space came before it could ask. Needs an interrupt TX mode. */
#define PL011_EVENT_TX_SPACE (1u << 1)
/* The interrupt drained received bytes and the RX ring holds some. Needs an interrupt RX
 * mode. */
#define PL011_EVENT_RX_DATA (1u << 2)
/* The line went quiet after a burst, once per burst: the receive timeout fired with bytes
 * queued (no character for 32 bit periods, TRM 2.8, UARTRTINTR), or, with config.event_timer
 * and config.clock, the tick saw the FIFO empty 5 frame times plus the clock's step after the
 * last drain (RT never comes on QEMU, nor when a drain at the trigger level emptied the FIFO;
 * a stopped clock: the timer's time). Bytes pl011_restart carries with their burst open, or
 * pl011_set_line takes from the FIFO, get theirs too. Without the timer or the clock, RT
 * alone (docs/events.md). Needs an interrupt RX mode. */
#define PL011_EVENT_RX_IDLE (1u << 3)
/* A break was received (stats.rx_break grew): one per break, as the PL011 loads a single 0
 * character for a break however long it lasts (TRM 3.3.1, DR.BE). Interrupt RX modes. */
#define PL011_EVENT_BREAK (1u << 4)
/* A framing or parity error or an overrun was counted (stats.rx_framing, rx_parity,
 * rx_overrun grew). An overrun while RX is paused by a full ring is counted, and given, when
 * the read that makes room resumes RX. Interrupt RX modes. */
#define PL011_EVENT_ERROR (1u << 5)
/* A modem status line changed: the CTS, DSR, DCD or RI change interrupt (MIS bits 0-3, TRM
 * 3.3.13) fired; read the lines in FR. The driver unmasks these four only with this kind. */
#define PL011_EVENT_MODEM (1u << 6)
#define PL011_EVENT_ALL 0x7Fu

typedef void (*pl011_event_fn)(struct pl011 *uart, uint32_t events, void *context);
/* The code that serves the events (lib/pl011_events.c), a constant object
 * as the TX strategies are: config.event_driver names it. */
struct pl011_event_driver;
extern const struct pl011_event_driver pl011_event_driver;
/* Arm a one-shot timer that calls pl011_event_tick(uart) from an interrupt (or any context
 * that may call the event callback) no earlier than delay_us from now, replacing one already
 * armed. Called with TX owned (from a refill, from pl011_write) or from the tick itself: it
 * must only arm a timer. */
typedef void (*pl011_timer_fn)(uint32_t delay_us, void *context);

/* ---- RS-485 half duplex (docs/events.md, "RS-485") ----
 *
 * nUARTRTS drives the transceiver's driver enable (DE). The TX owner asserts it before the
 * first DR write of a send and waits delay_before_us; the end of the send is TX done (ring
 * empty, TXFE set, BUSY clear, seen by pl011_event_tick from config.event_timer), after which
 * the driver waits delay_after_us (a second tick) and releases DE. Needs an interrupt TX mode
 * and config.event_timer; not with PL011_FLAG_RTS_CTS (flow control owns RTS). A panic write
 * does not drive DE (docs/events.md says why). The settings name the code that drives DE
 * (.driver = &pl011_rs485_driver), so a firmware without RS-485 links none of it. Errors at
 * init: PL011_EINVAL (settings without their driver, or out of range), nothing touched.
 * On a running port pl011_set_line changes, turns on or turns off the settings.
 */
#define PL011_RS485_DELAY_MAX_US 10000u /* each delay at most 10 ms (docs/waiting.md) */
/* nUARTRTS low while sending (CR.RTS set), high otherwise. Without it: high while sending
 * (CR.RTS clear), low otherwise, for a DE input that is active high wired to nUARTRTS. */
#define PL011_RS485_DE_LOW (1u << 0)
/* The receiver is off (CR.RXE clear) from DE asserted to DE released: no echo of our own
 * bytes on a 2-wire bus. A character arriving meanwhile is lost. */
#define PL011_RS485_RX_OFF (1u << 1)

/* The code that drives DE (lib/pl011_rs485.c), a constant object as the TX strategies are:
 * settings that name it link it, and a firmware that never does links none of RS-485. */
struct pl011_rs485_driver;
extern const struct pl011_rs485_driver pl011_rs485_driver;

struct pl011_rs485 {
	/* &pl011_rs485_driver; NULL is PL011_EINVAL (pl011_init, pl011_set_line). */
	const struct pl011_rs485_driver *driver;
	uint32_t flags;           /* PL011_RS485_* */
	uint32_t delay_before_us; /* DE asserted -> first start bit, at least */
	uint32_t delay_after_us;  /* last stop bit -> DE released, at least */
};

/* What pl011_init sets up, read in place while the port runs (pl011_init: how long it must
 * stay): it may be const, in flash. */
struct pl011_config {
	uintptr_t base;          /* UART base address */
	uint32_t clock_hz;       /* UARTCLK */
	uint32_t baud;           /* bits per second */
	uint8_t data_bits;       /* 5..8 */
	uint8_t stop_bits;       /* 1 or 2 */
	enum pl011_parity parity;
	enum pl011_tx_mode tx_mode;
	enum pl011_level tx_trigger; /* interrupt TX modes; DEFAULT = 1/2 (1/4 start for ADAPTIVE) */
	enum pl011_rx_mode rx_mode;
	enum pl011_level rx_trigger; /* interrupt RX modes; DEFAULT = the mode's level */
	uint32_t flags;              /* PL011_FLAG_* */
	uint32_t baud_tolerance_ppm; /* 0 = PL011_BAUD_TOLERANCE_PPM */
	/* FIFO entries: 0 = read PeriphID2 (revision 3 or later, r1p5: 32; earlier: 16); 16 or 32
	 * states it, for silicon whose ID register does not tell the truth: the BCM2835/6/7 (Pi 1,
	 * 2, 3, Zero) report revision 3 but have 16-entry FIFOs (docs/hardware-bring-up.md). */
	uint32_t fifo_depth;
	/* Ring storage, owned by the caller; sizes are powers of two. Required only by the
	 * interrupt modes that use them (tx_mode != POLLED, rx_mode != POLLED). */
	uint8_t *tx_buffer;
	size_t tx_buffer_size;
	uint8_t *rx_buffer;
	size_t rx_buffer_size;
	/* Time for bounded waits. Without a clock a wait of B microseconds polls at most
	 * B * spins_per_us times (spins_per_us 0 means 1, at most PL011_SPINS_PER_US_MAX):
	 * see docs/waiting.md. */
	pl011_clock_fn clock;
	void *clock_context;
	uint32_t spins_per_us;
	pl011_wait_fn wait_hook;
	void *wait_context;
	pl011_core_fn core_id;
	void *core_context;
	/* Events (PL011_EVENT_*, above): the kinds wanted, the callback, and for TX_DONE the
	 * timer. A mask without a callback, an unknown kind, a kind its mode cannot give, or
	 * TX_DONE without event_timer is PL011_EINVAL; so is a mask without event_driver
	 * (below). RX_IDLE uses event_timer too, with clock, where RT does not come. */
	uint32_t event_mask;
	pl011_event_fn event;
	void *event_context;
	pl011_timer_fn event_timer;
	void *event_timer_context;
	/* &pl011_event_driver, the code that serves event_mask: a firmware that
	 * names it links it, one that does not links none of it. */
	const struct pl011_event_driver *event_driver;
	/* RS-485 driver enable on RTS (above); NULL = off. pl011_init copies what it points to. */
	const struct pl011_rs485 *rs485;
};

/* Divisors for a clock and baud, with the rate they really give. */
struct pl011_baud {
	uint32_t ibrd;
	uint32_t fbrd;
	uint32_t actual_baud;
	int32_t error_ppm; /* (actual - requested) / requested, parts per million */
};

#define PL011_EXTRA_HISTOGRAM_BINS 33 /* 0 .. 32 characters beyond the guaranteed count */

/*
 * PL011_STATS (0 or 1, 1 when undefined): whether struct pl011 keeps every counter of struct
 * pl011_stats. With 0 it keeps only tx_bytes (TX done and the RS-485 release compare it) and
 * the counters the promises rest on: tx_discarded, tx_fifo_abandoned, rx_overrun, rx_framing,
 * rx_parity, rx_break, rx_discarded. The others cost neither RAM (192 bytes, the histogram
 * most of it) nor code, and pl011_get_stats reads them as 0; struct pl011_stats itself is the
 * same either way. The library and every file that includes this header must agree. With 0
 * pl011_init_port links as pl011_init_port_nostats (pl011_restart_port likewise), so a file
 * calling pl011_init with the other setting than the library fails to link; a file that only
 * defines or sizes struct pl011 is not checked (nothing of the library is referenced there):
 * define the instance in the file that calls pl011_init, or build every file with one
 * setting.
 */
#ifndef PL011_STATS
#define PL011_STATS 1
#endif
#if PL011_STATS != 0 && PL011_STATS != 1
#error "PL011_STATS must be 0 or 1"
#endif
#if PL011_STATS == 0
#define pl011_init_port pl011_init_port_nostats
#define pl011_restart_port pl011_restart_port_nostats
#endif

/*
 * Counters. Each has one writer at a time, so none loses an increment: the tx_* refill and byte
 * counters are written only by the context that owns TX (docs/design.md); tx_stalls and
 * tx_timeouts by the thread that waits; irq_* by the interrupt handler; rx_* by the interrupt
 * (interrupt RX modes) or the reading thread (RX_POLLED), rx_discarded by init and shutdown.
 * Bytes that a panic write sends
 * without owning TX are counted with an atomic add and included in tx_bytes by
 * pl011_get_stats. A snapshot is exact per field, not atomic as a whole. All wrap modulo 2^32.
 */
struct pl011_stats {
	uint32_t tx_bytes;            /* bytes written to DR, every path */
	uint32_t rx_bytes;            /* good bytes delivered (ring or getc) */
	uint32_t irq_entries;         /* calls of pl011_irq_handler that found a cause */
	uint32_t irq_tx;              /* TX interrupt causes serviced */
	uint32_t irq_rx;              /* RX trigger causes serviced */
	uint32_t irq_rt;              /* receive timeout causes serviced */
	uint32_t irq_error;           /* FE/PE/BE/OE interrupt causes serviced */
	uint32_t tx_refills;          /* FIFO refills from the ring (interrupt and caller) */
	uint32_t tx_fr_reads;         /* FR reads by the TX owner (refills, polled writes) */
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

/* The counters struct pl011 keeps with PL011_STATS 0, X(name) each: its member there, and what
 * pl011_get_stats copies (the one list of them). */
#define PL011_STATS_KEPT(X)                                                                     \
	X(tx_bytes) X(tx_discarded) X(tx_fifo_abandoned) X(rx_overrun) X(rx_framing) X(rx_parity) \
	X(rx_break) X(rx_discarded)

#if PL011_STATS == 0
/* Same names and writers as in struct pl011_stats. */
#define PL011_STATS_MEMBER(name) uint32_t name;
struct pl011_stats_kept {
	PL011_STATS_KEPT(PL011_STATS_MEMBER)
};
#undef PL011_STATS_MEMBER
#endif

/* The line as pl011_init (or pl011_set_line, TX held) programmed it, read by everyone. */
struct pl011_line {
	struct pl011_baud baud;
	uint64_t frame_ns;   /* one frame (start + data + parity + stop) on the wire */
	uint32_t fifo_depth; /* 16 or 32: config.fifo_depth, else from PeriphID */
	uint32_t lcr_h;      /* line control as programmed (without BRK) */
	uint32_t cr;         /* atomic: CR as it must be (DE included; lib/pl011_internal.h) */
	uint32_t rx_imsc;    /* the RX interrupt bits of IMSC while RX is not paused */
	uint32_t rx_level;   /* RX trigger (enum pl011_level) */
	uint32_t irq_passes; /* MIS reads per handler entry at most: 4 above a 1/2 TX trigger */
	uint32_t adopted;    /* the divisors and format were found (PL011_FLAG_ADOPT_LINE), not ours */
	uint32_t tolerance_ppm; /* the baud tolerance the line was planned with: set_line's 0 keeps it */
};

/* ADAPTIVE's state (lib/pl011_tx_adaptive.c). */
struct pl011_tx_adaptive {
	uint32_t clean_refills; /* refills since the last underrun or move */
	uint32_t patience;      /* clean refills needed before moving down */
	uint32_t lowered;       /* the last move was down, not undone since */
};

/* MEASURED's state (lib/pl011_tx_measured.c). */
struct pl011_tx_measured {
	uint32_t lowered;       /* the last move was down, not undone since */
	uint32_t chain_at_us;   /* clock when a refill last saw the FIFO full */
	uint32_t chain_frames;  /* frames from then to the next crossing, at least */
	uint32_t chain_open;    /* every refill since then was blind and a crossing apart */
	uint32_t topup;         /* entries come late: poll FR after the blind part */
	uint32_t prompt;        /* top-ups in a row that found the FIFO barely drained */
	uint32_t clock_step_us; /* the clock's resolution, timed at init (0: no clock) */
	uint32_t sample_wait;   /* refills until the next sample */
	uint32_t sample_pause;  /* the pause after a burst that moved nothing */
	uint32_t calm;          /* samples in a row that fit the next level down */
	uint32_t calm_needed;   /* samples in a row before it moves down */
	uint32_t headroom_ns[PL011_LEVEL_7_8 + 1]; /* trigger entries + 1, line time */
};

/* Transmit state. `owner` is the one word that contexts share (docs/design.md has its
 * transition table); every other field is read and written only by the context that owns TX. */
struct pl011_tx {
	struct pl011_ring ring;
	/* The ring strategy (lib/pl011_tx_<name>.c), NULL in POLLED mode; set by init. */
	const struct pl011_tx_strategy *strategy;
	uint32_t owner;         /* atomic: OWNED, RETRY, ARMED bits (lib/pl011_tx_owner.h) */
	uint32_t beside;        /* atomic: panic writes writing beside the owner now (after owner:
				 * init keeps both) */
	uint32_t unowned_bytes; /* atomic: bytes panic writes sent without owning TX */
	uint32_t stall_feeding; /* atomic: the waits' stall guard feeds the FIFO (lib/pl011_tx_ring.c) */
	uint32_t panic_budget_us; /* atomic: the deadline of the panic that owns TX */
	uint32_t stop;          /* atomic: the core of a shutdown under way, and its last step */
	uint32_t level;         /* current TX trigger (enum pl011_level) */
	uint32_t poll_next;     /* the FIFO was written outside a TX-interrupt refill */
	uint32_t stall_pass;    /* the next polling pass is the stall guard's */
	uint32_t de_asserted;   /* RS-485: DE is asserted (only the owner changes it) */
	/* The state of the strategy in use: only the one it names is ever touched. */
	union {
		struct pl011_tx_adaptive adaptive;
		struct pl011_tx_measured measured;
	} policy;
};

/* Event state (lib/pl011_events.c). */
struct pl011_events {
	uint32_t tx_done_pending; /* atomic: a drain is under way and its TX_DONE not yet given */
	uint32_t tx_bytes_seen;   /* TX owner: stats.tx_bytes when the ring last emptied */
	/* init: the code that opens a TX_DONE drain when the ring empties, if TX_DONE is in the
	 * mask or RS-485 is on (it ends a send); NULL otherwise */
	void (*tx_done_open)(struct pl011 *uart);
	uint32_t tx_space_wanted; /* atomic: a ring write came up short; TX_SPACE owed */
	uint32_t de_release;      /* atomic: RS-485, a drain ended: release DE at the next tick */
	uint32_t de_bytes;        /* stats.tx_bytes of that drain: more bytes since void it */
	/* init, pl011_set_line: RS-485 drives DE, as rs485 says (its driver); NULL: off */
	const struct pl011_rs485_driver *rs485_driver;
	struct pl011_rs485 rs485; /* init, pl011_set_line: config.rs485's settings, copied */
	/* RX idle from the timer (lib/pl011_events.c says who writes which, and how) */
	uint32_t rx_drains;       /* atomic: handler drains that took bytes */
	uint32_t rx_last_us;      /* atomic: config.clock at the end of the last of them */
	uint32_t rx_idle_drains;  /* atomic: rx_drains when RX_IDLE was last given */
	uint32_t rx_tick;         /* atomic: a tick is due to look at RX idle */
	uint32_t rx_step_us;      /* init: config.clock's step, added to the silence asked for */
	uint32_t rx_look_drains;  /* the tick: rx_drains when its last look armed for the rest */
	uint32_t rx_look_us;      /* the tick: config.clock at that look (a stopped clock: the same) */
};

/* Receive state: the ring, whose producer is the interrupt and consumer the reader. */
struct pl011_rx {
	struct pl011_ring ring;
};

/*
 * The instance. The caller allocates it (static is fine); the driver keeps all its state here
 * and nowhere else. Fields are private, grouped by who writes them: read them only through the
 * functions below.
 */
struct pl011 {
	/* init: the caller's config, read where it is, never copied or written (pl011_init says
	 * how long it must stay). Kept through init's clearing of the rest, so a panic or a
	 * handler beside a re-init reads the old config or the new one, never NULL. */
	const struct pl011_config *config;
	uintptr_t base;             /* init: config->base, which every register access reads */
	struct pl011_line line;     /* init, pl011_set_line */
	struct pl011_tx tx;         /* the TX owner (and the atomic words) */
	struct pl011_rx rx;         /* RX producer / consumer */
#if PL011_STATS
	struct pl011_stats stats;   /* per-field writers: see struct pl011_stats */
#else
	struct pl011_stats_kept stats; /* only these (PL011_STATS above) */
#endif
	struct pl011_events events; /* see struct pl011_events */
	uint32_t imsc;              /* atomic: what IMSC must hold (lib/pl011_internal.h) */
	uint32_t state;             /* atomic: STOPPED, RUNNING, SHUTTING_DOWN */
	/* atomic: interrupt handlers inside (announced before they look at state), which
	 * shutdown and init wait out before they touch the rings; last, as init keeps it. */
	uint32_t handlers_inside;
};

/*
 * Two cores (or any two contexts) calling at the same time, for every pair of functions; the
 * call-matrix explorer of the host tests (tests/unit/test_call_matrix.c) runs every pair
 * allowed here on two modelled cores, in every TX mode, at a real line rate and with a line
 * faster than the CPU, and checks what is promised:
 *  - pl011_write / pl011_putc with one another: not allowed (one writer at a time; serialise
 *    them, e.g. with a lock of your own). Likewise pl011_read / pl011_getc among themselves.
 *  - pl011_write, pl011_flush and pl011_send_break with the interrupt handler, a panic write,
 *    the RX callback: safe. While a panic on another core makes its last pass, a write queues
 *    nothing new (PL011_NO_WAIT returns what it had queued, a bounded write waits within its
 *    bound).
 *  - pl011_write_panic with everything, itself on another core included: safe (below).
 *  - pl011_shutdown with the interrupt handler, a panic write or a flush on another core, and
 *    pl011_restart of a running port with the handler or a panic write: safe; every accepted byte
 *    is on the wire once or counted in stats.tx_discarded, never both, and nothing of the old
 *    run leaves after the restart. Both wait for a handler already running on another core to
 *    return before they touch the RX FIFO or the rings, so every received byte is in the
 *    (new) ring once and in order, or counted in stats.rx_discarded. With pl011_write,
 *    pl011_read or another pl011_shutdown / pl011_init / pl011_restart, and pl011_init or
 *    pl011_restart with a flush (they clear the instance the flush reads): not allowed (they
 *    are the calls of whoever owns the port; stop your writer first).
 *  - pl011_read / pl011_getc with the writer, pl011_flush, pl011_send_break, the interrupt
 *    handler and a panic write: safe (the RX ring has one producer, the handler, and one
 *    consumer, the reader; neither touches TX).
 *  - pl011_flush with pl011_flush: safe (both only wait; a stall guard sends through the TX
 *    owner word like any other owner).
 *  - pl011_irq_handler with itself on two cores at once: not allowed (route the UART's
 *    interrupt to one core at a time: the RX drain is the RX ring's only producer). Its TX
 *    part alone would be safe (the owner word decides).
 *  - the getters (pl011_get_stats, pl011_tx_queued, ...): safe, each a snapshot;
 *    pl011_error_name, pl011_compute_baud and pl011_backlog_deadline_us are pure (any
 *    context, any core).
 *  - pl011_event_tick counts as an interrupt handler: safe with every call the handler is
 *    safe with, and shutdown and init wait for it as for the handler. The explorers run it
 *    at every point of the thread scenarios (one core) and on the second core.
 * A core stopped inside a driver call (by a debugger, a higher-priority exception, a
 * hypervisor), or on one core a task preempted inside one by a higher-priority task's calls,
 * for longer than that call's ownership bound in docs/waiting.md: a panic then writes beside
 * it, and the owner writes nothing more while it does, so no character is lost; a shutdown
 * marks TX taken for good (STOPPED) and waits as long again: an owner that is only slow lets
 * go at the end of its pass (at most 2 x depth characters), and shutdown takes the ring from
 * it (exactly once or counted holds). An owner stopped for both waits keeps the ring, which is
 * counted as discarded without being consumed, and the shutdown returns PL011_ESTALLED: up to
 * 2 x depth of those bytes (written, not yet taken from the ring) may have left too, the one
 * case where "never both" does not hold, said out loud. If it resumes, it finishes the pass
 * it was in and lets go; pl011_init waits for that (and for a panic beside it, a handler) and
 * refuses while it has not, so nothing of the old run leaves after a restart
 * (docs/shutdown.md, "Contexts stalled past shutdown's waits").
 */

/*
 * Compute divisors: q = round(4 * clock / baud), IBRD = q >> 6, FBRD = q & 63 (TRM 2.4.3).
 * Errors: PL011_EINVAL (NULL out, zero clock or baud); PL011_EBAUD when IBRD would be 0 or
 * above 0xFFFF (or 0xFFFF with FBRD != 0), or |error| > tolerance_ppm (0 means
 * PL011_BAUD_TOLERANCE_PPM). Context: any (pure).
 */
int pl011_compute_baud(uint32_t clock_hz, uint32_t baud, uint32_t tolerance_ppm,
		       struct pl011_baud *out);

/*
 * Start a port that is not running: validate the config, then program the UART by the TRM
 * sequence: let output already in the FIFO finish (up to depth + 1 frames at the rate the
 * registers hold, for a boot loader's last words), disable, wait for BUSY to clear (two
 * frames), flush the FIFOs (FEN off), mask and clear all interrupts, IBRD, FBRD, LCR_H last,
 * trigger levels, enable. The FIFO depth is config.fifo_depth, or from PeriphID2 when that is
 * 0. Bytes a stopped port's RX FIFO holds (a boot loader's) go into the new RX ring (or are
 * counted in stats.rx_discarded). The port starts with zeroed counters. A running port is
 * refused (PL011_EBUSY): pl011_restart stops and starts it, and only a firmware that calls it
 * links that code.
 * The port keeps a pointer to *config, not a copy (struct pl011 holds only what changes), and
 * reads it for as long as the port runs: from pl011_init until pl011_shutdown returns, the
 * config must stay where it is, unchanged (a static const config, in flash if you like, is
 * the simplest; a compound literal or a local of main() that never returns does as well; a
 * local of a function that returns does not). pl011_set_line changes baud, format, flow
 * control and RS-485 on a running port. A core stopped inside a driver call beyond its bound
 * (below) may read the config after the shutdown: keep it static where that can happen.
 * config.rs485 is copied, and may go after this call.
 * Errors, nothing touched: PL011_EINVAL, PL011_EBAUD; PL011_EBUSY (the port is running: a
 * running port keeps running); PL011_ESTALLED when a context of the port's last run that
 * shutdown (or a restart's stop) gave up waiting for is still inside: a panic write that holds
 * TX or writes beside its owner, a handler (a core stopped, or on one core a lower-priority
 * task the caller's task preempted, docs/shutdown.md): init first waits for it as shutdown
 * did, calling config.wait_hook; call again once it has run (on an RTOS, after a sleep that
 * lets that task run).
 * Context: thread; not from the RX callback. The interrupt handler may run on another core
 * (or preempt it on this one) at any point of it; other calls beside it: see below.
 */
int pl011_init_port(struct pl011 *uart, const struct pl011_config *config,
		    const struct pl011_tx_strategy *strategy);

/*
 * pl011_init_port with the strategy config.tx_mode names: the one pl011_init above describes.
 * pl011_init_port itself takes the object too, which must be config.tx_mode's (NULL for
 * PL011_TX_POLLED), else PL011_EINVAL: calling it with the object named links that strategy
 * alone even where the compiler cannot see the config.
 */
static inline int pl011_init(struct pl011 *uart, const struct pl011_config *config)
{
	return pl011_init_port(uart, config,
			       config != NULL ? pl011_tx_strategy_for_mode(config->tx_mode) : NULL);
}

/*
 * Restart a port, running or not, with a config (the same or another): a port that is not
 * running is started as by pl011_init. A running one is first shut down with PL011_WAIT_AUTO
 * (its counters carry over, so stats.tx_discarded shows anything that could not be sent),
 * except that what it received and nobody read (its RX ring, then its RX FIFO) goes into the
 * new RX ring, ahead of anything new; what does not fit, or has nowhere to go (a polled
 * config), is counted in stats.rx_discarded. The new rx_buffer may be the old one (the bytes
 * stay where they are), the old one at another size, storage that overlaps it, or storage
 * elsewhere (the bytes move, the oldest kept). After stopping it, it waits for
 * an interrupt handler already running on another core to return (bound: docs/waiting.md)
 * before it touches the rings or the instance. Keep the old config as it was until this call
 * returns (the stop reads it).
 * Errors: PL011_EINVAL, PL011_EBAUD, with nothing touched (a running port keeps running);
 * PL011_ESTALLED when such a handler did not return within that bound (an RX callback that
 * blocks), or a panic kept TX past the stop's waits: the port is then stopped as by
 * pl011_shutdown, its rings and counters left as they are, and pl011_init may be called again
 * once that context returned; for a port that was not running, as pl011_init.
 * Context: as pl011_init. pl011_restart_port takes the strategy object as pl011_init_port.
 */
int pl011_restart_port(struct pl011 *uart, const struct pl011_config *config,
		       const struct pl011_tx_strategy *strategy);

static inline int pl011_restart(struct pl011 *uart, const struct pl011_config *config)
{
	return pl011_restart_port(uart, config,
				  config != NULL ? pl011_tx_strategy_for_mode(config->tx_mode) : NULL);
}

/*
 * Write up to len bytes. bound_us = PL011_NO_WAIT copies what fits now (ring or FIFO) and
 * returns; otherwise waits up to bound_us for room (PL011_WAIT_AUTO: the backlog deadline).
 * In interrupt modes the bytes go to the TX ring and the caller primes an idle transmitter.
 * Returns the count written (less than len only when the wait ran out or bound_us was 0).
 * Errors: PL011_EINVAL (NULL), PL011_ESHUTDOWN (not started, or shutting down).
 * Context: thread; one writer at a time.
 */
int pl011_write(struct pl011 *uart, const void *data, size_t len, uint32_t bound_us);

/*
 * Write one byte, waiting up to the backlog deadline for room. In interrupt modes the byte
 * goes through the ring, so it keeps its order with pl011_write.
 * Returns 0. Errors: PL011_EINVAL, PL011_ESHUTDOWN, PL011_ETIMEDOUT. Context: thread.
 */
int pl011_putc(struct pl011 *uart, uint8_t byte);

/*
 * Panic-safe write, bounded, in every TX mode. If it can take TX ownership (nobody is writing
 * the FIFO), it first sends what the TX ring held when it was called (not what others queue
 * meanwhile), then data, by polling FR, then in a last pass what was queued meanwhile (writers
 * hold new bytes back during that pass, so it ends however fast they would queue):
 * the wire shows every byte accepted before the call, then data. It returns within: depth
 * frames + 100 us to own TX (an owner on another core lets go within one refill; in POLLED
 * mode the writer lets it in at its next byte; another panic that owns TX: that panic's own
 * deadline, which it publishes, plus the same depth frames + 100 us for its last pass), then
 * its own backlog deadline of (bytes queued at the call + len), which starts once that wait is
 * over, then its last pass or its wait for the FIFO to empty ((depth + 2) frames + 1 ms). With config.core_id, a panic that finds TX
 * owned by its own core does not wait for it. If another
 * context owns TX (the panic preempted a writer or the TX interrupt, or another core is
 * sending), it never touches the ring: it writes one byte at a time, each only when the FIFO is
 * empty, and waits for the FIFO to empty again before returning, so the preempted owner finds
 * the FIFO no fuller than it left it. Its bytes then appear on the wire in order and together,
 * after the characters that were already in the FIFO and before the ring bytes still queued
 * (a panic it preempts itself is split around it). Use it when interrupts are off or the system
 * is going down. Returns the count of data bytes written (fewer when the bound ran out); each
 * of them leaves the UART. During a shutdown (or the stop a re-init begins with): with
 * config.core_id, a panic on the core that runs it has preempted it, and writes as on a
 * running port, beside the shutdown once that holds TX, until the shutdown begins to disable
 * the UART (its last steps: then PL011_ESHUTDOWN); on another core, or without config.core_id
 * (the driver cannot tell), it stops at its next byte once the shutdown has begun (even on a
 * line as fast as the CPU, where no wait for room comes), and writes nothing once shutdown has
 * taken TX (docs/shutdown.md, "A panic during a shutdown"). Only beside a shutdown that gave up
 * waiting for it (PL011_ESTALLED: its core stopped, or it ran in a lower-priority task than the
 * shutdown's) may one byte it counts not leave. It never calls config.wait_hook.
 * Errors: PL011_EINVAL (NULL, len > INT32_MAX); PL011_ESHUTDOWN when the port was never
 * started, has been shut down, or a shutdown it did not preempt has taken TX (the UART may
 * still send its last bytes then, and is disabled right after).
 * Context: any, on any core: thread, any interrupt (including one that preempted another pl011
 * call, or the RX callback), fault handlers. Beside an owner whose core was stopped for longer
 * than the ownership wait above it still loses nothing: the owner writes no more while a
 * panic is beside it (docs/design.md, "Panic writes").
 */
int pl011_write_panic(struct pl011 *uart, const void *data, size_t len);

/*
 * Read up to len bytes: everything available, in one call (returning all that is there at once
 * halves the cost of a bulk copy against fixed-size chunks: docs/background.md). bound_us = 0
 * returns at once (possibly 0); otherwise waits up to bound_us for the first byte
 * (PL011_WAIT_AUTO: the backlog deadline for len characters, as long as they take to arrive).
 * In RX_POLLED mode characters with errors are counted and skipped (each pass over the FIFO
 * reads at most len + depth characters, so a stream of bad ones cannot hold a call past its
 * bound), and RSR is read once after the characters, so that an overrun no later character
 * reports is counted too. In the
 * interrupt modes a read that leaves room for a FIFO's worth resumes an RX paused by a full ring.
 * Returns the count. Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: thread; one reader.
 */
int pl011_read(struct pl011 *uart, void *data, size_t len, uint32_t bound_us);

/*
 * Read one byte without waiting. Returns the byte (0..255), PL011_EAGAIN when none is there,
 * or, in RX_POLLED mode, PL011_EFRAMING / PL011_EPARITY / PL011_EBREAK for a bad character
 * (consumed and counted). An overrun flag alone does not spoil the character: it is returned,
 * and the overrun was counted in rx_overrun when RSR (polled) or MIS (interrupt modes) showed
 * it. Like pl011_read, it resumes a paused RX. Errors: PL011_EINVAL, PL011_ESHUTDOWN.
 * Context: thread; one reader.
 */
int pl011_getc(struct pl011 *uart);

/*
 * Bytes a read can take now without waiting: the RX ring's count in the interrupt modes (at
 * most INT32_MAX: a 2^31-byte ring's full count does not fit an int); in RX_POLLED mode FR
 * tells only 0 (empty), 1 (at least one) or the FIFO depth (full).
 * Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: thread; one reader.
 */
int pl011_rx_available(struct pl011 *uart);

/*
 * Bytes a write can take now without waiting: the TX ring's free space in the ring modes (at
 * most INT32_MAX, as pl011_rx_available); in TX_POLLED mode 0 (FIFO full), 1 (room) or the
 * FIFO depth (empty).
 * Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: any (a snapshot).
 */
int pl011_tx_free(struct pl011 *uart);

/*
 * Read exactly len bytes within bound_us (PL011_WAIT_AUTO: the backlog deadline for len).
 * Returns len, or PL011_ETIMEDOUT when the bound ran out first (also for PL011_NO_WAIT with
 * fewer there); *got (if not NULL) holds the count stored either way.
 * Errors: PL011_EINVAL, PL011_ESHUTDOWN, PL011_ETIMEDOUT. Context: thread; one reader.
 */
int pl011_read_exact(struct pl011 *uart, void *data, size_t len, uint32_t bound_us, size_t *got);

/*
 * Read up to and including the first `delimiter`, at most len bytes, within bound_us; nothing
 * after the delimiter is taken. Returns the count (the delimiter last, or len bytes without
 * it when the buffer filled first), or PL011_ETIMEDOUT; *got as for pl011_read_exact.
 * Errors: PL011_EINVAL, PL011_ESHUTDOWN, PL011_ETIMEDOUT. Context: thread; one reader.
 */
int pl011_read_until(struct pl011 *uart, void *data, size_t len, uint8_t delimiter,
		     uint32_t bound_us, size_t *got);

/*
 * Throw away what has been received: what the RX ring holds and what the FIFO holds now, at
 * most the ring's size plus a FIFO, so a sender that keeps sending cannot keep it going. In
 * the interrupt modes characters below the RX trigger reach the ring only with the receive
 * timeout: it waits for the FIFO to empty, at most the backlog deadline of 0 bytes (a FIFO's
 * worth of frames, a quarter more and 1 ms), calling config.wait_hook.
 * Returns the count thrown away. Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: thread; one
 * reader.
 */
int pl011_discard_input(struct pl011 *uart);

/*
 * Service every pending cause: errors are cleared and counted (OE as an overrun), RX and RT
 * drain the FIFO into the RX ring (bounded), or mask themselves while the ring is full, TX
 * refills the FIFO by the strategy or masks TXIM when the ring is empty. At most 4 passes over
 * MIS. A stopped port's handler returns at once. pl011_shutdown and pl011_restart wait for a
 * handler already running on another core to return (it announces itself before it looks at
 * the port's state) before they flush the RX FIFO or touch the rings.
 * Context: the UART's interrupt handler, on one core at a time.
 */
void pl011_irq_handler(struct pl011 *uart);

/*
 * Wait until the TX ring is empty, TXFE is set and BUSY is clear (every accepted byte has left
 * the wire), up to bound_us (PL011_WAIT_AUTO: the backlog deadline). If the TX interrupt does
 * not make progress the wait refills the FIFO itself and counts tx_stalls.
 * Returns 0. Errors: PL011_EINVAL, PL011_ESHUTDOWN, PL011_ETIMEDOUT with *pending (if not
 * NULL) set to the bytes still queued in the ring. Context: thread.
 */
int pl011_flush(struct pl011 *uart, uint32_t bound_us, size_t *pending);

/*
 * Stop the port without losing anything silently (docs/shutdown.md). Refuses new writes, drains
 * the ring and FIFO until the deadline: (ring bytes + FIFO depth) frame times at the programmed
 * baud and frame, plus a quarter, plus 1 ms; bound_us shortens it (0 = discard the ring now;
 * PL011_WAIT_AUTO = the derived deadline). Bytes already in the FIFO then get the backlog
 * deadline of one byte more: (depth + 1) frame times, plus a quarter, plus 1 ms. Disables
 * the UART by the TRM sequence, masks and clears all interrupts.
 * Returns the number of accepted bytes discarded (also added to stats.tx_discarded). Received
 * bytes nobody read (the RX ring and FIFO) are counted in stats.rx_discarded, and an overrun
 * that happened with the interrupts masked in stats.rx_overrun.
 * Errors: PL011_EINVAL, PL011_ESHUTDOWN (not started); PL011_ESTALLED when the FIFO itself
 * never drained (the ring bytes are still counted in stats.tx_discarded; up to depth bytes in
 * the FIFO are lost uncounted and stats.tx_fifo_abandoned is incremented); PL011_ESTALLED too
 * when a context it waits for did not let go within its bound (docs/waiting.md): an interrupt
 * handler running on another core (the RX FIFO is then counted in stats.rx_discarded, not read
 * into the ring); an owner of TX (a panic, the handler, a flush's stall guard: its core
 * stopped, or on one core a lower-priority task this call preempted), which keeps the ring:
 * its bytes are counted in stats.tx_discarded, and up to 2 x depth of them (what it had
 * written and not yet taken from the ring) may have left as well; a panic writing beside the
 * owner, which may count one byte that never left. pl011_init then waits for such a context,
 * and refuses while it is inside (pl011_init). The port can be started again with pl011_init.
 * Context: thread; not from the RX callback.
 */
int pl011_shutdown(struct pl011 *uart, uint32_t bound_us);

/* Copy the counters (with PL011_STATS 0, those not kept read 0). Errors: PL011_EINVAL.
 * Context: any. */
int pl011_get_stats(const struct pl011 *uart, struct pl011_stats *out);

/* The divisors programmed and the rate they give. Errors: PL011_EINVAL, PL011_ESHUTDOWN. */
int pl011_get_baud(const struct pl011 *uart, struct pl011_baud *out);

/* FIFO depth in use (config.fifo_depth, or 16 / 32 from PeriphID), or PL011_EINVAL /
 * PL011_ESHUTDOWN. */
int pl011_get_fifo_depth(const struct pl011 *uart);

/* Bytes accepted by pl011_write and not yet handed to the FIFO (the TX ring's count; 0 in
 * TX_POLLED mode, for NULL, or for a port that is not started). Context: any (a snapshot). */
size_t pl011_tx_queued(const struct pl011 *uart);

/*
 * The backlog deadline in microseconds for `queued` bytes: (queued + depth) frames at the
 * programmed baud and frame, plus a quarter, plus 1000, saturated at PL011_WAIT_AUTO - 1 for
 * any queued value (even SIZE_MAX). 1000 for NULL or a port never started. Context: any.
 */
uint32_t pl011_backlog_deadline_us(const struct pl011 *uart, size_t queued);

/*
 * Send a break: wait for TX to drain (backlog deadline), hold the line low for duration_us
 * (at least two frame times are enforced), release. Errors: PL011_EINVAL, PL011_ESHUTDOWN,
 * PL011_ETIMEDOUT (TX did not drain; no break sent). Context: thread; not beside
 * pl011_set_line (both write LCR_H).
 */
int pl011_send_break(struct pl011 *uart, uint32_t duration_us);

/* ---- Line control: the line changed on a running port, modem lines (docs/design.md,
 * "Line control"; the bounds in docs/waiting.md) ---- */

/* A line: rate, frame format and flow control. */
struct pl011_line_config {
	uint32_t baud;     /* bits per second; pl011_get_line: the rate the divisors give */
	uint8_t data_bits; /* 5..8 */
	uint8_t stop_bits; /* 1 or 2 */
	enum pl011_parity parity;
	bool flow_control;           /* RTS/CTS, as PL011_FLAG_RTS_CTS */
	uint32_t baud_tolerance_ppm; /* 0 = the config's (or PL011_BAUD_TOLERANCE_PPM) */
	/* RS-485 (config.rs485): NULL keeps the port's as it is (on or off), a pointer turns it on
	 * with those settings (copied), rs485_off (with NULL) turns it off. pl011_get_line reports
	 * NULL and false: what it returns, given back, keeps RS-485. */
	const struct pl011_rs485 *rs485;
	bool rs485_off;
};

/*
 * Change baud, format and flow control on a running port without losing a byte: wait until TX
 * is drained (ring, FIFO and the last stop bit, within bound_us, PL011_WAIT_AUTO = the backlog
 * deadline), hold TX (as shutdown takes it) with every interrupt masked, let characters a
 * writer on another core primed meanwhile leave, deassert RTS when flow control is on and wait
 * two frames for the partner's character in flight, wait out a handler on another core, then
 * the TRM sequence: disable, wait for BUSY to clear, move the RX FIFO into
 * the RX ring, flush the FIFOs (FEN off), IBRD, FBRD, LCR_H last (it latches all three: TRM
 * 3.3.7), enable with the new CR. The RX ring, its bytes and the counters are kept; bytes
 * queued meanwhile by a writer leave at the new line. Without flow control a character that
 * arrives in the few register accesses while the receiver is disabled is lost (uncounted):
 * use flow control, or a quiet line, where that matters.
 * Beside it (the call matrix of the host tests runs these pairs on two modelled cores):
 * pl011_write on another core is safe: each byte leaves once, whole and in order, at the old
 * line (accepted before the hold) or the new one (queued during it), and a writer that keeps
 * the ring full makes the drain run out (PL011_ETIMEDOUT); pl011_write_panic during the switch
 * returns PL011_ESHUTDOWN without writing (as during a shutdown), before or after it writes
 * normally, and a panic that owns TX for longer than the hold waits, or writes beside its
 * owner for longer (its core stopped between its look and its byte), makes it
 * PL011_ETIMEDOUT, nothing changed;
 * pl011_flush, the interrupt handler and the getters are safe; pl011_read / pl011_getc on another core are
 * safe (a resume they make during the switch takes effect after it). Not with pl011_init,
 * pl011_shutdown, pl011_set_modem_lines, pl011_send_break (both write LCR_H) or another
 * pl011_set_line.
 * RS-485 (line->rs485, line->rs485_off): a change is made in the same hold, TX drained: DE, if
 * still on from the last send, is released by the old settings first (their after-delay, + 1
 * us, waited here), and every send after the switch is bracketed by the new ones. Turned off,
 * RTS is left asserted, as pl011_init leaves it.
 * Errors, each with the line, the rings and the counters as before: PL011_EINVAL (NULL, baud
 * 0, data bits, stop bits or parity out of range; RS-485 together with flow control, after the
 * call or by keeping the port's; RS-485 settings pl011_init would refuse: no driver, unknown
 * flags, a delay above PL011_RS485_DELAY_MAX_US, no config.event_timer, PL011_TX_POLLED; rs485 and
 * rs485_off both given; checked before PL011_EBAUD); PL011_ESHUTDOWN (not started, or shutting down);
 * PL011_EBAUD (the clock cannot make the baud within tolerance, or an adopted port with no
 * clock_hz); PL011_EBUSY (RX paused because the ring is full, with flow control RTS held off:
 * read first; or, once RTS is deasserted, the ring has no room for a FIFO's worth while the
 * FIFO holds bytes, or in RX_POLLED mode the FIFO holds unread bytes); PL011_ETIMEDOUT (TX did
 * not drain within bound_us, or its owner did not let go; the drain's own counters, tx_timeouts
 * and the stall guard's, move as in pl011_flush); PL011_ESTALLED (an interrupt handler on
 * another core did not return within its bound). Context: thread.
 */
int pl011_set_line(struct pl011 *uart, const struct pl011_line_config *line, uint32_t bound_us);

/* The line in use: the rate the divisors give (for an adopted line without a clock, the
 * config's baud), format and flow control. Errors: PL011_EINVAL, PL011_ESHUTDOWN. Context: any
 * (a snapshot; during a pl011_set_line it may mix the old and new line). */
int pl011_get_line(const struct pl011 *uart, struct pl011_line_config *out);

/* Modem lines: outputs RTS and DTR (CR), inputs CTS, DSR, DCD and RI (FR). 1 = asserted. */
#define PL011_MODEM_RTS (1u << 0)
#define PL011_MODEM_DTR (1u << 1)
#define PL011_MODEM_CTS (1u << 2)
#define PL011_MODEM_DSR (1u << 3)
#define PL011_MODEM_DCD (1u << 4)
#define PL011_MODEM_RI (1u << 5)

/*
 * Set the outputs in `mask` (PL011_MODEM_RTS, PL011_MODEM_DTR) to `values`; the others keep
 * their state, which pl011_set_line keeps too, except that a pl011_set_line turning flow
 * control off asserts RTS (as pl011_init does). pl011_init asserts RTS and leaves DTR off.
 * Errors, nothing changed: PL011_EINVAL (NULL, other bits in mask), PL011_ESHUTDOWN,
 * PL011_EBUSY (RTS in mask while hardware flow control or the RS-485 driver enable drives it;
 * DTR may still be set). Context: thread; not beside
 * pl011_set_line, pl011_init or pl011_shutdown.
 */
int pl011_set_modem_lines(struct pl011 *uart, uint32_t mask, uint32_t values);

/* Modem status: PL011_MODEM_CTS | DSR | DCD | RI as FR shows them now, and RTS | DTR as set
 * (RTS: as programmed; under flow control the hardware drives it). Returns the bits, or
 * PL011_EINVAL, PL011_ESHUTDOWN. Context: any. */
int pl011_get_modem_status(const struct pl011 *uart);

/* ---- events and the console (docs/events.md) ---- */

/*
 * The TX_DONE and RX_IDLE timer's call (config.event_timer): one FR read for each pending;
 * gives TX_DONE if the drain under way has ended, else arms the timer again (two frames while
 * the FIFO holds data, one once TXFE is set); gives RX_IDLE if an RX burst is open and the
 * line has been quiet 5 frames (plus the clock's step), else arms for what is left. Does
 * nothing for NULL, a stopped port, or nothing pending, so a stray, early or late call is
 * harmless. Context: an interrupt, or wherever the event callback may run.
 */
void pl011_event_tick(struct pl011 *uart);

/*
 * pl011_write for text: each "\n" goes out as "\r\n" (a terminal's newline), other bytes as
 * they are. bound_us is that of pl011_write for each piece (the text up to a newline, then the
 * "\r\n"), so the call returns within (2 x newlines + 1) x bound_us. Returns how many bytes of
 * text were consumed (a "\n" counts once both its bytes were accepted; one that ran out after
 * its "\r" is not counted, and a retry sends that "\r" again), fewer than len only when a
 * bound ran out. Errors: as pl011_write (when nothing was consumed). Context: as pl011_write.
 */
int pl011_write_console(struct pl011 *uart, const char *text, size_t len, uint32_t bound_us);
/* pl011_write_console of a NUL-terminated string, with PL011_WAIT_AUTO. */
int pl011_puts(struct pl011 *uart, const char *text);

/* FR reads pl011_early_write waits at most per byte: 100 ms at 100 ns a read, above a 300-baud
 * frame (33 ms). */
#define PL011_EARLY_SPINS 1000000u

/*
 * An early console: write text ("\n" as "\r\n") to the PL011 at `base` as it is already set up
 * (by a boot loader, the ROM, or an earlier pl011_init), with no instance and no init: to say
 * why pl011_init failed, or before there is anything to init with. Polled, one byte at a time,
 * each waiting at most PL011_EARLY_SPINS FR reads for room. Returns the count of text bytes
 * written, fewer than len when a wait ran out. Errors: PL011_EINVAL (base 0, NULL text),
 * PL011_ESHUTDOWN (CR has UARTEN or TXE clear: nobody set it up), PL011_ETIMEDOUT (no text
 * byte went whole). Context: any, where no port of this driver runs on that UART: beside a
 * running port its bytes may be lost, as the port's refills count on room it takes (use
 * pl011_write_panic there).
 */
int pl011_early_write(uintptr_t base, const char *text, size_t len);

#endif
