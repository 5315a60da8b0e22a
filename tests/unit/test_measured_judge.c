/* MEASURED's judge, rule by rule: samples in a row, doubling, the floor pause, the clock's wrap, TXFE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"
#include "regimes.h"

#define TEST_SEED 0x5EED0000u /* not make bench's 1000 */
#define TEST_BYTES (32u * 1024u)
#define CALM_SAMPLES 256u /* MEASURED_CALM_SAMPLES */
#define FLOOR_PAUSE 16u   /* MEASURED_FLOOR_PAUSE */

static struct harness h;
static uint8_t stream[TEST_BYTES];

/* The line: a latency the test sets per dispatch, and a clock it may slow down or offset. */
static struct {
	uint64_t calm_ns;      /* the latency before the switch */
	uint64_t late_ns;      /* after it */
	uint64_t spike_ns;     /* one dispatch, the spike_at-th, this late (0: none) */
	uint64_t spike_at;
	uint64_t spike_count;  /* dispatches in a row that late (0 means 1) */
	enum pl011_level start_level; /* config.tx_trigger */
	bool switch_at_floor;  /* switch once the trigger has been at 1/8 for switch_after refills */
	uint32_t switch_after;
	uint32_t floor_at;     /* refills when it got there (0: not yet) */
	bool switched;
	uint32_t refills_at_switch;
	uint64_t dispatches;
	unsigned clock_divisor; /* the clock runs this many times slower (1: exact) */
	uint32_t clock_offset_us;
} line;

static uint64_t line_latency(void *context, uint64_t now_ns)
{
	(void)context;
	(void)now_ns;
	line.dispatches++;
	uint64_t spiked = line.spike_count != 0 ? line.spike_count : 1u;
	if (line.spike_ns != 0 && line.dispatches >= line.spike_at &&
	    line.dispatches < line.spike_at + spiked)
		return line.spike_ns;
	bool at_floor = (pl011_model_peek(h.model, PL011_IFLS) & PL011_IFLS_LEVEL_MASK) == 0u;
	if (line.switch_at_floor && !line.switched && at_floor) {
		if (line.floor_at == 0)
			line.floor_at = h.uart.stats.tx_refills;
		if (h.uart.stats.tx_refills - line.floor_at >= line.switch_after) {
			line.switched = true;
			line.refills_at_switch = h.uart.stats.tx_refills;
		}
	}
	return line.switched ? line.late_ns : line.calm_ns;
}

static uint32_t line_clock(void *context)
{
	return pl011_model_clock_us(context) / line.clock_divisor + line.clock_offset_us;
}

/* 3 Mbaud, FIFO 16, MEASURED, with the line's latency and clock. */
static void line_start(void)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	harness_setup_with(&h, &model_config);
	pl011_model_set_latency_fn(h.model, line_latency, NULL);
	h.config.baud = 3000000u;
	h.config.tx_mode = PL011_TX_MEASURED;
	h.config.clock = line_clock;
	h.config.tx_trigger = line.start_level;
	if (line.clock_divisor == 0)
		line.clock_divisor = 1;
	assert_int_equal(harness_start(&h), 0);
}

static unsigned ifls_tx_code(void)
{
	return pl011_model_peek(h.model, PL011_IFLS) & PL011_IFLS_LEVEL_MASK;
}

/* Offer bytes every 20 us; note the refill count at the first trigger change. */
static uint32_t line_send(size_t bytes, uint32_t *first_change_refills)
{
	harness_fill_random(stream, bytes, 7u);
	size_t sent = 0;
	*first_change_refills = 0;
	while (sent < bytes || pl011_model_wire_len(h.model) < bytes) {
		if (sent < bytes) {
			int n = pl011_write(&h.uart, stream + sent, bytes - sent, PL011_NO_WAIT);
			assert_true(n >= 0);
			sent += (size_t)n;
		}
		pl011_model_advance(h.model, 20000u);
		if (*first_change_refills == 0 && h.uart.stats.tx_trigger_changes != 0)
			*first_change_refills = h.uart.stats.tx_refills;
	}
	assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	for (size_t i = 0; i < bytes; i++)
		if (pl011_model_wire_byte(h.model, i) != stream[i])
			fail_msg("wire differs at byte %zu", i);
	return h.uart.stats.tx_trigger_changes;
}

