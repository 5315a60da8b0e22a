/* RX idle from the event timer on two cores (docs/events.md, "RX idle"): the UART handler and
 * the tick cutting each other at every point (once per burst, none lost), shutdown and restart
 * beside the tick that ends a burst, and TX done's and DE's lateness when a burst's handler
 * arms the shared timer as a writer on the other core opens a drain. The other context runs
 * whole at one atomic point or register access of the first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cores.h"
#include "harness.h"

#define MAX_IDLE 64

static struct harness rh;
static uint8_t data[256];
static size_t idle_events, done_events;
static uint32_t idle_bytes[MAX_IDLE];  /* stats.rx_bytes at each RX_IDLE */
static uint32_t idle_drains[MAX_IDLE]; /* events.rx_idle_drains at each: the burst given */
static uint64_t idle_ns[MAX_IDLE];     /* the model's clock at each */
static uint64_t done_ns;

static void on_event(struct pl011 *uart, uint32_t events, void *context)
{
	struct harness *h = context;
	if ((events & PL011_EVENT_RX_IDLE) != 0) {
		if (idle_events < MAX_IDLE) {
			idle_bytes[idle_events] = uart->stats.rx_bytes;
			idle_drains[idle_events] =
				__atomic_load_n(&uart->events.rx_idle_drains, __ATOMIC_SEQ_CST);
			idle_ns[idle_events] = pl011_model_now_ns(h->model);
		}
		idle_events++;
	}
	if ((events & PL011_EVENT_TX_DONE) != 0) {
		done_events++;
		done_ns = pl011_model_now_ns(h->model);
	}
}

static void setup(struct harness *h, const struct pl011_rs485 *rs485)
{
	idle_events = done_events = 0;
	done_ns = 0;
	harness_setup_timed_events(h, on_event);
	h->config.rs485 = rs485;
}

/* ---- the handler and the tick cutting each other ---- */

enum target { IN_TICK, IN_HANDLER };
static enum target target;
static uint64_t cut_at;   /* the point (1-based) of the targeted run where the other runs */
static uint64_t points;
static bool armed_cut;    /* only the targeted run after the burst ended */
static bool in_target;
static bool cut_done;
static unsigned b_len;    /* characters of burst B */

/* Burst B arrives while the tick is stalled on its core; the UART's core takes it. */
static void run_other_core_handler(void)
{
	struct harness *h = &rh;
	uint64_t now = pl011_model_now_ns(h->model);
	uint64_t last = 0;
	for (unsigned i = 0; i < b_len; i++) {
		last = now + (i + 1u) * pl011_model_frame_ns(h->model);
		pl011_model_rx_inject(h->model, data[100 + i], 0, last);
	}
	/* One character: wait out the timeout (32 bit periods), so the entry is its. */
	uint64_t wait = b_len == 1 ? 5u * pl011_model_frame_ns(h->model) : 0u;
	pl011_model_advance_to(h->model, last + wait + 1000u);
	pl011_irq_handler(&h->uart);
}

static void cut_hook(void *context)
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
	in_target = mine;
	pl011_event_tick(uart);
	if (mine) {
		in_target = false;
		armed_cut = false; /* one targeted run */
	}
}

static void handler_wrapper(void *uart)
{
	bool mine = target == IN_HANDLER && armed_cut && !cut_done;
	in_target = mine;
	pl011_irq_handler(uart);
	if (mine) {
		in_target = false;
		armed_cut = false;
	}
}

static void setup_cut(struct harness *h, enum target where, uint64_t k)
{
	setup(h, NULL);
	target = where;
	cut_at = k;
	points = 0;
	armed_cut = false;
	in_target = false;
	cut_done = false;
	harness_timer.on_tick = tick_wrapper;
	pl011_model_set_irq_handler(h->model, handler_wrapper, &h->uart);
	pl011_model_set_preempt_hook(cut_hook, NULL);
}

/* Each burst given once (no two RX_IDLE for one rx_idle_drains), the last RX_IDLE after every
 * byte (none lost), no tick overdue. Bytes drained while the tick gives RX idle open the next
 * burst, whose RX_IDLE may then find no new byte: allowed (docs/events.md). */
