/* libFuzzer target: the fuzzer's bytes choose preemption runs (tests/unit/explore.c) or driver
 * call sequences (tests/unit/operations.c); any broken invariant aborts. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "explore.h"
#include "operations.h"

struct byte_stream {
	const uint8_t *data;
	size_t size;
	size_t position;
};

/* Four bytes per choice, zeros once the input runs out (so short inputs end quietly). */
static uint32_t next_from_input(void *context, uint32_t below)
{
	struct byte_stream *stream = context;
	uint32_t value = 0;
	for (int i = 0; i < 4; i++) {
		value <<= 8;
		if (stream->position < stream->size)
			value |= stream->data[stream->position++];
	}
	return value % below;
}

/*
 * One preemption run: every field from the input. The point numbers are taken modulo a
 * little more than a scenario's points, so most inputs deliver their interrupt somewhere.
 */
static void fuzz_preemption(struct byte_stream *in)
{
	struct explore_params p;
	explore_default_params(&p);
	p.mode = (enum pl011_tx_mode)next_from_input(in, PL011_TX_MEASURED + 1);
	p.tx_trigger = (enum pl011_level)next_from_input(in, 6);
	p.depth = next_from_input(in, 2) ? 32u : 16u;
	/* Fast lines: the races need a FIFO that drains within a few accesses, and a slow line
	 * only makes each run longer (115,200 runs in the explorer tests). */
	p.baud = next_from_input(in, 2) ? 3000000u : 921600u;
	p.scenario = (enum explore_scenario)next_from_input(in, EXPLORE_SCENARIOS);
	p.interrupt = (enum explore_interrupt)next_from_input(in, EXPLORE_INTERRUPTS);
	p.point = next_from_input(in, 2000);
	p.inner_point = next_from_input(in, 64);
	p.callback_ns = next_from_input(in, 200000);
	p.latency_ns = 100u + next_from_input(in, 50000);
	p.jitter_ns = next_from_input(in, 2) ? next_from_input(in, 100000) : 0u;
	p.seed = next_from_input(in, UINT32_MAX) | 1u;
	if (p.scenario <= EXPLORE_PANIC && next_from_input(in, 4) == 0) {
		p.two_cores = true;
		p.switch_one_in = next_from_input(in, 50);
		p.resume_points = next_from_input(in, 32);
		/* No panic from the second core: when its owner is switched out for longer than the
		 * panic waits, the panic writes beside it, the one case the driver does not cover
		 * (docs/design.md). test_two_cores keeps its seeded and scripted panics. */
		p.second_panic_at = EXPLORE_NEVER;
	}
	struct explore_result r;
	explore_run(&p, &r);
	if (r.failure != NULL) {
		fprintf(stderr, "invariant broken: %s\n", r.failure);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct byte_stream stream = {data, size, 0};
	if (size == 0)
		return 0;
	/* Three inputs in four drive a preemption run, the rest a call sequence. */
	if (data[0] < 192) {
		stream.position = 1;
		fuzz_preemption(&stream);
		return 0;
	}
	stream.position = 1;
	struct operation_source source = {next_from_input, &stream};
	/* Each step takes at most a handful of choices: stop when the input is used up. */
	unsigned steps = (unsigned)(size / 16u);
	if (steps > 200u)
		steps = 200u;
	const char *failure = operations_run(&source, steps);
	if (failure != NULL) {
		fprintf(stderr, "invariant broken: %s\n", failure);
		abort();
	}
	return 0;
}
