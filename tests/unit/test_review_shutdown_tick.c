/* Reviewer probe: pl011_shutdown / pl011_restart on one core while the event tick that ends an
 * RX burst runs on the other, switched at every point; then the port again, one burst. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "harness.h"

static struct harness rh;
static size_t idle_events;
static uint8_t data[64];
static bool do_restart;
static int call_result;

static void on_event(struct pl011 *uart, uint32_t events, void *context)
{
	(void)uart;
	(void)context;
	if ((events & PL011_EVENT_RX_IDLE) != 0)
		idle_events++;
}

static void core_wait_step(void *context)
{
	(void)context;
	cores_idle_step(rh.model, 1000u);
}

static void body(int core, void *context)
{
	(void)context;
	if (core == 0)
		call_result = do_restart ? harness_restart(&rh) : pl011_shutdown(&rh.uart, 100000u);
	else
		pl011_event_tick(&rh.uart);
}

static void setup(struct harness *h)
{
	memset(&harness_timer, 0, sizeof harness_timer);
	idle_events = 0;
	harness_setup(h, 24000000u, 16);
	h->config.tx_mode = PL011_TX_MEASURED;
	h->config.rx_mode = PL011_RX_LOW_LATENCY;
	h->config.event_mask = PL011_EVENT_RX_IDLE | PL011_EVENT_TX_DONE;
	h->config.event = on_event;
	h->config.event_context = h;
	h->config.event_driver = &pl011_event_driver;
	h->config.event_timer = harness_timer_arm;
	h->config.event_timer_context = h;
	h->config.wait_hook = core_wait_step;
	h->config.wait_context = h;
}

static void explore(bool restart)
{
	for (uint64_t k = 0; k < 300; k++) {
		struct harness *h = &rh;
		setup(h);
		do_restart = restart;
		assert_int_equal(harness_start(h), 0);
		uint64_t frame = pl011_model_frame_ns(h->model);
		uint64_t last = pl011_model_rx_inject_stream(h->model, data, 40,
							     pl011_model_now_ns(h->model));
		/* Just before the ending tick: take it over. */
		harness_advance_with_timer(h, last + 4u * frame);
		harness_timer.armed = false;
		pl011_model_advance_to(h->model, last + 6u * frame);
		struct cores_plan plan = {.switch_one_in = 0, .first_slice = k, .slice = 1};
		cores_run(&plan, body, NULL);
		assert_int_equal(call_result, 0);
		size_t before = idle_events;
		assert_true(before <= 1u);
		h->config.wait_hook = harness_timer_wait_step;
		if (!restart)
			assert_int_equal(harness_start(h), 0);
		else
			assert_int_equal(harness_restart(h), 0);
		/* A stray tick (armed before) may come: harmless. Then burst B. */
		uint64_t t = pl011_model_now_ns(h->model);
		harness_advance_with_timer(h, t + 10u * frame);
		assert_int_equal(idle_events, before);
		last = pl011_model_rx_inject_stream(h->model, data, 40, pl011_model_now_ns(h->model));
		harness_advance_with_timer(h, last + 50u * frame);
		if (idle_events != before + 1u)
			print_message("%s cut %llu: %zu RX_IDLE for burst B\n",
				      restart ? "restart" : "shutdown", (unsigned long long)k,
				      idle_events - before);
		assert_int_equal(idle_events, before + 1u);
		assert_false(harness_timer.armed);
		harness_teardown(h);
	}
}

static void test_shutdown_beside_the_tick(void **state)
{
	(void)state;
	explore(false);
}

static void test_restart_beside_the_tick(void **state)
{
	(void)state;
	explore(true);
}

int main(void)
{
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7u + 1u);
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_shutdown_beside_the_tick, &rh),
		HARNESS_TEST(test_restart_beside_the_tick, &rh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