/* A constant 1 us: the first lowering comes after CALM_SAMPLES samples in a row (a chain's
 * start, then one sample per refill), not before; a single spike resets the count. */
static void test_measured_lowers_after_calm_samples_in_a_row(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	line.calm_ns = 1000u;
	line_start();
	uint32_t first = 0;
	(void)line_send(TEST_BYTES, &first);
	print_message("calm: first lowering at refill %u\n", first);
	if (first < CALM_SAMPLES || first > CALM_SAMPLES + 4u)
		fail_msg("first lowering at refill %u, %u expected (+4)", first, CALM_SAMPLES);
	assert_int_equal(ifls_tx_code(), PL011_LEVEL_1_8 - 1u);
	assert_int_equal(pl011_model_counters(h.model)->underruns, 0);
	harness_teardown(&h);

	/* A dispatch 20 us late (still within 1/2's 30 us) at the 100th refill. */
	memset(&line, 0, sizeof line);
	line.calm_ns = 1000u;
	line.spike_ns = 20000u;
	line.spike_at = 100u;
	line_start();
	(void)line_send(TEST_BYTES, &first);
	print_message("one spike at 100: first lowering at refill %u\n", first);
	if (first < 100u + CALM_SAMPLES)
		fail_msg("lowered at refill %u, before %u samples in a row after the spike", first,
			 CALM_SAMPLES);
	harness_teardown(&h);
}

/* A latency that jumps, 40 refills after the trigger reached 1/8 (10 us of headroom there), to
 * 12 us (within 1/2's headroom with the margin, not 1/4's) or 40 us (beyond 1/2's 30 us): the
 * next floor sample, within FLOOR_PAUSE + 2 refills, raises it, to 1/2 and no higher; the failed
 * lowering doubles the samples in a row needed next time. */
static void test_measured_raises_within_the_floor_pause_and_doubles_its_patience(void **state)
{
	(void)state;
	static const uint64_t lates_ns[] = {12000u, 40000u};
	for (size_t k = 0; k < 2; k++) {
		memset(&line, 0, sizeof line);
		line.calm_ns = 1000u;
		line.late_ns = lates_ns[k];
		line.switch_at_floor = true;
		line.switch_after = 40u;
		line_start();
		harness_fill_random(stream, TEST_BYTES, 7u);
		size_t sent = 0;
		uint32_t raised_at = 0;
		while (sent < TEST_BYTES || pl011_model_wire_len(h.model) < TEST_BYTES) {
			if (sent < TEST_BYTES) {
				int n = pl011_write(&h.uart, stream + sent, TEST_BYTES - sent,
						    PL011_NO_WAIT);
				assert_true(n >= 0);
				sent += (size_t)n;
			}
			pl011_model_advance(h.model, 3000u);
			if (line.switched && raised_at == 0 && ifls_tx_code() != PL011_LEVEL_1_8 - 1u)
				raised_at = h.uart.stats.tx_refills;
		}
		assert_true(line.switched);
		print_message("%llu us: switch at refill %u, raised at %u, calm_needed %u\n",
			      (unsigned long long)(lates_ns[k] / 1000u), line.refills_at_switch,
			      raised_at, h.uart.tx.policy.measured.calm_needed);
		if (raised_at == 0 || raised_at - line.refills_at_switch > FLOOR_PAUSE + 2u)
			fail_msg("raised %u refills after the switch (at most %u)",
				 raised_at - line.refills_at_switch, FLOOR_PAUSE + 2u);
		assert_int_equal(h.uart.tx.policy.measured.calm_needed, 2u * CALM_SAMPLES);
		/* Either is more than 1/4 can take with the margin: back at 1/2, and it stays. */
		assert_int_equal(ifls_tx_code(), PL011_LEVEL_1_2 - 1u);
		harness_teardown(&h);
	}
}

