/* lib/'s own division, and the baud and line-time math built on it, against C's division. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pl011.h"
#include "pl011_internal.h"

static uint64_t random_state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void)
{
	/* xorshift64: a fixed sequence, the same run every time. */
	random_state ^= random_state << 13;
	random_state ^= random_state >> 7;
	random_state ^= random_state << 17;
	return random_state;
}

/* A random value of a random width: small operands are as likely as large ones. */
static uint64_t random_of_any_width(void)
{
	uint32_t bits = (uint32_t)(next_random() % 64u) + 1u;
	uint64_t value = next_random();
	return bits == 64u ? value : value & (((uint64_t)1 << bits) - 1u);
}

static void check_divide(uint64_t dividend, uint64_t divisor)
{
	/* Stated: the quotient when it fits 32 bits, else (divisor 0 too) all ones. */
	uint64_t expected = divisor == 0 || dividend / divisor > UINT32_MAX ? UINT32_MAX
									    : dividend / divisor;
	uint32_t got = pl011_divide(dividend, (uint32_t)divisor);
	if (got != expected)
		fail_msg("%llu / %llu: %lu, C says %llu", (unsigned long long)dividend,
			 (unsigned long long)divisor, (unsigned long)got,
			 (unsigned long long)expected);
}

/* Every power of two, its neighbours and the extremes, as dividend and divisor. */
static size_t edge_values(uint64_t *out)
{
	size_t n = 0;
	out[n++] = 0;
	out[n++] = UINT64_MAX;
	for (uint32_t shift = 0; shift < 64u; shift++) {
		uint64_t power = (uint64_t)1 << shift;
		out[n++] = power;
		out[n++] = power - 1u;
		out[n++] = power + 1u;
	}
	out[n++] = 1000u;
	out[n++] = 1000000000u;
	out[n++] = 115200u;
	return n;
}

/* check(a, b) for every pair of edge values with a <= a_max and b <= b_max (and b != 0 if
 * b_nonzero). */
static void check_edge_pairs(void (*check)(uint64_t, uint64_t), uint64_t a_max, uint64_t b_max,
			     bool b_nonzero)
{
	uint64_t values[200];
	size_t count = edge_values(values);
	for (size_t a = 0; a < count; a++)
		for (size_t b = 0; b < count; b++)
			if (values[a] <= a_max && values[b] <= b_max &&
			    (values[b] != 0 || !b_nonzero))
				check(values[a], values[b]);
}

static void test_divide_edges(void **state)
{
	(void)state;
	check_edge_pairs(check_divide, UINT64_MAX, UINT32_MAX, false);
	assert_true(pl011_divide(12345u, 0u) == UINT32_MAX);
	/* Around the largest quotient that fits, with divisors either side of 2^31. */
	assert_true(pl011_divide((uint64_t)(UINT32_MAX - 1u) * 7u + 6u, 7u) == UINT32_MAX - 1u);
	assert_true(pl011_divide((uint64_t)0xFFFFFFFEu * 0xFFFFFFFFu + 0xFFFFFFFEu, 0xFFFFFFFFu) ==
		    0xFFFFFFFEu);
	assert_true(pl011_divide((uint64_t)0xFFFFFFFEu * 0x80000001u, 0x80000001u) == 0xFFFFFFFEu);
}

static void test_divide_every_small_pair(void **state)
{
	(void)state;
	for (uint64_t dividend = 0; dividend < 512u; dividend++)
		for (uint64_t divisor = 1; divisor < 512u; divisor++)
			check_divide(dividend, divisor);
}

static void test_divide_random(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < 200000u; i++) {
		uint64_t divisor = random_of_any_width() & UINT32_MAX;
		uint64_t dividend = random_of_any_width();
		check_divide(dividend, divisor);
		/* And one whose quotient fits, whatever the divisor. */
		check_divide(divisor == 0 ? dividend : dividend % (divisor << 32), divisor);
	}
}

static void check_multiply(uint64_t a, uint64_t b)
{
	uint64_t got = pl011_multiply_in_halves((uint32_t)a, (uint32_t)b);
	if (got != a * b)
		fail_msg("%llu * %llu: %llu", (unsigned long long)a, (unsigned long long)b,
			 (unsigned long long)got);
}

