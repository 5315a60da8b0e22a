/* The ring under two real threads: a producer and a consumer on different cores. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pl011_ring.h"

#define TOTAL_BYTES (8u << 20)

static struct pl011_ring ring;
static uint8_t storage[256];

/* Byte i of the stream, so the consumer can check order and content without a copy. */
static uint8_t stream_byte(uint32_t i)
{
	return (uint8_t)(i * 2654435761u >> 24);
}

static void *produce(void *unused)
{
	(void)unused;
	uint8_t chunk[97];
	uint32_t sent = 0;
	while (sent < TOTAL_BYTES) {
		uint32_t want = (uint32_t)(sent % sizeof chunk) + 1u;
		if (want > TOTAL_BYTES - sent)
			want = TOTAL_BYTES - sent;
		for (uint32_t i = 0; i < want; i++)
			chunk[i] = stream_byte(sent + i);
		sent += (uint32_t)pl011_ring_write(&ring, chunk, want);
	}
	return NULL;
}

static void test_ring_two_threads_8mib_arrive_in_order(void **state)
{
	(void)state;
	pthread_t producer;
	assert_int_equal(pl011_ring_init(&ring, storage, sizeof storage), 0);
	assert_int_equal(pthread_create(&producer, NULL, produce, NULL), 0);
	uint32_t received = 0;
	uint32_t mismatches = 0;
	uint8_t chunk[131];
	while (received < TOTAL_BYTES) {
		/* Alternate the two consumer paths: bulk copy, and peek/skip in place. */
		if (received & 1u) {
			size_t n = pl011_ring_read(&ring, chunk, sizeof chunk);
			for (size_t i = 0; i < n; i++)
				mismatches += chunk[i] != stream_byte(received + (uint32_t)i);
			received += (uint32_t)n;
		} else {
			const uint8_t *segment;
			size_t n = pl011_ring_peek(&ring, &segment);
			for (size_t i = 0; i < n; i++)
				mismatches += segment[i] != stream_byte(received + (uint32_t)i);
			pl011_ring_skip(&ring, n);
			received += (uint32_t)n;
		}
		assert_true(pl011_ring_count(&ring) <= sizeof storage);
	}
	assert_int_equal(pthread_join(producer, NULL), 0);
	assert_int_equal(mismatches, 0);
	assert_int_equal(pl011_ring_count(&ring), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_two_threads_8mib_arrive_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
