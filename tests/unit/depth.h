/* How far the long explorers go: PL011_TEST_DEPTH=quick (make test) or full (make test-full,
 * and the default of a program run by hand). The quick form runs every case (strategy, depth,
 * scenario, kind of interrupt, pair of calls...) on a share of its points, seeds or schedules;
 * the full form runs them all. */
#ifndef TEST_DEPTH_H
#define TEST_DEPTH_H

#include <stdbool.h>
#include <stdint.h>

/* Whether PL011_TEST_DEPTH is quick (any value but quick and full stops the program). */
bool depth_quick(void);

/* Whether to run alternative `index` of a case (a point, a seed, a schedule): always at full
 * depth; at quick depth one in `stride`, the choice moving with `turn` (a count of the cases),
 * so that each case runs every stride'th of its alternatives and, across cases, each
 * alternative runs somewhere. */
bool depth_pick(uint64_t index, uint64_t turn, unsigned stride);

/* count at full depth; count / divisor at quick depth (at least 1). */
unsigned depth_scale(unsigned count, unsigned divisor);

#endif
