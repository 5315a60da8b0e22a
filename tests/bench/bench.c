/* `make bench`: TX strategies and triggers, RX modes and shutdown drains measured on the model. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#ifndef PL011_SINGLE_CORE
#define PL011_SINGLE_CORE 0
#endif
#include "pl011_io.h"
#include "pl011_regs.h"
#include "regimes.h"

/*
 * Everything here runs in simulated time on the behavioural model, and the loaded-CPU jitter
 * comes from a seeded generator, so two runs print the same bytes. Nothing reads a host clock.
 * Every run also checks its own result (wire == stream, no FIFO overflow, every RX byte
 * accounted for): a benchmark of a run that went wrong would report nonsense, so it aborts.
 */

#define TX_BYTES (64u * 1024u)
#define RX_BYTES (64u * 1024u)
#define CLOCK_HZ 48000000u
#define FAST_BAUD 3000000u
#define SLOW_BAUD 115200u
/* The producer tops the ring up every 20 us (as send_stream in test_irq_tx.c): at 3 Mbaud the
 * 4 KiB ring holds 13 ms of line, so the ring itself never runs dry. */
#define PRODUCER_STEP_NS 20000u
/* The RX reader empties the ring every 100 us; a 4 KiB ring lasts 13 ms at 3 Mbaud. */
#define READER_STEP_NS 100000u
#define LOAD_SEED 0xC0FFEEu
#define SEED_RUNS 5u
#define LATENCY_BAND_NS 250000u /* the 2019 control loop's 250 us band (docs/background.md) */
#define MESSAGES 1000u
#define MESSAGE_MIN_LEN 5u
#define MESSAGE_MAX_LEN 6u
#define MESSAGE_PERIOD_NS 1000000u /* a 1,000 Hz control loop (docs/background.md) */

static struct harness h;
static uint8_t tx_stream[TX_BYTES];
static uint8_t rx_data[RX_BYTES];
static uint8_t rx_got[RX_BYTES];
static uint64_t rx_arrival_ns[RX_BYTES];
static uint64_t rx_latency_ns[RX_BYTES];
static uint64_t sort_scratch[RX_BYTES];
static uint8_t shutdown_data[4096u + 17u];

static void die(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	fputs("bench: ", stderr);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	va_end(args);
	exit(1);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole != 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ------------------------------------------------------------------ set-up */

struct load {
	const char *name;
	uint64_t jitter_ns; /* 0: the fixed 1 us latency only */
};

static const struct load loads[] = {
	{"fixed 1 us latency", 0u},
	{"loaded, jitter cap 20 us", 20000u},
	{"loaded, jitter cap 100 us", 100000u},
};
#define LOADS (sizeof loads / sizeof loads[0])

static const enum pl011_tx_mode strategies[] = {
	PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL, PL011_TX_HYBRID, PL011_TX_ADAPTIVE, PL011_TX_MEASURED};
static const char *const strategy_names[] = {"HALF_FIFO", "POLL_FULL", "HYBRID", "ADAPTIVE",
					     "MEASURED"};
#define STRATEGIES 5u
enum { S_HALF, S_POLL, S_HYBRID, S_ADAPTIVE, S_MEASURED };

static const char *const level_names[] = {"default", "1/8", "1/4", "1/2", "3/4", "7/8"};

/* A fresh model and driver config: defaults except depth and, when loaded, the jitter. */
static void setup(unsigned depth, uint64_t jitter_ns, uint32_t seed)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.uartclk_hz = CLOCK_HZ;
	model_config.fifo_depth = depth;
	if (jitter_ns != 0) {
		model_config.latency_seed = seed;
		model_config.latency_jitter_ns = jitter_ns;
	}
	harness_setup_with(&h, &model_config);
}

static void start(void)
{
	int err = harness_start(&h);
	if (err != 0)
		die("pl011_init failed: %s", pl011_error_name(err));
	/* Only the measured work counts, not the init sequence. */
	pl011_model_reset_counters(h.model);
}

/* ------------------------------------------------------------------ reference handler */

/*
 * The yardstick every strategy is shown against: a plain FIFO/2 TX handler, the refill Linux's
 * amba-pl011 keeps in its interrupt (docs/background.md, section 1), on the same register seam
 * as the driver, so that the model counts its accesses and its handler time the same way.
 * Each entry reads MIS once and writes depth/2 characters blind: the 1/2 trigger promises that
 * much room (TRM 2.8). The DR writes that lift the FIFO above the trigger also clear TXIS, so
 * there is no ICR write; a refill that leaves the FIFO at or below it leaves TXIS set and the
 * line brings the handler back. An empty ring masks TXIM and hands the FIFO to the thread,
 * which primes it polling FR (as Linux does outside the interrupt) and unmasks. No statistics,
 * no pass loop, no FR read in the handler.
 *
 * The model runs the handler only inside a register access or a pl011_model_advance, and the
 * ring is touched between accesses, so the ring needs no atomics here; on hardware it would.
 */
struct reference {
	uintptr_t base;
	unsigned half; /* depth / 2 */
	bool stopped;  /* TXIM masked: the thread owns the FIFO */
	size_t head;   /* free-running; head - tail bytes wait */
	size_t tail;
	uint8_t ring[HARNESS_TX_RING];
};
static struct reference ref;
/* IFLS level code 2 is 1/2 for both FIFOs (TRM 3.3.9), as at reset. */
#define REFERENCE_IFLS ((2u << PL011_IFLS_TXIFLSEL_SHIFT) | (2u << PL011_IFLS_RXIFLSEL_SHIFT))

static void reference_irq(void *context)
{
	struct reference *r = context;
	if ((pl011_io_read(r->base + PL011_MIS) & PL011_INT_TX) == 0)
		return;
	for (unsigned i = 0; i < r->half && r->tail != r->head; i++, r->tail++)
		pl011_io_write(r->base + PL011_DR, r->ring[r->tail % HARNESS_TX_RING]);
	if (r->tail == r->head) {
		r->stopped = true;
		pl011_io_write(r->base + PL011_IMSC, 0);
	}
}

/* With TXIM masked nothing else writes DR. A FIFO left full is sure to drain through the
 * trigger, so unmasking then is safe; an emptied ring has nothing to wait for. */
static void reference_prime(void)
{
	while (ref.tail != ref.head && (pl011_io_read(ref.base + PL011_FR) & PL011_FR_TXFF) == 0)
		pl011_io_write(ref.base + PL011_DR, ref.ring[ref.tail++ % HARNESS_TX_RING]);
	if (ref.tail != ref.head) {
		ref.stopped = false;
		pl011_io_write(ref.base + PL011_IMSC, PL011_INT_TX);
	}
}

static size_t reference_write(const uint8_t *data, size_t len)
{
	size_t room = HARNESS_TX_RING - (ref.head - ref.tail);
	size_t n = len < room ? len : room;
	for (size_t i = 0; i < n; i++)
		ref.ring[(ref.head + i) % HARNESS_TX_RING] = data[i];
	ref.head += n;
	if (ref.stopped && n != 0)
		reference_prime();
	return n;
}

static size_t reference_backlog(void *context)
{
	const struct reference *r = context;
	return r->head - r->tail;
}

/* The driver, polled, programs the line and enables the UART; the reference takes the TX
 * interrupt from there with the 1/2 trigger. */
static void reference_start(unsigned depth)
{
	start();
	memset(&ref, 0, sizeof ref);
	ref.base = HARNESS_BASE;
	ref.half = depth / 2u;
	ref.stopped = true;
	pl011_io_write(ref.base + PL011_IMSC, 0);
	pl011_io_write(ref.base + PL011_IFLS, REFERENCE_IFLS);
	pl011_model_set_irq_handler(h.model, reference_irq, &ref);
	pl011_model_set_backlog_probe(h.model, reference_backlog, &ref);
	pl011_model_reset_counters(h.model);
}

/* ------------------------------------------------------------------ TX */

struct tx_case {
	uint32_t baud;
	unsigned depth;
	uint64_t jitter_ns;
	uint32_t seed;
	enum pl011_tx_mode mode;
	enum pl011_level trigger;
	const struct regime_cell *regime; /* the matrix's latency instead of jitter_ns, or NULL */
};
/* The driver's polled mode has no place in the TX tables: as a tx_case's mode it selects the
 * reference handler instead of the driver. */
#define TX_REFERENCE PL011_TX_POLLED

struct tx_result {
	struct pl011_stats stats;
	uint64_t fr_reads;      /* every FR read the driver made during the transfer */
	uint64_t underruns;     /* model: FIFO ran dry while the ring still held data */
	uint64_t idle_ns;       /* model: line idle in those gaps */
	uint64_t irq_cpu_ns;    /* model: CPU time inside the handler, entry included */
	uint64_t dispatches;    /* model: handler entries */
	uint64_t irq_barriers;  /* model: pl011_io_barrier calls inside the handler */
	uint64_t irq_atomics;   /* model: atomic points inside the handler */
	uint64_t irq_rmws;      /* model: of those, read-modify-writes */
	uint64_t total_ns;      /* first write to the last stop bit */
	uint64_t ideal_ns;      /* TX_BYTES back-to-back frames */
	uint32_t final_trigger; /* IFLS TX code at the end (ADAPTIVE moves it) */
	uint64_t bytes;         /* sent: TX_BYTES per run, summed by tx_result_add */
};

static unsigned tx_runs; /* checked runs, for --smoke's summary */

static const char *tx_case_name(const struct tx_case *c)
{
	return c->mode == TX_REFERENCE ? "REFERENCE" : strategy_names[c->mode - 1];
}

/* The thread's non-blocking write: into the driver, or into the reference handler's ring. */
static size_t tx_offer(const struct tx_case *c, const uint8_t *data, size_t len)
{
	if (c->mode == TX_REFERENCE)
		return reference_write(data, len);
	int n = pl011_write(&h.uart, data, len, PL011_NO_WAIT);
	if (n < 0)
		die("pl011_write: %s", pl011_error_name(n));
	return (size_t)n;
}

/*
 * What the model charges nothing for: each pl011_io_barrier (a DMB SY on ARMv7 and ARMv8:
 * every release and take of TX) and each atomic read-modify-write (pl011_io_atomic_rmw_point:
 * the owner word's swaps, a tick's two adds to ticks_inside). A DMB "stalls the
 * pipeline for a variable number of cycles, depending on the current state of the memory
 * system" (Cortex-R4 TRM, ARM DDI 0363G, C.15); after a device write it waits for that write
 * to complete, so the default charges each a device round trip, the model's register read
 * (50 ns), and each read-modify-write the same (an exclusive pair that may retry, or a
 * helper call that masks interrupts). A plain atomic load or store (pl011_io_atomic_point) is
 * charged nothing beyond what it is, an ordinary load or store; the tables still count them.
 * --sync-cost BARRIER_NS,RMW_NS sets other costs; 0,0 is the model's own accounting.
 *
 * The reference handler is shown twice: as it is (no synchronisation: the model runs it
 * between the thread's accesses, so its ring needs none), and charged for the lock a real
 * FIFO/2 handler takes around its ring and FIFO, as Linux's takes the port's spinlock: one
 * read-modify-write and two barriers per entry (REFERENCE_LOCK_*).
 */