static void check_run(struct harness *h, const char *what, uint64_t k)
{
	uint32_t total = h->uart.stats.rx_bytes;
	bool ok = true;
	for (size_t i = 1; i < idle_events && i < MAX_IDLE; i++)
		if (idle_drains[i] == idle_drains[i - 1]) {
			print_message("%s cut %llu: burst %u given twice\n", what,
				      (unsigned long long)k, idle_drains[i]);
			ok = false;
		}
	size_t n = idle_events < MAX_IDLE ? idle_events : MAX_IDLE;
	if (idle_events == 0 || idle_bytes[n - 1u] != total) {
		print_message("%s cut %llu: no RX_IDLE after the last of %u bytes (%zu given)\n",
			      what, (unsigned long long)k, total, idle_events);
		ok = false;
	}
	if (harness_timer.armed && harness_timer.due_ns < pl011_model_now_ns(h->model)) {
		print_message("%s cut %llu: a tick overdue\n", what, (unsigned long long)k);
		ok = false;
	}
	assert_true(ok);
}

/* B's first character (ending at b_first) less than 5 frames after A's last (a_last): one
 * burst, so no RX_IDLE until the line has been quiet after B's last, 5 frames for the tick, 32
 * bit periods for the receive timeout (3.2 frames). Whether one came earlier, and *early: how
 * long after B's last (negative as wrapped). */
static bool idle_inside_burst(uint64_t a_last, uint64_t b_first, uint64_t b_last, uint64_t frame,
			      uint64_t *early)
{
	if (b_first >= a_last + 5u * frame)
		return false;
	for (size_t i = 0; i < idle_events && i < MAX_IDLE; i++)
		if (idle_ns[i] < b_last + 3u * frame) {
			*early = idle_ns[i] - b_last;
			return true;
		}
	return false;
}

/* Burst A (40 bytes; its last drain empties the FIFO, so the tick ends it), then the handler
 * on the other core takes burst B at the k-th point of the tick that ends A. */
