/* lib/'s own 64-bit division, and the baud and line-time math built on it, against C's division. */
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
	uint64_t expected = dividend / divisor;
	uint64_t got = pl011_divide_u64(dividend, divisor);
	if (got != expected)
		fail_msg("%llu / %llu: %llu, C says %llu", (unsigned long long)dividend,
			 (unsigned long long)divisor, (unsigned long long)got,
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
	check_edge_pairs(check_divide, UINT64_MAX, ((uint64_t)1 << 63) - 1u, true);
	/* Outside the stated range, defined anyway: 0 gives all ones. */
	assert_true(pl011_divide_u64(12345u, 0u) == UINT64_MAX);
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
		uint64_t divisor = random_of_any_width() >> 1; /* below 2^63 */
		check_divide(random_of_any_width(), divisor == 0 ? 1u : divisor);
	}
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

/* frames * frame_ns / 1000 rounded up and saturated, as pl011_frames_us did it in C's 64-bit
 * division: the reference. */
static uint32_t reference_frames_us(uint64_t frames, uint64_t frame_ns)
{
	const uint64_t ceiling = (uint64_t)PL011_WAIT_AUTO * 1000u;
	uint64_t us;
	if (frame_ns != 0 && frames > ceiling / frame_ns)
		us = PL011_WAIT_AUTO;
	else
		us = (frames * frame_ns + 999u) / 1000u;
	return us >= PL011_WAIT_AUTO ? PL011_WAIT_AUTO - 1u : (uint32_t)us;
}

static void check_frames_us(uint64_t frames, uint64_t frame_ns)
{
	struct pl011 uart;
	memset(&uart, 0, sizeof uart);
	uart.line.frame_ns = frame_ns;
	uint32_t got = pl011_frames_us(&uart, frames);
	uint32_t expected = reference_frames_us(frames, frame_ns);
	if (got != expected)
		fail_msg("%llu frames of %llu ns: %lu us, reference %lu",
			 (unsigned long long)frames, (unsigned long long)frame_ns,
			 (unsigned long)got, (unsigned long)expected);
}

/* The frame times init can give (1 to 12 x 10^9 ns: 12 bits at 1 baud) and beyond. */
static void test_frames_us_equals_the_64_bit_formula(void **state)
{
	(void)state;
	const uint64_t up_to_2_40 = ((uint64_t)1 << 40) - 1u;
	check_edge_pairs(check_frames_us, up_to_2_40, up_to_2_40, false);
	for (uint32_t i = 0; i < 200000u; i++) {
		uint64_t frame_ns = next_random() % 12000000001u;
		check_frames_us(random_of_any_width() >> 24, frame_ns);
	}
}

/* The 32-bit path divides by 1000 with a multiply: every product below 2^32 is exact, the
 * last ones and each side of every thousand near the top included. */
static void test_frames_us_exact_below_2_32(void **state)
{
	(void)state;
	for (uint64_t ns = UINT32_MAX - 5000u; ns <= UINT32_MAX; ns++)
		check_frames_us(1, ns);
	for (uint32_t i = 0; i < 1000000u; i++) {
		uint64_t ns = next_random() & UINT32_MAX;
		check_frames_us(1, ns);
		check_frames_us(1, ns - ns % 1000u);
		check_frames_us(1, ns - ns % 1000u + 1u);
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
		cmocka_unit_test(test_baud_equals_the_64_bit_formula),
		cmocka_unit_test(test_frames_us_equals_the_64_bit_formula),
		cmocka_unit_test(test_frames_us_exact_below_2_32),
		cmocka_unit_test(test_core_tag_is_the_number_modulo_255_plus_1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
