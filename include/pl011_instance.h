/* private: the driver's state; read it only through the functions in pl011.h.
 * Users allocate struct pl011 (static is fine), so its size must be public; its fields are
 * not, grouped by who writes them. The inline bodies of pl011.h follow it. */
#ifndef PL011_INSTANCE_H
#define PL011_INSTANCE_H

#ifndef PL011_H
#error "include pl011.h, not pl011_instance.h"
#endif

#include "pl011_ring.h"

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
	uint32_t frame_time; /* one frame (start + data + parity + stop) on the wire, in 1/256 us */
	uint32_t fifo_depth; /* 16 or 32: config.fifo_depth, else from PeriphID */
	uint32_t lcr_h;      /* line control as programmed (without BRK) */
	uint32_t cr;         /* atomic: CR as it must be (DE included; lib/pl011_internal.h) */
#if PL011_INTERRUPTS
	uint32_t rx_imsc;    /* the RX interrupt bits of IMSC while RX is not paused */
	uint32_t rx_level;   /* RX trigger (enum pl011_level) */
	uint32_t irq_passes; /* MIS reads per handler entry at most: 4 above a 1/2 TX trigger */
#endif
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
	uint32_t frame_ns;      /* one frame on the line, rounded down */
	uint32_t headroom_ns[PL011_LEVEL_7_8 + 1]; /* trigger entries + 1, line time */
};

/* Transmit state. `owner` is the one word that contexts share (docs/design.md has its
 * transition table); every other field is read and written only by the context that owns TX. */
