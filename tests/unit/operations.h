/* Random sequences of driver calls against the model, with the invariants that must survive
 * them; driven by a seeded generator (test_random_ops) or by a fuzzer (tests/fuzz). */
#ifndef TEST_OPERATIONS_H
#define TEST_OPERATIONS_H

#include <stdint.h>

/* Where the choices come from: a number below `below` (below >= 1). */
struct operation_source {
	uint32_t (*next)(void *context, uint32_t below);
	void *context;
};

/*
 * Set up a model and a port as the source decides, run up to `steps` calls (writes, putc,
 * panic writes, flushes, reads, lost TX interrupts, stalls, shutdowns with every kind of bound,
 * re-inits with other modes), then shut down. Returns NULL when every invariant held: the wire
 * equals what was accepted minus what was reported discarded, in order; no FIFO overflow; no
 * reprogramming while enabled. Otherwise a description of the first broken one.
 */
const char *operations_run(const struct operation_source *source, unsigned steps);

#endif
