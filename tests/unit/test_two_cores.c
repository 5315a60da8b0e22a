/* Two-core explorer: the UART interrupt on a second core against the writer on the first,
 * switched at register accesses and atomic operations by seeded and scripted schedules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdlib.h>

#include <cmocka.h>

#include "depth.h"
#include "explore.h"

/* Scenarios where nothing re-initialises the port (pl011_init, pl011_restart and
 * pl011_shutdown want the interrupt quiet, which a second core taking it does not give). */
#define TWO_CORE_SCENARIOS (EXPLORE_PANIC + 1)
#define SCRIPT_STRIDE 3u
#define SCRIPT_INNER 12u
/* make test (PL011_TEST_DEPTH=quick): every case with one seed in QUICK_STRIDE and one
 * scripted start point in QUICK_STRIDE, the choice moving from case to case. */
#define QUICK_STRIDE 5u

static const enum pl011_tx_mode modes[] = {PL011_TX_HALF_FIFO, PL011_TX_POLL_FULL,
					   PL011_TX_HYBRID, PL011_TX_ADAPTIVE, PL011_TX_MEASURED};

struct tally {
	unsigned long runs, interleavings, failures;
};

static void run_one(const struct explore_params *p, struct tally *tally,
		    struct explore_result *r)
{
	explore_run(p, r);
	tally->runs++;
	if (r->delivered)
		tally->interleavings++;
	if (r->failure != NULL && tally->failures++ < 10)
		print_message("FAIL mode %d depth %u scenario %d seed %u one-in %u point %llu/%llu "
			      "resume %llu panic at %llu: %s\n",
			      p->mode, p->depth, p->scenario, p->seed, p->switch_one_in,
			      (unsigned long long)p->point, (unsigned long long)p->inner_point,
			      (unsigned long long)p->resume_points,
			      (unsigned long long)p->second_panic_at, r->failure);
}

static void for_each_case_with(void (*body)(struct explore_params *p, struct tally *tally),
			       const char *name, bool rs485)
{
	struct tally tally = {0, 0, 0};
	struct explore_params p;
	explore_default_params(&p);
	p.two_cores = true;
	p.rs485 = rs485;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (unsigned depth = 16; depth <= 32; depth += 16)
			for (unsigned s = 0; s < TWO_CORE_SCENARIOS; s++) {
				p.mode = modes[m];
				p.depth = depth;
				p.scenario = (enum explore_scenario)s;
				body(&p, &tally);
			}
	print_message("two-core explorer, %s: %lu runs, %lu scripted interleavings, %lu failures\n",
		      name, tally.runs, tally.interleavings, tally.failures);
	assert_int_equal(tally.failures, 0);
}

static void for_each_case(void (*body)(struct explore_params *p, struct tally *tally),
			  const char *name)
{
	for_each_case_with(body, name, false);
}

static void seeded(struct explore_params *p, struct tally *tally)
{
	static const uint32_t one_in[] = {2, 7, 40};
	struct explore_result r;
	static uint64_t turn;
	turn++;
	for (size_t i = 0; i < sizeof one_in / sizeof one_in[0]; i++)
		for (uint32_t seed = 1; seed <= 40; seed++) {
			if (!depth_pick(seed + i, turn, QUICK_STRIDE))
				continue;
			p->switch_one_in = one_in[i];
			p->seed = seed * 2654435761u;
			p->second_panic_at = seed % 3u == 0 ? seed * 7u : EXPLORE_NEVER;
			run_one(p, tally, &r);
		}
}

static void scripted(struct explore_params *p, struct tally *tally)
{
	static const uint64_t resume[] = {1, 4, 16};
	struct explore_result dry, r;
	p->switch_one_in = 0;
	p->second_panic_at = EXPLORE_NEVER;
	p->point = EXPLORE_NEVER;
	run_one(p, tally, &dry);
	static uint64_t turn;
	turn++;
	for (uint64_t k = 0; k < dry.thread_points; k += SCRIPT_STRIDE) {
		if (!depth_pick(k / SCRIPT_STRIDE, turn, QUICK_STRIDE) && k != 0)
			continue;
		for (uint64_t j = 0; j < SCRIPT_INNER; j++) {
			for (size_t d = 0; d < sizeof resume / sizeof resume[0]; d++) {
				p->point = k;
				p->inner_point = j;
				p->resume_points = resume[d];
				run_one(p, tally, &r);
				if (!r.delivered)
					return; /* the line was never up past here */
			}
		}
	}
}

static void test_two_cores_under_seeded_schedules(void **state)
{
	(void)state;
	for_each_case(seeded, "seeded schedules");
}

static void test_two_cores_under_scripted_interleavings(void **state)
{
	(void)state;
	for_each_case(scripted, "scripted interleavings");
}

/* RS-485: the writer on core 0, the UART interrupt and the TX done / release ticks on core 1
 * (explore.c checks DE at every thread byte's start bit and off at the end). */
static void test_two_cores_rs485_under_seeded_schedules(void **state)
{
	(void)state;
	for_each_case_with(seeded, "RS-485, seeded schedules", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cores_under_seeded_schedules),
		cmocka_unit_test(test_two_cores_under_scripted_interleavings),
		cmocka_unit_test(test_two_cores_rs485_under_seeded_schedules),
	};
	/* TWO_CORES_ONLY=<pattern>: one test of this program (a check of a new test, a mutant). */
	if (getenv("TWO_CORES_ONLY") != NULL)
		cmocka_set_test_filter(getenv("TWO_CORES_ONLY"));
	/* TWO_CORES_ONLY=<pattern>: one test of this program (a check of a new test, a mutant). */
	if (getenv("TWO_CORES_ONLY") != NULL)
		cmocka_set_test_filter(getenv("TWO_CORES_ONLY"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
