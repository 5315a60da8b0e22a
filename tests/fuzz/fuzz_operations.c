/* libFuzzer target: the fuzzer's bytes choose the driver calls of tests/unit/operations.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct byte_stream stream = {data, size, 0};
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