/* docs/design.md: pl011_set_line "gives TX back (MEASURED's headroom table, which is in line
 * time, is rebuilt for the new frame)". Started at 3 Mbaud (1/2's headroom 9 frames, 30 us) and
 * switched to 115,200 before a byte is sent, under a constant 25 us: the judge needs 37.5 us,
 * which 1/8's three frames at the new rate (260 us) cover, so it lowers after CALM_SAMPLES
 * samples in a row; a table left at 3 Mbaud would find even 1/2 too low and never lower. */
static void test_measured_headroom_is_rebuilt_for_the_new_frame_after_set_line(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	line.calm_ns = 25000u;
	line_start();
	struct pl011_line_config slow = {.baud = 115200u, .data_bits = 8, .stop_bits = 1,
					 .parity = PL011_PARITY_NONE};
	assert_int_equal(pl011_set_line(&h.uart, &slow, PL011_WAIT_AUTO), 0);
	uint32_t first = 0;
	(void)line_send(8192u, &first);
	print_message("115,200 after 3 Mbaud, 25 us: first lowering at refill %u, IFLS TX code %u\n",
		      first, ifls_tx_code());
	if (first < CALM_SAMPLES || first > CALM_SAMPLES + 4u)
		fail_msg("first lowering at refill %u, %u expected (+4)", first, CALM_SAMPLES);
	assert_int_equal(ifls_tx_code(), PL011_LEVEL_1_8 - 1u);
	assert_int_equal(pl011_model_counters(h.model)->underruns, 0);
	harness_teardown(&h);
}

/* A clock that wraps at 2^32 us 4 ms into the run, during the first burst: the samples across
 * the wrap read as prompt, so the first lowering comes as without a wrap. */
static void test_measured_times_across_the_clock_wrap(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	line.calm_ns = 1000u;
	line.clock_offset_us = UINT32_MAX - 4000u;
	line_start();
	uint32_t first = 0;
	uint32_t changes = line_send(TEST_BYTES, &first);
	print_message("wrap: first lowering at refill %u, %u changes\n", first, changes);
	if (first < CALM_SAMPLES || first > CALM_SAMPLES + 4u || changes != 2u)
		fail_msg("across the wrap: first lowering at refill %u, %u trigger changes", first,
			 changes);
	harness_teardown(&h);
}

/* A clock that runs at half speed understates every lateness: at 12 us, beyond 1/8's 10 us of
 * headroom, the judge lowers to 1/8, and only FR (TXFE at a sampled entry) shows the FIFO dry.
 * It must leave 1/8 again each time, and retry it less and less often. */
static void test_measured_leaves_a_level_that_runs_dry_whatever_the_clock_says(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	line.calm_ns = 12000u;
	line.clock_divisor = 2u;
	line_start();
	uint32_t first = 0;
	(void)line_send(TEST_BYTES, &first);
	uint64_t underruns = pl011_model_counters(h.model)->underruns;
	print_message("slow clock: %llu underruns, driver saw %u, calm_needed %u\n",
		      (unsigned long long)underruns, h.uart.stats.tx_underruns, h.uart.tx.policy.measured.calm_needed);
	if (h.uart.stats.tx_underruns == 0 || underruns > 200u)
		fail_msg("slow clock: %llu underruns on the line, %u seen by the driver",
			 (unsigned long long)underruns, h.uart.stats.tx_underruns);
	harness_teardown(&h);
}

/* docs/design.md: "256 samples in a row that fit the next level down (with the same margin)
 * lower it by one". A sample is one clock read at a handler entry (docs/api.md: "one clock
 * read per sampled entry"), so the test counts them: entries 20 us late (too late for 1/4,
 * within 1/2) come in short runs among 1 us ones, and at every lowering at least 256 clock
 * reads must separate it from the last late entry that was sampled. Counting calm samples in
 * total instead of in a row lowers sooner after a late one. */
static struct {
	uint64_t late_sampled; /* late entries that read the clock */
	uint64_t reads_at_late; /* clock reads after the last of them */
	uint64_t fewest_reads;  /* the fewest clock reads between it and a lowering */
	unsigned lowerings;
} calm;

