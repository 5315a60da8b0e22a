/* Shared set-up for driver tests on the model (see harness.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include <stdio.h>

#include "pl011_regs.h"

static void harness_irq(void *context)
{
#if PL011_INTERRUPTS
	pl011_irq_handler(context);
#else
	(void)context;
	abort(); /* the polled-only build never unmasks an interrupt */
#endif
}

void harness_route_irq(struct harness *h)
{
	pl011_model_set_irq_handler(h->model, harness_irq, &h->uart);
}

const char *harness_tx_mode_name(enum pl011_tx_mode mode)
{
	static const char *const names[] = {"POLLED", "HALF_FIFO", "POLL_FULL", "HYBRID",
					    "ADAPTIVE", "MEASURED"};
	return (unsigned)mode < sizeof names / sizeof names[0] ? names[mode] : "?";
}

size_t harness_tx_backlog(void *context)
{
	struct pl011 *uart = context;
	if (uart->config == NULL || uart->config->tx_mode == PL011_TX_POLLED)
		return 0;
	return pl011_tx_queued(uart);
}

/* Waits let simulated time pass in 2 us steps, like a WFI until the next event, so a wait of
 * a second costs half a million steps instead of twenty million FR reads. */
static void harness_wait_step(void *context)
{
	pl011_model_advance(context, 2000u);
}

void harness_setup_with(struct harness *h, const struct pl011_model_config *model_config)
{
	memset(h, 0, sizeof *h);
	h->model = pl011_model_create(model_config);
	h->config = (struct pl011_config){
		.base = model_config->base,
		.clock_hz = model_config->uartclk_hz,
		.baud = 115200,
		.data_bits = 8,
		.stop_bits = 1,
		.parity = PL011_PARITY_NONE,
		.tx_mode = PL011_TX_POLLED,
		.rx_mode = PL011_RX_POLLED,
		.tx_buffer = h->tx_storage,
		.tx_buffer_size = sizeof h->tx_storage,
		.rx_buffer = h->rx_storage,
		.rx_buffer_size = sizeof h->rx_storage,
		.clock = pl011_model_clock_us,
		.clock_context = h->model,
		.wait_hook = harness_wait_step,
		.wait_context = h->model,
	};
	harness_route_irq(h);
	pl011_model_set_backlog_probe(h->model, harness_tx_backlog, &h->uart);
}

void harness_setup(struct harness *h, uint32_t uartclk_hz, unsigned fifo_depth)
{
	struct pl011_model_config model_config;
	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.uartclk_hz = uartclk_hz;
	model_config.fifo_depth = fifo_depth;
	harness_setup_with(h, &model_config);
}

void harness_setup_instant_line(struct harness *h, unsigned fifo_depth)
{
	harness_setup(h, 4000000000u, fifo_depth);
	h->config.baud = 250000000u;
}

/* pl011_init or pl011_restart with a copy of *config, in the slot the port does not run on. */
static int harness_call(struct harness *h, const struct pl011_config *config, bool restart)
{
	unsigned next = h->running_index ^ 1u;
	h->running[next] = *config;
	int err = restart ? pl011_restart(&h->uart, &h->running[next])
			  : pl011_init(&h->uart, &h->running[next]);
	if (h->uart.config == &h->running[next])
		h->running_index = next;
	return err;
}

int harness_init(struct harness *h, const struct pl011_config *config)
{
	return harness_call(h, config, false);
}

int harness_start(struct harness *h)
{
	return harness_init(h, &h->config);
}

int harness_reinit(struct harness *h, const struct pl011_config *config)
{
	return harness_call(h, config, true);
}

int harness_restart(struct harness *h)
{
	return harness_reinit(h, &h->config);
}

struct pl011_config *harness_live_config(struct harness *h)
{
	return &h->running[h->running_index];
}

void harness_teardown(struct harness *h)
{
	pl011_model_destroy(h->model);
	h->model = NULL;
}

int harness_teardown_fixture(void **state)
{
	struct harness *h = *state;
	if (h != NULL && h->model != NULL)
		harness_teardown(h);
	return 0;
}

uint32_t harness_random(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

void harness_fill_random(uint8_t *data, size_t len, uint32_t seed)
{
	uint32_t state = seed ? seed : 1u;
	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)(harness_random(&state) >> 24);
}