/* The ARMv6-M product, from 16-bit halves, against C's on the host. */
static void test_multiply_in_halves(void **state)
{
	(void)state;
	check_edge_pairs(check_multiply, UINT32_MAX, UINT32_MAX, false);
	for (uint32_t i = 0; i < 200000u; i++)
		check_multiply(random_of_any_width() & UINT32_MAX, random_of_any_width() & UINT32_MAX);
}

/* pl011_compute_baud as it was, in C's 64-bit division: the reference. */
static int reference_baud(uint32_t clock_hz, uint32_t baud, uint32_t tolerance_ppm,
			  struct pl011_baud *out)
{
	uint64_t q = ((uint64_t)clock_hz * 4u + baud / 2u) / baud;
	uint64_t ibrd = q >> 6;
	uint64_t fbrd = q & 63u;
	if (ibrd == 0 || ibrd > 0xFFFFu || (ibrd == 0xFFFFu && fbrd != 0))
		return PL011_EBAUD;
	uint64_t actual = ((uint64_t)clock_hz * 4u + q / 2u) / q;
	int64_t error_ppm = ((int64_t)actual - (int64_t)baud) * 1000000 / (int64_t)baud;
	int64_t tolerance = tolerance_ppm != 0 ? tolerance_ppm : PL011_BAUD_TOLERANCE_PPM;
	if (error_ppm > tolerance || error_ppm < -tolerance)
		return PL011_EBAUD;
	out->ibrd = (uint32_t)ibrd;
	out->fbrd = (uint32_t)fbrd;
	out->actual_baud = (uint32_t)actual;
	out->error_ppm = (int32_t)error_ppm;
	return 0;
}

static void check_baud(uint32_t clock_hz, uint32_t baud, uint32_t tolerance_ppm)
{
	struct pl011_baud got;
	struct pl011_baud expected;
	memset(&got, 0, sizeof got);
	memset(&expected, 0, sizeof expected);
	int got_status = pl011_compute_baud(clock_hz, baud, tolerance_ppm, &got);
	int expected_status = reference_baud(clock_hz, baud, tolerance_ppm, &expected);
	if (got_status != expected_status || memcmp(&got, &expected, sizeof got) != 0)
		fail_msg("clock %lu baud %lu tolerance %lu: %d (%lu %lu %lu %ld), reference %d "
			 "(%lu %lu %lu %ld)",
			 (unsigned long)clock_hz, (unsigned long)baud, (unsigned long)tolerance_ppm,
			 got_status, (unsigned long)got.ibrd, (unsigned long)got.fbrd,
			 (unsigned long)got.actual_baud, (long)got.error_ppm, expected_status,
			 (unsigned long)expected.ibrd, (unsigned long)expected.fbrd,
			 (unsigned long)expected.actual_baud, (long)expected.error_ppm);
}

/* Every baud from 1 to 20000 and every 997th to 5 M on the boards' clocks, then random pairs
 * with tolerances from none to everything: each result and error code as before. */
static void test_baud_equals_the_64_bit_formula(void **state)
{
	(void)state;
	static const uint32_t clocks[] = {1u,        1843200u,  3000000u,  7372800u, 14745600u,
					  16000000u, 24000000u, 48000000u, 50000000u, 100000000u,
					  125000000u, UINT32_MAX};
	for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
		for (uint32_t baud = 1; baud <= 20000u; baud++)
			check_baud(clocks[c], baud, 0);
		for (uint32_t baud = 20000u; baud <= 5000000u; baud += 997u)
			check_baud(clocks[c], baud, 0);
		check_baud(clocks[c], UINT32_MAX, 0);
	}
	for (uint32_t i = 0; i < 100000u; i++) {
		uint32_t clock_hz = (uint32_t)random_of_any_width() | 1u;
		uint32_t baud = (uint32_t)random_of_any_width() | 1u;
		check_baud(clock_hz, baud, (uint32_t)(next_random() % 4u == 0 ? next_random() : 0));
	}
}

/* frames * frame_time / 256 rounded up and saturated below PL011_WAIT_AUTO, in C's 64-bit
 * arithmetic: the reference. */