struct pl011_tx {
#if PL011_INTERRUPTS
	struct pl011_ring ring;
#endif
	/* The ring strategy (lib/pl011_tx_<name>.c), NULL in POLLED mode; set by init. */
	const struct pl011_tx_strategy *strategy;
	uint32_t owner;         /* atomic: OWNED, RETRY, ARMED bits (lib/pl011_tx_owner.h) */
	uint32_t beside;        /* atomic: panic writes beside the owner now, and those about to
				 * write a byte (after owner: init keeps both) */
	uint32_t unowned_bytes; /* atomic: bytes panic writes sent without owning TX */
#if PL011_INTERRUPTS
	uint32_t stall_feeding; /* atomic: the waits' stall guard feeds the FIFO (lib/pl011_tx_ring.c) */
#endif
	uint32_t panic_budget_us; /* atomic: the deadline of the panic that owns TX */
	uint32_t stop;          /* atomic: the core of a shutdown under way, and its last step */
#if PL011_INTERRUPTS
	uint32_t level;         /* current TX trigger (enum pl011_level) */
	uint32_t poll_next;     /* the FIFO was written outside a TX-interrupt refill */
	uint32_t stall_pass;    /* the next polling pass is the stall guard's */
	uint32_t de_asserted;   /* RS-485: DE is asserted (only the owner changes it) */
#endif
	uint32_t fenced;        /* the owner wrote no DR since its last pl011_io_barrier */
#if PL011_INTERRUPTS
	/* The state of the strategy in use: only the one it names is ever touched. */
	union {
		struct pl011_tx_adaptive adaptive;
		struct pl011_tx_measured measured;
	} policy;
#endif
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

/* The instance. The caller allocates it; the driver keeps all its state here and nowhere
 * else. */
struct pl011 {
	/* init: the caller's config, read where it is, never copied or written (docs/api.md,
	 * "Why the config is kept by pointer": how long it must stay). Kept through init's
	 * clearing of the rest, so a panic or a handler beside a re-init reads the old config or
	 * the new one, never NULL. */
	const struct pl011_config *config;
	uintptr_t base;             /* init: config->base, which every register access reads */
	/* These three near the start, where a load's offset fits the M0's short encoding; init
	 * does not clear them with the rest. */
	uint32_t state;             /* atomic: STOPPED, RUNNING, SHUTTING_DOWN, SHUT */
	/* atomic: pl011_irq_handler is inside (1), and the event ticks inside (a count), each
	 * announced before it looks at state; shutdown and init wait them out before they touch
	 * the rings. */
	uint32_t irq_inside;
	uint32_t ticks_inside;
	struct pl011_line line;     /* init, pl011_set_line */
	struct pl011_tx tx;         /* the TX owner (and the atomic words) */
#if PL011_INTERRUPTS
	struct pl011_rx rx;         /* RX producer / consumer */
#endif
#if PL011_STATS
	struct pl011_stats stats;   /* per-field writers: docs/api.md, "Counters" */
#else
	struct pl011_stats_kept stats; /* only these (PL011_STATS in pl011.h) */
#endif
#if PL011_INTERRUPTS
	struct pl011_events events; /* see struct pl011_events */
#endif
	/* shutdown: init's wait for the stopped run's contexts, linked only by a firmware that stops */
	bool (*old_run_left)(struct pl011 *uart);
#if PL011_INTERRUPTS
	uint32_t imsc;              /* atomic: what IMSC must hold (lib/pl011_internal.h) */
#endif
};

/* A part of the interrupt machinery (or a choice of one), NULL in the polled-only build. */
#if PL011_INTERRUPTS
#define PL011_INTERRUPT_PART(part) (part)
#else
#define PL011_INTERRUPT_PART(part) NULL
#endif

/* The parts of a start a firmware links only by naming them: the strategy, the RX ring of the
 * interrupt RX modes, an adopted line's read-back, the events' and RS-485's start (docs/api.md,
 * "Strategies as objects"). */
struct pl011_rx_ring_driver;
extern const struct pl011_rx_ring_driver pl011_rx_ring_driver;
struct pl011_adopt_driver;
extern const struct pl011_adopt_driver pl011_adopt_driver;
struct pl011_events_rs485_driver;
extern const struct pl011_events_rs485_driver pl011_events_rs485_driver;
/* The rings' rules (lib/pl011_rings_check.c): buffers, sizes, overlaps. */
typedef uint32_t (*pl011_check_rings_fn)(const struct pl011 *uart,
					 const struct pl011_config *config);
uint32_t pl011_check_rings(const struct pl011 *uart, const struct pl011_config *config);
static inline bool pl011_config_uses_rings(const struct pl011_config *config)
{
	return config->tx_mode != PL011_TX_POLLED || config->rx_mode != PL011_RX_POLLED;
}
/* An event driver without a mask does nothing at a start: only a mask or RS-485 needs the part. */
static inline bool pl011_config_uses_events_rs485(const struct pl011_config *config)
{
	return config->event_mask != 0 || config->rs485 != NULL;
}
struct pl011_parts {
	const struct pl011_tx_strategy *tx_strategy; /* config.tx_mode's; NULL for PL011_TX_POLLED */
	pl011_check_rings_fn check_rings;            /* pl011_check_rings; NULL: no ring */
	const struct pl011_rx_ring_driver *rx_ring;  /* &pl011_rx_ring_driver; NULL: RX polled */
	const struct pl011_adopt_driver *adopt;      /* &pl011_adopt_driver; NULL: no ADOPT_LINE */
	/* &pl011_events_rs485_driver; NULL: no event_mask, no rs485 */
	const struct pl011_events_rs485_driver *events_rs485;
};
/* pl011_init_port with its parts: a part the config needs missing is PL011_EINVAL, one it does
 * not use is ignored. Errors, context: as pl011_init_port. */
int pl011_init_parts(struct pl011 *uart, const struct pl011_config *config,
		     const struct pl011_parts *parts);
/* Internal: pl011_init's call, whose parts come from the config itself, so it skips
 * pl011_init_parts's check that none is missing. Name parts yourself? Call pl011_init_parts. */
int pl011_init_named_parts(struct pl011 *uart, const struct pl011_config *config,
			   const struct pl011_parts *parts);
/* A switch the compiler resolves wherever it can prove what config.tx_mode holds, so that
 * pl011_init links only that strategy (docs/api.md, "Strategies as objects"). */
static inline const struct pl011_tx_strategy *pl011_tx_strategy_for_mode(enum pl011_tx_mode mode)
{
	if (!PL011_INTERRUPTS)
		return NULL; /* the polled-only build: pl011_init refuses the other modes */
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

static inline int pl011_init(struct pl011 *uart, const struct pl011_config *config)
{
	if (config == NULL)
		return pl011_init_named_parts(uart, config, NULL);
	const struct pl011_parts parts = {
		.tx_strategy = pl011_tx_strategy_for_mode(config->tx_mode),
		.check_rings = PL011_INTERRUPT_PART(pl011_config_uses_rings(config) ? pl011_check_rings
										    : NULL),
		.rx_ring = PL011_INTERRUPT_PART(config->rx_mode != PL011_RX_POLLED
							? &pl011_rx_ring_driver
							: NULL),
		.adopt = (config->flags & PL011_FLAG_ADOPT_LINE) != 0 ? &pl011_adopt_driver : NULL,
		.events_rs485 = PL011_INTERRUPT_PART(pl011_config_uses_events_rs485(config)
							     ? &pl011_events_rs485_driver
							     : NULL),
	};
	return pl011_init_named_parts(uart, config, &parts);
}

static inline int pl011_restart(struct pl011 *uart, const struct pl011_config *config)
{
	return pl011_restart_port(uart, config,
				  config != NULL ? pl011_tx_strategy_for_mode(config->tx_mode) : NULL);
}

#endif