#if PL011_SINGLE_CORE
/*
 * Built with PL011_SINGLE_CORE (make bench's second table): the driver calls no barrier, and
 * each read-modify-write is a section with interrupts masked (lib/pl011_io.h), the TX
 * interrupt's pass one section for all of its own (lib/pl011_tx_ring.c): three more
 * instructions (MRS, CPSID, MSR), charged 5 ns, about their time at the 1 GHz or so a 50 ns
 * register round trip implies. The reference is charged for the lock a uniprocessor build
 * takes: Linux's spin_lock_irqsave there masks interrupts and touches no atomic, one section.
 */
static uint32_t sync_barrier_ns = 50u;
static uint32_t sync_rmw_ns = 5u;
#define REFERENCE_LOCK_RMWS 1u
#define REFERENCE_LOCK_BARRIERS 0u
#else
static uint32_t sync_barrier_ns = 50u;
static uint32_t sync_rmw_ns = 50u;
#define REFERENCE_LOCK_RMWS 1u
#define REFERENCE_LOCK_BARRIERS 2u
#endif

static uint64_t sync_cost_ns(uint64_t barriers, uint64_t rmws)
{
	return barriers * sync_barrier_ns + rmws * sync_rmw_ns;
}

static uint64_t cpu_with_sync(const struct regime_result *r)
{
	return r->cpu_ns + sync_cost_ns(r->irq_barriers, r->irq_rmws);
}

/* The reference's handler CPU charged for its lock, per entry. */
static uint64_t reference_cpu_locked(const struct regime_result *r)
{
	return r->cpu_ns + sync_cost_ns(REFERENCE_LOCK_BARRIERS * r->irqs,
					REFERENCE_LOCK_RMWS * r->irqs);
}

/* Register accesses and synchronisation inside the handler, summed over its entries while
 * tally_on (bench_tx_accesses): the model's counters before and after each entry. */
struct handler_tally {
	uint64_t entries, mis_reads, dr_writes, fr_reads, clock_reads, reg_accesses, barriers,
		atomics, rmws, cpu_ns;
	uint64_t over_bar; /* entries above issue 35's bar (over_sync_bar) */
};
static struct handler_tally tally;
static bool tally_on;

/* Issue 35's bar for one entry: on one core no barrier (a masked section is a load and a
 * store), elsewhere at most 2 read-modify-writes and 2 barriers. */
static bool over_sync_bar(uint64_t rmws, uint64_t barriers)
{
	return PL011_SINGLE_CORE ? barriers != 0 : rmws > 2u || barriers > 2u;
}

static void tally_irq(void *context)
{
	const struct pl011_model_counters *mc = pl011_model_counters(h.model);
	struct pl011_model_counters before = *mc;
	if (context == &ref)
		reference_irq(context);
	else
		pl011_irq_handler(context);
	tally.entries++;
	tally.mis_reads += mc->reads[PL011_MIS / 4u] - before.reads[PL011_MIS / 4u];
	tally.dr_writes += mc->writes[PL011_DR / 4u] - before.writes[PL011_DR / 4u];
	tally.fr_reads += mc->reads[PL011_FR / 4u] - before.reads[PL011_FR / 4u];
	tally.clock_reads += mc->clock_reads - before.clock_reads;
	tally.reg_accesses += mc->total_reads - before.total_reads + mc->total_writes -
			      before.total_writes;
	tally.barriers += mc->irq_barriers - before.irq_barriers;
	tally.atomics += mc->irq_atomic_points - before.irq_atomic_points;
	tally.rmws += mc->irq_rmw_points - before.irq_rmw_points;
	tally.cpu_ns += mc->irq_cpu_ns - before.irq_cpu_ns;
	if (over_sync_bar(mc->irq_rmw_points - before.irq_rmw_points,
			  mc->irq_barriers - before.irq_barriers))
		tally.over_bar++;
}

static void run_tx(const struct tx_case *c, struct tx_result *r)
{
	if (c->regime != NULL) {
		struct pl011_model_config model_config;
		regime_model_config(c->regime, &model_config);
		harness_setup_with(&h, &model_config);
		regime_attach(c->regime, h.model);
	} else {
		setup(c->depth, c->jitter_ns, c->seed);
	}
	h.config.baud = c->baud;
	if (c->mode == TX_REFERENCE) {
		reference_start(c->depth);
	} else {
		h.config.tx_mode = c->mode;
		h.config.tx_trigger = c->trigger;
		start();
	}
	if (tally_on)
		pl011_model_set_irq_handler(h.model, tally_irq,
					    c->mode == TX_REFERENCE ? (void *)&ref : (void *)&h.uart);

	/* The "thread" offers the rest of the stream without waiting, then does other work. */
	uint64_t begin = pl011_model_now_ns(h.model);
	regime_attach_start(h.model);
	size_t sent = 0;
	while (sent < TX_BYTES) {
		sent += tx_offer(c, tx_stream + sent, TX_BYTES - sent);
		if (sent < TX_BYTES)
			pl011_model_advance(h.model, PRODUCER_STEP_NS);
	}
	/* No pl011_flush here: its FR polling would be counted as the strategy's. The wire
	 * itself says when the last character is out. */
	while (pl011_model_wire_len(h.model) < TX_BYTES)
		pl011_model_advance(h.model, PRODUCER_STEP_NS);

	const struct pl011_model_counters *mc = pl011_model_counters(h.model);
	if (c->mode == TX_REFERENCE)
		memset(&r->stats, 0, sizeof r->stats); /* it keeps none */
	else
		pl011_get_stats(&h.uart, &r->stats);
	r->fr_reads = mc->reads[PL011_FR / 4u];
	r->underruns = mc->underruns;
	r->idle_ns = mc->underrun_idle_ns;
	r->irq_cpu_ns = mc->irq_cpu_ns;
	r->irq_barriers = mc->irq_barriers;
	r->irq_atomics = mc->irq_atomic_points;
	r->irq_rmws = mc->irq_rmw_points;
	r->dispatches = mc->irq_dispatches;
	r->total_ns = pl011_model_wire_end_ns(h.model, TX_BYTES - 1u) - begin;
	r->ideal_ns = (uint64_t)TX_BYTES * pl011_model_frame_ns(h.model);
	r->final_trigger = pl011_model_peek(h.model, PL011_IFLS) & PL011_IFLS_LEVEL_MASK;
	r->bytes = TX_BYTES;

	if (mc->tx_overflows != 0)
		die("%s: %" PRIu64 " TX FIFO overflows", tx_case_name(c), mc->tx_overflows);
	if (pl011_model_wire_len(h.model) != TX_BYTES)
		die("%s: %zu bytes on the wire", tx_case_name(c), pl011_model_wire_len(h.model));
	for (size_t i = 0; i < TX_BYTES; i++)
		if (pl011_model_wire_byte(h.model, i) != tx_stream[i])
			die("%s: wire differs at byte %zu", tx_case_name(c), i);
	tx_runs++;
	harness_teardown(&h);
}

/* Refills that carried extra characters, and the largest extra seen. */
static void extra_summary(const struct pl011_stats *s, char *out, size_t size)
{
	uint64_t with_extra = 0;
	unsigned max = 0;
	for (unsigned bin = 1; bin < PL011_EXTRA_HISTOGRAM_BINS; bin++) {
		with_extra += s->tx_extra_histogram[bin];
		if (s->tx_extra_histogram[bin] != 0)
			max = bin;
	}
	if (with_extra == 0)
		snprintf(out, size, "none");
	else
		snprintf(out, size, "%" PRIu64 " refills (%.1f%%), max %u", with_extra,
			 percent(with_extra, s->tx_refills), max);
}

