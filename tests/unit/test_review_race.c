/* Reviewer probes: RX idle, the UART handler and the event tick on two cores, the other
 * context run whole at every atomic point / register access of one of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static struct harness rh;
#define MAX_IDLE 64
static size_t idle_events;
static uint32_t idle_bytes[MAX_IDLE]; /* stats.rx_bytes at each RX_IDLE */
static uint32_t idle_drains[MAX_IDLE]; /* events.rx_idle_drains at each: the burst given */
static size_t empty_idles; /* RX_IDLE with no byte since the last one (documented race) */

static void on_event(struct pl011 *uart, uint32_t events, void *context)
{
	(void)context;
	if ((events & PL011_EVENT_RX_IDLE) != 0) {
		if (idle_events < MAX_IDLE)
			idle_bytes[idle_events] = uart->stats.rx_bytes;
		if (idle_events < MAX_IDLE)
			idle_drains[idle_events] = __atomic_load_n(&uart->events.rx_idle_drains,
								   __ATOMIC_SEQ_CST);
		idle_events++;
	}
}

static uint8_t data[256];

/* Where the other context cuts in. */
enum target { IN_TICK, IN_HANDLER };
static enum target target;
static uint64_t cut_at;    /* the point (1-based) of the targeted context's run */
static uint64_t points;
static bool armed_cut;     /* only the targeted run after the burst ended */
static bool in_target;
static bool cut_done;
static unsigned b_len;     /* characters of burst B */

static void run_other_core_handler(void)
{
	struct harness *h = &rh;
	/* B arrives while the tick is stalled on its core; the UART's core takes it. */
	uint64_t now = pl011_model_now_ns(h->model);
	uint64_t last = 0;
	for (unsigned i = 0; i < b_len; i++) {
		last = now + (i + 1u) * pl011_model_frame_ns(h->model);
		pl011_model_rx_inject(h->model, data[100 + i], 0, last);
	}
	/* b_len 1: wait out RT (32 bit periods) so the handler's entry is RT's. */
	uint64_t wait = b_len == 1 ? 5u * pl011_model_frame_ns(h->model) : 0u;
	pl011_model_advance_to(h->model, last + wait + 1000u);
	pl011_irq_handler(&h->uart);
}

static void hook(void *context)
{
	(void)context;
	if (!armed_cut || !in_target || cut_done)
		return;
	if (++points != cut_at)
		return;
	cut_done = true;
	in_target = false;
	if (target == IN_TICK)
		run_other_core_handler();
	else
		pl011_event_tick(&rh.uart);
	in_target = true;
}

static void tick_wrapper(void *uart)
{
	bool mine = target == IN_TICK && armed_cut && !cut_done;
	if (mine)
		in_target = true;
	pl011_event_tick(uart);
	if (mine) {
		in_target = false;
		armed_cut = false; /* one targeted run */
	}
}

static void handler_wrapper(void *uart)
{
	bool mine = target == IN_HANDLER && armed_cut && !cut_done;
	if (mine)
		in_target = true;
	pl011_irq_handler(uart);
	if (mine) {
		in_target = false;
		armed_cut = false;
	}
}

static void setup(struct harness *h)
{
	memset(&harness_timer, 0, sizeof harness_timer);
	idle_events = 0;
	points = 0;
	armed_cut = false;
	in_target = false;
	cut_done = false;
	harness_setup(h, 24000000u, 16);
	h->config.tx_mode = PL011_TX_MEASURED;
	h->config.rx_mode = PL011_RX_LOW_LATENCY;
	h->config.event_mask = PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA | PL011_EVENT_TX_DONE;
	h->config.event = on_event;
	h->config.event_context = h;
	h->config.event_driver = &pl011_event_driver;
	h->config.event_timer = harness_timer_arm;
	h->config.event_timer_context = h;
	h->config.wait_hook = harness_timer_wait_step;
	h->config.wait_context = h;
	harness_timer.on_tick = tick_wrapper;
	pl011_model_set_irq_handler(h->model, handler_wrapper, &h->uart);
	pl011_model_set_preempt_hook(hook, NULL);
}

/* Check: no two RX_IDLE without a byte between (given twice), the last one after every
 * byte (none lost at the end), no tick left armed. Returns false when the cut came past the
 * end of the targeted run. */
