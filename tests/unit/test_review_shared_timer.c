/* Reviewer probes: the one event timer shared by TX done, RS-485's DE release and RX idle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static struct harness rh;
static size_t idle_events, done_events;
static uint64_t last_idle_ns, done_ns;

static void on_event(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	struct harness *h = context;
	if ((events & PL011_EVENT_RX_IDLE) != 0) {
		idle_events++;
		last_idle_ns = pl011_model_now_ns(h->model);
	}
	if ((events & PL011_EVENT_TX_DONE) != 0) {
		done_events++;
		done_ns = pl011_model_now_ns(h->model);
	}
}

static struct pl011_rs485 bus = {
	.driver = &pl011_rs485_driver,
	.flags = 0,
	.delay_before_us = 20,
	.delay_after_us = 300,
};

static uint8_t data[64];

static void setup(struct harness *h, bool rs485, enum pl011_tx_mode mode)
{
	memset(&harness_timer, 0, sizeof harness_timer);
	idle_events = done_events = 0;
	last_idle_ns = done_ns = 0;
	harness_setup(h, 24000000u, 16);
	h->config.tx_mode = mode;
	h->config.rx_mode = PL011_RX_LOW_LATENCY;
	h->config.event_mask = PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA | PL011_EVENT_TX_DONE;
	h->config.event = on_event;
	h->config.event_context = h;
	h->config.event_driver = &pl011_event_driver;
	h->config.event_timer = harness_timer_arm;
	h->config.event_timer_context = h;
	h->config.wait_hook = harness_timer_wait_step;
	h->config.wait_context = h;
	h->config.rs485 = rs485 ? &bus : NULL;
}

/* A send of tx_len bytes and an RX burst of rx_len starting at offset (quarter frames from
 * the send's call), on one core. TX done once, within a frame + 10 us of the last stop bit;
 * DE released no earlier than delay_after past it; one RX idle at least, after the burst. */
static void one_case(bool rs485, enum pl011_tx_mode mode, size_t tx_len, size_t rx_len,
		     uint64_t offset_q)
{
	struct harness *h = &rh;
	setup(h, rs485, mode);
	assert_int_equal(harness_start(h), 0);
	uint64_t frame = pl011_model_frame_ns(h->model);
	harness_advance_with_timer(h, pl011_model_now_ns(h->model) + 10u * frame);
	uint64_t t0 = pl011_model_now_ns(h->model);
	uint64_t rx_last = pl011_model_rx_inject_stream(h->model, data, rx_len,
							t0 + offset_q * frame / 4u);
	assert_int_equal(pl011_write(&h->uart, data, tx_len, PL011_NO_WAIT), (int)tx_len);
	harness_advance_with_timer(h, t0 + 200u * frame);
	size_t wire = pl011_model_wire_len(h->model);
	assert_int_equal(wire, tx_len);
	uint64_t stop = pl011_model_wire_end_ns(h->model, wire - 1u);
	bool ok = true;
	if (done_events != 1 || done_ns < stop || done_ns > stop + frame + 10000u) {
		print_message("tx %zu rx %zu at %llu/4: TX_DONE %zu, %lld ns after the stop bit\n",
			      tx_len, rx_len, (unsigned long long)offset_q, done_events,
			      (long long)(done_ns - stop));
		ok = false;
	}
	if (idle_events < 1 || last_idle_ns < rx_last) {
		print_message("tx %zu rx %zu at %llu/4: RX_IDLE %zu, the last before the burst's end\n",
			      tx_len, rx_len, (unsigned long long)offset_q, idle_events);
		ok = false;
	}
	if (rs485) {
		size_t edges = pl011_model_rts_edge_count(h->model);
		uint64_t off = 0;
		for (size_t i = 0; i < edges; i++)
			if (!pl011_model_rts_edge_asserted(h->model, i))
				off = pl011_model_rts_edge_ns(h->model, i);
		/* DE active high on nUARTRTS: "asserted" is RTS low... take the last edge. */
		uint64_t last_edge = edges ? pl011_model_rts_edge_ns(h->model, edges - 1u) : 0;
		(void)off;
		if (last_edge < stop + bus.delay_after_us * 1000u) {
			print_message("tx %zu rx %zu at %llu/4: DE's last edge %lld ns after the stop bit\n",
				      tx_len, rx_len, (unsigned long long)offset_q,
				      (long long)(last_edge - stop));
			ok = false;
		}
	}
	if (harness_timer.armed) {
		print_message("tx %zu rx %zu at %llu/4: a tick still armed\n", tx_len, rx_len,
			      (unsigned long long)offset_q);
		ok = false;
	}
	harness_teardown(h);
	assert_true(ok);
}

static void sweep(bool rs485, enum pl011_tx_mode mode)
{
	static const size_t tx_lens[] = {1, 3, 20};
	static const size_t rx_lens[] = {1, 2, 3, 17};
	for (size_t t = 0; t < sizeof tx_lens / sizeof tx_lens[0]; t++)
		for (size_t r = 0; r < sizeof rx_lens / sizeof rx_lens[0]; r++)
			for (uint64_t q = 0; q < 4u * (tx_lens[t] + 8u); q++)
				one_case(rs485, mode, tx_lens[t], rx_lens[r], q);
}

static void test_tx_done_bound_with_rx_bursts(void **state)
{
	(void)state;
	sweep(false, PL011_TX_MEASURED);
	sweep(false, PL011_TX_HALF_FIFO);
}

static void test_rs485_release_with_rx_bursts(void **state)
{
	(void)state;
	sweep(true, PL011_TX_MEASURED);
}

int main(void)
{
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7u + 1u);
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_tx_done_bound_with_rx_bursts, &rh),
		HARNESS_TEST(test_rs485_release_with_rx_bursts, &rh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
