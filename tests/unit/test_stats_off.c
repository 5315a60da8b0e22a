/* PL011_STATS 0 (mk/host.mk builds this program and the driver so): the kept counters count, the rest read 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"
#include "stats_size.h"

/* Built with PL011_STATS 1 (tools/coverage.py and tools/mutate.py build every program with the
 * default), the same scenarios check the other side: the optional counters count. */

static struct harness h;

static struct pl011_stats stats_now(void)
{
	struct pl011_stats stats;
	/* Garbage first: with 0, pl011_get_stats itself must zero what the instance lacks. */
	memset(&stats, 0xA5, sizeof stats);
	assert_int_equal(pl011_get_stats(&h.uart, &stats), 0);
	return stats;
}

/* The optional counters of a snapshot: all 0 with PL011_STATS 0; with 1, not all 0 (every
 * scenario here refills or takes interrupts) and irq_entries what the model dispatched. */
static void expect_optional(const struct pl011_stats *stats, const char *label)
{
	struct pl011_stats optional = *stats;
#define ZERO_KEPT(name) optional.name = 0;
	PL011_STATS_KEPT(ZERO_KEPT)
#undef ZERO_KEPT
	static const struct pl011_stats zero;
#if PL011_STATS
	uint64_t dispatched = pl011_model_counters(h.model)->irq_dispatches;
	if (memcmp(&optional, &zero, sizeof zero) == 0 || optional.irq_entries != dispatched)
		fail_msg("%s: every optional counter 0, or irq_entries %u where the model dispatched "
			 "%llu", label, optional.irq_entries, (unsigned long long)dispatched);
#else
	if (memcmp(&optional, &zero, sizeof zero) != 0)
		fail_msg("%s: an optional counter is not 0 (irq_entries %u, rx_bytes %u, tx_refills %u)",
			 label, optional.irq_entries, optional.rx_bytes, optional.tx_refills);
#endif
}

/* The instance without the optional counters is smaller by at least the histogram. */
static void test_the_instance_is_smaller_by_the_histogram(void **state)
{
	(void)state;
#if PL011_STATS
	assert_int_equal(sizeof(struct pl011), stats_size_full_instance);
#else
	size_t histogram = sizeof(((struct pl011_stats *)0)->tx_extra_histogram);
	if (sizeof(struct pl011) + histogram > stats_size_full_instance)
		fail_msg("struct pl011 is %zu bytes, %zu with every counter (histogram %zu)",
			 sizeof(struct pl011), stats_size_full_instance, histogram);
#endif
}

/* A shutdown whose FIFO cannot drain (CTS held off): tx_fifo_abandoned, tx_discarded and
 * tx_bytes as with every counter (test_counters' stalled shutdown). */
static void test_a_stalled_shutdown_counts_what_it_discards(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.tx_mode = PL011_TX_HYBRID;
	h.config.flags = PL011_FLAG_RTS_CTS;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_cts(h.model, false);
	uint8_t bytes[40];
	harness_fill_random(bytes, sizeof bytes, 5u);
	assert_int_equal(pl011_write(&h.uart, bytes, sizeof bytes, PL011_NO_WAIT), 40);
	pl011_model_advance(h.model, 100000u);
	assert_int_equal(pl011_shutdown(&h.uart, 0), PL011_ESTALLED);
	struct pl011_stats stats = stats_now();
	assert_int_equal(stats.tx_fifo_abandoned, 1);
	assert_int_equal(stats.tx_discarded, 24);
	assert_int_equal(stats.tx_bytes, 16);
	expect_optional(&stats, "stalled shutdown");
	harness_teardown(&h);
}

/* One framing, one parity error and one break among good characters, then good characters
 * nobody reads: each error counted once, the unread ones counted discarded at shutdown. */
static void test_errors_and_unread_bytes_are_counted(void **state)
{
	(void)state;
	harness_setup(&h, 48000000u, 16);
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	assert_int_equal(harness_start(&h), 0);
	static const unsigned errors[] = {0u, PL011_DR_FE, 0u, PL011_DR_PE, PL011_DR_BE | PL011_DR_FE,
					  0u, 0u};
	uint64_t frame = pl011_model_frame_ns(h.model);
	uint64_t t = pl011_model_now_ns(h.model) + frame;
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		pl011_model_rx_inject(h.model, (uint8_t)('a' + i), errors[i], t + i * frame);
	pl011_model_advance_to(h.model, t + 64u * frame);
	struct pl011_stats stats = stats_now();
	assert_int_equal(stats.rx_framing, 1);
	assert_int_equal(stats.rx_parity, 1);
	assert_int_equal(stats.rx_break, 1);
	assert_int_equal(stats.rx_overrun, 0);
	assert_int_equal(stats.rx_discarded, 0);
#if PL011_STATS
	assert_int_equal(stats.rx_bytes, 4);
#endif
	expect_optional(&stats, "errors");
	assert_int_equal(pl011_shutdown(&h.uart, PL011_WAIT_AUTO), 0);
	stats = stats_now();
	assert_int_equal(stats.rx_discarded, 4);
	assert_int_equal(stats.rx_framing, 1);
	expect_optional(&stats, "unread at shutdown");
	harness_teardown(&h);
}

/* A 3 ms interrupt latency against 1.2 ms of FIFO room: overruns, counted; an init of the
 * running port carries the kept counters over. */
static void test_an_overrun_is_counted_and_survives_reinit(void **state)
{
	(void)state;
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.irq_latency_ns = 3000000u;
	harness_setup_with(&h, &model_config);
	h.config.rx_mode = PL011_RX_LOW_LATENCY;
	assert_int_equal(harness_start(&h), 0);
	static uint8_t burst[400];
	harness_fill_random(burst, sizeof burst, 11u);
	uint64_t t = pl011_model_now_ns(h.model);
	for (size_t i = 0; i < sizeof burst; i += 40u)
		t = pl011_model_rx_inject_stream(h.model, burst + i, 40u, t) + 10000000u;
	static uint8_t got[sizeof burst];
	size_t n = 0;
	while (pl011_model_now_ns(h.model) < t) {
		pl011_model_advance(h.model, 1000000u);
		n += harness_read_all(&h, got + n, sizeof got - n);
	}
	uint64_t lost = pl011_model_counters(h.model)->rx_overruns;
	assert_int_equal(n + lost, sizeof burst);
	assert_true(lost > 0);
	struct pl011_stats before = stats_now();
	assert_true(before.rx_overrun > 0);
	expect_optional(&before, "overrun");
	assert_int_equal(harness_restart(&h), 0);
	struct pl011_stats after = stats_now();
#define SAME_KEPT(name) assert_int_equal(after.name, before.name);
	PL011_STATS_KEPT(SAME_KEPT)
#undef SAME_KEPT
	expect_optional(&after, "after init");
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_the_instance_is_smaller_by_the_histogram, &h),
		HARNESS_TEST(test_a_stalled_shutdown_counts_what_it_discards, &h),
		HARNESS_TEST(test_errors_and_unread_bytes_are_counted, &h),
		HARNESS_TEST(test_an_overrun_is_counted_and_survives_reinit, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