static bool check_run(struct harness *h, const char *what, uint64_t k)
{
	uint32_t total = h->uart.stats.rx_bytes;
	bool ok = true;
	for (size_t i = 1; i < idle_events && i < MAX_IDLE; i++) {
		/* docs/events.md: bytes drained while the tick gives RX idle open the next burst,
		 * which gets its own, so the reader may find them at the first and none at the
		 * second. Counted, not failed. */
		if (idle_bytes[i] == idle_bytes[i - 1]) {
			print_message("%s cut %llu: RX_IDLE twice at %u bytes (bursts %u, %u)\n",
				      what, (unsigned long long)k, idle_bytes[i], idle_drains[i - 1],
				      idle_drains[i]);
			empty_idles++;
		}
		if (idle_drains[i] == idle_drains[i - 1]) {
			print_message("%s cut %llu: one burst (%u) given twice\n", what,
				      (unsigned long long)k, idle_drains[i]);
			ok = false;
		}
	}
	if (idle_events == 0 || idle_bytes[(idle_events < MAX_IDLE ? idle_events : MAX_IDLE) - 1] != total) {
		print_message("%s cut %llu: no RX_IDLE after the last of %u bytes (%zu given)\n",
			      what, (unsigned long long)k, total, idle_events);
		ok = false;
	}
	if (harness_timer.armed && harness_timer.due_ns < pl011_model_now_ns(h->model)) {
		print_message("%s cut %llu: a tick overdue\n", what, (unsigned long long)k);
		ok = false;
	}
	assert_true(ok);
	return cut_done;
}

/* Burst A (40 bytes, the last drain empties the FIFO: the tick's to end), then, the UART's
 * handler on the other core takes burst B at the k-th point of the tick that ends A. */
static void explore_tick_cut(unsigned b)
{
	for (uint64_t k = 1; k < 400; k++) {
		struct harness *h = &rh;
		setup(h);
		target = IN_TICK;
		cut_at = k;
		b_len = b;
		assert_int_equal(harness_start(h), 0);
		uint64_t frame = pl011_model_frame_ns(h->model);
		uint64_t last = pl011_model_rx_inject_stream(h->model, data, 40,
							     pl011_model_now_ns(h->model));
		harness_advance_with_timer(h, last + 4u * frame);
		armed_cut = true;
		harness_advance_with_timer(h, last + 200u * frame);
		bool cut = cut_done;
		pl011_model_set_preempt_hook(NULL, NULL);
		check_run(h, b == 1 ? "tick/RT" : "tick/RX", k);
		harness_teardown(h);
		if (!cut) {
			print_message("tick cut: %llu points explored (B %u)\n",
				      (unsigned long long)k - 1, b);
			return;
		}
	}
}

static void test_handler_cuts_the_ending_tick_rx(void **state)
{
	(void)state;
	explore_tick_cut(2);
}

static void test_handler_cuts_the_ending_tick_rt(void **state)
{
	(void)state;
	explore_tick_cut(1);
}

/* Burst A ends; 5 frames later (the tick due) burst B's first drain runs, and the tick comes on
 * the other core at each point of that handler. */
static void explore_handler_cut(unsigned b, uint64_t gap_frames_x10)
{
	for (uint64_t k = 1; k < 400; k++) {
		struct harness *h = &rh;
		setup(h);
		target = IN_HANDLER;
		cut_at = k;
		assert_int_equal(harness_start(h), 0);
		uint64_t frame = pl011_model_frame_ns(h->model);
		uint64_t last = pl011_model_rx_inject_stream(h->model, data, 40,
							     pl011_model_now_ns(h->model));
		uint64_t b_start = last + gap_frames_x10 * frame / 10u;
		harness_advance_with_timer(h, b_start - 1000u);
		armed_cut = true;
		for (unsigned i = 0; i < b; i++)
			pl011_model_rx_inject(h->model, data[100 + i], 0, b_start + (i + 1u) * frame);
		harness_advance_with_timer(h, b_start + 200u * frame);
		bool cut = cut_done;
		pl011_model_set_preempt_hook(NULL, NULL);
		check_run(h, "handler", k);
		harness_teardown(h);
		if (!cut) {
			print_message("handler cut: %llu points explored (B %u, gap %llu/10)\n",
				      (unsigned long long)k - 1, b, (unsigned long long)gap_frames_x10);
			return;
		}
	}
}

static void test_tick_cuts_the_next_bursts_handler(void **state)
{
	(void)state;
	for (uint64_t gap = 20; gap <= 60; gap += 5) {
		explore_handler_cut(2, gap);
		explore_handler_cut(1, gap);
	}
}

int main(void)
{
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7u + 1u);
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_handler_cuts_the_ending_tick_rx, &rh),
		HARNESS_TEST(test_handler_cuts_the_ending_tick_rt, &rh),
		HARNESS_TEST(test_tick_cuts_the_next_bursts_handler, &rh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
