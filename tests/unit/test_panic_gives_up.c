/* POLLED mode: a panic on core 1 whose wait for the writer on core 0 runs out just as the writer
 * lets go (its own bound run out with CTS holding the FIFO full) leaves no request behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "depth.h"
#include "harness.h"
#include "pl011_regs.h"

static struct harness H;

static void idle_step(void *context)
{
	cores_idle_step(context, 1000u);
}

static uint32_t core_of_caller(void *unused)
{
	(void)unused;
	return (uint32_t)cores_current() + 1u;
}

struct run {
	uint32_t writer_bound_us;
	int write_result, panic_result;
};

static uint8_t data[64];
static const uint8_t panic_msg[] = "PANIC";

static void body(int core, void *context)
{
	struct run *run = context;
	if (core == 0) {
		run->write_result = pl011_write(&H.uart, data, sizeof data, run->writer_bound_us);
		return;
	}
	/* Once the writer waits for room (FIFO full, CTS off). */
	while (!cores_finished(0) && (pl011_model_peek(H.model, PL011_FR) & PL011_FR_TXFF) == 0)
		cores_yield();
	run->panic_result = pl011_write_panic(&H.uart, panic_msg, sizeof panic_msg - 1u);
}

static void test_retry_left_behind_by_a_panic_that_gave_up(void **state)
{
	(void)state;
	unsigned stuck = 0, runs = 0;
	/* Full depth: bounds 1200..1800 (1162 runs, ~50 s); quick: the window around the bound
	 * where the request was left behind (1490 us, seed 2). */
	bool full = !depth_quick();
	for (uint32_t bound = full ? 1200u : 1485u; bound <= (full ? 1800u : 1495u) && stuck == 0;
	     bound += 1)
		for (uint32_t seed = 1; seed <= 4 && stuck == 0; seed++) {
			harness_setup(&H, 24000000u, 16);
			H.config.flags |= PL011_FLAG_RTS_CTS;
			H.config.wait_hook = idle_step;
			H.config.wait_context = H.model;
			H.config.core_id = core_of_caller;
			assert_int_equal(harness_start(&H), 0);
			pl011_model_set_cts(H.model, false);
			memset(data, 'w', sizeof data);
			struct run run = {.writer_bound_us = bound};
			struct cores_plan plan = {.switch_one_in = 1u + seed % 3u, .seed = seed};
			cores_run(&plan, body, &run);
			runs++;
			uint32_t word = H.uart.tx.owner;
			if ((word & 3u) == 2u) { /* RETRY without OWNED */
				stuck++;
				pl011_model_set_cts(H.model, true);
				int later = pl011_write(&H.uart, "after", 5, 100000u);
				printf("  bound %u seed %u: write %d, panic %d, owner word 0x%x; "
				       "a later write with CTS on returns %d\n",
				       bound, seed, run.write_result, run.panic_result, word, later);
			}
			harness_teardown(&H);
		}
	printf("  %u of %u runs left RETRY behind\n", stuck, runs);
	assert_int_equal(stuck, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_retry_left_behind_by_a_panic_that_gave_up, &H),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
