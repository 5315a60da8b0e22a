/* Seeded random sequences of every API call against the model, checking the invariants that
 * must hold whatever happens: no byte lost silently, bytes in order, no overflow, no hang. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

#define EXPECTED_MAX (4u << 20)

static struct harness h;
static uint8_t expected[EXPECTED_MAX]; /* what the wire must show, in order */
static size_t expected_len;
static uint64_t accepted, discarded;
static uint32_t rng;

static uint32_t random_below(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng % n;
}

static void accept_bytes(const uint8_t *data, int n)
{
	assert_true(n >= 0);
	assert_true(expected_len + (size_t)n <= EXPECTED_MAX);
	memcpy(expected + expected_len, data, (size_t)n);
	expected_len += (size_t)n;
	accepted += (uint64_t)n;
}

/* A shutdown discards the newest bytes: everything older is already in the FIFO or sent. */
static void account_discard(int n)
{
	assert_true(n >= 0 && (size_t)n <= expected_len);
	expected_len -= (size_t)n;
	discarded += (uint64_t)n;
}

static void check_wire(unsigned seed, unsigned step, const char *when)
{
	size_t wire_len = pl011_model_wire_len(h.model);
	if (wire_len != expected_len || wire_len + discarded != accepted)
		fail_msg("seed %u step %u %s: wire %zu, expected %zu (accepted %llu, discarded %llu)",
			 seed, step, when, wire_len, expected_len, (unsigned long long)accepted,
			 (unsigned long long)discarded);
	for (size_t i = 0; i < wire_len; i++)
		if (pl011_model_wire_byte(h.model, i) != expected[i])
			fail_msg("seed %u step %u %s: wire byte %zu differs", seed, step, when, i);
}

static void random_config(void)
{
	static const uint32_t bauds[] = {115200u, 921600u, 3000000u};
	h.config.baud = bauds[random_below(3)];
	h.config.tx_mode = (enum pl011_tx_mode)random_below(5);
	h.config.rx_mode = (enum pl011_rx_mode)random_below(3);
	h.config.tx_trigger = (enum pl011_level)random_below(6);
	h.config.flags = random_below(4) == 0 ? PL011_FLAG_LOOPBACK : 0u;
}

/* Stop the port, account for what it discarded, check the wire, start it again. */
static void restart(unsigned seed, unsigned step, uint32_t bound)
{
	pl011_model_set_tx_stalled(h.model, false);
	int result = pl011_shutdown(&h.uart, bound);
	if (result < 0)
		fail_msg("seed %u step %u: shutdown gave %s", seed, step, pl011_error_name(result));
	account_discard(result);
	check_wire(seed, step, "after shutdown");
	random_config();
	assert_int_equal(harness_start(&h), 0);
}

static void run_seed(unsigned seed)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	rng = seed * 2654435761u + 1u;
	model_config.base = HARNESS_BASE;
	model_config.fifo_depth = random_below(2) ? 16u : 32u;
	model_config.latency_seed = seed;
	model_config.latency_jitter_ns = random_below(2) ? 100000u : 0u;
	model_config.time_limit_ns = 600ull * 1000000000u;
	harness_setup_with(&h, &model_config);
	expected_len = 0;
	accepted = discarded = 0;
	random_config();
	assert_int_equal(harness_start(&h), 0);

	uint8_t chunk[700];
	uint8_t sink[4096];
	for (unsigned step = 0; step < 250; step++) {
		uint32_t len = 1u + random_below(sizeof chunk);
		harness_fill_random(chunk, len, seed * 1000u + step);
		switch (random_below(12)) {
		case 0:
		case 1:
		case 2:
			accept_bytes(chunk, pl011_write(&h.uart, chunk, len, PL011_NO_WAIT));
			break;
		case 3:
			accept_bytes(chunk, pl011_write(&h.uart, chunk, len, 1u + random_below(3000u)));
			break;
		case 4:
			if (pl011_putc(&h.uart, chunk[0]) == 0)
				accept_bytes(chunk, 1);
			break;
		case 5:
			accept_bytes(chunk, pl011_write_panic(&h.uart, chunk, 1u + len % 8u));
			break;
		case 6:
			pl011_model_advance(h.model, random_below(2000000u));
			break;
		case 7: {
			size_t pending = 0;
			int err = pl011_flush(&h.uart, random_below(5000u), &pending);
			assert_true(err == 0 || err == PL011_ETIMEDOUT);
			break;
		}
		case 8:
			/* Lost TX interrupts come and go; waits must still finish. */
			pl011_model_set_tx_irq_broken(h.model, random_below(2) == 0);
			break;
		case 9:
			pl011_model_set_tx_stalled(h.model, random_below(4) == 0);
			break;
		case 10:
			(void)pl011_read(&h.uart, sink, sizeof sink, PL011_NO_WAIT);
			(void)pl011_getc(&h.uart);
			break;
		default: {
			uint32_t choice = random_below(3);
			restart(seed, step, choice == 0 ? 0u
					    : choice == 1 ? random_below(20000u) : PL011_WAIT_AUTO);
			break;
		}
		}
		assert_int_equal(pl011_model_counters(h.model)->tx_overflows, 0);
	}
	pl011_model_set_tx_irq_broken(h.model, false);
	restart(seed, 250, PL011_WAIT_AUTO);
	assert_int_equal(pl011_model_counters(h.model)->order_violations, 0);
	harness_teardown(&h);
}

static void test_random_operation_sequences_keep_every_invariant(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 60; seed++)
		run_seed(seed);
}

static int teardown(void **state)
{
	(void)state;
	if (h.model != NULL)
		harness_teardown(&h);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_random_operation_sequences_keep_every_invariant,
					  teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