static void print_tx_table_header(void)
{
	printf("| strategy | TX IRQs | handler entries | refills | FR reads, TX path | FR reads, all "
	       "| extra chars | refills with extra | TXFF stops | underruns (line / driver-seen) "
	       "| idle while data waited (us) | transfer (ms) | vs ideal | IRQ CPU (ms) "
	       "| IRQ CPU per byte (ns) |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
}

static void print_tx_row(enum pl011_tx_mode mode, const struct tx_result *r)
{
	char extra[64];
	extra_summary(&r->stats, extra, sizeof extra);
	/* Only POLL_FULL and ADAPTIVE read FR first and so can see an empty FIFO; the driver
	 * counts an empty FIFO even while its last character is still shifting. */
	char seen[16];
	if (mode == PL011_TX_POLL_FULL || mode == PL011_TX_ADAPTIVE)
		snprintf(seen, sizeof seen, "%" PRIu32, r->stats.tx_underruns);
	else
		snprintf(seen, sizeof seen, "n/a");
	printf("| %s | %" PRIu32 " | %" PRIu64 " | %" PRIu32 " | %" PRIu32 " | %" PRIu64 " | %" PRIu32
	       " | %s | %" PRIu32 " | %" PRIu64 " / %s | %.1f | %.3f | +%.2f%% | %.3f | %.1f |\n",
	       strategy_names[mode - 1], r->stats.irq_tx, r->dispatches, r->stats.tx_refills,
	       r->stats.tx_fr_reads, r->fr_reads, r->stats.tx_extra_chars, extra,
	       r->stats.tx_refill_full, r->underruns, seen, us(r->idle_ns), ms(r->total_ns),
	       percent(r->total_ns - r->ideal_ns, r->ideal_ns),
	       ms(r->irq_cpu_ns), (double)r->irq_cpu_ns / (double)TX_BYTES);
}

/* results[baud][depth][load][strategy] */
static const uint32_t tx_bauds[] = {FAST_BAUD, SLOW_BAUD};
static const unsigned tx_depths[] = {16u, 32u};
static struct tx_result tx_results[2][2][LOADS][STRATEGIES];

static void bench_tx_strategies(void)
{
	printf("### TX strategies\n\n");
	printf("%u bytes of xorshift32 data (seed 64), 8N1, UARTCLK %u Hz, 4 KiB TX ring topped up "
	       "every %u us with pl011_write(NO_WAIT). Loaded runs use jitter seed 0x%X. "
	       "Default trigger 1/2 (ADAPTIVE starts at 1/4).\n\n",
	       TX_BYTES, CLOCK_HZ, PRODUCER_STEP_NS / 1000u, LOAD_SEED);
	for (size_t b = 0; b < 2; b++)
		for (size_t d = 0; d < 2; d++)
			for (size_t l = 0; l < LOADS; l++) {
				printf("#### TX %" PRIu32 " baud, FIFO %u, %s\n\n", tx_bauds[b],
				       tx_depths[d], loads[l].name);
				print_tx_table_header();
				for (size_t s = 0; s < STRATEGIES; s++) {
					struct tx_case c = {tx_bauds[b], tx_depths[d], loads[l].jitter_ns,
							    LOAD_SEED, strategies[s], PL011_LEVEL_DEFAULT, NULL};
					run_tx(&c, &tx_results[b][d][l][s]);
					print_tx_row(strategies[s], &tx_results[b][d][l][s]);
				}
				printf("\n");
			}
}

/* The 2015 Raspberry Pi histogram (docs/background.md), for the polling strategies at 3 Mbaud, FIFO 16. */
static void bench_tx_histogram(void)
{
	printf("#### Extra characters per refill, 3000000 baud, FIFO 16 (refills by extra count)\n\n");
	printf("Guaranteed count 8 (trigger 1/2). Columns: strategy / load.\n\n");
	unsigned top = 0;
	for (size_t l = 0; l < LOADS; l++)
		for (size_t s = S_POLL; s <= S_HYBRID; s++)
			for (unsigned bin = 0; bin < PL011_EXTRA_HISTOGRAM_BINS; bin++)
				if (tx_results[0][0][l][s].stats.tx_extra_histogram[bin] != 0 && bin > top)
					top = bin;
	printf("| extra |");
	for (size_t s = S_POLL; s <= S_HYBRID; s++)
		for (size_t l = 0; l < LOADS; l++)
			printf(" %s, %s |", strategy_names[s], loads[l].name);
	printf("\n|---:|");
	for (size_t i = 0; i < 2u * LOADS; i++)
		printf("---:|");
	printf("\n");
	for (unsigned bin = 0; bin <= top; bin++) {
		printf("| %u |", bin);
		for (size_t s = S_POLL; s <= S_HYBRID; s++)
			for (size_t l = 0; l < LOADS; l++)
				printf(" %" PRIu32 " |", tx_results[0][0][l][s].stats.tx_extra_histogram[bin]);
		printf("\n");
	}
	printf("| **refills** |");
	for (size_t s = S_POLL; s <= S_HYBRID; s++)
		for (size_t l = 0; l < LOADS; l++)
			printf(" %" PRIu32 " |", tx_results[0][0][l][s].stats.tx_refills);
	printf("\n| **TXFF seen** |");
	for (size_t s = S_POLL; s <= S_HYBRID; s++)
		for (size_t l = 0; l < LOADS; l++)
			printf(" %" PRIu32 " |", tx_results[0][0][l][s].stats.tx_refill_full);
	printf("\n| **extra chars** |");
	for (size_t s = S_POLL; s <= S_HYBRID; s++)
		for (size_t l = 0; l < LOADS; l++)
			printf(" %" PRIu32 " |", tx_results[0][0][l][s].stats.tx_extra_chars);
	printf("\n\n");
}

static const char *yes_no(bool ok)
{
	return ok ? "yes" : "**no**";
}

/* The three conditions for ADAPTIVE, per scenario. */
static void bench_tx_adaptive_verdict(void)
{
	printf("#### ADAPTIVE against the bar: fewer IRQs than HALF_FIFO, fewer FR reads than "
	       "POLL_FULL, no more idle line time\n\n");
	printf("| baud | FIFO | load | IRQs ADAPTIVE / HALF_FIFO | FR reads ADAPTIVE / POLL_FULL "
	       "| idle us ADAPTIVE / HALF_FIFO / POLL_FULL | IRQ CPU ms ADAPTIVE / HALF_FIFO "
	       "| trigger moves, final | fewer IRQs | fewer FR | idle <= HALF_FIFO "
	       "| idle <= POLL_FULL | all |\n");
	printf("|---:|---:|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t b = 0; b < 2; b++)
		for (size_t d = 0; d < 2; d++)
			for (size_t l = 0; l < LOADS; l++) {
				const struct tx_result *r = tx_results[b][d][l];
				const struct tx_result *a = &r[S_ADAPTIVE];
				bool irqs = a->stats.irq_tx < r[S_HALF].stats.irq_tx;
				bool fr = a->fr_reads < r[S_POLL].fr_reads;
				bool idle_half = a->idle_ns <= r[S_HALF].idle_ns;
				bool idle_poll = a->idle_ns <= r[S_POLL].idle_ns;
				printf("| %" PRIu32 " | %u | %s | %" PRIu32 " / %" PRIu32 " | %" PRIu64
				       " / %" PRIu64 " | %.1f / %.1f / %.1f | %.3f / %.3f | %" PRIu32
				       ", %s | %s | %s | %s | %s | %s |\n",
				       tx_bauds[b], tx_depths[d], loads[l].name, a->stats.irq_tx,
				       r[S_HALF].stats.irq_tx, a->fr_reads, r[S_POLL].fr_reads,
				       us(a->idle_ns), us(r[S_HALF].idle_ns), us(r[S_POLL].idle_ns),
				       ms(a->irq_cpu_ns), ms(r[S_HALF].irq_cpu_ns),
				       a->stats.tx_trigger_changes, level_names[a->final_trigger + 1u],
				       yes_no(irqs), yes_no(fr), yes_no(idle_half), yes_no(idle_poll),
				       yes_no(irqs && fr && idle_half && idle_poll));
			}
	printf("\n");
}

/* Kept for the comparison with the reference handler. */
static struct tx_result seed_results[SEED_RUNS][STRATEGIES];

/* One seed is one draw: the same loaded scenario with other seeds shows how stable it is. */
static void bench_tx_seeds(void)
{
	printf("#### Seed sensitivity: 3000000 baud, FIFO 16, jitter cap 100 us, seeds 1..%u\n\n",
	       SEED_RUNS);
	printf("Each cell: TX IRQs / FR reads (all) / idle while data waited (us).\n\n");
	printf("| seed |");
	for (size_t s = 0; s < STRATEGIES; s++)
		printf(" %s |", strategy_names[s]);
	printf("\n|---:|");
	for (size_t s = 0; s < STRATEGIES; s++)
		printf("---|");
	printf("\n");
	uint64_t sum_idle[STRATEGIES] = {0};
	uint64_t sum_irq[STRATEGIES] = {0};
	uint64_t sum_fr[STRATEGIES] = {0};
	for (uint32_t seed = 1; seed <= SEED_RUNS; seed++) {
		printf("| %" PRIu32 " |", seed);
		for (size_t s = 0; s < STRATEGIES; s++) {
			struct tx_case c = {FAST_BAUD, 16u, 100000u, seed, strategies[s],
					    PL011_LEVEL_DEFAULT, NULL};
			struct tx_result r;
			run_tx(&c, &r);
			seed_results[seed - 1u][s] = r;
			printf(" %" PRIu32 " / %" PRIu64 " / %.1f |", r.stats.irq_tx, r.fr_reads,
			       us(r.idle_ns));
			sum_idle[s] += r.idle_ns;
			sum_irq[s] += r.stats.irq_tx;
			sum_fr[s] += r.fr_reads;
		}
		printf("\n");
	}
	printf("| **total** |");
	for (size_t s = 0; s < STRATEGIES; s++)
		printf(" %" PRIu64 " / %" PRIu64 " / %.1f |", sum_irq[s], sum_fr[s], us(sum_idle[s]));
	printf("\n\n");
}

/* ------------------------------------------------------------------ against the reference */

/* The four figures issue 14 compares, per KiB or per byte so that sums of runs compare too.
 * Interrupts are handler entries (the model's dispatches): the reference keeps no statistics,
 * and one count taken the same way for everybody is what a ratio needs. */
struct tx_figures {
	double irqs_per_kib;
	double idle_us;         /* line idle while data waited: the whole run, or the sum */
	double cpu_ns_per_byte; /* handler CPU, entry included */
	double fr_per_kib;      /* every FR read, the thread's priming included */
};

static struct tx_figures tx_figures_of(const struct tx_result *r)
{
	double kib = (double)r->bytes / 1024.0;
	return (struct tx_figures){(double)r->dispatches / kib, us(r->idle_ns),
				   (double)r->irq_cpu_ns / (double)r->bytes,
				   (double)r->fr_reads / kib};
}

/* The floor: one interrupt per FIFO's worth of characters. */
static double tx_floor_per_kib(unsigned depth)
{
	return 1024.0 / (double)depth;
}

/* a / b; two zeros are equal (1), and anything over a zero is infinite. */
static double ratio(double a, double b)
{
	if (b != 0.0)
		return a / b;
	return a == 0.0 ? 1.0 : INFINITY;
}

/* A run's figures as multiples of the reference handler's in the same scenario, and its
 * interrupts as a multiple of the floor. */
struct tx_ratios {
	struct tx_figures of_reference;
	double irqs_of_floor;
};

static struct tx_ratios tx_ratios_of(const struct tx_result *r, const struct tx_result *reference,
				     unsigned depth)
{
	struct tx_figures f = tx_figures_of(r);
	struct tx_figures base = tx_figures_of(reference);
	return (struct tx_ratios){
		.of_reference = {ratio(f.irqs_per_kib, base.irqs_per_kib),
				 ratio(f.idle_us, base.idle_us),
				 ratio(f.cpu_ns_per_byte, base.cpu_ns_per_byte),
				 ratio(f.fr_per_kib, base.fr_per_kib)},
		.irqs_of_floor = f.irqs_per_kib / tx_floor_per_kib(depth),
	};
}

static void tx_result_add(struct tx_result *sum, const struct tx_result *r)
{
	sum->fr_reads += r->fr_reads;
	sum->underruns += r->underruns;
	sum->idle_ns += r->idle_ns;
	sum->irq_cpu_ns += r->irq_cpu_ns;
	sum->dispatches += r->dispatches;
	sum->total_ns += r->total_ns;
	sum->ideal_ns += r->ideal_ns;
	sum->bytes += r->bytes;
}

static void print_ratio(double x)
{
	if (isinf(x))
		printf(" (× ∞)");
	else
		printf(" (× %.2f)", x);
}

static void print_reference_header(void)
{
	printf("| strategy | IRQs per KiB (× ref, × floor) | idle while data waited, us (× ref) "
	       "| handler CPU per byte, ns (× ref) | FR reads per KiB (× ref) |\n");
	printf("|---|---:|---:|---:|---:|\n");
}

/* One row: the reference with its own figures and × floor, a strategy with its ratios. */
static void print_reference_row(const char *name, const struct tx_result *r,
				const struct tx_result *reference, unsigned depth)
{
	struct tx_figures f = tx_figures_of(r);
	struct tx_ratios x = tx_ratios_of(r, reference, depth);
	bool is_reference = r == reference;
	printf("| %s%s%s | %.1f", is_reference ? "**" : "", name, is_reference ? "**" : "",
	       f.irqs_per_kib);
	if (is_reference)
		printf(" (floor %.0f: × %.2f) |", tx_floor_per_kib(depth), x.irqs_of_floor);
	else
		printf(" (× %.2f, × %.2f) |", x.of_reference.irqs_per_kib, x.irqs_of_floor);
	printf(" %.1f", f.idle_us);
	if (!is_reference)
		print_ratio(x.of_reference.idle_us);
	printf(" | %.1f", f.cpu_ns_per_byte);
	if (!is_reference)
		print_ratio(x.of_reference.cpu_ns_per_byte);
	printf(" | %.2f", f.fr_per_kib);
	if (!is_reference)
		print_ratio(x.of_reference.fr_per_kib);
	printf(" |\n");
}

/* reference_results[baud][depth][load], and the reference over the seeds of bench_tx_seeds */
static struct tx_result reference_results[2][2][LOADS];
static struct tx_result reference_seed_results[SEED_RUNS];

/* Per handler entry, 64 KiB at 3 Mbaud with a fixed 1 us latency: what each strategy and the
 * reference touch, and the synchronisation the model charges nothing for (barriers, atomic
 * read-modify-writes, plain atomic loads and stores), with the cost model above. */
struct access_row {
	const char *name;
	uint64_t entries, over_bar;
	double reg_accesses, mis_reads, dr_writes, fr_reads, clock_reads;
	double rmws, barriers, plain_atomics;
	double cpu_ns, sync_ns; /* per entry: the model's CPU, entry included; the sync charged */
};

/* locked: REFERENCE with lock at the same depth, for the ratios per entry and per run. */
static void print_access_row(unsigned depth, const struct access_row *a,
			     const struct access_row *locked)
{
	double with_sync = a->cpu_ns + a->sync_ns;
	double locked_sync = locked->cpu_ns + locked->sync_ns;
	printf("| %u | %s | %" PRIu64 " | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %.2f | %.2f "
	       "| %.0f | %.0f | %.3f | %.3f | %" PRIu64 " |\n",
	       depth, a->name, a->entries, a->reg_accesses, a->mis_reads, a->dr_writes, a->fr_reads,
	       a->clock_reads, a->rmws, a->barriers, a->plain_atomics, a->cpu_ns, with_sync,
	       with_sync / locked_sync,
	       with_sync * (double)a->entries / (locked_sync * (double)locked->entries),
	       a->over_bar);
}

static void bench_tx_accesses(void)
{
	struct pl011_model_config defaults;
	pl011_model_default_config(&defaults);
	printf("### Register accesses per TX interrupt, 3000000 baud, fixed 1 us latency%s\n\n",
	       PL011_SINGLE_CORE ? ", PL011_SINGLE_CORE=1" : "");
	if (PL011_SINGLE_CORE)
		printf("Built with PL011_SINGLE_CORE=1: no barrier; each read-modify-write a "
		       "section with interrupts masked, and the TX interrupt's pass one section for "
		       "all of its own (the RMWs below count the sections), charged %" PRIu32 " ns; "
		       "REFERENCE with lock is charged one such section per entry, the lock of a "
		       "uniprocessor build.\n\n", sync_rmw_ns);
	printf("Counted inside the handler, %u bytes, per handler entry. RMWs: atomic "
	       "read-modify-writes (pl011_io_atomic_rmw_point); plain atomic: the other atomic "
	       "points (loads and stores of shared words). CPU per interrupt: the model's, entry "
	       "(%" PRIu32 " ns) included, no synchronisation charged; with sync: plus %" PRIu32
	       " ns per barrier and %" PRIu32 " ns per RMW (--sync-cost), plain atomic accesses "
	       "charged as the loads and stores they are (nothing more). REFERENCE with lock: the "
	       "reference charged %u RMW and %u barriers per entry for the lock a real handler "
	       "takes. × ref+lock: with sync over REFERENCE with lock at the same FIFO depth, per "
	       "interrupt and over the whole run (fewer interrupts weigh: issue 35's bar, 1.1, is on "
	       "the handler's CPU). %s\n\n",
	       TX_BYTES, defaults.irq_entry_cost_ns, sync_barrier_ns, sync_rmw_ns,
	       REFERENCE_LOCK_RMWS, REFERENCE_LOCK_BARRIERS,
	       PL011_SINGLE_CORE ? "No atomic RMW, no barrier: issue 35's bar for a one-core port; "
				   "entries with a barrier: those over it."
				 : "<= 2 RMW, <= 2 barriers: issue 35's common-path bar per entry; "
				   "entries over it: those that did more (the one that empties the "
				   "ring masks TXIM, one more swap and barrier).");
	printf("| FIFO | handler | interrupts | register accesses | MIS reads | DR writes | FR reads "
	       "| clock reads | %s | barriers | plain atomic | CPU per interrupt (ns) "
	       "| with sync (ns) | × ref+lock, per interrupt | × ref+lock, run | %s |\n",
	       PL011_SINGLE_CORE ? "masked sections" : "RMWs",
	       PL011_SINGLE_CORE ? "entries with a barrier" : "entries over <= 2 RMW, <= 2 barriers");
	printf("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	static const int modes[] = {PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL, PL011_TX_HYBRID,
				    PL011_TX_ADAPTIVE, PL011_TX_MEASURED, TX_REFERENCE};
#define ACCESS_MODES (sizeof modes / sizeof modes[0])
	for (size_t d = 0; d < 2; d++) {
		struct access_row rows[ACCESS_MODES + 1u];
		for (size_t i = 0; i < ACCESS_MODES; i++) {
			struct tx_case c = {FAST_BAUD, tx_depths[d], 0u, LOAD_SEED, modes[i],
					    PL011_LEVEL_DEFAULT, NULL};
			struct tx_result r;
			tally = (struct handler_tally){0};
			tally_on = true;
			run_tx(&c, &r);
			tally_on = false;
			double n = (double)tally.entries;
			rows[i] = (struct access_row){
				tx_case_name(&c), tally.entries, tally.over_bar,
				(double)tally.reg_accesses / n,
				(double)tally.mis_reads / n, (double)tally.dr_writes / n,
				(double)tally.fr_reads / n, (double)tally.clock_reads / n,
				(double)tally.rmws / n, (double)tally.barriers / n,
				(double)(tally.atomics - tally.rmws) / n,
				(double)tally.cpu_ns / n + (double)defaults.irq_entry_cost_ns,
				(double)sync_cost_ns(tally.barriers, tally.rmws) / n};
		}
		struct access_row *locked = &rows[ACCESS_MODES];
		*locked = rows[ACCESS_MODES - 1u];
		locked->name = "REFERENCE with lock";
		locked->rmws += REFERENCE_LOCK_RMWS;
		locked->barriers += REFERENCE_LOCK_BARRIERS;
		locked->sync_ns += (double)sync_cost_ns(REFERENCE_LOCK_BARRIERS, REFERENCE_LOCK_RMWS);
		for (size_t i = 0; i <= ACCESS_MODES; i++)
			print_access_row(tx_depths[d], &rows[i], locked);
	}
#undef ACCESS_MODES
	printf("\n");
}

static void bench_tx_reference(void)
{
	printf("### TX against a minimal FIFO/2 handler\n\n");
	printf("REFERENCE is the bench's own handler (tests/bench/bench.c, reference_irq): one MIS "
	       "read per entry, depth/2 characters written blind, TXIM masked when its ring is "
	       "empty, no statistics; the thread primes an idle FIFO polling FR. Same stream, "
	       "ring size, producer and model. IRQs are handler entries. Floor: 1024 / depth "
	       "interrupts per KiB. In brackets: the strategy's figure over the reference's "
	       "(× ∞: the reference's is 0).\n\n");
	for (size_t b = 0; b < 2; b++)
		for (size_t d = 0; d < 2; d++)
			for (size_t l = 0; l < LOADS; l++) {
				printf("#### Against the reference: %" PRIu32 " baud, FIFO %u, %s\n\n",
				       tx_bauds[b], tx_depths[d], loads[l].name);
				struct tx_case c = {tx_bauds[b], tx_depths[d], loads[l].jitter_ns,
						    LOAD_SEED, TX_REFERENCE, PL011_LEVEL_DEFAULT, NULL};
				struct tx_result *ref_r = &reference_results[b][d][l];
				run_tx(&c, ref_r);
				print_reference_header();
				print_reference_row("REFERENCE", ref_r, ref_r, tx_depths[d]);
				for (size_t s = 0; s < STRATEGIES; s++)
					print_reference_row(strategy_names[s], &tx_results[b][d][l][s],
							    ref_r, tx_depths[d]);
				printf("\n");
			}

	printf("#### Against the reference: seeds 1..%u, 3000000 baud, FIFO 16, jitter cap "
	       "100 us\n\n", SEED_RUNS);
	print_reference_header();
	struct tx_result ref_sum = {0};
	struct tx_result sums[STRATEGIES] = {0};
	for (uint32_t seed = 1; seed <= SEED_RUNS; seed++) {
		struct tx_case c = {FAST_BAUD, 16u, 100000u, seed, TX_REFERENCE,
				    PL011_LEVEL_DEFAULT, NULL};
		struct tx_result *ref_r = &reference_seed_results[seed - 1u];
		run_tx(&c, ref_r);
		tx_result_add(&ref_sum, ref_r);
		char name[32];
		snprintf(name, sizeof name, "REFERENCE, seed %" PRIu32, seed);
		print_reference_row(name, ref_r, ref_r, 16u);
		for (size_t s = 0; s < STRATEGIES; s++) {
			snprintf(name, sizeof name, "%s, seed %" PRIu32, strategy_names[s], seed);
			print_reference_row(name, &seed_results[seed - 1u][s], ref_r, 16u);
			tx_result_add(&sums[s], &seed_results[seed - 1u][s]);
		}
	}
	print_reference_row("REFERENCE, all seeds", &ref_sum, &ref_sum, 16u);
	for (size_t s = 0; s < STRATEGIES; s++) {
		char name[32];
		snprintf(name, sizeof name, "%s, all seeds", strategy_names[s]);
		print_reference_row(name, &sums[s], &ref_sum, 16u);
	}
	printf("\n");
}

/* ------------------------------------------------------------------ latency sweep and data */

/* Where make bench asks for the pictures' data (tools/plot_bench.gp); NULL: none. */
static const char *data_dir;

static FILE *open_data(const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", data_dir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		die("cannot write %s", path);
	return f;
}

static void close_data(FILE *f)
{
	if (fclose(f) != 0)
		die("writing the data files failed");
}

/* The 2015 Raspberry Pi measurement at 2 Mbaud, FIFO 16, 100% CPU (docs/background.md,
 * section 1): 136,757 refills, of which pi2015_extra[k] loaded k characters beyond the
 * guaranteed 8 (k = 1..10; the count for 0 was not published). */
#define PI2015_REFILLS 136757u
static const uint32_t pi2015_extra[] = {0, 33375, 7336, 6527, 7324, 7971, 8586, 6983, 3387,
					4007, 4};
#define PI2015_BINS (sizeof pi2015_extra / sizeof pi2015_extra[0])

/* Extra characters per refill as a share of refills: the Pi beside HYBRID on the model. */
static void write_histogram_data(void)
{
	FILE *f = open_data("extra_histogram.dat");
	fprintf(f, "# refills that loaded k extra characters, %% of all refills\n");
	fprintf(f, "k \"Raspberry Pi 2015, 2 Mbaud, 100%% CPU\"");
	for (size_t l = 1; l < LOADS; l++)
		fprintf(f, " \"model HYBRID, 3 Mbaud, %s\"", loads[l].name);
	fprintf(f, "\n");
	for (unsigned k = 1; k < PL011_EXTRA_HISTOGRAM_BINS; k++) {
		bool any = k < PI2015_BINS;
		for (size_t l = 1; l < LOADS; l++)
			any = any || tx_results[0][0][l][S_HYBRID].stats.tx_extra_histogram[k] != 0;
		if (!any)
			break;
		fprintf(f, "%u %.3f", k, k < PI2015_BINS ? percent(pi2015_extra[k], PI2015_REFILLS)
							 : 0.0);
		for (size_t l = 1; l < LOADS; l++) {
			const struct pl011_stats *st = &tx_results[0][0][l][S_HYBRID].stats;
			fprintf(f, " %.3f", percent(st->tx_extra_histogram[k], st->tx_refills));
		}
		fprintf(f, "\n");
	}
	close_data(f);
}

static const uint64_t sweep_caps_us[] = {0, 2, 5, 10, 15, 20, 30, 50, 75, 100};
#define SWEEP_CAPS (sizeof sweep_caps_us / sizeof sweep_caps_us[0])
#define SWEEP_SERIES (STRATEGIES + 1u) /* the strategies, then the reference */

/* One scenario over seeds 1..SEED_RUNS (a fixed latency draws nothing: one run), summed. */
static struct tx_result sweep_point(uint64_t cap_us, size_t series)
{
	struct tx_result sum = {0};
	uint32_t seeds = cap_us != 0 ? SEED_RUNS : 1u;
	for (uint32_t seed = 1; seed <= seeds; seed++) {
		struct tx_case c = {FAST_BAUD, 16u, cap_us * 1000u, seed,
				    series < STRATEGIES ? strategies[series] : TX_REFERENCE,
				    PL011_LEVEL_DEFAULT, NULL};
		struct tx_result r;
		run_tx(&c, &r);
		tx_result_add(&sum, &r);
	}
	return sum;
}

/* Idle line and interrupts against the latency cap: the trade-off the pictures show. */
static void bench_tx_latency_sweep(void)
{
	static struct tx_result points[SWEEP_CAPS][SWEEP_SERIES];
	printf("### TX against the interrupt latency cap, 3000000 baud, FIFO 16\n\n");
	printf("Jitter cap 0 is the fixed 1 us latency; other caps are summed over seeds 1..%u. "
	       "Each cell: IRQs per KiB / idle while data waited per 64 KiB run (us, mean over the "
	       "seeds).\n\n", SEED_RUNS);
	printf("| jitter cap (us) |");
	for (size_t s = 0; s < SWEEP_SERIES; s++)
		printf(" %s |", s < STRATEGIES ? strategy_names[s] : "REFERENCE");
	printf("\n|---:|");
	for (size_t s = 0; s < SWEEP_SERIES; s++)
		printf("---:|");
	printf("\n");
	for (size_t i = 0; i < SWEEP_CAPS; i++) {
		printf("| %" PRIu64 " |", sweep_caps_us[i]);
		for (size_t s = 0; s < SWEEP_SERIES; s++) {
			points[i][s] = sweep_point(sweep_caps_us[i], s);
			struct tx_figures f = tx_figures_of(&points[i][s]);
			double runs = (double)points[i][s].bytes / (double)TX_BYTES;
			printf(" %.1f / %.1f |", f.irqs_per_kib, f.idle_us / runs);
		}
		printf("\n");
	}
	printf("\n");
	if (data_dir == NULL)
		return;
	/* One block per series, its name first, for gnuplot's `index` and `columnheader`. */
	FILE *f = open_data("latency_sweep.dat");
	for (size_t s = 0; s < SWEEP_SERIES; s++) {
		fprintf(f, "\"%s\" \"IRQs per KiB\" \"idle us per run\" \"floor per KiB\"\n",
			s < STRATEGIES ? strategy_names[s] : "REFERENCE (FIFO/2)");
		for (size_t i = 0; i < SWEEP_CAPS; i++) {
			struct tx_figures fig = tx_figures_of(&points[i][s]);
			double runs = (double)points[i][s].bytes / (double)TX_BYTES;
			fprintf(f, "%" PRIu64 " %.2f %.2f %.1f\n", sweep_caps_us[i], fig.irqs_per_kib,
				fig.idle_us / runs, tx_floor_per_kib(16u));
		}
		fprintf(f, "\n\n");
	}
	close_data(f);
}

/* HALF_FIFO with every TX trigger: interrupts against headroom. */
static void bench_tx_triggers(void)
{
	printf("### TX trigger level, HALF_FIFO, 3000000 baud, FIFO 16\n\n");
	printf("A trigger of k/8 leaves k/8 of the FIFO as headroom (k * 2 frames of 3.33 us) and "
	       "lets each interrupt write the other (8 - k)/8 blind.\n\n");
	for (size_t l = 0; l < LOADS; l++) {
		printf("#### Trigger sweep, %s\n\n", loads[l].name);
		printf("| trigger | blind chars per IRQ | headroom (us) | TX IRQs | underruns "
		       "| idle while data waited (us) | transfer vs ideal | IRQ CPU (ms) "
		       "| IRQ CPU per byte (ns) |\n");
		printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (int level = PL011_LEVEL_1_8; level <= PL011_LEVEL_7_8; level++) {
			struct tx_case c = {FAST_BAUD, 16u, loads[l].jitter_ns, LOAD_SEED,
					    PL011_TX_HALF_FIFO, (enum pl011_level)level, NULL};
			struct tx_result r;
			run_tx(&c, &r);
			static const unsigned eighths[] = {0, 1, 2, 4, 6, 7};
			unsigned kept = 16u * eighths[level] / 8u;
			double frame_us = 10.0 / (double)FAST_BAUD * 1e6;
			printf("| %s | %u | %.1f | %" PRIu32 " | %" PRIu64 " | %.1f | +%.2f%% | %.3f "
			       "| %.1f |\n",
			       level_names[level], 16u - kept, (double)kept * frame_us, r.stats.irq_tx,
			       r.underruns, us(r.idle_ns), percent(r.total_ns - r.ideal_ns, r.ideal_ns),
			       ms(r.irq_cpu_ns), (double)r.irq_cpu_ns / (double)TX_BYTES);
		}
		printf("\n");
	}
}

/* ------------------------------------------------------------------ regime matrix */

/*
 * Every latency family of tests/unit/regimes.c at 115,200, 921,600 and 3,000,000 baud, FIFO 16
 * and 32, with five clocks and both writers: the driver's strategies in each cell, and the
 * reference handler (which has no clock and one writer) once per line and latency. MEASURED
 * is shown against the best of the others. The tests (test_regimes.c) run a smaller matrix
 * with other seeds.
 */
#define MATRIX_SEED 1000u
#define MATRIX_LINES 6u
#define MATRIX_CELLS (MATRIX_LINES * REGIME_LATENCIES * REGIME_CLOCKS * REGIME_WRITERS)
#define MATRIX_SERIES (STRATEGIES + 1u) /* the strategies, then the reference */
#define S_REFERENCE STRATEGIES
#define IDLE_SLACK_NS 1000u /* the tests' 1 us beside the 1 % */
#define MATRIX_LISTED 12u /* failing cells listed per goal */

struct matrix_cell {
	struct regime_cell cell;
	struct regime_result r[MATRIX_SERIES];
};
static struct matrix_cell matrix[MATRIX_CELLS];
static size_t matrix_cells;

static void matrix_reference(const struct regime_cell *cell, struct regime_result *out)
{
	struct tx_case c = {cell->baud, cell->depth, 0u, cell->seed, TX_REFERENCE,
			    PL011_LEVEL_DEFAULT, cell};
	struct tx_result r;
	run_tx(&c, &r);
	struct pl011_model_config defaults;
	pl011_model_default_config(&defaults);
	*out = (struct regime_result){r.dispatches, r.fr_reads, r.irq_cpu_ns,
				      r.irq_cpu_ns - r.dispatches * defaults.irq_entry_cost_ns,
				      r.idle_ns, r.underruns, 2u, 0u, r.irq_barriers, r.irq_atomics,
				      r.irq_rmws};
}

static void matrix_run(void)
{
	static const uint32_t bauds[] = {SLOW_BAUD, 921600u, FAST_BAUD};
	struct regime_cell latencies[REGIME_LATENCIES];
	matrix_cells = 0;
	for (size_t b = 0; b < 3; b++)
		for (size_t d = 0; d < 2; d++) {
			size_t n = regime_latencies(bauds[b], tx_depths[d], MATRIX_SEED, latencies,
						    REGIME_LATENCIES);
			for (size_t l = 0; l < n; l++) {
				struct regime_result reference;
				matrix_reference(&latencies[l], &reference);
				for (int k = 0; k < REGIME_CLOCKS; k++)
					for (int w = 0; w < REGIME_WRITERS; w++) {
						struct matrix_cell *m = &matrix[matrix_cells++];
						m->cell = latencies[l];
						m->cell.clock = (enum regime_clock)k;
						m->cell.writer = (enum regime_writer)w;
						for (size_t s = 0; s < STRATEGIES; s++)
							regime_run(&m->cell, strategies[s], &m->r[s]);
						m->r[S_REFERENCE] = reference;
					}
			}
		}
}

/* The best (lowest) of a figure over the series other than MEASURED. */
static uint64_t matrix_best(const struct matrix_cell *m, size_t offset, bool with_adaptive,
			    size_t *who)
{
	uint64_t best = UINT64_MAX;
	for (size_t s = 0; s < MATRIX_SERIES; s++) {
		/* The reference has one writer, the interrupt alone: no yardstick for the other. */
		if (s == S_MEASURED || (s == S_ADAPTIVE && !with_adaptive) ||
		    (s == S_REFERENCE && m->cell.writer != REGIME_WRITER_IRQ))
			continue;
		uint64_t v;
		memcpy(&v, (const char *)&m->r[s] + offset, sizeof v);
		if (v < best) {
			best = v;
			*who = s;
		}
	}
	return best;
}

static const char *series_name(size_t s)
{
	return s < STRATEGIES ? strategy_names[s] : "REFERENCE";
}

static double matrix_ratio(uint64_t a, uint64_t b)
{
	return ratio((double)a, (double)b);
}

/* The goals, one cell at a time. */
enum matrix_goal {
	GOAL_IDLE,      /* idle <= 1.01 x the best of HALF, POLL, HYBRID, REF (+ 1 us) */
	GOAL_IRQ_FIXED, /* interrupts <= 0.6 x the reference at 1 us */
	GOAL_IRQ_OTHER, /* interrupts <= 1.02 x the best other strategy elsewhere */
	GOAL_IRQ_NO_WORSE_IDLE, /* the same among the others that idle no less than MEASURED */
	GOAL_CPU_FIXED, /* handler CPU <= 1.0 x the reference at 1 us, with entry cost */
	GOAL_CPU_FIXED_NO_ENTRY, /* the same without it */
	GOAL_CPU_TAIL,  /* <= 1.02 x the reference under tails, with entry cost */
	GOAL_CPU_TAIL_NO_ENTRY,
	GOAL_CPU_FIXED_SYNC, /* handler CPU with entry, barrier and RMW costs <= 1.1 x the
			      * reference charged for its lock, fixed 1 us (issue 35) */
	GOAL_CPU_TAIL_SYNC,  /* the same under tails */
	GOAL_FR_CALM,   /* FR reads <= 0.01 x POLL_FULL's at 1 us */
	GOAL_UNDERRUN,  /* no underrun where HALF_FIFO has none (the tests' second rule) */
	GOALS
};
static const char *const goal_names[] = {
	"idle <= 1.01 x best of HALF_FIFO, POLL_FULL, HYBRID, REFERENCE (+ 1 us)",
	"interrupts <= 0.6 x REFERENCE, fixed 1 us latency",
	"interrupts <= 1.02 x best other strategy, every other cell",
	"interrupts <= 1.02 x best other strategy that idles no less, every other cell",
	"handler CPU <= 1.0 x REFERENCE, fixed 1 us, with entry cost",
	"handler CPU <= 1.0 x REFERENCE, fixed 1 us, without entry cost",
	"handler CPU <= 1.02 x REFERENCE, tails, with entry cost",
	"handler CPU <= 1.02 x REFERENCE, tails, without entry cost",
	"handler CPU <= 1.1 x REFERENCE with lock, fixed 1 us, with entry, barrier and RMW costs",
	"handler CPU <= 1.1 x REFERENCE with lock, tails, with entry, barrier and RMW costs",
	"FR reads <= 0.01 x POLL_FULL, fixed 1 us",
	"no underrun where HALF_FIFO has none",
};

static bool matrix_fixed(const struct regime_cell *c)
{
	return c->family == REGIME_CONSTANT && c->latency_ns == 1000u;
}

/* Whether goal g applies to the cell; if so *value is MEASURED's ratio and *limit the bar. */
static bool matrix_goal(const struct matrix_cell *m, enum matrix_goal g, double *value,
			double *limit)
{
	const struct regime_result *me = &m->r[S_MEASURED];
	const struct regime_result *yardstick = &m->r[S_REFERENCE];
	bool fixed = matrix_fixed(&m->cell);
	bool fixed_irq = fixed && m->cell.writer == REGIME_WRITER_IRQ;
	bool irq_writer = m->cell.writer == REGIME_WRITER_IRQ;
	bool tail = m->cell.family == REGIME_TAIL && irq_writer;
	size_t who = 0;
	switch (g) {
	case GOAL_IDLE: {
		uint64_t best = matrix_best(m, offsetof(struct regime_result, idle_ns), false, &who);
		*value = ratio((double)me->idle_ns + IDLE_SLACK_NS, (double)best + IDLE_SLACK_NS);
		*limit = 1.01;
		return true;
	}
	case GOAL_IRQ_FIXED:
		*value = matrix_ratio(me->irqs, yardstick->irqs);
		*limit = 0.6;
		return fixed_irq;
	case GOAL_IRQ_OTHER:
		*value = matrix_ratio(me->irqs,
				      matrix_best(m, offsetof(struct regime_result, irqs), true, &who));
		*limit = 1.02;
		return !fixed;
	case GOAL_IRQ_NO_WORSE_IDLE: {
		uint64_t best = UINT64_MAX;
		for (size_t s = 0; s < MATRIX_SERIES; s++) {
			bool comparable = s != S_MEASURED && m->r[s].idle_ns >= me->idle_ns &&
					  (s != S_REFERENCE || irq_writer);
			if (comparable && m->r[s].irqs < best)
				best = m->r[s].irqs;
		}
		*value = best == UINT64_MAX ? 0.0 : matrix_ratio(me->irqs, best);
		*limit = 1.02;
		return !fixed;
	}
	case GOAL_CPU_FIXED:
	case GOAL_CPU_TAIL:
		*value = matrix_ratio(me->cpu_ns, yardstick->cpu_ns);
		*limit = g == GOAL_CPU_FIXED ? 1.0 : 1.02;
		return g == GOAL_CPU_FIXED ? fixed_irq : tail;
	case GOAL_CPU_FIXED_NO_ENTRY:
	case GOAL_CPU_TAIL_NO_ENTRY:
		*value = matrix_ratio(me->cpu_no_entry_ns, yardstick->cpu_no_entry_ns);
		*limit = g == GOAL_CPU_FIXED_NO_ENTRY ? 1.0 : 1.02;
		return g == GOAL_CPU_FIXED_NO_ENTRY ? fixed_irq : tail;
	case GOAL_CPU_FIXED_SYNC:
	case GOAL_CPU_TAIL_SYNC:
		*value = matrix_ratio(cpu_with_sync(me), reference_cpu_locked(yardstick));
		*limit = 1.1;
		return g == GOAL_CPU_FIXED_SYNC ? fixed_irq : tail;
	case GOAL_FR_CALM:
		*value = matrix_ratio(me->fr_reads, m->r[S_POLL].fr_reads);
		*limit = 0.01;
		return fixed;
	case GOAL_UNDERRUN:
		*value = (double)me->underruns;
		*limit = 0.0;
		return m->r[S_HALF].underruns == 0;
	default:
		return false;
	}
}

static void matrix_cell_name(const struct matrix_cell *m, char *out, size_t size)
{
	char latency[64];
	regime_describe(&m->cell, latency, sizeof latency);
	snprintf(out, size, "%" PRIu32 " baud, FIFO %u, %s, clock %s, %s writer", m->cell.baud,
		 m->cell.depth, latency, regime_clock_name(m->cell.clock),
		 regime_writer_name(m->cell.writer));
}

static void matrix_verdicts(void)
{
	printf("#### Verdict per goal over the %zu cells\n\n", matrix_cells);
	printf("Idle is compared as (MEASURED + 1 us) / (best + 1 us), the tests' slack. "
	       "Handler CPU with entry cost is the model's (300 ns per entry); without it, the "
	       "same less 300 ns per handler entry; with barrier and RMW costs, the model's "
	       "plus %" PRIu32 " ns per pl011_io_barrier and %" PRIu32 " ns per atomic "
	       "read-modify-write inside the handler (--sync-cost; plain atomic loads and stores "
	       "charged nothing more), against the reference charged for its lock: %u RMW and %u "
	       "barriers per entry.\n\n", sync_barrier_ns, sync_rmw_ns, REFERENCE_LOCK_RMWS,
	       REFERENCE_LOCK_BARRIERS);
	printf("| # | goal | cells | met | worst | worst cell |\n|---:|---|---:|---:|---:|---|\n");
	for (int g = 0; g < GOALS; g++) {
		size_t cells = 0, met = 0;
		double worst = -1.0;
		const struct matrix_cell *worst_cell = NULL;
		for (size_t i = 0; i < matrix_cells; i++) {
			double value, limit;
			if (!matrix_goal(&matrix[i], (enum matrix_goal)g, &value, &limit))
				continue;
			cells++;
			met += value <= limit;
			if (value > worst) {
				worst = value;
				worst_cell = &matrix[i];
			}
		}
		char name[160] = "-";
		if (worst_cell != NULL)
			matrix_cell_name(worst_cell, name, sizeof name);
		printf("| %d | %s | %zu | %zu | %.3f | %s |\n", g + 1, goal_names[g], cells, met, worst,
		       name);
	}
	printf("\n");
}

/* Per goal, the cells that miss it (at most MATRIX_LISTED), with MEASURED's figure and bar. */
static void matrix_failures(void)
{
	printf("#### Cells that miss a goal (at most %u per goal)\n\n", MATRIX_LISTED);
	printf("| goal | cell | MEASURED's ratio | bar | MEASURED idle (us) | HALF_FIFO idle "
	       "| HYBRID idle | best idle, who | MEASURED underruns | HALF_FIFO underruns "
	       "| final level |\n");
	printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int g = 0; g < GOALS; g++) {
		size_t listed = 0;
		for (size_t i = 0; i < matrix_cells && listed < MATRIX_LISTED; i++) {
			const struct matrix_cell *m = &matrix[i];
			double value, limit;
			if (!matrix_goal(m, (enum matrix_goal)g, &value, &limit) || value <= limit)
				continue;
			size_t who = 0;
			uint64_t best = matrix_best(m, offsetof(struct regime_result, idle_ns), false,
						    &who);
			char name[160];
			matrix_cell_name(m, name, sizeof name);
			printf("| %d | %s | %.3f | %.2f | %.1f | %.1f | %.1f | %.1f, %s | %" PRIu64
			       " | %" PRIu64 " | %s |\n",
			       g + 1, name, value, limit, us(m->r[S_MEASURED].idle_ns),
			       us(m->r[S_HALF].idle_ns), us(m->r[S_HYBRID].idle_ns), us(best),
			       series_name(who), m->r[S_MEASURED].underruns, m->r[S_HALF].underruns,
			       level_names[m->r[S_MEASURED].final_level + 1u]);
			listed++;
		}
	}
	printf("\n");
}

/* The exact clock, interrupt writer: every line and latency, MEASURED beside the others. */
static void matrix_table(enum regime_clock clock, enum regime_writer writer)
{
	printf("#### Matrix, clock %s, %s writer\n\n", regime_clock_name(clock),
	       regime_writer_name(writer));
	printf("Each strategy: idle while data waited (us) / handler entries. Last columns: "
	       "MEASURED's FR reads, its handler CPU over the reference's with and without entry "
	       "cost, with its barriers and RMWs charged over the reference charged for its lock, "
	       "its final trigger.\n\n");
	printf("| baud | FIFO | latency |");
	for (size_t s = 0; s < MATRIX_SERIES; s++)
		printf(" %s |", series_name(s));
	printf(" M FR | M CPU × ref | M CPU × ref, no entry | M CPU × ref+lock, sync | M level |\n"
	       "|---:|---:|---|");
	for (size_t s = 0; s < MATRIX_SERIES + 5u; s++)
		printf("---:|");
	printf("\n");
	for (size_t i = 0; i < matrix_cells; i++) {
		const struct matrix_cell *m = &matrix[i];
		if (m->cell.clock != clock || m->cell.writer != writer)
			continue;
		char latency[64];
		regime_describe(&m->cell, latency, sizeof latency);
		printf("| %" PRIu32 " | %u | %s |", m->cell.baud, m->cell.depth, latency);
		for (size_t s = 0; s < MATRIX_SERIES; s++)
			printf(" %.1f / %" PRIu64 " |", us(m->r[s].idle_ns), m->r[s].irqs);
		const struct regime_result *me = &m->r[S_MEASURED];
		const struct regime_result *yardstick = &m->r[S_REFERENCE];
		printf(" %" PRIu64 " | %.3f | %.3f | %.3f | %s |\n", me->fr_reads,
		       matrix_ratio(me->cpu_ns, yardstick->cpu_ns),
		       matrix_ratio(me->cpu_no_entry_ns, yardstick->cpu_no_entry_ns),
		       matrix_ratio(cpu_with_sync(me), reference_cpu_locked(yardstick)),
		       level_names[me->final_level + 1u]);
	}
	printf("\n");
}

/* Per clock and writer: how many cells meet the idle goal, the worst idle and interrupt ratios. */
static void matrix_groups(void)
{
	printf("#### Per clock and writer\n\n");
	printf("| clock | writer | cells | idle goal met | worst idle ratio | worst interrupts "
	       "× best other | MEASURED interrupts × REFERENCE, summed |\n");
	printf("|---|---|---:|---:|---:|---:|---:|\n");
	for (int k = 0; k < REGIME_CLOCKS; k++)
		for (int w = 0; w < REGIME_WRITERS; w++) {
			size_t cells = 0, met = 0;
			double worst_idle = 0.0, worst_irq = 0.0;
			uint64_t irqs = 0, reference_irqs = 0;
			for (size_t i = 0; i < matrix_cells; i++) {
				const struct matrix_cell *m = &matrix[i];
				if ((int)m->cell.clock != k || (int)m->cell.writer != w)
					continue;
				double idle, irq, limit;
				(void)matrix_goal(m, GOAL_IDLE, &idle, &limit);
				size_t who = 0;
				irq = matrix_ratio(m->r[S_MEASURED].irqs,
						   matrix_best(m, offsetof(struct regime_result, irqs),
							       true, &who));
				cells++;
				met += idle <= 1.01;
				worst_idle = idle > worst_idle ? idle : worst_idle;
				worst_irq = irq > worst_irq ? irq : worst_irq;
				irqs += m->r[S_MEASURED].irqs;
				reference_irqs += m->r[S_REFERENCE].irqs;
			}
			printf("| %s | %s | %zu | %zu | %.3f | %.3f | %.3f |\n",
			       regime_clock_name((enum regime_clock)k),
			       regime_writer_name((enum regime_writer)w), cells, met, worst_idle,
			       worst_irq, matrix_ratio(irqs, reference_irqs));
		}
	printf("\n");
}

/* One line per cell for the picture: its index, MEASURED's idle and interrupt ratios. */
static void matrix_data(void)
{
	FILE *f = open_data("regime_matrix.dat");
	fprintf(f, "# cell clock writer idle_ratio irq_ratio (MEASURED over the best other; "
		"idle as (M + 1 us) / (best + 1 us))\n");
	for (size_t i = 0; i < matrix_cells; i++) {
		const struct matrix_cell *m = &matrix[i];
		double idle, limit;
		(void)matrix_goal(m, GOAL_IDLE, &idle, &limit);
		size_t who = 0;
		double irq = matrix_ratio(m->r[S_MEASURED].irqs,
					  matrix_best(m, offsetof(struct regime_result, irqs), true,
						      &who));
		fprintf(f, "%zu %d %d %.4f %.4f\n", i, (int)m->cell.clock, (int)m->cell.writer, idle,
			irq);
	}
	close_data(f);
}

static void bench_regime_matrix(void)
{
	printf("### MEASURED in every regime\n\n");
	printf("%u bytes per cell, seeds from %u (the tests use others). Lines: 115200, 921600 and "
	       "3000000 baud, FIFO 16 and 32; latencies, clocks and writers as tests/unit/regimes.c "
	       "defines them.\n\n", REGIME_MAX_BYTES, MATRIX_SEED);
	matrix_run();
	matrix_verdicts();
	matrix_groups();
	matrix_failures();
	matrix_table(REGIME_CLOCK_EXACT, REGIME_WRITER_IRQ);
	matrix_table(REGIME_CLOCK_EXACT, REGIME_WRITER_WAITING);
	if (data_dir != NULL)
		matrix_data();
}

/* ------------------------------------------------------------------ RX */

/* Each callback records (when, how many good bytes the ring has received in total). */
struct delivery {
	uint64_t at_ns;
	uint32_t total;
};
static struct delivery deliveries[RX_BYTES + 1u];
static size_t delivery_count;

static void on_rx(struct pl011 *uart, uint32_t events, void *context)
{
	(void)events;
	(void)context;
	struct pl011_stats stats;
	pl011_get_stats(uart, &stats);
	uint32_t last = delivery_count ? deliveries[delivery_count - 1u].total : 0u;
	if (stats.rx_bytes == last)
		return;
	if (delivery_count == sizeof deliveries / sizeof deliveries[0])
		die("too many RX deliveries");
	deliveries[delivery_count].at_ns = pl011_model_now_ns(h.model);
	deliveries[delivery_count].total = stats.rx_bytes;
	delivery_count++;
}

struct rx_case {
	uint32_t baud;
	enum pl011_rx_mode mode;
	uint64_t jitter_ns;
	size_t bytes;
	size_t message_len;   /* 0: one back-to-back stream */
	uint64_t period_ns;   /* messages start this far apart */
};

struct rx_result {
	struct pl011_stats stats;
	uint64_t irq_cpu_ns;
	uint64_t overrun_lost; /* model: characters lost to a full RX FIFO */
	size_t received;
};

/* The reader: everything available, until the ring is empty. */
static void read_all(size_t *got)
{
	for (;;) {
		int n = pl011_read(&h.uart, rx_got + *got, RX_BYTES - *got, PL011_NO_WAIT);
		if (n < 0)
			die("pl011_read: %s", pl011_error_name(n));
		if (n == 0)
			return;
		*got += (size_t)n;
	}
}

/*
 * Byte i of the input is (uint8_t)i, so a received byte names its own arrival: the next byte
 * after input index k with value v is the first j > k with (uint8_t)j == v. That stays exact
 * through overruns as long as fewer than 256 bytes in a row are lost, and
 * the sum of the skips is checked against the loss counters.
 */
static void run_rx(const struct rx_case *c, struct rx_result *r)
{
	setup(16u, c->jitter_ns, LOAD_SEED);
	h.config.baud = c->baud;
	h.config.rx_mode = c->mode;
	h.config.event_mask = PL011_EVENT_RX_DATA;
	h.config.event = on_rx;
	h.config.event_driver = &pl011_event_driver;
	start();
	delivery_count = 0;

	for (size_t i = 0; i < c->bytes; i++)
		rx_data[i] = (uint8_t)i;
	uint64_t frame = pl011_model_frame_ns(h.model);
	uint64_t first = pl011_model_now_ns(h.model) + 10000u;
	uint64_t last = first;
	if (c->message_len == 0) {
		last = pl011_model_rx_inject_stream(h.model, rx_data, c->bytes, first);
		for (size_t i = 0; i < c->bytes; i++)
			rx_arrival_ns[i] = first + (i + 1u) * frame;
	} else {
		for (size_t m = 0; m * c->message_len < c->bytes; m++) {
			size_t at = m * c->message_len;
			uint64_t t0 = first + m * c->period_ns;
			last = pl011_model_rx_inject_stream(h.model, rx_data + at, c->message_len, t0);
			for (size_t j = 0; j < c->message_len; j++)
				rx_arrival_ns[at + j] = t0 + (j + 1u) * frame;
		}
	}

	/* The reader thread: wake every 100 us, take everything. Then let the receive timeout
	 * and the slowest interrupt pass for the tail. */
	size_t got = 0;
	uint64_t end = last + 64u * pl011_model_bit_ns(h.model) + c->jitter_ns + 1000000u;
	while (pl011_model_now_ns(h.model) < end) {
		pl011_model_advance(h.model, READER_STEP_NS);
		read_all(&got);
	}
	if (pl011_model_rx_pending(h.model) != 0 || pl011_model_rx_level(h.model) != 0)
		die("RX did not finish: %zu pending, %u in the FIFO", pl011_model_rx_pending(h.model),
		    pl011_model_rx_level(h.model));

	const struct pl011_model_counters *mc = pl011_model_counters(h.model);
	pl011_get_stats(&h.uart, &r->stats);
	r->irq_cpu_ns = mc->irq_cpu_ns;
	r->overrun_lost = mc->rx_overruns;
	r->received = got;

	/* Attribute: the k-th received byte entered the ring at the first delivery whose total
	 * exceeds k, and arrived at the stop bit of the input byte it names. */
	for (size_t i = 0; i < c->bytes; i++)
		rx_latency_ns[i] = UINT64_MAX;
	size_t d = 0;
	size_t index = SIZE_MAX; /* input index of the previous received byte */
	size_t skipped = 0;
	for (size_t k = 0; k < got; k++) {
		while (d < delivery_count && deliveries[d].total <= k)
			d++;
		if (d == delivery_count)
			die("received byte %zu has no delivery record", k);
		size_t next = index + 1u; /* wraps from SIZE_MAX to 0 */
		size_t j = next + (size_t)((uint8_t)(rx_got[k] - (uint8_t)next));
		if (j >= c->bytes)
			die("received byte %zu (0x%02x) matches no input byte", k, rx_got[k]);
		skipped += j - next;
		index = j;
		rx_latency_ns[j] = deliveries[d].at_ns - rx_arrival_ns[j];
	}
	skipped += c->bytes - (index + 1u);
	uint64_t lost = mc->rx_overruns + r->stats.rx_discarded;
	if (skipped != lost || got + lost != c->bytes)
		die("RX accounting: %zu received, %zu skipped, %" PRIu64 " lost of %zu", got, skipped,
		    lost, c->bytes);
	harness_teardown(&h);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

struct latency_summary {
	size_t n;
	double mean_us;
	uint64_t p50_ns, p99_ns, max_ns;
	size_t beyond_band;
};

/* Over the given input indices (stride apart, starting at first): lost bytes are left out. */
static void summarize(size_t first, size_t count, size_t stride, struct latency_summary *out)
{
	size_t n = 0;
	uint64_t sum = 0;
	size_t beyond = 0;
	for (size_t i = 0; i < count; i++) {
		uint64_t l = rx_latency_ns[first + i * stride];
		if (l == UINT64_MAX)
			continue;
		sort_scratch[n++] = l;
		sum += l;
		if (l > LATENCY_BAND_NS)
			beyond++;
	}
	memset(out, 0, sizeof *out);
	out->n = n;
	if (n == 0)
		return;
	qsort(sort_scratch, n, sizeof sort_scratch[0], compare_u64);
	out->mean_us = (double)sum / (double)n / 1e3;
	out->p50_ns = sort_scratch[n / 2u];
	out->p99_ns = sort_scratch[(n * 99u) / 100u];
	out->max_ns = sort_scratch[n - 1u];
	out->beyond_band = beyond;
}

static const char *rx_mode_name(enum pl011_rx_mode mode)
{
	return mode == PL011_RX_LOW_LATENCY ? "LOW_LATENCY (1/8)" : "FEW_IRQS (3/4)";
}

static const struct load rx_loads[] = {
	{"fixed 1 us latency", 0u},
	{"loaded, jitter cap 100 us", 100000u},
};

static void bench_rx_stream(void)
{
	printf("### RX modes, 64 KiB back-to-back stream\n\n");
	printf("%u bytes injected at line rate (pl011_model_rx_inject_stream), FIFO 16, 4 KiB RX "
	       "ring emptied by the reader every %u us. Latency: from a character's stop bit to "
	       "the PL011_EVENT_RX_DATA callback after the drain that put it in the ring.\n\n",
	       RX_BYTES, READER_STEP_NS / 1000u);
	printf("| baud | load | mode | RX IRQs | RT IRQs | handler entries | IRQ CPU (ms) "
	       "| IRQ CPU per byte (ns) | lost to overrun | overruns counted | ring-full pauses "
	       "| latency mean (us) | p50 (us) | p99 (us) | max (us) | > 250 us |\n");
	printf("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	static const uint32_t bauds[] = {SLOW_BAUD, FAST_BAUD};
	for (size_t b = 0; b < 2; b++)
		for (size_t l = 0; l < sizeof rx_loads / sizeof rx_loads[0]; l++)
			for (int mode = PL011_RX_LOW_LATENCY; mode <= PL011_RX_FEW_IRQS; mode++) {
				struct rx_case c = {bauds[b], (enum pl011_rx_mode)mode,
						    rx_loads[l].jitter_ns, RX_BYTES, 0, 0};
				struct rx_result r;
				run_rx(&c, &r);
				struct latency_summary s;
				summarize(0, RX_BYTES, 1, &s);
				printf("| %" PRIu32 " | %s | %s | %" PRIu32 " | %" PRIu32 " | %" PRIu32
				       " | %.3f | %.1f | %" PRIu64 " | %" PRIu32 " | %" PRIu32
				       " | %.1f | %.1f | %.1f | %.1f | %zu |\n",
				       bauds[b], rx_loads[l].name, rx_mode_name(c.mode), r.stats.irq_rx,
				       r.stats.irq_rt, r.stats.irq_entries, ms(r.irq_cpu_ns),
				       (double)r.irq_cpu_ns / (double)r.received, r.overrun_lost,
				       r.stats.rx_overrun, r.stats.rx_pauses, s.mean_us, us(s.p50_ns),
				       us(s.p99_ns), us(s.max_ns), s.beyond_band);
			}
	printf("\n");
}

static void message_row(size_t len, uint32_t baud, const struct load *load,
			enum pl011_rx_mode mode)
{
	struct rx_case c = {baud, mode, load->jitter_ns, MESSAGES * len, len, MESSAGE_PERIOD_NS};
	struct rx_result r;
	run_rx(&c, &r);
	struct latency_summary first_byte, complete;
	summarize(0, MESSAGES, len, &first_byte);
	summarize(len - 1u, MESSAGES, len, &complete);
	printf("| %zu | %" PRIu32 " | %s | %s | %" PRIu32 " | %" PRIu32 " | %.0f | %.1f | %.1f "
	       "| %.1f | %.1f | %zu |\n",
	       len, baud, load->name, rx_mode_name(mode), r.stats.irq_rx, r.stats.irq_rt,
	       (double)r.irq_cpu_ns / (double)MESSAGES, first_byte.mean_us, complete.mean_us,
	       us(complete.p99_ns), us(complete.max_ns), complete.beyond_band);
}

static void bench_rx_messages(void)
{
	printf("### RX modes, short messages (1,000 Hz loop)\n\n");
	printf("%u messages, one every %u us, FIFO 16. A message is complete when its last byte "
	       "is in the ring; latency is counted from that byte's stop bit. 6-byte messages "
	       "show the effect of the length against the 2-character 1/8 trigger.\n\n",
	       MESSAGES, MESSAGE_PERIOD_NS / 1000u);
	printf("| bytes | baud | load | mode | RX IRQs | RT IRQs | IRQ CPU per message (ns) "
	       "| first byte mean (us) | complete mean (us) | complete p99 (us) "
	       "| complete max (us) | complete > 250 us |\n");
	printf("|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	static const uint32_t bauds[] = {SLOW_BAUD, FAST_BAUD};
	for (size_t len = MESSAGE_MIN_LEN; len <= MESSAGE_MAX_LEN; len++)
		for (size_t b = 0; b < 2; b++)
			for (size_t l = 0; l < sizeof rx_loads / sizeof rx_loads[0]; l++) {
				message_row(len, bauds[b], &rx_loads[l], PL011_RX_LOW_LATENCY);
				message_row(len, bauds[b], &rx_loads[l], PL011_RX_FEW_IRQS);
			}
	printf("\n");
}

/* ------------------------------------------------------------------ shutdown */

/* A port at 115,200 8N1, FIFO 16, HALF_FIFO, with exactly `queued` bytes in the TX ring. */
static size_t fill_for_shutdown(size_t queued)
{
	setup(16u, 0u, LOAD_SEED);
	h.config.tx_mode = PL011_TX_HALF_FIFO;
	start();
	/* Priming moves 17 bytes out of the ring at once: 16 into the FIFO, one straight on
	 * into the shift register. */
	size_t total = queued + 17u;
	if (total > sizeof shutdown_data)
		die("shutdown backlog %zu too large", queued);
	harness_fill_random(shutdown_data, total, 2015u);
	size_t sent = 0;
	for (int tries = 0; sent < total && tries < 4; tries++) {
		int n = pl011_write(&h.uart, shutdown_data + sent, total - sent, PL011_NO_WAIT);
		if (n < 0)
			die("pl011_write: %s", pl011_error_name(n));
		sent += (size_t)n;
	}
	if (sent != total || pl011_tx_queued(&h.uart) != queued)
		die("shutdown set-up: %zu of %zu accepted, %zu queued", sent, total,
		    pl011_tx_queued(&h.uart));
	return total;
}

static void bench_shutdown(void)
{
	printf("### Shutdown drain, 115200 8N1, FIFO 16, HALF_FIFO\n\n");
	printf("The ring holds `queued` bytes, the FIFO 16 and the shift register 1. Deadline: "
	       "pl011_backlog_deadline_us(uart, queued) = (queued + 16) frames + 1/4 + 1 ms. "
	       "Times are simulated, from the pl011_shutdown call.\n\n");
	printf("| queued | deadline (us) | last stop bit (us) | WAIT_AUTO returned after (us) "
	       "| result | deadline / drain | bound 0: returned after (us) | bound 0: result "
	       "(discarded) | bound 0: bytes on the wire |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	static const size_t backlogs[] = {64u, 1024u, 4096u};
	for (size_t i = 0; i < sizeof backlogs / sizeof backlogs[0]; i++) {
		size_t total = fill_for_shutdown(backlogs[i]);
		uint32_t deadline = pl011_backlog_deadline_us(&h.uart, backlogs[i]);
		uint64_t begin = pl011_model_now_ns(h.model);
		int result = pl011_shutdown(&h.uart, PL011_WAIT_AUTO);
		uint64_t took = pl011_model_now_ns(h.model) - begin;
		if (result != 0 || pl011_model_wire_len(h.model) != total)
			die("shutdown of %zu: result %d, %zu of %zu on the wire", backlogs[i], result,
			    pl011_model_wire_len(h.model), total);
		uint64_t last_bit = pl011_model_wire_end_ns(h.model, total - 1u) - begin;
		harness_teardown(&h);

		total = fill_for_shutdown(backlogs[i]);
		begin = pl011_model_now_ns(h.model);
		int discarded = pl011_shutdown(&h.uart, 0);
		uint64_t took0 = pl011_model_now_ns(h.model) - begin;
		size_t wire = pl011_model_wire_len(h.model);
		if (discarded < 0 || wire + (size_t)discarded != total)
			die("shutdown(0) of %zu: result %d, %zu on the wire", backlogs[i], discarded,
			    wire);
		harness_teardown(&h);

		printf("| %zu | %" PRIu32 " | %.1f | %.1f | %d | %.2f | %.1f | %d | %zu |\n",
		       backlogs[i], deadline, us(last_bit), us(took), result,
		       (double)deadline * 1e3 / (double)took, us(took0), discarded, wire);
	}
	printf("\n");
}

/* ------------------------------------------------------------------ main */

/*
 * bench [--smoke | --matrix | --sync] [--data DIR] [--sync-cost BARRIER_NS,RMW_NS]. --data
 * writes the pictures' data files into DIR; --matrix runs only the regime matrix, --sync only
 * the table of register accesses and synchronisation per TX interrupt; --sync-cost sets
 * what the tables charge per barrier and read-modify-write in the handler (above). --smoke (make
 * test) runs only the TX tables: every strategy and the reference handler in every scenario,
 * each run checking its wire and FIFO, and ends with one line saying how many passed.
 */
int main(int argc, char **argv)
{
	bool smoke = false;
	bool matrix_only = false;
	bool sync_only = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--smoke") == 0)
			smoke = true;
		else if (strcmp(argv[i], "--matrix") == 0)
			matrix_only = true;
		else if (strcmp(argv[i], "--sync") == 0)
			sync_only = true;
		else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
			data_dir = argv[++i];
		else if (strcmp(argv[i], "--sync-cost") == 0 && i + 1 < argc &&
			 sscanf(argv[++i], "%" SCNu32 ",%" SCNu32, &sync_barrier_ns, &sync_rmw_ns) == 2)
			continue;
		else
			die("usage: bench [--smoke | --matrix | --sync] [--data DIR] "
			    "[--sync-cost BARRIER_NS,RMW_NS]");
	}
	struct pl011_model_config defaults;
	pl011_model_default_config(&defaults);
	printf("## Results of make bench\n\n");
	printf("Model costs (pl011_model_default_config): register read %" PRIu32 " ns, write %" PRIu32
	       " ns, clock read %" PRIu32 " ns, IRQ entry %" PRIu32 " ns, IRQ latency %" PRIu64
	       " ns; loaded runs add heavy-tailed jitter (median cap/100, ~1%% of dispatches at the "
	       "cap). All times simulated.\n\n",
	       defaults.read_cost_ns, defaults.write_cost_ns, defaults.clock_read_cost_ns,
	       defaults.irq_entry_cost_ns, defaults.irq_latency_ns);

	harness_fill_random(tx_stream, TX_BYTES, 64u);
	if (matrix_only) {
		bench_regime_matrix();
		return 0;
	}
	if (sync_only) {
		bench_tx_accesses();
		return 0;
	}
	bench_tx_strategies();
	if (!smoke) {
		bench_tx_histogram();
		if (data_dir != NULL)
			write_histogram_data();
		bench_tx_adaptive_verdict();
	}
	bench_tx_seeds();
	bench_tx_reference();
	if (smoke) {
		printf("bench --smoke: %u TX runs (every strategy and the reference handler), each "
		       "%u bytes on the wire as sent, 0 FIFO overflows\n", tx_runs, TX_BYTES);
		return 0;
	}
	bench_tx_accesses();
	bench_tx_latency_sweep();
	bench_tx_triggers();
	bench_regime_matrix();
	bench_rx_stream();
	bench_rx_messages();
	bench_shutdown();
	return 0;
}