static void calm_handler(void *context)
{
	(void)context;
	bool late = line.spike_ns != 0 && line.dispatches >= line.spike_at &&
		    (line.dispatches - line.spike_at) % 600u < line.spike_count;
	unsigned before = ifls_tx_code();
	uint64_t reads = pl011_model_counters(h.model)->clock_reads;
	pl011_irq_handler(&h.uart);
	uint64_t after = pl011_model_counters(h.model)->clock_reads;
	if (late && after != reads) {
		calm.late_sampled++;
		calm.reads_at_late = after;
	}
	if (ifls_tx_code() < before) {
		calm.lowerings++;
		uint64_t since = calm.late_sampled != 0 ? after - calm.reads_at_late : UINT64_MAX;
		if (since < calm.fewest_reads)
			calm.fewest_reads = since;
	}
}

static uint64_t calm_latency(void *context, uint64_t now_ns)
{
	(void)context;
	(void)now_ns;
	line.dispatches++;
	bool late = line.dispatches >= line.spike_at &&
		    (line.dispatches - line.spike_at) % 600u < line.spike_count;
	return late ? line.spike_ns : line.calm_ns;
}

static void test_measured_lowers_only_after_calm_samples_that_come_in_a_row(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	memset(&calm, 0, sizeof calm);
	calm.fewest_reads = UINT64_MAX;
	line.calm_ns = 1000u;
	line.spike_ns = 20000u;
	line.spike_at = 100u;
	line.spike_count = 3u; /* every 600th entry from the 100th, and the two after it */
	line_start();
	pl011_model_set_latency_fn(h.model, calm_latency, NULL);
	pl011_model_set_irq_handler(h.model, calm_handler, NULL);
	uint32_t first = 0;
	(void)line_send(TEST_BYTES, &first);
	print_message("late entries sampled %llu, lowerings %u, fewest clock reads from a late "
		      "sample to a lowering %llu\n",
		      (unsigned long long)calm.late_sampled, calm.lowerings,
		      (unsigned long long)calm.fewest_reads);
	assert_true(calm.late_sampled > 0);
	assert_true(calm.lowerings > 0);
	if (calm.fewest_reads < CALM_SAMPLES)
		fail_msg("lowered %llu samples after a late one, %u in a row needed",
			 (unsigned long long)calm.fewest_reads, CALM_SAMPLES);
	harness_teardown(&h);
}

/* docs/design.md: "a lowered level that has to be left again doubles that count". A raise
 * from a level the judge never lowered to (the configured start, 1/4, under 13 us of latency:
 * beyond its 16.7 us headroom less the margin, yet never dry) doubles nothing. */
static void test_measured_doubles_its_patience_only_when_it_leaves_a_lowered_level(void **state)
{
	(void)state;
	memset(&line, 0, sizeof line);
	line.calm_ns = 13000u;
	line.start_level = PL011_LEVEL_1_4;
	line_start();
	uint32_t first = 0;
	uint32_t changes = line_send(TEST_BYTES, &first);
	print_message("start at 1/4, 13 us: first raise at refill %u, %u changes, calm_needed %u\n",
		      first, changes, h.uart.tx.policy.measured.calm_needed);
	assert_true(changes >= 1u);
	assert_true(ifls_tx_code() > PL011_LEVEL_1_4 - 1u);
	assert_int_equal(h.uart.tx.policy.measured.calm_needed, CALM_SAMPLES);
	harness_teardown(&h);
}

/* docs/api.md: the clock "may wrap (each step ... adds the difference modulo 2^32)"; the
 * judge's intervals too. A line that turns late must be raised as soon across the wrap as
 * without it: 1/4 at the start (the configured level, so the prompt entries first lower
 * nothing for 256 samples), 1 us of latency for 50 entries, then 13 us (late for 1/4 with the
 * margin), and a clock that wraps 5 to 150 us before the raise seen without a wrap. An
 * interval that reads as 0 or negative across the wrap takes the late entries for prompt
 * ones. (test_measured_times_across_the_clock_wrap is the other half: a prompt entry across
 * the wrap must not read late.) */
