/* Lock-free single-producer / single-consumer byte ring used for the TX and RX paths. */
#ifndef PL011_RING_H
#define PL011_RING_H

#include <stddef.h>
#include <stdint.h>

/* The ring's only error: the same value as PL011_EINVAL in pl011.h, so that the ring needs
 * nothing from the driver. */
#define PL011_RING_EINVAL (-1)

/*
 * The caller owns the storage. head and tail are free-running 32-bit indices: the producer
 * alone stores head, the consumer alone stores tail, each with release ordering, and each
 * side loads the other's index with acquire ordering, so the bytes a store publishes are
 * visible before the index that covers them (correct on a multi-core Cortex-A).
 * "Producer" and "consumer" are roles: any number of contexts may take a role in turn as long
 * as they never overlap and hand over with a release/acquire pair (the driver's TX owner word).
 */
struct pl011_ring {
	uint8_t *storage;
	uint32_t size; /* a power of two, 2 .. 2^31 */
	uint32_t head; /* next index to write; producer-owned */
	uint32_t tail; /* next index to read; consumer-owned */
};

/*
 * Attach storage of `size` bytes and empty the ring.
 * Errors: PL011_RING_EINVAL if ring or storage is NULL, or size is not a power of two in 2 .. 2^31.
 * Context: before either side uses the ring.
 */
int pl011_ring_init(struct pl011_ring *ring, uint8_t *storage, size_t size);

/* Bytes readable now. Context: either side (a snapshot that the other side may change). */
size_t pl011_ring_count(const struct pl011_ring *ring);

/* Bytes writable now. Context: either side (a snapshot). */
size_t pl011_ring_space(const struct pl011_ring *ring);

/* Copy up to len bytes in (at most two memcpy); returns how many. Context: producer. */
size_t pl011_ring_write(struct pl011_ring *ring, const void *data, size_t len);

/* Copy up to len bytes out (at most two memcpy); returns how many. Context: consumer. */
size_t pl011_ring_read(struct pl011_ring *ring, void *data, size_t len);

/*
 * Point *segment at the first contiguous run of readable bytes and return its length (0 when
 * empty). The bytes stay in the ring until pl011_ring_skip. Context: consumer.
 */
size_t pl011_ring_peek(const struct pl011_ring *ring, const uint8_t **segment);

/* Drop n readable bytes (n <= count). Context: consumer. */
void pl011_ring_skip(struct pl011_ring *ring, size_t n);

/*
 * Point *segment at the first contiguous run of free bytes and return its length (0 when
 * full). Nothing is published until pl011_ring_commit. Context: producer.
 */
size_t pl011_ring_reserve(const struct pl011_ring *ring, uint8_t **segment);

/* Publish n bytes written through pl011_ring_reserve (n <= space). Context: producer. */
void pl011_ring_commit(struct pl011_ring *ring, size_t n);

#endif
