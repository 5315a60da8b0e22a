/* Seeded random sequences of every API call against the model (tests/unit/operations.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "depth.h"
#include "harness.h"
#include "operations.h"

static uint32_t next_random(void *context, uint32_t below)
{
	return harness_random(context) % below;
}

static void test_random_operation_sequences_keep_every_invariant(void **state)
{
	(void)state;
	/* make test (PL011_TEST_DEPTH=quick): the first 10 seeds. */
	for (uint32_t seed = 1; seed <= depth_scale(60, 6); seed++) {
		uint32_t generator = seed * 2654435761u + 1u;
		struct operation_source source = {next_random, &generator};
		const char *failure = operations_run(&source, 250);
		if (failure != NULL)
			fail_msg("seed %u, %s", seed, failure);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_operation_sequences_keep_every_invariant),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
