/* Reviewer's probes of lib/pl011_early.c that need their own PL011_EARLY_SPINS. */

/* include/pl011.h: "A firmware may define its own before including this header." */
#define PL011_EARLY_SPINS 10u

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "pl011_regs.h"

static struct harness h;

/* A running polled port with flow control and CTS deasserted: the TX FIFO holds `queued` of
 * its 16 and never drains. */
static void start_held_off(size_t queued)
{
	harness_setup(&h, 48000000u, 16);
	h.config.flags = PL011_FLAG_RTS_CTS;
	assert_int_equal(harness_start(&h), 0);
	pl011_model_set_cts(h.model, false);
	uint8_t fill[16];
	memset(fill, 'f', sizeof fill);
	assert_int_equal(pl011_write(&h.uart, fill, queued, PL011_NO_WAIT), (int)queued);
	assert_int_equal(pl011_model_tx_level(h.model), queued);
}

/* The firmware's PL011_EARLY_SPINS (10) bounds nothing: the library was compiled with the
 * header's 1,000,000, which is what pl011_early_write waits. */
static void early_spins_defined_by_the_firmware(void **state)
{
	(void)state;
	start_held_off(16);
	uint64_t fr0 = pl011_model_counters(h.model)->reads[PL011_FR / 4u];
	int result = pl011_early_write(HARNESS_BASE, "x", 1);
	uint64_t fr_reads = pl011_model_counters(h.model)->reads[PL011_FR / 4u] - fr0;
	print_message("result %s, FR reads %llu with PL011_EARLY_SPINS %u\n",
		      pl011_error_name(result), (unsigned long long)fr_reads, PL011_EARLY_SPINS);
	assert_int_equal(result, PL011_ETIMEDOUT);
	assert_true(fr_reads <= PL011_EARLY_SPINS);
	harness_teardown(&h);
}

/* "PL011_ETIMEDOUT (not one byte went)": a "\n" whose "\r" went and whose "\n" did not. */
static void early_timeout_after_its_cr(void **state)
{
	(void)state;
	start_held_off(15);
	int result = pl011_early_write(HARNESS_BASE, "\n", 1);
	print_message("result %s, FIFO %u (the \\r went)\n", pl011_error_name(result),
		      pl011_model_tx_level(h.model));
	assert_int_equal(pl011_model_tx_level(h.model), 16);
	assert_int_not_equal(result, PL011_ETIMEDOUT);
	harness_teardown(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(early_spins_defined_by_the_firmware, &h),
		HARNESS_TEST(early_timeout_after_its_cr, &h),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