static uint64_t turning_latency(void *context, uint64_t now_ns)
{
	(void)context;
	(void)now_ns;
	return ++line.dispatches <= 50u ? 1000u : 13000u;
}

/* Returns the refill of the first trigger change; *at_us the model's clock then. */
static uint32_t turning_line_run(uint32_t offset_us, uint32_t *at_us)
{
	memset(&line, 0, sizeof line);
	line.start_level = PL011_LEVEL_1_4;
	line.clock_offset_us = offset_us;
	line_start();
	pl011_model_set_latency_fn(h.model, turning_latency, NULL);
	harness_fill_random(stream, 8192u, 7u);
	size_t sent = 0;
	uint32_t first = 0;
	while (first == 0 && pl011_model_wire_len(h.model) < 8192u) {
		if (sent < 8192u) {
			int n = pl011_write(&h.uart, stream + sent, 8192u - sent, PL011_NO_WAIT);
			assert_true(n >= 0);
			sent += (size_t)n;
		}
		pl011_model_advance(h.model, 2000u);
		if (h.uart.stats.tx_trigger_changes != 0) {
			first = h.uart.stats.tx_refills;
			*at_us = pl011_model_clock_us(h.model);
		}
	}
	harness_teardown(&h);
	return first;
}

static void test_measured_judges_a_late_entry_across_the_clock_wrap(void **state)
{
	(void)state;
	static const uint32_t wrap_before_us[] = {5u, 20u, 50u, 100u, 150u};
	uint32_t raised_us = 0;
	uint32_t without = turning_line_run(0, &raised_us);
	print_message("no wrap: first raise at refill %u, %u us\n", without, raised_us);
	assert_true(without != 0 && raised_us > 200u);
	for (size_t k = 0; k < sizeof wrap_before_us / sizeof wrap_before_us[0]; k++) {
		/* The clock reads offset + t: it wraps at t = 2^32 - offset. */
		uint32_t wrap_at_us = raised_us - wrap_before_us[k];
		uint32_t at_us = 0;
		uint32_t first = turning_line_run(0u - wrap_at_us, &at_us);
		print_message("wrap %u us before: first raise at refill %u\n", wrap_before_us[k],
			      first);
		if (first == 0 || first > without + 2u)
			fail_msg("wrap %u us before the raise: raised at refill %u, without a wrap "
				 "at %u",
				 wrap_before_us[k], first, without);
	}
}

/* docs/design.md: a late sample "raises the trigger at once, before the fill"; calm samples
 * "lower it by one, after the fill". Seen from the registers: in the handler entry that
 * raises, DR writes follow the IFLS write; in the one that lowers, none do. */
static struct {
	uint64_t dr_at_ifls; /* DR writes when IFLS was last written */
	uint64_t ifls_writes;
	uint64_t dr_after_raise, dr_after_lower; /* DR writes after the IFLS write, that entry */
	unsigned raises, lowers;
} order;

static void order_point(void *context)
{
	(void)context;
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	if (c->writes[PL011_IFLS / 4u] != order.ifls_writes) {
		order.ifls_writes = c->writes[PL011_IFLS / 4u];
		order.dr_at_ifls = c->writes[PL011_DR / 4u];
	}
}

static void order_handler(void *context)
{
	(void)context;
	unsigned before = ifls_tx_code();
	uint64_t ifls_before = pl011_model_counters(h.model)->writes[PL011_IFLS / 4u];
	pl011_irq_handler(&h.uart);
	const struct pl011_model_counters *c = pl011_model_counters(h.model);
	if (c->writes[PL011_IFLS / 4u] == ifls_before)
		return;
	uint64_t after = c->writes[PL011_DR / 4u] - order.dr_at_ifls;
	if (ifls_tx_code() > before) {
		order.raises++;
		order.dr_after_raise += after;
	} else if (ifls_tx_code() < before) {
		order.lowers++;
		order.dr_after_lower += after;
	}
}

