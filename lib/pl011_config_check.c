/* The config rules explained: the field and the rule behind each of pl011_init's refusals. Its
 * own file, so that a firmware that never asks links none of the strings. */
#include "pl011_internal.h"

/* Indexed by enum pl011_rule (lib/pl011_internal.h); the rule says what the field must be.
 * docs/configuration.md has the same table. */
#if PL011_INTERRUPTS
#define PL011_OR_POLLED_ONLY(text, polled_only_text) text
#else /* the polled-only build refuses every interrupt feature under the same rules */
#define PL011_OR_POLLED_ONLY(text, polled_only_text) polled_only_text
#endif
static const struct pl011_config_fault config_rule_texts[PL011_RULE_COUNT] = {
	[PL011_RULE_NONE] = {"", ""},
	[PL011_RULE_UART] = {"uart", "not NULL"},
	[PL011_RULE_CONFIG] = {"config", "not NULL"},
	[PL011_RULE_TX_STRATEGY] = {"tx_mode", "pl011_init_port's strategy object must be tx_mode's "
					       "(NULL for PL011_TX_POLLED)"},
	[PL011_RULE_BASE] = {"base", "not 0, a multiple of 4"},
	[PL011_RULE_CLOCK_HZ] = {"clock_hz", "not 0 (0 only with PL011_FLAG_ADOPT_LINE)"},
	[PL011_RULE_ADOPT_RATE] = {"baud", "with PL011_FLAG_ADOPT_LINE and clock_hz 0: the rate "
					   "the line runs at, not 0"},
	[PL011_RULE_BAUD] = {"baud", "not 0"},
	[PL011_RULE_DATA_BITS] = {"data_bits", "5..8, or 0 for 8"},
	[PL011_RULE_STOP_BITS] = {"stop_bits", "1 or 2, or 0 for 1"},
	[PL011_RULE_PARITY] = {"parity", "a PL011_PARITY_* value"},
	[PL011_RULE_TX_MODE] = {"tx_mode", PL011_OR_POLLED_ONLY("a PL011_TX_* value",
							       "PL011_TX_POLLED (PL011_INTERRUPTS 0)")},
	[PL011_RULE_RX_MODE] = {"rx_mode", PL011_OR_POLLED_ONLY("a PL011_RX_* value",
							       "PL011_RX_POLLED (PL011_INTERRUPTS 0)")},
	[PL011_RULE_TX_TRIGGER] = {"tx_trigger", "a PL011_LEVEL_* value"},
	[PL011_RULE_RX_TRIGGER] = {"rx_trigger", "a PL011_LEVEL_* value"},
	[PL011_RULE_FLAGS] = {"flags", "PL011_FLAG_* bits only"},
	[PL011_RULE_FIFO_DEPTH] = {"fifo_depth", "0 (from PeriphID2), 16 or 32"},
	[PL011_RULE_FIFO_DEPTH_NO_ID] = {"fifo_depth", "16 or 32 with PL011_FLAG_NO_ID (no PeriphID2 "
						       "to read it from)"},
	[PL011_RULE_SPINS_PER_US] = {"spins_per_us", "at most PL011_SPINS_PER_US_MAX (10000)"},
	[PL011_RULE_TX_BUFFER] = {"tx_buffer", "not NULL in an interrupt tx_mode"},
	[PL011_RULE_TX_BUFFER_SIZE] = {"tx_buffer_size", "a power of two, 2 to 2^31"},
	[PL011_RULE_RX_BUFFER] = {"rx_buffer", "not NULL in an interrupt rx_mode"},
	[PL011_RULE_RX_BUFFER_SIZE] = {"rx_buffer_size", "a power of two, 2 to 2^31"},
	[PL011_RULE_RINGS_OVERLAP] = {"rx_buffer", "must not overlap tx_buffer: each ring needs its "
						   "own storage"},
	[PL011_RULE_TX_BUFFER_OVER_UART] = {"tx_buffer", "must not overlap the instance "
							 "(struct pl011)"},
	[PL011_RULE_RX_BUFFER_OVER_UART] = {"rx_buffer", "must not overlap the instance "
							 "(struct pl011)"},
	[PL011_RULE_EVENT_DRIVER] = {"event_driver", "&pl011_event_driver with event_mask"},
	[PL011_RULE_EVENT_MASK] = {"event_mask", PL011_OR_POLLED_ONLY("PL011_EVENT_* bits only",
								     "0 (PL011_INTERRUPTS 0)")},
	[PL011_RULE_EVENT_CALLBACK] = {"event", "not NULL with event_mask"},
	[PL011_RULE_EVENT_TX_KINDS] = {"event_mask", "TX_DONE and TX_SPACE need an interrupt "
						     "tx_mode"},
	[PL011_RULE_EVENT_RX_KINDS] = {"event_mask", "RX_DATA, RX_IDLE, BREAK and ERROR need an "
						     "interrupt rx_mode"},
	[PL011_RULE_EVENT_TIMER] = {"event_timer", "not NULL with PL011_EVENT_TX_DONE"},
	[PL011_RULE_RS485_DRIVER] = {PL011_OR_POLLED_ONLY("rs485->driver", "rs485"),
				     PL011_OR_POLLED_ONLY("&pl011_rs485_driver",
							  "NULL (PL011_INTERRUPTS 0)")},
	[PL011_RULE_RS485_FLAGS] = {"rs485->flags", "PL011_RS485_* bits only"},
	[PL011_RULE_RS485_DELAY_BEFORE] = {"rs485->delay_before_us", "at most "
								     "PL011_RS485_DELAY_MAX_US (10000)"},
	[PL011_RULE_RS485_DELAY_AFTER] = {"rs485->delay_after_us", "at most "
								   "PL011_RS485_DELAY_MAX_US (10000)"},
	[PL011_RULE_RS485_FLOW_CONTROL] = {"flags", "no PL011_FLAG_RTS_CTS with rs485 (both drive "
						    "RTS)"},
	[PL011_RULE_RS485_TX_MODE] = {"tx_mode", "an interrupt mode with rs485"},
	[PL011_RULE_RS485_TIMER] = {"event_timer", "not NULL with rs485"},
	[PL011_RULE_NOT_PL011] = {"base", "no PL011 there: PCellID0-3 must read 0x0D, 0xF0, 0x05, "
					  "0xB1 (PL011_FLAG_NO_ID for a block without them)"},
	[PL011_RULE_BAUD_UNREACHABLE] = {"baud", "reachable from clock_hz (IBRD 1..65535) within "
						 "baud_tolerance_ppm"},
	[PL011_RULE_ADOPT_UNPROGRAMMED] = {"flags", "PL011_FLAG_ADOPT_LINE needs a line already "
						    "programmed (IBRD not 0)"},
};

