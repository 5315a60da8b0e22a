/* Latency regimes, clocks and writers for TX runs on the model (see regimes.h). */
#include "regimes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl011_regs.h"

#define REGIME_UARTCLK_HZ 48000000u
#define REGIME_BASE_LATENCY_NS 1000u
#define REGIME_PRODUCER_STEP_NS 20000u
#define REGIME_WAITING_CHUNK 1024u
/* The wrapping clock starts this far below 2^32 us, so it wraps 20 ms into the run. */
#define REGIME_WRAP_AHEAD_US 20000u

static struct harness h;
static uint8_t stream[REGIME_MAX_BYTES];

/* What the model's latency and clock hooks need while a cell runs. */
static struct {
	const struct regime_cell *cell;
	uint64_t start_ns; /* the run's first write */
	uint64_t line_ns;
	uint32_t random;
	uint32_t clock_offset_us;
	uint64_t busy_from_ns, busy_until_ns; /* the current or next stall of the CPU */
} now_running;

static void regime_die(const char *what, const struct regime_cell *cell, enum pl011_tx_mode mode)
{
	char latency[64];
	regime_describe(cell, latency, sizeof latency);
	fprintf(stderr, "regime run failed (%s): %u baud, FIFO %u, %s, clock %s, writer %s, mode %d\n",
		what, (unsigned)cell->baud, cell->depth, latency, regime_clock_name(cell->clock),
		regime_writer_name(cell->writer), (int)mode);
	exit(1);
}

const char *regime_family_name(enum regime_family family)
{
	static const char *const names[] = {"constant", "tail", "spikes", "switch up", "switch down"};
	return names[family];
}

const char *regime_clock_name(enum regime_clock clock)
{
	static const char *const names[] = {"exact", "10 us", "1 ms", "wrap", "none"};
	return names[clock];
}

const char *regime_writer_name(enum regime_writer writer)
{
	return writer == REGIME_WRITER_IRQ ? "irq" : "waiting";
}

void regime_describe(const struct regime_cell *cell, char *out, size_t size)
{
	switch (cell->family) {
	case REGIME_CONSTANT:
		snprintf(out, size, "const %.1f us", (double)cell->latency_ns / 1e3);
		break;
	case REGIME_TAIL:
		snprintf(out, size, "tail cap %.0f us", (double)cell->cap_ns / 1e3);
		break;
	default:
		snprintf(out, size, "%s %.1f%% %.0f-%.0f us", regime_family_name(cell->family),
			 (double)cell->spike_permille / 10.0, (double)cell->spike_lo_ns / 1e3,
			 (double)cell->spike_hi_ns / 1e3);
		break;
	}
}

uint64_t regime_line_ns(const struct regime_cell *cell)
{
	return (uint64_t)cell->bytes * 10u * 1000000000u / cell->baud;
}

/* Spikes in the whole run, or in the thirds a switch puts them in. */
static bool spikes_now(uint64_t now_ns)
{
	const struct regime_cell *cell = now_running.cell;
	uint64_t since = now_ns > now_running.start_ns ? now_ns - now_running.start_ns : 0u;
	bool middle = since >= now_running.line_ns / 3u && since < 2u * now_running.line_ns / 3u;
	switch (cell->family) {
	case REGIME_SPIKES:
		return true;
	case REGIME_SWITCH_UP:
		return middle;
	default:
		return !middle;
	}
}

/*
 * Stalls are stretches of time in which the CPU takes no interrupt (a long masked section,
 * another handler), the same for every strategy whatever its number of interrupts: one starts
 * on average every (depth/2 frames) / (spike_permille / 1000), i.e. spike_permille of the 1/2
 * trigger's interrupts would meet one, and lasts a uniform draw in [lo, hi]. A dispatch due
 * inside one waits for its end; any other takes 1 us.
 */
static void next_stall(void)
{
	const struct regime_cell *cell = now_running.cell;
	uint64_t frame_ns = 10u * 1000000000ull / cell->baud;
	uint64_t mean_gap = (uint64_t)(cell->depth / 2u) * frame_ns * 1000u / cell->spike_permille;
	uint64_t gap = (uint64_t)harness_random(&now_running.random) % (2u * mean_gap + 1u);
	uint64_t span = cell->spike_hi_ns - cell->spike_lo_ns + 1u;
	now_running.busy_from_ns = now_running.busy_until_ns + gap;
	now_running.busy_until_ns = now_running.busy_from_ns + cell->spike_lo_ns +
				    (uint64_t)harness_random(&now_running.random) % span;
}

