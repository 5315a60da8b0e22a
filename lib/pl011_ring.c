/* Lock-free single-producer / single-consumer byte ring (see include/pl011_ring.h). */
#include <string.h>

#include "pl011_io.h"
#include "pl011_ring.h"

/* Each side reads its own index plainly-atomically and the other's with acquire. The loads of
 * the other side's index and every store are preemption points for the host explorers. */
static uint32_t ring_load_relaxed(const uint32_t *index)
{
	return __atomic_load_n(index, __ATOMIC_RELAXED);
}

static uint32_t ring_load_acquire(const uint32_t *index)
{
	pl011_io_atomic_point();
	return pl011_atomic_load(index, __ATOMIC_ACQUIRE);
}

static void ring_store_release(uint32_t *index, uint32_t value)
{
	pl011_io_atomic_point();
	pl011_atomic_store(index, value, __ATOMIC_RELEASE);
}

static size_t ring_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

int pl011_ring_init(struct pl011_ring *ring, uint8_t *storage, size_t size)
{
	if (ring == NULL || storage == NULL)
		return PL011_RING_EINVAL;
	if (size < 2 || size > ((size_t)1 << 31) || (size & (size - 1)) != 0)
		return PL011_RING_EINVAL;
	ring->storage = storage;
	ring->size = (uint32_t)size;
	ring_store_release(&ring->head, 0);
	ring_store_release(&ring->tail, 0);
	return 0;
}

size_t pl011_ring_count(const struct pl011_ring *ring)
{
	/* Tail first: head only grows, so head - tail cannot go negative; clamp in case the
	 * other side moved both ways between the two loads. */
	uint32_t tail = ring_load_acquire(&ring->tail);
	uint32_t head = ring_load_acquire(&ring->head);
	uint32_t count = head - tail;
	return count < ring->size ? count : ring->size;
}

size_t pl011_ring_space(const struct pl011_ring *ring)
{
	return ring->size - pl011_ring_count(ring);
}

size_t pl011_ring_reserve(const struct pl011_ring *ring, uint8_t **segment)
{
	uint32_t head = ring_load_relaxed(&ring->head);
	uint32_t tail = ring_load_acquire(&ring->tail);
	uint32_t space = ring->size - (uint32_t)(head - tail);
	uint32_t offset = head & (ring->size - 1u);
	uint32_t to_end = ring->size - offset;

	*segment = ring->storage + offset;
	return space < to_end ? space : to_end;
}

void pl011_ring_commit(struct pl011_ring *ring, size_t n)
{
	uint32_t head = ring_load_relaxed(&ring->head);
	ring_store_release(&ring->head, head + (uint32_t)n);
}

size_t pl011_ring_peek(const struct pl011_ring *ring, const uint8_t **segment)
{
	uint32_t tail = ring_load_relaxed(&ring->tail);
	uint32_t head = ring_load_acquire(&ring->head);
	uint32_t count = head - tail;
	uint32_t offset = tail & (ring->size - 1u);
	uint32_t to_end = ring->size - offset;

	*segment = ring->storage + offset;
	return count < to_end ? count : to_end;
}

void pl011_ring_skip(struct pl011_ring *ring, size_t n)
{
	uint32_t tail = ring_load_relaxed(&ring->tail);
	ring_store_release(&ring->tail, tail + (uint32_t)n);
}

size_t pl011_ring_write(struct pl011_ring *ring, const void *data, size_t len)
{
	const uint8_t *source = data;
	size_t done = 0;

	/* At most two passes: up to the end of storage, then from its start. */
	for (int pass = 0; pass < 2 && done < len; pass++) {
		uint8_t *segment;
		size_t n = ring_min(pl011_ring_reserve(ring, &segment), len - done);
		if (n == 0)
			break;
		memcpy(segment, source + done, n);
		pl011_ring_commit(ring, n);
		done += n;
	}
	return done;
}

size_t pl011_ring_read(struct pl011_ring *ring, void *data, size_t len)
{
	uint8_t *target = data;
	size_t done = 0;

	for (int pass = 0; pass < 2 && done < len; pass++) {
		const uint8_t *segment;
		size_t n = ring_min(pl011_ring_peek(ring, &segment), len - done);
		if (n == 0)
			break;
		memcpy(target + done, segment, n);
		pl011_ring_skip(ring, n);
		done += n;
	}
	return done;
}