/* The rule and its texts. The adopt-line part is named (an adopted line's registers are read,
 * as pl011_init reads them); the RX ring is not needed to check a config. */
static int explain(const struct pl011 *uart, const struct pl011_config *config,
		   enum pl011_tx_mode strategy_mode, const struct pl011_tx_strategy *strategy,
		   struct pl011_config_fault *fault)
{
	const struct pl011_parts parts = {
		.tx_strategy = strategy,
		.check_rings = PL011_INTERRUPT_PART(pl011_check_rings),
		.adopt = &pl011_adopt_driver,
		.events_rs485 = PL011_INTERRUPT_PART(&pl011_events_rs485_driver),
	};
	struct pl011_plan plan;
	uint32_t rule = pl011_start_rule(uart, config, strategy_mode, &parts, &plan);
	if (fault != NULL)
		*fault = config_rule_texts[rule];
	return pl011_rule_error(rule);
}

int pl011_config_check_port(const struct pl011 *uart, const struct pl011_config *config,
			    const struct pl011_tx_strategy *strategy,
			    struct pl011_config_fault *fault)
{
	return explain(uart, config, strategy == NULL ? PL011_TX_POLLED : strategy->mode, strategy,
		       fault);
}

int pl011_config_check(const struct pl011 *uart, const struct pl011_config *config,
		       struct pl011_config_fault *fault)
{
	/* pl011_init names the object of config's own mode. */
	return explain(uart, config, config != NULL ? config->tx_mode : PL011_TX_POLLED, NULL,
		       fault);
}
