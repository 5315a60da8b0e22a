/* Random sequences of driver calls against the model (see operations.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "operations.h"

#define EXPECTED_MAX (4u << 20)

static struct harness h;
static uint8_t expected[EXPECTED_MAX]; /* what the wire must show, in order */
static size_t expected_len;
static uint64_t accepted, discarded;
static const struct operation_source *source;
static char failure[256];
static unsigned step;
static bool tx_fault_injected;

static uint32_t choose(uint32_t below)
{
	return source->next(source->context, below);
}

static void fail_invariant(const char *format, ...)
{
	if (failure[0] != '\0')
		return; /* keep the first */
	int n = snprintf(failure, sizeof failure, "step %u: ", step);
	va_list args;
	va_start(args, format);
	vsnprintf(failure + n, sizeof failure - (size_t)n, format, args);
	va_end(args);
}

static void accept_bytes(const uint8_t *data, int n)
{
	if (n < 0) {
		fail_invariant("a write failed: %s", pl011_error_name(n));
		return;
	}
	if (expected_len + (size_t)n > EXPECTED_MAX) {
		fail_invariant("more than %u bytes accepted", EXPECTED_MAX);
		return;
	}
	memcpy(expected + expected_len, data, (size_t)n);
	expected_len += (size_t)n;
	accepted += (uint64_t)n;
}

/* A shutdown discards the newest bytes: everything older is already in the FIFO or sent. */
static void account_discard(int n)
{
	if (n < 0 || (size_t)n > expected_len) {
		fail_invariant("shutdown reported %d discarded of %zu pending", n, expected_len);
		return;
	}
	expected_len -= (size_t)n;
	discarded += (uint64_t)n;
}

static void check_wire(const char *when)
{
	size_t wire_len = pl011_model_wire_len(h.model);
	if (wire_len != expected_len || wire_len + discarded != accepted) {
		fail_invariant("%s: wire %zu, expected %zu (accepted %llu, discarded %llu)", when,
			       wire_len, expected_len, (unsigned long long)accepted,
			       (unsigned long long)discarded);
		return;
	}
	for (size_t i = 0; i < wire_len; i++) {
		if (pl011_model_wire_byte(h.model, i) != expected[i]) {
			fail_invariant("%s: wire byte %zu differs", when, i);
			return;
		}
	}
}

static void random_config(void)
{
	static const uint32_t bauds[] = {115200u, 921600u, 3000000u};
	h.config.baud = bauds[choose(3)];
	h.config.tx_mode = (enum pl011_tx_mode)choose(PL011_TX_MEASURED + 1);
	h.config.rx_mode = (enum pl011_rx_mode)choose(3);
	h.config.tx_trigger = (enum pl011_level)choose(6);
	h.config.flags = choose(4) == 0 ? PL011_FLAG_LOOPBACK : 0u;
}

static void start_port(void)
{
	int err = harness_start(&h);
	if (err != 0)
		fail_invariant("pl011_init failed: %s", pl011_error_name(err));
}

/* Stop the port, account for what it discarded, check the wire, start it again. */
static void restart(uint32_t bound)
{
	pl011_model_set_tx_stalled(h.model, false);
	int result = pl011_shutdown(&h.uart, bound);
	if (result < 0) {
		fail_invariant("shutdown gave %s", pl011_error_name(result));
		return;
	}
	account_discard(result);
	check_wire("after shutdown");
	random_config();
	start_port();
}

/* A line change on the running port: 8 data bits (the wire check compares bytes), the rest at
 * random. It may find TX that does not drain (a stalled transmitter, a lost interrupt) or RX
 * paused by a full ring; nothing else may fail, and the invariants hold after it either way. */