static uint64_t regime_latency(void *context, uint64_t now_ns)
{
	(void)context;
	while (now_running.busy_until_ns <= now_ns)
		next_stall();
	if (!spikes_now(now_ns) || now_ns < now_running.busy_from_ns)
		return REGIME_BASE_LATENCY_NS;
	return now_running.busy_until_ns - now_ns + REGIME_BASE_LATENCY_NS;
}

static uint32_t regime_clock_us(void *context)
{
	uint32_t us = pl011_model_clock_us(context);
	switch (now_running.cell->clock) {
	case REGIME_CLOCK_10US:
		return us - us % 10u;
	case REGIME_CLOCK_1MS:
		return us - us % 1000u;
	case REGIME_CLOCK_WRAP:
		return us + now_running.clock_offset_us;
	default:
		return us;
	}
}

void regime_model_config(const struct regime_cell *cell, struct pl011_model_config *model_config)
{
	pl011_model_default_config(model_config);
	model_config->base = HARNESS_BASE;
	model_config->uartclk_hz = REGIME_UARTCLK_HZ;
	model_config->fifo_depth = cell->depth;
	model_config->irq_latency_ns = REGIME_BASE_LATENCY_NS;
	if (cell->family == REGIME_CONSTANT)
		model_config->irq_latency_ns = cell->latency_ns;
	if (cell->family == REGIME_TAIL && cell->cap_ns != 0) {
		model_config->latency_seed = cell->seed;
		model_config->latency_jitter_ns = cell->cap_ns;
	}
}

void regime_attach(const struct regime_cell *cell, struct pl011_model *model)
{
	now_running.cell = cell;
	now_running.random = cell->seed != 0 ? cell->seed : 1u;
	now_running.line_ns = regime_line_ns(cell);
	now_running.start_ns = pl011_model_now_ns(model);
	now_running.clock_offset_us = 0;
	now_running.busy_from_ns = 0;
	now_running.busy_until_ns = now_running.start_ns;
	if (cell->family >= REGIME_SPIKES)
		pl011_model_set_latency_fn(model, regime_latency, NULL);
}

void regime_attach_start(const struct pl011_model *model)
{
	now_running.start_ns = pl011_model_now_ns(model);
	now_running.busy_until_ns = now_running.start_ns;
	now_running.busy_from_ns = 0;
}

static void regime_setup(const struct regime_cell *cell, enum pl011_tx_mode mode)
{
	struct pl011_model_config model_config;
	regime_model_config(cell, &model_config);
	harness_setup_with(&h, &model_config);
	regime_attach(cell, h.model);
	h.config.baud = cell->baud;
	h.config.tx_mode = mode;
	if (cell->clock == REGIME_CLOCK_NONE) {
		h.config.clock = NULL;
		h.config.spins_per_us = 20u;
	} else {
		h.config.clock = regime_clock_us;
		if (cell->clock == REGIME_CLOCK_WRAP)
			now_running.clock_offset_us = UINT32_MAX - REGIME_WRAP_AHEAD_US;
	}
}

static void regime_write(const struct regime_cell *cell, enum pl011_tx_mode mode)
{
	size_t sent = 0;
	while (sent < cell->bytes) {
		size_t n = cell->bytes - sent;
		uint32_t bound = PL011_NO_WAIT;
		if (cell->writer == REGIME_WRITER_WAITING) {
			n = n < REGIME_WAITING_CHUNK ? n : REGIME_WAITING_CHUNK;
			bound = PL011_WAIT_AUTO;
		}
		int done = pl011_write(&h.uart, stream + sent, n, bound);
		if (done < 0 || (bound == PL011_WAIT_AUTO && (size_t)done != n))
			regime_die("pl011_write", cell, mode);
		sent += (size_t)done;
		if (sent < cell->bytes && bound == PL011_NO_WAIT)
			pl011_model_advance(h.model, REGIME_PRODUCER_STEP_NS);
	}
	while (pl011_model_wire_len(h.model) < cell->bytes)
		pl011_model_advance(h.model, REGIME_PRODUCER_STEP_NS);
}

