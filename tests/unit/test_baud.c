/* Baud divisor math against a table derived independently from the TRM formula. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pl011.h"

struct baud_case {
	uint32_t clock_hz;
	uint32_t baud;
	uint32_t ibrd; /* 0: must be rejected with PL011_EBAUD */
	uint32_t fbrd;
	uint32_t actual;
};

/* BRD = clock / (16 * baud); IBRD = integer part; FBRD = integer(fraction * 64 + 0.5) with the
 * carry into IBRD when that gives 64 (TRM 2.4.3), computed in floating point outside this
 * project. The actual rate is clock / (16 * (IBRD + FBRD / 64)), rounded. */
static const struct baud_case cases[] = {
	{3000000u, 300u, 625u, 0u, 300u},
	{3000000u, 1200u, 156u, 16u, 1200u},
	{3000000u, 2400u, 78u, 8u, 2400u},
	{3000000u, 4800u, 39u, 4u, 4800u},
	{3000000u, 9600u, 19u, 34u, 9600u},
	{3000000u, 19200u, 9u, 49u, 19200u},
	{3000000u, 38400u, 4u, 57u, 38339u},
	{3000000u, 57600u, 3u, 16u, 57692u},
	{3000000u, 115200u, 1u, 40u, 115385u},
	{3000000u, 230400u, 0u, 0u, 0u},
	{3000000u, 460800u, 0u, 0u, 0u},
	{3000000u, 921600u, 0u, 0u, 0u},
	{3000000u, 1000000u, 0u, 0u, 0u},
	{3000000u, 1500000u, 0u, 0u, 0u},
	{3000000u, 2000000u, 0u, 0u, 0u},
	{3000000u, 3000000u, 0u, 0u, 0u},
	{24000000u, 300u, 5000u, 0u, 300u},
	{24000000u, 1200u, 1250u, 0u, 1200u},
	{24000000u, 2400u, 625u, 0u, 2400u},
	{24000000u, 4800u, 312u, 32u, 4800u},
	{24000000u, 9600u, 156u, 16u, 9600u},
	{24000000u, 19200u, 78u, 8u, 19200u},
	{24000000u, 38400u, 39u, 4u, 38400u},
	{24000000u, 57600u, 26u, 3u, 57588u},
	{24000000u, 115200u, 13u, 1u, 115246u},
	{24000000u, 230400u, 6u, 33u, 230216u},
	{24000000u, 460800u, 3u, 16u, 461538u},
	{24000000u, 921600u, 1u, 40u, 923077u},
	{24000000u, 1000000u, 1u, 32u, 1000000u},
	{24000000u, 1500000u, 1u, 0u, 1500000u},
	{24000000u, 2000000u, 0u, 0u, 0u},
	{24000000u, 3000000u, 0u, 0u, 0u},
	{48000000u, 300u, 10000u, 0u, 300u},
	{48000000u, 1200u, 2500u, 0u, 1200u},
	{48000000u, 2400u, 1250u, 0u, 2400u},
	{48000000u, 4800u, 625u, 0u, 4800u},
	{48000000u, 9600u, 312u, 32u, 9600u},
	{48000000u, 19200u, 156u, 16u, 19200u},
	{48000000u, 38400u, 78u, 8u, 38400u},
	{48000000u, 57600u, 52u, 5u, 57606u},
	{48000000u, 115200u, 26u, 3u, 115177u},
	{48000000u, 230400u, 13u, 1u, 230492u},
	{48000000u, 460800u, 6u, 33u, 460432u},
	{48000000u, 921600u, 3u, 16u, 923077u},
	{48000000u, 1000000u, 3u, 0u, 1000000u},
	{48000000u, 1500000u, 2u, 0u, 1500000u},
	{48000000u, 2000000u, 1u, 32u, 2000000u},
	{48000000u, 3000000u, 1u, 0u, 3000000u},
};

static void test_baud_table_3_24_48_mhz_300_to_3m(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct baud_case *c = &cases[i];
		struct pl011_baud out = {0};
		int err = pl011_compute_baud(c->clock_hz, c->baud, 0, &out);
		if (c->ibrd == 0) {
			if (err != PL011_EBAUD)
				fail_msg("%u Hz %u baud: expected PL011_EBAUD, got %d", c->clock_hz,
					 c->baud, err);
			continue;
		}
		if (err != 0 || out.ibrd != c->ibrd || out.fbrd != c->fbrd || out.actual_baud != c->actual)
			fail_msg("%u Hz %u baud: got err %d IBRD %u FBRD %u actual %u, want %u/%u %u",
				 c->clock_hz, c->baud, err, out.ibrd, out.fbrd, out.actual_baud, c->ibrd,
				 c->fbrd, c->actual);
	}
}