static void change_line(void)
{
	static const uint32_t bauds[] = {9600u, 57600u, 115200u, 230400u, 921600u};
	struct pl011_line_config line = {
		.baud = bauds[choose(5)],
		.data_bits = 8,
		.stop_bits = (uint8_t)(1u + choose(2)),
		.parity = (enum pl011_parity)choose(5),
		.flow_control = choose(2) == 0,
	};
	int err = pl011_set_line(&h.uart, &line, choose(3) == 0 ? PL011_WAIT_AUTO : choose(20000u));
	if (err != 0 && err != PL011_ETIMEDOUT && err != PL011_EBUSY)
		fail_invariant("set_line gave %s", pl011_error_name(err));
}

static void run_one_step(void)
{
	uint8_t chunk[700];
	uint8_t sink[4096];
	uint32_t len = 1u + choose(sizeof chunk);
	harness_fill_random(chunk, len, choose(UINT32_MAX));
	switch (choose(13)) {
	case 0:
	case 1:
	case 2:
		accept_bytes(chunk, pl011_write(&h.uart, chunk, len, PL011_NO_WAIT));
		break;
	case 3:
		accept_bytes(chunk, pl011_write(&h.uart, chunk, len, 1u + choose(3000u)));
		break;
	case 4:
		if (pl011_putc(&h.uart, chunk[0]) == 0)
			accept_bytes(chunk, 1);
		break;
	case 5:
		accept_bytes(chunk, pl011_write_panic(&h.uart, chunk, 1u + len % 8u));
		break;
	case 6:
		pl011_model_advance(h.model, choose(2000000u));
		break;
	case 7: {
		size_t pending = 0;
		int err = pl011_flush(&h.uart, choose(5000u), &pending);
		if (err != 0 && err != PL011_ETIMEDOUT)
			fail_invariant("flush gave %s", pl011_error_name(err));
		break;
	}
	case 8:
		/* Lost TX interrupts come and go; waits must still finish. */
		pl011_model_set_tx_irq_broken(h.model, choose(2) == 0);
		tx_fault_injected = true;
		break;
	case 9:
		pl011_model_set_tx_stalled(h.model, choose(4) == 0);
		tx_fault_injected = true;
		break;
	case 10:
		(void)pl011_read(&h.uart, sink, sizeof sink, PL011_NO_WAIT);
		(void)pl011_getc(&h.uart);
		break;
	case 11:
		change_line();
		break;
	default: {
		uint32_t choice = choose(3);
		restart(choice == 0 ? 0u : choice == 1 ? choose(20000u) : PL011_WAIT_AUTO);
		break;
	}
	}
	if (pl011_model_counters(h.model)->tx_overflows != 0)
		fail_invariant("TX FIFO overflowed");
	/* A lost TX interrupt or a stalled transmitter is allowed to hold bytes back. */
	const char *stuck = harness_tx_stuck(&h);
	if (stuck != NULL && !tx_fault_injected)
		fail_invariant("%s", stuck);
}

const char *operations_run(const struct operation_source *chosen, unsigned steps)
{
	struct pl011_model_config model_config;
	source = chosen;
	failure[0] = '\0';
	step = 0;
	tx_fault_injected = false;
	expected_len = 0;
	accepted = discarded = 0;

	pl011_model_default_config(&model_config);
	model_config.base = HARNESS_BASE;
	model_config.fifo_depth = choose(2) ? 16u : 32u;
	model_config.latency_seed = choose(UINT32_MAX) | 1u;
	model_config.latency_jitter_ns = choose(2) ? 100000u : 0u;
	model_config.time_limit_ns = 3600ull * 1000000000u;
	harness_setup_with(&h, &model_config);
	random_config();
	start_port();
	for (step = 0; step < steps && failure[0] == '\0'; step++)
		run_one_step();
	if (failure[0] == '\0') {
		pl011_model_set_tx_irq_broken(h.model, false);
		restart(PL011_WAIT_AUTO);
	}
	if (failure[0] == '\0' && pl011_model_counters(h.model)->order_violations != 0)
		fail_invariant("UART reprogrammed while enabled");
	harness_teardown(&h);
	return failure[0] != '\0' ? failure : NULL;
}