void regime_run(const struct regime_cell *cell, enum pl011_tx_mode mode, struct regime_result *out)
{
	if (cell->bytes > REGIME_MAX_BYTES)
		regime_die("too many bytes", cell, mode);
	regime_setup(cell, mode);
	if (harness_start(&h) != 0)
		regime_die("pl011_init", cell, mode);
	harness_fill_random(stream, cell->bytes, 64u);
	if (cell->phase_ns != 0)
		pl011_model_advance(h.model, cell->phase_ns);
	pl011_model_reset_counters(h.model);
	regime_attach_start(h.model);
	regime_write(cell, mode);

	const struct pl011_model_counters *mc = pl011_model_counters(h.model);
	struct pl011_stats stats;
	pl011_get_stats(&h.uart, &stats);
	struct pl011_model_config defaults;
	pl011_model_default_config(&defaults);
	if (mc->tx_overflows != 0)
		regime_die("TX FIFO overflow", cell, mode);
	if (pl011_model_wire_len(h.model) != cell->bytes)
		regime_die("bytes on the wire", cell, mode);
	for (size_t i = 0; i < cell->bytes; i++)
		if (pl011_model_wire_byte(h.model, i) != stream[i])
			regime_die("wire differs", cell, mode);
	*out = (struct regime_result){
		.irqs = mc->irq_dispatches,
		.fr_reads = stats.tx_fr_reads,
		.cpu_ns = mc->irq_cpu_ns,
		.cpu_no_entry_ns = mc->irq_cpu_ns - mc->irq_dispatches * defaults.irq_entry_cost_ns,
		.idle_ns = mc->underrun_idle_ns,
		.underruns = mc->underruns,
		.final_level = pl011_model_peek(h.model, PL011_IFLS) & PL011_IFLS_LEVEL_MASK,
		.stalls = stats.tx_stalls,
		.irq_barriers = mc->irq_barriers,
		.irq_atomics = mc->irq_atomic_points,
		.irq_rmws = mc->irq_rmw_points,
	};
	harness_teardown(&h);
}

/*
 * The latency families for one line: 1 us; a constant latency at 0.9, 1.02, 1.1 and 1.25 times
 * the headroom of each of the 1/8, 1/4 and 1/2 triggers ((trigger + 1) frames: the FIFO's
 * entries and the character shifting); heavy tails capped at 5, 20, 50 and 100 us; CPU stalls
 * that 5 % and 1 % of the 1/2 trigger's interrupts would meet, each lasting 1/4 to 2.5 times
 * that trigger's headroom (at 115,200 baud, FIFO 16: 0.2-2 ms); and the 5 % stalls switched on
 * and off mid-run both ways. Draws are
 * seeded from seed (each cell its own). Returns the number of cells written (at most max).
 */
size_t regime_latencies(uint32_t baud, unsigned depth, uint32_t seed, struct regime_cell *out,
			size_t max)
{
	static const unsigned constant_per_mille[] = {900u, 1020u, 1100u, 1250u};
	static const unsigned eighths[] = {1u, 2u, 4u};
	static const uint64_t caps_us[] = {5u, 20u, 50u, 100u};
	uint64_t frame_ns = 10u * 1000000000ull / baud;
	uint64_t half_headroom = (depth / 2u + 1u) * frame_ns;
	struct regime_cell base = {.baud = baud, .depth = depth, .bytes = REGIME_MAX_BYTES,
				   .family = REGIME_CONSTANT, .latency_ns = REGIME_BASE_LATENCY_NS};
	size_t n = 0;
#define REGIME_ADD(...)                                                                   \
	do {                                                                              \
		if (n < max) {                                                            \
			out[n] = base;                                                    \
			struct regime_cell *cell = &out[n];                               \
			cell->seed = seed + (uint32_t)n * 7919u;                          \
			__VA_ARGS__;                                                      \
		}                                                                         \
		n++;                                                                      \
	} while (0)
	REGIME_ADD((void)cell);
	for (size_t e = 0; e < sizeof eighths / sizeof eighths[0]; e++)
		for (size_t k = 0; k < sizeof constant_per_mille / sizeof constant_per_mille[0]; k++)
			REGIME_ADD(cell->latency_ns = (depth * eighths[e] / 8u + 1u) * frame_ns *
						      constant_per_mille[k] / 1000u);
	for (size_t k = 0; k < sizeof caps_us / sizeof caps_us[0]; k++)
		REGIME_ADD(cell->family = REGIME_TAIL; cell->cap_ns = caps_us[k] * 1000u);
	static const struct {
		enum regime_family family;
		uint32_t permille;
	} spikes[] = {{REGIME_SPIKES, 50u}, {REGIME_SPIKES, 10u}, {REGIME_SWITCH_UP, 50u},
		      {REGIME_SWITCH_DOWN, 50u}};
	for (size_t k = 0; k < sizeof spikes / sizeof spikes[0]; k++)
		REGIME_ADD(cell->family = spikes[k].family; cell->spike_permille = spikes[k].permille;
			   cell->spike_lo_ns = half_headroom / 4u;
			   cell->spike_hi_ns = half_headroom * 5u / 2u);
#undef REGIME_ADD
	return n < max ? n : max;
}
