/* The rings' rules, a part of init named only by a config with a ring (struct pl011_parts):
 * a polled console links none of them. */
#include "pl011_internal.h"

#if PL011_INTERRUPTS /* the polled-only build has none of this file (pl011_options.h) */

/* PL011_RULE_TX_BUFFER / _RX_BUFFER for a missing buffer, the next rule for a bad size. */
static uint32_t check_ring_buffer(const uint8_t *buffer, size_t size, uint32_t buffer_rule)
{
	if (buffer == NULL)
		return buffer_rule;
	if (size < 2 || size > ((size_t)1 << 31) || (size & (size - 1)) != 0)
		return buffer_rule + 1u;
	return 0;
}

/* Unsigned differences: no sum that could wrap at the top of the address space. An empty
 * range overlaps nothing, wherever it points. */
static bool overlaps(const void *a, size_t a_size, const void *b, size_t b_size)
{
	uintptr_t from = (uintptr_t)a, to = (uintptr_t)b;
	return a_size != 0 && b_size != 0 && (from - to < b_size || to - from < a_size);
}

/* The rings: each its own storage, neither over the instance (uart NULL: not checked), so no
 * write into one can change the other or the driver's state. A ring its mode does not use
 * counts as empty. */
uint32_t pl011_check_rings(const struct pl011 *uart, const struct pl011_config *config)
{
	size_t tx_size = 0, rx_size = 0;
	uint32_t rule = 0;
	if (config->tx_mode != PL011_TX_POLLED) {
		tx_size = config->tx_buffer_size;
		rule = check_ring_buffer(config->tx_buffer, tx_size, PL011_RULE_TX_BUFFER);
	}
	if (rule == 0 && config->rx_mode != PL011_RX_POLLED) {
		rx_size = config->rx_buffer_size;
		rule = check_ring_buffer(config->rx_buffer, rx_size, PL011_RULE_RX_BUFFER);
	}
	size_t uart_size = uart != NULL ? sizeof *uart : 0u;
	if (rule == 0 && overlaps(config->tx_buffer, tx_size, config->rx_buffer, rx_size))
		rule = PL011_RULE_RINGS_OVERLAP;
	if (rule == 0 && overlaps(config->tx_buffer, tx_size, uart, uart_size))
		rule = PL011_RULE_TX_BUFFER_OVER_UART;
	if (rule == 0 && overlaps(config->rx_buffer, rx_size, uart, uart_size))
		rule = PL011_RULE_RX_BUFFER_OVER_UART;
	return rule;
}

#endif /* PL011_INTERRUPTS */
