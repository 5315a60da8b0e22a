/* Latency regimes, clocks and writers for TX runs on the model: the matrix of make bench and its tests. */
#ifndef TEST_REGIMES_H
#define TEST_REGIMES_H

#include <stddef.h>
#include <stdint.h>

#include "harness.h"

/* Where the interrupt latency comes from (each dispatch draws one, tests/model). */
enum regime_family {
	REGIME_CONSTANT, /* always `latency_ns` */
	REGIME_TAIL,     /* 1 us plus the model's heavy tail up to `cap_ns` (median cap/100) */
	REGIME_SPIKES,   /* 1 us, and CPU stalls of [lo, hi] ns in time (regimes.c: how often) */
	REGIME_SWITCH_UP,   /* 1 us for the first third of the run, spikes in the second, 1 us after */
	REGIME_SWITCH_DOWN, /* spikes, then 1 us in the second third, spikes again */
};

/* The clock the driver is given. */
enum regime_clock {
	REGIME_CLOCK_EXACT, /* the model's microseconds */
	REGIME_CLOCK_10US,  /* steps of 10 us, as many board timers */
	REGIME_CLOCK_1MS,   /* steps of 1 ms (a tick counter scaled to microseconds) */
	REGIME_CLOCK_WRAP,  /* microseconds that wrap at 2^32 in the middle of the run */
	REGIME_CLOCK_NONE,  /* no clock: spins_per_us only */
	REGIME_CLOCKS
};

/* Who moves bytes into the ring. */
enum regime_writer {
	REGIME_WRITER_IRQ,     /* pl011_write(NO_WAIT) every 20 us: the interrupt alone refills */
	REGIME_WRITER_WAITING, /* pl011_write(WAIT_AUTO) of 1 KiB at a time: its wait's stall guard
				  may feed the FIFO too */
	REGIME_WRITERS
};

struct regime_cell {
	uint32_t baud;
	unsigned depth;
	enum regime_family family;
	uint64_t latency_ns; /* CONSTANT */
	uint64_t cap_ns;     /* TAIL */
	uint32_t spike_permille;
	uint64_t spike_lo_ns, spike_hi_ns;
	enum regime_clock clock;
	enum regime_writer writer;
	uint32_t seed; /* the latency draws */
	size_t bytes;  /* at most REGIME_MAX_BYTES */
	uint32_t phase_ns; /* model time let pass after init, before the first write: moves every
			      event against the microseconds of the driver's clock */
};

#define REGIME_MAX_BYTES (64u * 1024u)

struct regime_result {
	uint64_t irqs;            /* handler entries */
	uint64_t fr_reads;        /* the driver's TX-path FR reads (stats.tx_fr_reads) */
	uint64_t cpu_ns;          /* handler CPU, entry included */
	uint64_t cpu_no_entry_ns; /* the same less the model's entry cost per dispatch */
	uint64_t idle_ns;         /* line idle while bytes waited */
	uint64_t underruns;       /* the line ran dry while bytes waited */
	uint32_t final_level;     /* IFLS TX code at the end */
	uint64_t stalls;          /* the wait's stall guard fired (stats.tx_stalls) */
	uint64_t irq_barriers;    /* pl011_io_barrier calls inside the handler (model: free) */
	uint64_t irq_atomics;     /* atomic points inside the handler (model: free) */
	uint64_t irq_rmws;        /* of those, read-modify-writes */
};

/* The latency families for one line (regimes.c says which), seeded from seed; returns how
 * many cells it wrote, at most max (REGIME_LATENCIES is enough). Clock and writer: exact, irq. */
#define REGIME_LATENCIES 21u
size_t regime_latencies(uint32_t baud, unsigned depth, uint32_t seed, struct regime_cell *out,
			size_t max);

/* Short names for tables. */
const char *regime_family_name(enum regime_family family);
const char *regime_clock_name(enum regime_clock clock);
const char *regime_writer_name(enum regime_writer writer);

/* A cell's latency description, e.g. "const 17.0 us", into out. */
void regime_describe(const struct regime_cell *cell, char *out, size_t size);

/* The run's line time: bytes back-to-back frames at the cell's baud, 8N1. */
uint64_t regime_line_ns(const struct regime_cell *cell);

/* For a run of another handler (make bench's reference): the model's latency settings of the
 * cell, then, with the model created, its latency hook; regime_attach_start marks the first
 * write (the switches count their thirds from there). */
void regime_model_config(const struct regime_cell *cell, struct pl011_model_config *model_config);
void regime_attach(const struct regime_cell *cell, struct pl011_model *model);
void regime_attach_start(const struct pl011_model *model);

/* Run the cell with one driver TX strategy; aborts (exit 1, with a message) if a byte is lost,
 * reordered, or the FIFO overflowed. */
void regime_run(const struct regime_cell *cell, enum pl011_tx_mode mode, struct regime_result *out);

#endif