static void test_measured_raises_before_the_fill_and_lowers_after_it(void **state)
{
	(void)state;
	static const uint64_t latencies_ns[] = {8000u, 1000u};
	static const enum pl011_level starts[] = {PL011_LEVEL_1_8, PL011_LEVEL_DEFAULT};
	for (size_t k = 0; k < 2; k++) {
		memset(&line, 0, sizeof line);
		memset(&order, 0, sizeof order);
		line.calm_ns = latencies_ns[k];
		line.start_level = starts[k];
		line_start();
		pl011_model_set_irq_handler(h.model, order_handler, NULL);
		pl011_model_set_preempt_hook(order_point, NULL);
		uint32_t first = 0;
		(void)line_send(TEST_BYTES, &first);
		pl011_model_set_preempt_hook(NULL, NULL);
		print_message("%llu us: %u raises (%llu DR writes after their IFLS write), %u lowerings "
			      "(%llu)\n",
			      (unsigned long long)(latencies_ns[k] / 1000u), order.raises,
			      (unsigned long long)order.dr_after_raise, order.lowers,
			      (unsigned long long)order.dr_after_lower);
		if (k == 0 && (order.raises == 0 || order.dr_after_raise < order.raises))
			fail_msg("a raise came after its entry's fill");
		if (k == 1 && (order.lowers == 0 || order.dr_after_lower != 0))
			fail_msg("a lowering came before its entry's fill");
		harness_teardown(&h);
	}
}

/* A calm line reads FR for the chains and the first sample of each burst only: at most 1 % of
 * POLL_FULL's reads, with an exact clock and with one of 10 us steps at 115,200 baud (where a
 * step is a tenth of a frame). */
static void test_measured_reads_little_fr_on_a_calm_line(void **state)
{
	(void)state;
	static const enum regime_clock clocks[] = {REGIME_CLOCK_EXACT, REGIME_CLOCK_10US};
	static const uint32_t bauds[] = {3000000u, 115200u};
	static const double bars[] = {0.01, 0.01};
	for (size_t k = 0; k < 2; k++) {
		struct regime_cell cell = {.baud = bauds[k], .depth = 16u, .family = REGIME_CONSTANT,
					   .latency_ns = 1000u, .clock = clocks[k],
					   .writer = REGIME_WRITER_IRQ, .seed = TEST_SEED,
					   .bytes = REGIME_MAX_BYTES};
		struct regime_result poll, measured;
		regime_run(&cell, PL011_TX_POLL_FULL, &poll);
		regime_run(&cell, PL011_TX_MEASURED, &measured);
		double share = (double)measured.fr_reads / (double)poll.fr_reads;
		print_message("clock %s: MEASURED %llu FR reads, POLL_FULL %llu (%.4f)\n",
			      regime_clock_name(clocks[k]), (unsigned long long)measured.fr_reads,
			      (unsigned long long)poll.fr_reads, share);
		if (share > bars[k])
			fail_msg("clock %s: %.4f of POLL_FULL's FR reads (at most %.2f)",
				 regime_clock_name(clocks[k]), share, bars[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_measured_lowers_after_calm_samples_in_a_row, &h),
		HARNESS_TEST(test_measured_raises_within_the_floor_pause_and_doubles_its_patience, &h),
		HARNESS_TEST(test_measured_times_across_the_clock_wrap, &h),
		HARNESS_TEST(test_measured_headroom_is_rebuilt_for_the_new_frame_after_set_line, &h),
		HARNESS_TEST(test_measured_leaves_a_level_that_runs_dry_whatever_the_clock_says, &h),
		HARNESS_TEST(test_measured_lowers_only_after_calm_samples_that_come_in_a_row, &h),
		HARNESS_TEST(test_measured_doubles_its_patience_only_when_it_leaves_a_lowered_level,
			     &h),
		HARNESS_TEST(test_measured_judges_a_late_entry_across_the_clock_wrap, &h),
		HARNESS_TEST(test_measured_raises_before_the_fill_and_lowers_after_it, &h),
		cmocka_unit_test(test_measured_reads_little_fr_on_a_calm_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
