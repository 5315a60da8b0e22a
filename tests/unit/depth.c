/* PL011_TEST_DEPTH (tests/unit/depth.h). */
#include "depth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool depth_quick(void)
{
	static int quick = -1;
	if (quick < 0) {
		const char *value = getenv("PL011_TEST_DEPTH");
		if (value == NULL || *value == '\0' || strcmp(value, "full") == 0) {
			quick = 0;
		} else if (strcmp(value, "quick") == 0) {
			quick = 1;
		} else {
			fprintf(stderr, "PL011_TEST_DEPTH=%s: expected quick or full\n", value);
			exit(2);
		}
	}
	return quick != 0;
}

bool depth_pick(uint64_t index, uint64_t turn, unsigned stride)
{
	return stride <= 1u || !depth_quick() || (index + turn) % stride == 0u;
}

unsigned depth_scale(unsigned count, unsigned divisor)
{
	if (!depth_quick() || divisor <= 1u)
		return count;
	return count / divisor > 0u ? count / divisor : 1u;
}