static void explore_tick_cut(unsigned b)
{
	for (uint64_t k = 1; k < 400; k++) {
		struct harness *h = &rh;
		setup_cut(h, IN_TICK, k);
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
	fail_msg("the tick has more than 400 points");
}

static void test_handler_cuts_the_tick_that_ends_a_burst(void **state)
{
	(void)state;
	explore_tick_cut(2); /* B's entry an RX-level drain */
	explore_tick_cut(1); /* B's entry the timeout's */
}

/* Burst A ends; gap_x10 / 10 frames later burst B's first drain runs, and the tick comes on
 * the other core at each point of that handler entry. */
static void explore_handler_cut(unsigned b, uint64_t gap_x10)
{
	for (uint64_t k = 1; k < 400; k++) {
		struct harness *h = &rh;
		setup_cut(h, IN_HANDLER, k);
		assert_int_equal(harness_start(h), 0);
		uint64_t frame = pl011_model_frame_ns(h->model);
		uint64_t last = pl011_model_rx_inject_stream(h->model, data, 40,
							     pl011_model_now_ns(h->model));
		uint64_t b_start = last + gap_x10 * frame / 10u;
		harness_advance_with_timer(h, b_start - 1000u);
		armed_cut = true;
		for (unsigned i = 0; i < b; i++)
			pl011_model_rx_inject(h->model, data[100 + i], 0, b_start + (i + 1u) * frame);
		harness_advance_with_timer(h, b_start + 200u * frame);
		bool cut = cut_done;
		pl011_model_set_preempt_hook(NULL, NULL);
		check_run(h, "handler", k);
		/* A tick inside B's drain, after the FIFO was read out and before the drain's
		 * stamp, must not take A's stamp for the burst's end. */
		uint64_t b_last = b_start + b * frame;
		uint64_t early;
		if (idle_inside_burst(last, b_start + frame, b_last, frame, &early))
			fail_msg("handler cut %llu, gap %llu/10 frames: RX_IDLE %llu ns after B's "
				 "last character, inside the burst",
				 (unsigned long long)k, (unsigned long long)gap_x10,
				 (unsigned long long)early);
		harness_teardown(h);
		if (!cut)
			return;
	}
	fail_msg("the handler has more than 400 points");
}

static void test_tick_cuts_the_next_bursts_handler(void **state)
{
	(void)state;
	for (uint64_t gap = 20; gap <= 60; gap += 5) {
		explore_handler_cut(2, gap);
		explore_handler_cut(1, gap);
	}
}

/* ---- the tick and the handler each stopped on its core ---- */

/* Core 0's tick stops at its point tick_at; core 1's handler then runs until its handler_at-th
 * point with the FIFO read out and the drain not yet stamped, and stops there while the tick
 * goes on to its end. */
static struct {
	uint64_t tick_at, handler_at, read_out;
	uint32_t drains; /* rx_drains before the handler */
	bool handler_in, handler_stopped;
} split;

static void split_point(void *context)
{
	(void)context;
	if (cores_current() == 0) {
		if (!split.handler_in && cores_points(0) == split.tick_at) {
			split.handler_in = true;
			cores_yield();
		}
		return;
	}
	if (split.handler_stopped || pl011_model_rx_level(rh.model) != 0 ||
	    __atomic_load_n(&rh.uart.events.rx_drains, __ATOMIC_SEQ_CST) != split.drains)
		return;
	if (++split.read_out == split.handler_at) {
		split.handler_stopped = true;
		cores_yield();
	}
}

/* The tick that ends burst A: its due time, found by a run without B. */
static uint64_t ending_due;

static void probe_tick(void *uart)
{
	size_t before = idle_events;
	uint64_t due = harness_timer.due_ns;
	pl011_event_tick(uart);
	if (idle_events != before)
		ending_due = due;
}

/* Burst A (40 bytes) from the start; returns its last character's arrival once its last drain
 * has run. */
static uint64_t split_burst_a(struct harness *h)
{
	setup(h, NULL);
	assert_int_equal(harness_start(h), 0);
	uint64_t a_last = pl011_model_rx_inject_stream(h->model, data, 40,
						       pl011_model_now_ns(h->model));
	harness_advance_with_timer(h, a_last);
	while (h->uart.stats.rx_bytes < 40u)
		harness_advance_with_timer(h, pl011_model_now_ns(h->model) + 1000u);
	return a_last;
}

static void split_body(int core, void *context)
{
	(void)context;
	if (core == 0)
		pl011_event_tick(&rh.uart);
	else
		pl011_irq_handler(&rh.uart);
}

/*
 * lib/pl011_events.c, rx_idle_check: the tick reads FR before it looks whether the handler is
 * inside. Burst A ends; B's two characters, the first less than 5 frames after A's last, wait
 * in the FIFO (their interrupt late) when the tick that would end A comes. The tick, on core 0,
 * stops at each of its points; the handler on core 1 takes B and stops at each of its points
 * between the FIFO's last read and the drain's stamp, and the tick goes on. A tick that looked
 * at the flag before the handler came and at FR after it had read B out sees an empty FIFO and
 * A's stamp: it must not give RX_IDLE inside the burst.
 */
static void test_tick_and_handler_stopped_on_their_cores(void **state)
{
	(void)state;
	unsigned long runs = 0;
	struct harness *h = &rh;
	ending_due = 0;
	uint64_t a_last = split_burst_a(h);
	harness_timer.on_tick = probe_tick;
	harness_advance_with_timer(h, a_last + 50u * pl011_model_frame_ns(h->model));
	assert_int_equal(idle_events, 1);
	harness_teardown(h);
	for (uint64_t tick_at = 1;; tick_at++) {
		bool handler_came = false;
		for (uint64_t handler_at = 1;; handler_at++) {
			assert_int_equal(split_burst_a(h), a_last);
			uint64_t frame = pl011_model_frame_ns(h->model);
			/* B waits in the FIFO, its interrupt late, while the ticks before the one
			 * that ends A run. */
			pl011_model_set_irq_handler(h->model, NULL, NULL);
			uint64_t b_first = ending_due - frame - frame / 4u;
			uint64_t b_last = ending_due - frame / 4u;
			assert_true(b_first > pl011_model_now_ns(h->model));
			assert_true(b_first < a_last + 5u * frame);
			pl011_model_rx_inject(h->model, data[100], 0, b_first);
			pl011_model_rx_inject(h->model, data[101], 0, b_last);
			harness_advance_with_timer(h, ending_due - 1u);
			assert_true(harness_timer.armed && harness_timer.due_ns == ending_due);
			harness_timer.armed = false;
			pl011_model_advance_to(h->model, ending_due);
			assert_int_equal(pl011_model_rx_level(h->model), 2);
			memset(&split, 0, sizeof split);
			split.tick_at = tick_at;
			split.handler_at = handler_at;
			split.drains = __atomic_load_n(&h->uart.events.rx_drains, __ATOMIC_SEQ_CST);
			struct cores_plan plan = {.first_slice = UINT64_MAX,
						  .slice = UINT64_MAX,
						  .at_point = split_point};
			cores_run(&plan, split_body, NULL);
			harness_route_irq(h);
			harness_advance_with_timer(h, ending_due + 50u * frame);
			handler_came = split.handler_in;
			bool stopped = split.handler_stopped;
			if (handler_came && stopped) {
				runs++;
				check_run(h, "split", tick_at);
				uint64_t early;
				if (idle_inside_burst(a_last, b_first, b_last, frame, &early))
					fail_msg("tick stopped at its point %llu, handler at its "
						 "point %llu after reading B out: RX_IDLE %llu ns "
						 "after B's last character, inside the burst",
						 (unsigned long long)tick_at,
						 (unsigned long long)handler_at,
						 (unsigned long long)early);
			}
			harness_teardown(h);
			if (!handler_came || !stopped)
				break;
		}
		if (!handler_came)
			break;
		assert_true(tick_at < 400u);
	}
	print_message("tick and handler stopped on their cores: %lu runs\n", runs);
	assert_true(runs != 0);
}

/* ---- shutdown and restart beside the tick ---- */

static bool do_restart;
static int call_result;

static void core_wait_step(void *context)
{
	(void)context;
	cores_idle_step(rh.model, 1000u);
}

static void stop_body(int core, void *context)
{
	(void)context;
	if (core == 0)
		call_result = do_restart ? harness_restart(&rh) : pl011_shutdown(&rh.uart, 100000u);
	else
		pl011_event_tick(&rh.uart);
}

/* Core 0 shuts the port down (or restarts it) while core 1 runs the tick that ends burst A,
 * switched at every point. A's RX idle comes at most once: from the tick, or after a restart
 * (which carries A's bytes and its burst); a shutdown may drop it with the bytes. Then the
 * port again, and burst B gets exactly one. */
static void explore_stop(bool restart)
{
	for (uint64_t k = 0; k < 300; k++) {
		struct harness *h = &rh;
		setup(h, NULL);
		h->config.wait_hook = core_wait_step;
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
		cores_run(&plan, stop_body, NULL);
		assert_int_equal(call_result, 0);
		size_t before = idle_events;
		assert_true(before <= 1u);
		h->config.wait_hook = harness_timer_wait_step;
		if (!restart)
			assert_int_equal(harness_start(h), 0);
		else
			assert_int_equal(harness_restart(h), 0);
		uint64_t t = pl011_model_now_ns(h->model);
		harness_advance_with_timer(h, t + 10u * frame);
		size_t for_a = restart ? 1u : before;
		if (idle_events != for_a)
			print_message("%s cut %llu: %zu RX_IDLE for burst A\n",
				      restart ? "restart" : "shutdown", (unsigned long long)k,
				      idle_events);
		assert_int_equal(idle_events, for_a);
		last = pl011_model_rx_inject_stream(h->model, data, 40, pl011_model_now_ns(h->model));
		harness_advance_with_timer(h, last + 50u * frame);
		assert_int_equal(idle_events, for_a + 1u);
		assert_false(harness_timer.armed);
		harness_teardown(h);
	}
}

static void test_shutdown_beside_the_tick(void **state)
{
	(void)state;
	explore_stop(false);
}

static void test_restart_beside_the_tick(void **state)
{
	(void)state;
	explore_stop(true);
}

/* ---- TX done and DE when a burst's handler arms the timer as a drain opens ---- */

static uint64_t write_at, write_points;
static bool write_armed, in_handler, write_done;

/* The writer on the other core, at one point of the handler where that does not own TX. */
static void write_hook(void *context)
{
	(void)context;
	if (!write_armed || !in_handler || write_done)
		return;
	if ((__atomic_load_n(&rh.uart.tx.owner, __ATOMIC_SEQ_CST) & 1u) != 0)
		return;
	if (++write_points != write_at)
		return;
	write_done = true;
	in_handler = false;
	assert_int_equal(pl011_write(&rh.uart, data, 1, PL011_NO_WAIT), 1);
	in_handler = true;
}

static void write_handler_wrapper(void *uart)
{
	bool mine = write_armed && !write_done;
	in_handler = mine;
	pl011_irq_handler(uart);
	in_handler = false;
	if (mine && write_done)
		write_armed = false;
}

/* Over every point of the handler of a 2-byte burst: the latest TX_DONE and the latest
 * release of DE after the one byte's stop bit; false if TX_DONE did not come exactly once. */
static bool worst_lateness(const struct pl011_rs485 *rs485, int64_t *worst_done, int64_t *worst_de)
{
	*worst_done = *worst_de = 0;
	for (uint64_t k = 1; k < 200; k++) {
		struct harness *h = &rh;
		setup(h, rs485);
		h->config.event_mask = PL011_EVENT_RX_IDLE | PL011_EVENT_TX_DONE;
		write_points = 0;
		write_at = k;
		write_armed = false;
		write_done = false;
		pl011_model_set_irq_handler(h->model, write_handler_wrapper, &h->uart);
		pl011_model_set_preempt_hook(write_hook, NULL);
		assert_int_equal(harness_start(h), 0);
		uint64_t frame = pl011_model_frame_ns(h->model);
		uint64_t t0 = pl011_model_now_ns(h->model);
		write_armed = true;
		(void)pl011_model_rx_inject_stream(h->model, data, 2, t0);
		harness_advance_with_timer(h, t0 + 300u * frame);
		bool cut = write_done;
		pl011_model_set_preempt_hook(NULL, NULL);
		if (cut) {
			assert_int_equal(pl011_model_wire_len(h->model), 1);
			uint64_t stop = pl011_model_wire_end_ns(h->model, 0);
			if (done_events != 1) {
				print_message("cut %llu: TX_DONE given %zu times\n",
					      (unsigned long long)k, done_events);
				harness_teardown(h);
				return false;
			}
			int64_t late = (int64_t)(done_ns - stop);
			if (late > *worst_done)
				*worst_done = late;
			size_t edges = pl011_model_rts_edge_count(h->model);
			if (rs485 != NULL && edges != 0) {
				int64_t de = (int64_t)(pl011_model_rts_edge_ns(h->model, edges - 1u) - stop);
				if (de > *worst_de)
					*worst_de = de;
			}
		}
		harness_teardown(h);
		if (!cut)
			return true;
	}
	fail_msg("the handler has more than 200 points");
	return false;
}

/* docs/events.md: TX done within two frames + the timer's latency of the last stop bit even
 * when a burst's handler arms the timer as the drain opens; with RS-485 DE off within
 * delay_after + 1 us + a frame + latency (here 10 us of margin for the model's accesses). */
static void test_tx_done_and_de_on_time_beside_a_burst_on_the_other_core(void **state)
{
	(void)state;
	static const struct pl011_rs485 bus = {
		.driver = &pl011_rs485_driver,
		.flags = 0,
		.delay_before_us = 20,
		.delay_after_us = 5000,
	};
	const int64_t frame = 86806; /* 115,200 baud 8N1 */
	int64_t done = 0, de = 0;
	assert_true(worst_lateness(NULL, &done, &de));
	print_message("without RS-485: TX_DONE at most %lld ns after the stop bit\n",
		      (long long)done);
	assert_true(done <= 2 * frame + 10000);
	assert_true(worst_lateness(&bus, &done, &de));
	print_message("with RS-485 (delay_after 5 ms): TX_DONE at most %lld ns, DE off at most "
		      "%lld ns after the stop bit\n", (long long)done, (long long)de);
	assert_true(done <= 2 * frame + 10000);
	assert_true(de >= 5000000);
	assert_true(de <= 5001000 + frame + 10000);
}

int main(void)
{
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 7u + 1u);
	const struct CMUnitTest tests[] = {
		HARNESS_TEST(test_handler_cuts_the_tick_that_ends_a_burst, &rh),
		HARNESS_TEST(test_tick_cuts_the_next_bursts_handler, &rh),
		HARNESS_TEST(test_tick_and_handler_stopped_on_their_cores, &rh),
		HARNESS_TEST(test_shutdown_beside_the_tick, &rh),
		HARNESS_TEST(test_restart_beside_the_tick, &rh),
		HARNESS_TEST(test_tx_done_and_de_on_time_beside_a_burst_on_the_other_core, &rh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