static uint32_t reference_frames_us(uint64_t frames, uint64_t frame_time)
{
	const uint64_t ceiling = (uint64_t)PL011_WAIT_AUTO * 256u;
	uint64_t us;
	if (frame_time != 0 && frames > ceiling / frame_time)
		us = PL011_WAIT_AUTO;
	else
		us = (frames * frame_time + 255u) / 256u;
	return us >= PL011_WAIT_AUTO ? PL011_WAIT_AUTO - 1u : (uint32_t)us;
}

static void check_frames_us(uint64_t frames, uint64_t frame_time)
{
	struct pl011 uart;
	memset(&uart, 0, sizeof uart);
	uart.line.frame_time = (uint32_t)frame_time;
	uint32_t got = pl011_frames_us(&uart, (uint32_t)frames);
	uint32_t expected = reference_frames_us(frames, frame_time);
	if (got != expected)
		fail_msg("%llu frames of %llu / 256 us: %lu us, reference %lu",
			 (unsigned long long)frames, (unsigned long long)frame_time,
			 (unsigned long)got, (unsigned long)expected);
}

/* Every 32-bit frame count and frame time at the edges, and random ones. */
static void test_frames_us_equals_the_64_bit_formula(void **state)
{
	(void)state;
	check_edge_pairs(check_frames_us, UINT32_MAX, UINT32_MAX, false);
	for (uint32_t i = 0; i < 200000u; i++)
		check_frames_us(random_of_any_width() & UINT32_MAX,
				random_of_any_width() & UINT32_MAX);
}

/* The frame time init computes: bits * 256 * 10^6 / baud, rounded up, for every frame format
 * and the rates from 1 baud up; never short of the exact line time. */
static void test_frame_time_rounds_up(void **state)
{
	(void)state;
	/* 5N1, 8N1 and 8 data, parity, 2 stop: 7, 10 and 12 bits. */
	static const uint32_t formats[] = {
		0u,
		PL011_LCR_H_WLEN_MASK,
		PL011_LCR_H_WLEN_MASK | PL011_LCR_H_PEN | PL011_LCR_H_STP2,
	};
	static const uint32_t format_bits[] = {7u, 10u, 12u};
	for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
		uint64_t bits = pl011_lcr_h_frame_bits(formats[f]);
		assert_true(bits == format_bits[f]);
		for (uint32_t i = 0; i < 300000u; i++) {
			uint32_t baud = i < 100000u ? i + 1u : (uint32_t)random_of_any_width() | 1u;
			uint64_t expected = (bits * 256000000u + baud - 1u) / baud;
			uint32_t got = pl011_lcr_h_frame_time(formats[f], baud);
			if (got != expected)
				fail_msg("%llu bits at %lu baud: %lu, C says %llu",
					 (unsigned long long)bits, (unsigned long)baud,
					 (unsigned long)got, (unsigned long long)expected);
		}
	}
}

static uint32_t core_number;

static uint32_t core_of_test(void *context)
{
	(void)context;
	return core_number;
}

/* The owner word's core tag is the core number modulo 255, plus 1, computed without a
 * division: every number below 2^16, the top and random ones. */
static void test_core_tag_is_the_number_modulo_255_plus_1(void **state)
{
	(void)state;
	struct pl011_config config = {.core_id = core_of_test};
	struct pl011 uart;
	memset(&uart, 0, sizeof uart);
	uart.config = &config;
	for (uint64_t i = 0; i < 300000u; i++) {
		core_number = i < 65536u ? (uint32_t)i
			    : i < 70000u ? UINT32_MAX - (uint32_t)(i - 65536u)
					 : (uint32_t)next_random();
		uint32_t tag = pl011_core_tag(&uart);
		if (tag != core_number % 255u + 1u)
			fail_msg("core %lu: tag %lu", (unsigned long)core_number, (unsigned long)tag);
	}
	config.core_id = NULL;
	assert_int_equal(pl011_core_tag(&uart), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_divide_edges),
		cmocka_unit_test(test_divide_every_small_pair),
		cmocka_unit_test(test_divide_random),
		cmocka_unit_test(test_multiply_in_halves),
		cmocka_unit_test(test_baud_equals_the_64_bit_formula),
		cmocka_unit_test(test_frames_us_equals_the_64_bit_formula),
		cmocka_unit_test(test_frame_time_rounds_up),
		cmocka_unit_test(test_core_tag_is_the_number_modulo_255_plus_1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