const char *harness_tx_stuck(const struct harness *h)
{
	static char text[160];
	size_t queued = pl011_tx_queued(&h->uart);
	if (queued == 0)
		return NULL;
	uint32_t imsc = pl011_model_peek(h->model, PL011_IMSC);
	uint32_t ris = pl011_model_ris(h->model);
	uint32_t ifls = pl011_model_peek(h->model, PL011_IFLS);
	static const unsigned eighths[5] = {1, 2, 4, 6, 7};
	unsigned code = ifls & PL011_IFLS_LEVEL_MASK;
	unsigned depth = (unsigned)pl011_get_fifo_depth(&h->uart);
	unsigned trigger = depth * eighths[code < 5u ? code : 2u] / 8u;
	unsigned level = pl011_model_tx_level(h->model);
	if ((imsc & PL011_INT_TX) != 0 && ((ris & PL011_INT_TX) != 0 || level > trigger))
		return NULL;
	snprintf(text, sizeof text,
		 "stuck ring: %zu bytes queued, TXIM %s, TXRIS %u, FIFO %u of trigger %u", queued,
		 (imsc & PL011_INT_TX) ? "armed" : "masked", (ris & PL011_INT_TX) ? 1u : 0u, level,
		 trigger);
	return text;
}

int harness_send_all(struct harness *h, const uint8_t *data, size_t len, uint64_t step_ns)
{
	size_t sent = 0;
	while (sent < len) {
		int n = pl011_write(&h->uart, data + sent, len - sent, PL011_NO_WAIT);
		if (n < 0)
			return n;
		sent += (size_t)n;
		if (sent < len)
			pl011_model_advance(h->model, step_ns);
	}
	while (pl011_tx_queued(&h->uart) != 0)
		pl011_model_advance(h->model, step_ns);
	return pl011_flush(&h->uart, PL011_WAIT_AUTO, NULL);
}

size_t harness_wire(const struct harness *h, uint8_t *out, size_t max)
{
	size_t n = pl011_model_wire_len(h->model);
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = pl011_model_wire_byte(h->model, i);
	return n;
}

size_t harness_read_all(struct harness *h, uint8_t *out, size_t max)
{
	size_t got = 0;
	for (;;) {
		int n = pl011_read(&h->uart, out + got, max - got, PL011_NO_WAIT);
		if (n <= 0)
			return got; /* an error shows as a short count, which the caller checks */
		got += (size_t)n;
	}
}

struct harness_timer harness_timer;

void harness_timer_arm(uint32_t delay_us, void *harness)
{
	struct harness *h = harness;
	harness_timer.armed = true;
	harness_timer.due_ns = pl011_model_now_ns(h->model) + (uint64_t)delay_us * 1000u;
	harness_timer.arms++;
}

static void harness_timer_tick(void *uart)
{
	harness_timer.ticks++;
	if (harness_timer.on_tick != NULL)
		harness_timer.on_tick(uart);
	else
#if PL011_INTERRUPTS
		pl011_event_tick(uart);
#else
		abort(); /* no events in the polled-only build */
#endif
}

/* 1 us steps: the timer is armed from inside handlers the model runs meanwhile. */
void harness_advance_with_timer(struct harness *h, uint64_t end_ns)
{
	for (;;) {
		uint64_t now = pl011_model_now_ns(h->model);
		if (harness_timer.armed && harness_timer.due_ns <= now) {
			harness_timer.armed = false;
			pl011_model_run_as_irq(h->model, harness_timer_tick, &h->uart);
			continue;
		}
		if (now >= end_ns)
			return;
		pl011_model_advance_to(h->model, now + 1000u < end_ns ? now + 1000u : end_ns);
	}
}

void harness_timer_wait_step(void *harness)
{
	struct harness *h = harness;
	harness_advance_with_timer(h, pl011_model_now_ns(h->model) + 2000u);
}

#if PL011_INTERRUPTS
void harness_setup_timed_events(struct harness *h, pl011_event_fn event)
{
	memset(&harness_timer, 0, sizeof harness_timer);
	harness_setup(h, 24000000u, 16);
	h->config.tx_mode = PL011_TX_MEASURED;
	h->config.rx_mode = PL011_RX_LOW_LATENCY;
	h->config.event_mask = PL011_EVENT_RX_IDLE | PL011_EVENT_RX_DATA | PL011_EVENT_TX_DONE;
	h->config.event = event;
	h->config.event_context = h;
	h->config.event_driver = &pl011_event_driver;
	h->config.event_timer = harness_timer_arm;
	h->config.event_timer_context = h;
	h->config.wait_hook = harness_timer_wait_step;
	h->config.wait_context = h;
}
#endif
