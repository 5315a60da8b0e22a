/* Contract of the TX strategy objects on two cores: a re-init that changes the mode under a panic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "harness.h"
#include "pl011_internal.h"

#define STREAM_LEN 64u

/*
 * docs/api.md: "pl011_restart of a running port with the handler or a panic write: safe". Core
 * 0 streams in MEASURED and re-inits the port in another mode; core 1 panics while core 0's
 * shutdown holds TX, so it goes beside, and is held after it left "beside" until the re-init
 * returned: it then finds the ring's bytes and owns TX in whatever mode the port runs now,
 * POLLED included (no strategy, no ring). The review's schedule (a NULL strategy dereferenced).
 */
struct restart_under_panic {
	struct harness h;
	struct cores_plan plan;
	enum pl011_tx_mode next_mode;
	uint8_t data[STREAM_LEN];
	int phase;
	uint64_t since;
	bool saw_beside;
	bool core0_done;
	int init_result;
	int panic_result;
};

static uint32_t core_of_caller(void *context)
{
	(void)context;
	return (uint32_t)cores_current();
}

static void restart_schedule(void *context)
{
	struct restart_under_panic *run = context;
	struct pl011 *uart = &run->h.uart;
	int core = cores_current();
	bool change = false;
	switch (run->phase) {
	case 0: /* core 0, in the re-init's shutdown, owning TX: let core 1 in */
		change = core == 0 && (__atomic_load_n(&uart->tx.owner, __ATOMIC_RELAXED) & 1u) != 0 &&
			 __atomic_load_n(&uart->state, __ATOMIC_RELAXED) == PL011_STATE_SHUTTING_DOWN;
		break;
	case 1: /* core 1: beside the owner, then two points after it left */
		if (core == 1 && __atomic_load_n(&uart->tx.beside, __ATOMIC_RELAXED) != 0)
			run->saw_beside = true;
		change = core == 1 && run->saw_beside &&
			 __atomic_load_n(&uart->tx.beside, __ATOMIC_RELAXED) == 0 && ++run->since > 2u;
		break;
	case 2: /* core 0 alone until the re-init and its next write returned */
		change = core == 0 && run->core0_done;
		break;
	default:
		break;
	}
	if (change)
		run->phase++;
	run->plan.switch_one_in = change ? 1u : UINT32_MAX;
}

static void restart_bodies(int core, void *context)
{
	struct restart_under_panic *run = context;
	if (core == 0) {
		(void)pl011_write(&run->h.uart, run->data, sizeof run->data, PL011_WAIT_AUTO);
		struct pl011_config next = run->h.config;
		next.tx_mode = run->next_mode;
		run->init_result = harness_reinit(&run->h, &next);
		run->core0_done = true;
		(void)pl011_write(&run->h.uart, "after", 5, PL011_WAIT_AUTO);
	} else {
		run->panic_result = pl011_write_panic(&run->h.uart, "PANIC", 5);
	}
}

static void restart_under_panic_at(uint32_t baud, enum pl011_tx_mode next_mode)
{
	static struct restart_under_panic run;
	memset(&run, 0, sizeof run);
	run.next_mode = next_mode;
	struct pl011_model_config model;
	pl011_model_default_config(&model); /* 48 MHz, FIFO 16 */
	model.base = HARNESS_BASE;
	harness_setup_with(&run.h, &model);
	run.h.config.baud = baud;
	run.h.config.tx_mode = PL011_TX_MEASURED;
	run.h.config.core_id = core_of_caller;
	assert_int_equal(harness_start(&run.h), 0);
	harness_fill_random(run.data, sizeof run.data, baud);
	run.plan.switch_one_in = UINT32_MAX;
	run.plan.seed = 1;
	run.plan.at_point = restart_schedule;
	run.plan.context = &run;
	cores_run(&run.plan, restart_bodies, &run);

	assert_int_equal(run.phase, 3); /* the schedule happened as described */
	assert_true(run.saw_beside);
	assert_int_equal(run.init_result, 0);
	assert_true(run.panic_result >= 0 || run.panic_result == PL011_ESHUTDOWN);
	assert_int_equal(pl011_flush(&run.h.uart, PL011_WAIT_AUTO, NULL), 0);
	/* Every byte once or counted: the stream (or its discarded part), the panic's, "after". */
	struct pl011_stats stats;
	assert_int_equal(pl011_get_stats(&run.h.uart, &stats), 0);
	uint8_t wire[4 * STREAM_LEN];
	size_t on_wire = harness_wire(&run.h, wire, sizeof wire);
	size_t panic_bytes = run.panic_result > 0 ? (size_t)run.panic_result : 0u;
	assert_int_equal(on_wire + stats.tx_discarded, STREAM_LEN + panic_bytes + 5u);
	assert_memory_equal(wire + on_wire - 5u, "after", 5);
	assert_int_equal(pl011_model_counters(run.h.model)->tx_overflows, 0);
	harness_teardown(&run.h);
}

static void test_contract_a_panic_beside_a_restart_owns_tx_in_the_new_mode(void **state)
{
	(void)state;
	const enum pl011_tx_mode modes[] = {PL011_TX_POLLED, PL011_TX_HYBRID, PL011_TX_ADAPTIVE,
					    PL011_TX_MEASURED};
	const uint32_t bauds[] = {3000000u, 921600u, 115200u};
	for (size_t b = 0; b < sizeof bauds / sizeof bauds[0]; b++)
		for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
			restart_under_panic_at(bauds[b], modes[m]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contract_a_panic_beside_a_restart_owns_tx_in_the_new_mode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
