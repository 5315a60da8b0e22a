/* Size firmware "everything": every public function, every TX strategy and RX mode, the ring API. */
#include "pl011.h"
#include "pl011_ring.h"
#include "size_firmware.h"

static struct pl011 uart;
static uint8_t tx_storage[256];
static uint8_t rx_storage[256];
static struct pl011_stats stats;
static struct pl011_baud baud;
/* Where results go, so that the compiler keeps the calls that make them. */
static volatile uintptr_t sink;
/* Chosen at run time, so that every TX strategy and RX mode is named and linked. */
static volatile uint32_t tx_choice = PL011_TX_MEASURED;
static volatile uint32_t rx_choice = PL011_RX_FEW_IRQS;
static const struct pl011_rs485 bus = {.driver = &pl011_rs485_driver, .delay_after_us = 10};

static const enum pl011_tx_mode tx_modes[] = {PL011_TX_POLLED, PL011_TX_HALF_FIFO,
					      PL011_TX_POLL_FULL, PL011_TX_HYBRID,
					      PL011_TX_ADAPTIVE, PL011_TX_MEASURED};
static const enum pl011_rx_mode rx_modes[] = {PL011_RX_POLLED, PL011_RX_LOW_LATENCY,
					      PL011_RX_FEW_IRQS};
static volatile uint32_t flags_choice = 0;
static const uint32_t flag_choices[] = {0, PL011_FLAG_ADOPT_LINE};

static void on_event(struct pl011 *port, uint32_t events, void *context)
{
	(void)port;
	(void)context;
	sink = events;
}

static void on_timer(uint32_t delay_us, void *context)
{
	(void)context;
	sink = delay_us;
}

void size_irq(void)
{
	pl011_irq_handler(&uart);
}

void size_main(void)
{
	/* Read in place while the port runs (pl011_init): static, filled at run time. */
	static struct pl011_config config;
	config = (struct pl011_config){
		SIZE_LINE_CONFIG,
		.tx_mode = tx_modes[tx_choice % 6u],
		.rx_mode = rx_modes[rx_choice % 3u],
		.flags = flag_choices[flags_choice % 2u],
		.tx_buffer = tx_storage,
		.tx_buffer_size = sizeof tx_storage,
		.rx_buffer = rx_storage,
		.rx_buffer_size = sizeof rx_storage,
		.clock = size_clock_us,
		.event_mask = PL011_EVENT_ALL,
		.event = on_event,
		.event_timer = on_timer,
		.event_driver = &pl011_event_driver,
		.rs485 = &bus,
	};
	struct pl011_line_config line_config;
	uint8_t line[16];
	struct pl011_ring ring;
	size_t pending;
	if (pl011_compute_baud(config.clock_hz, config.baud, 0, &baud) != 0 ||
	    pl011_init(&uart, &config) != 0)
		return;
	(void)pl011_write(&uart, "hi\n", 3, PL011_WAIT_AUTO);
	(void)pl011_putc(&uart, '!');
	int got = pl011_read(&uart, line, sizeof line, PL011_WAIT_AUTO);
	if (got > 0)
		(void)pl011_write_panic(&uart, line, (size_t)got);
	got = pl011_getc(&uart);
	(void)pl011_send_break(&uart, 100u);
	pl011_event_tick(&uart);
	(void)pl011_puts(&uart, "ok\n");
	if (pl011_get_line(&uart, &line_config) == 0)
		(void)pl011_set_line(&uart, &line_config, PL011_WAIT_AUTO);
	(void)pl011_set_modem_lines(&uart, PL011_MODEM_DTR, PL011_MODEM_DTR);
	sink = (uintptr_t)pl011_get_modem_status(&uart);
	(void)pl011_flush(&uart, PL011_WAIT_AUTO, &pending);
	(void)pl011_get_stats(&uart, &stats);
	(void)pl011_get_baud(&uart, &baud);
	sink = (uintptr_t)(pl011_get_fifo_depth(&uart) + got);
	sink = pl011_backlog_deadline_us(&uart, pl011_tx_queued(&uart));
	sink = (uintptr_t)pl011_error_name(PL011_EBAUD);
	sink = (uintptr_t)(pl011_rx_available(&uart) + pl011_tx_free(&uart));
	(void)pl011_read_exact(&uart, line, 2, PL011_WAIT_AUTO, NULL);
	(void)pl011_read_until(&uart, line, sizeof line, '\n', PL011_WAIT_AUTO, NULL);
	(void)pl011_discard_input(&uart);
	if (pl011_early_init(config.base, config.clock_hz, config.baud) == 0)
		sink = (uintptr_t)pl011_early_getc(config.base);
	(void)pl011_early_write(config.base, "early\n", 6);
	struct pl011_config_fault fault;
	if (pl011_config_check(&uart, &config, &fault) != 0 ||
	    pl011_config_check_port(&uart, &config, pl011_tx_strategy_for_mode(config.tx_mode),
				    &fault) != 0)
		sink = (uintptr_t)fault.field + (uintptr_t)fault.rule;
	if (pl011_ring_init(&ring, line, sizeof line) == 0) {
		const uint8_t *segment;
		uint8_t *space;
		(void)pl011_ring_write(&ring, "ab", 2);
		(void)pl011_ring_peek(&ring, &segment);
		pl011_ring_skip(&ring, pl011_ring_count(&ring));
		pl011_ring_commit(&ring, pl011_ring_reserve(&ring, &space));
		(void)pl011_ring_read(&ring, line, pl011_ring_space(&ring));
	}
	(void)pl011_restart(&uart, &config);
	(void)pl011_shutdown(&uart, PL011_WAIT_AUTO);
}
