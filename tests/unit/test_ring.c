/* The SPSC ring: empty, full, wrap, bulk across the wrap, bad sizes, and a long random run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pl011.h"
#include "harness.h"
#include "pl011_ring.h"

static void test_ring_starts_empty(void **state)
{
	(void)state;
	uint8_t storage[8];
	struct pl011_ring ring;
	uint8_t byte;
	const uint8_t *segment;
	assert_int_equal(pl011_ring_init(&ring, storage, sizeof storage), 0);
	assert_int_equal(pl011_ring_count(&ring), 0);
	assert_int_equal(pl011_ring_space(&ring), 8);
	assert_int_equal(pl011_ring_read(&ring, &byte, 1), 0);
	assert_int_equal(pl011_ring_peek(&ring, &segment), 0);
}

static void test_ring_fills_to_size_and_refuses_more(void **state)
{
	(void)state;
	uint8_t storage[8];
	uint8_t data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	uint8_t out[10] = {0};
	uint8_t *free_segment;
	struct pl011_ring ring;
	assert_int_equal(pl011_ring_init(&ring, storage, sizeof storage), 0);
	assert_int_equal(pl011_ring_write(&ring, data, 10), 8);
	assert_int_equal(pl011_ring_count(&ring), 8);
	assert_int_equal(pl011_ring_space(&ring), 0);
	assert_int_equal(pl011_ring_write(&ring, data, 1), 0);
	assert_int_equal(pl011_ring_reserve(&ring, &free_segment), 0);
	assert_int_equal(pl011_ring_read(&ring, out, 10), 8);
	assert_memory_equal(out, data, 8);
}

static void test_ring_bulk_write_and_read_across_the_wrap(void **state)
{
	(void)state;
	uint8_t storage[8];
	uint8_t data[8] = {10, 11, 12, 13, 14, 15, 16, 17};
	uint8_t out[8];
	const uint8_t *segment;
	struct pl011_ring ring;
	assert_int_equal(pl011_ring_init(&ring, storage, sizeof storage), 0);
	/* Move the indices to 5 so the next 6 bytes straddle the end of storage. */
	assert_int_equal(pl011_ring_write(&ring, data, 5), 5);
	assert_int_equal(pl011_ring_read(&ring, out, 5), 5);
	assert_int_equal(pl011_ring_write(&ring, data, 6), 6);
	/* The linear segment stops at the end of storage: 3 bytes, then 3 more from the start. */
	assert_int_equal(pl011_ring_peek(&ring, &segment), 3);
	assert_ptr_equal(segment, storage + 5);
	assert_int_equal(pl011_ring_read(&ring, out, 8), 6);
	assert_memory_equal(out, data, 6);
}

static void test_ring_peek_skip_and_reserve_commit(void **state)
{
	(void)state;
	uint8_t storage[4];
	struct pl011_ring ring;
	uint8_t *free_segment;
	const uint8_t *segment;
	assert_int_equal(pl011_ring_init(&ring, storage, sizeof storage), 0);
	assert_int_equal(pl011_ring_reserve(&ring, &free_segment), 4);
	free_segment[0] = 'a';
	free_segment[1] = 'b';
	/* Nothing is visible before the commit. */
	assert_int_equal(pl011_ring_count(&ring), 0);
	pl011_ring_commit(&ring, 2);
	assert_int_equal(pl011_ring_peek(&ring, &segment), 2);
	assert_int_equal(segment[0], 'a');
	pl011_ring_skip(&ring, 1);
	assert_int_equal(pl011_ring_peek(&ring, &segment), 1);
	assert_int_equal(segment[0], 'b');
	/* Reserve after a skip wraps: 2 up to the end, then the freed slot at the start. */
	assert_int_equal(pl011_ring_reserve(&ring, &free_segment), 2);
	assert_ptr_equal(free_segment, storage + 2);
}

static void test_ring_rejects_bad_sizes_and_pointers(void **state)
{
	(void)state;
	uint8_t storage[16];
	struct pl011_ring ring;
	assert_int_equal(pl011_ring_init(&ring, storage, 0), PL011_EINVAL);
	assert_int_equal(pl011_ring_init(&ring, storage, 1), PL011_EINVAL);
	assert_int_equal(pl011_ring_init(&ring, storage, 3), PL011_EINVAL);
	assert_int_equal(pl011_ring_init(&ring, storage, 12), PL011_EINVAL);
	assert_int_equal(pl011_ring_init(&ring, NULL, 16), PL011_EINVAL);
	assert_int_equal(pl011_ring_init(NULL, storage, 16), PL011_EINVAL);
#if SIZE_MAX > UINT32_MAX
	/* 2^32 is a power of two but does not fit the 32-bit indices. */
	assert_int_equal(pl011_ring_init(&ring, storage, (size_t)1 << 32), PL011_EINVAL);
#endif
	assert_int_equal(pl011_ring_init(&ring, storage, 2), 0);
	assert_int_equal(pl011_ring_init(&ring, storage, 16), 0);
}

static void test_ring_random_run_matches_a_reference_queue(void **state)
{
	(void)state;
	enum { SIZE = 64, REFERENCE = 1 << 20 };
	static uint8_t reference[REFERENCE];
	uint8_t storage[SIZE];
	uint8_t chunk[SIZE + 8];
	struct pl011_ring ring;
	size_t ref_head = 0;
	size_t ref_tail = 0;
	uint32_t seed = 0x12345678u;
	uint8_t next_byte = 0;

	assert_int_equal(pl011_ring_init(&ring, storage, SIZE), 0);
	/* Start the indices near 2^32 so the run also crosses the index wrap-around. */
	ring.head = ring.tail = UINT32_MAX - 1000u;
	for (int step = 0; step < 200000; step++) {
		size_t want = harness_random(&seed) % (SIZE + 8);
		if (harness_random(&seed) & 1u) {
			for (size_t i = 0; i < want; i++)
				chunk[i] = next_byte++;
			size_t wrote = pl011_ring_write(&ring, chunk, want);
			size_t space = SIZE - (ref_head - ref_tail);
			assert_int_equal(wrote, want < space ? want : space);
			next_byte = (uint8_t)(next_byte - (want - wrote));
			for (size_t i = 0; i < wrote; i++)
				reference[ref_head++ % REFERENCE] = chunk[i];
		} else {
			size_t got = pl011_ring_read(&ring, chunk, want);
			size_t available = ref_head - ref_tail;
			assert_int_equal(got, want < available ? want : available);
			for (size_t i = 0; i < got; i++)
				assert_int_equal(chunk[i], reference[ref_tail++ % REFERENCE]);
		}
		assert_int_equal(pl011_ring_count(&ring), ref_head - ref_tail);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_starts_empty),
		cmocka_unit_test(test_ring_fills_to_size_and_refuses_more),
		cmocka_unit_test(test_ring_bulk_write_and_read_across_the_wrap),
		cmocka_unit_test(test_ring_peek_skip_and_reserve_commit),
		cmocka_unit_test(test_ring_rejects_bad_sizes_and_pointers),
		cmocka_unit_test(test_ring_random_run_matches_a_reference_queue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
