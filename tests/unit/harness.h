/* Shared set-up for driver tests on the model: one UART instance wired to one model. */
#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "pl011.h"
#include "pl011_model.h"

#define HARNESS_BASE 0x101F1000u
#define HARNESS_TX_RING 4096u
#define HARNESS_RX_RING 4096u

struct harness {
	struct pl011_model *model;
	struct pl011 uart;
	/* The test's to edit at any time: harness_start starts (harness_restart restarts) the port
	 * with a copy, as the driver reads its config in place for as long as the port runs. */
	struct pl011_config config;
	/* The copies the port runs on, in turn, so a restart leaves the old one as it was until
	 * pl011_restart returns (docs/api.md). */
	struct pl011_config running[2];
	unsigned running_index;
	uint8_t tx_storage[HARNESS_TX_RING];
	uint8_t rx_storage[HARNESS_RX_RING];
};

/* A model with the given clock and depth (latency and costs at their defaults, editable through
 * model_config before harness_start), and a config for 115,200 8N1 polled with the model clock. */
void harness_setup(struct harness *h, uint32_t uartclk_hz, unsigned fifo_depth);
/* harness_setup with an instant line: 250 Mbaud from a 4 GHz UARTCLK, a character every 40 ns,
 * so the FIFO drains faster than the driver's own steps (the contention QEMU's never-full FIFO
 * hides). */
void harness_setup_instant_line(struct harness *h, unsigned fifo_depth);
void harness_setup_with(struct harness *h, const struct pl011_model_config *model_config);
/* pl011_init with a copy of h->config: its result. */
int harness_start(struct harness *h);
/* pl011_init with a copy of *config (a test's other config): its result. */
int harness_init(struct harness *h, const struct pl011_config *config);
/* pl011_restart (the port running or not) with a copy of h->config, or of *config. */
int harness_restart(struct harness *h);
int harness_reinit(struct harness *h, const struct pl011_config *config);
/* The config the port runs on, for a test that changes a hook under the running port. */
struct pl011_config *harness_live_config(struct harness *h);
/* Route the model's interrupt to pl011_irq_handler again (after a test took it over). */
/* The mode's name as the header spells it, without PL011_TX_. */
const char *harness_tx_mode_name(enum pl011_tx_mode mode);
void harness_route_irq(struct harness *h);
void harness_teardown(struct harness *h);

/* cmocka teardown for tests registered with the harness as prestate: a failed test skips its
 * own harness_teardown, so free the model here and the next test can start. */
int harness_teardown_fixture(void **state);
#define HARNESS_TEST(test, harness) \
	cmocka_unit_test_prestate_setup_teardown(test, NULL, harness_teardown_fixture, harness)

/* The model's backlog probe: what the driver's TX ring still holds. */
size_t harness_tx_backlog(void *context);

/* The next xorshift32 value of *state (never 0 for a non-zero state): one generator for all
 * the tests, so a seed means the same sequence everywhere. */
uint32_t harness_random(uint32_t *state);

/* Deterministic bytes: xorshift32 from a seed. */
void harness_fill_random(uint8_t *data, size_t len, uint32_t seed);

/*
 * The "never a stuck ring" invariant, checked from the model's registers after a driver call
 * returns on one core: while the TX ring holds bytes, TXIM is unmasked and the TX interrupt is
 * sure to come (its cause is latched, or the FIFO is above the trigger so draining crosses it).
 * Returns NULL when it holds (or the port is not in an interrupt TX mode), else a description.
 */
const char *harness_tx_stuck(const struct harness *h);

/* The thread of a streaming test: offer the rest of data without waiting, let step_ns pass
 * while the ring is full, wait for the ring to empty, then flush. Returns 0, or the error of
 * the write or the flush that failed. */
int harness_send_all(struct harness *h, const uint8_t *data, size_t len, uint64_t step_ns);

/* pl011_read without waiting until it returns 0: everything received, up to max bytes. */
size_t harness_read_all(struct harness *h, uint8_t *out, size_t max);

/*
 * The one-shot timer of config.event_timer (TX done, RS-485), run by harness_advance_with_timer:
 * point config.event_timer at harness_timer_arm with the harness as its context (and
 * config.wait_hook at harness_timer_wait_step, so that the driver's waits let it run too).
 * Each due tick runs as another interrupt source's handler (pl011_model_run_as_irq), through
 * on_tick when set (a test's wrapper around pl011_event_tick), at most 1 us late.
 */
struct harness_timer {
	bool armed;
	uint64_t due_ns;
	size_t arms;
	size_t ticks;
	void (*on_tick)(void *uart);
};
extern struct harness_timer harness_timer;
void harness_timer_arm(uint32_t delay_us, void *harness);
/* Advance to end_ns in 1 us steps, running the timer's tick whenever it is due. */
void harness_advance_with_timer(struct harness *h, uint64_t end_ns);
void harness_timer_wait_step(void *harness);
/* A port at 24 MHz, FIFO 16, MEASURED and LOW_LATENCY, with RX idle, RX data and TX done given to
 * event (context h) and the timer above cleared and wired in (not yet started). */
void harness_setup_timed_events(struct harness *h, pl011_event_fn event);

/* Copy the wire into out (up to max bytes); returns the wire length. */
size_t harness_wire(const struct harness *h, uint8_t *out, size_t max);

#endif