static void test_baud_error_ppm_sign_and_size(void **state)
{
	(void)state;
	struct pl011_baud out;
	assert_int_equal(pl011_compute_baud(3000000u, 38400u, 0, &out), 0);
	/* 38339 vs 38400: -1588 ppm (integer division truncates toward zero). */
	assert_int_equal(out.error_ppm, (38339 - 38400) * 1000000 / 38400);
	assert_int_equal(pl011_compute_baud(24000000u, 921600u, 0, &out), 0);
	assert_int_equal(out.error_ppm, (923077 - 921600) * 1000000 / 921600);
}

static void test_baud_tighter_tolerance_rejects(void **state)
{
	(void)state;
	struct pl011_baud out;
	/* 3 MHz, 115200: +1605 ppm passes 2000 ppm but not 1000 ppm. */
	assert_int_equal(pl011_compute_baud(3000000u, 115200u, 2000u, &out), 0);
	assert_int_equal(pl011_compute_baud(3000000u, 115200u, 1000u, &out), PL011_EBAUD);
	/* An exact rate passes any tolerance. */
	assert_int_equal(pl011_compute_baud(48000000u, 3000000u, 1u, &out), 0);
}

static void test_baud_tolerance_holds_in_both_directions(void **state)
{
	(void)state;
	struct pl011_baud out;
	/* 115,200 from 1.869 MHz is 1,605 ppm slow, from 1.875 MHz 1,605 ppm fast: a 1,000 ppm
	 * tolerance refuses both, whatever the sign. */
	assert_int_equal(pl011_compute_baud(1869000u, 115200u, 1000u, &out), PL011_EBAUD);
	assert_int_equal(pl011_compute_baud(1875000u, 115200u, 1000u, &out), PL011_EBAUD);
	/* The same rates within a 2,000 ppm tolerance, with the sign of the error kept. */
	assert_int_equal(pl011_compute_baud(1869000u, 115200u, 2000u, &out), 0);
	assert_int_equal(out.error_ppm, -1605);
	assert_int_equal(pl011_compute_baud(1875000u, 115200u, 2000u, &out), 0);
	assert_int_equal(out.error_ppm, 1605);
	/* Errors inside 1,000 ppm on either side pass it: -651 and +538 ppm. */
	assert_int_equal(pl011_compute_baud(1842000u, 115200u, 1000u, &out), 0);
	assert_int_equal(out.error_ppm, -651);
	assert_int_equal(pl011_compute_baud(1873000u, 115200u, 1000u, &out), 0);
	assert_int_equal(out.error_ppm, 538);
}

static void test_baud_divisor_limits(void **state)
{
	(void)state;
	struct pl011_baud out;
	/* 48 MHz / (16 * 45) = 66666 > 0xFFFF: too slow. */
	assert_int_equal(pl011_compute_baud(48000000u, 45u, 0, &out), PL011_EBAUD);
	/* 16 * 0xFFFF * 46 = 48234240 Hz gives IBRD 0xFFFF, FBRD 0: the largest legal divisor. */
	assert_int_equal(pl011_compute_baud(16u * 0xFFFFu * 46u, 46u, 0, &out), 0);
	assert_int_equal(out.ibrd, 0xFFFFu);
	assert_int_equal(out.fbrd, 0u);
	/* Slightly above it: IBRD 0xFFFF with FBRD != 0 is not allowed (TRM 3.3.6). */
	assert_int_equal(pl011_compute_baud(16u * 0xFFFFu * 46u + 16u * 46u / 8u, 46u, 0, &out),
			 PL011_EBAUD);
	/* Exactly 16 * baud: IBRD 1, FBRD 0, the fastest legal rate. */
	assert_int_equal(pl011_compute_baud(16000000u, 1000000u, 0, &out), 0);
	assert_int_equal(out.ibrd, 1u);
}

static void test_baud_bad_arguments(void **state)
{
	(void)state;
	struct pl011_baud out;
	assert_int_equal(pl011_compute_baud(0, 115200u, 0, &out), PL011_EINVAL);
	assert_int_equal(pl011_compute_baud(48000000u, 0, 0, &out), PL011_EINVAL);
	assert_int_equal(pl011_compute_baud(48000000u, 115200u, 0, NULL), PL011_EINVAL);
	/* The largest inputs do not overflow. */
	assert_int_equal(pl011_compute_baud(UINT32_MAX, UINT32_MAX, 0, &out), PL011_EBAUD);
	assert_int_equal(pl011_compute_baud(UINT32_MAX, 1u, 0, &out), PL011_EBAUD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baud_table_3_24_48_mhz_300_to_3m),
		cmocka_unit_test(test_baud_error_ppm_sign_and_size),
		cmocka_unit_test(test_baud_tighter_tolerance_rejects),
		cmocka_unit_test(test_baud_tolerance_holds_in_both_directions),
		cmocka_unit_test(test_baud_divisor_limits),
		cmocka_unit_test(test_baud_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
