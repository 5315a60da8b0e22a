/* Driver core: configuration, baud math, the TRM programming sequence, shutdown, IRQ dispatch. */
#include <string.h>

#include "pl011_internal.h"

const char *pl011_error_name(int error)
{
	if (error >= 0)
		return "success"; /* 0, or a count */
	switch (error) {
	case PL011_EINVAL: return "PL011_EINVAL";
	case PL011_EBAUD: return "PL011_EBAUD";
	case PL011_EAGAIN: return "PL011_EAGAIN";
	case PL011_ETIMEDOUT: return "PL011_ETIMEDOUT";
	case PL011_ESHUTDOWN: return "PL011_ESHUTDOWN";
	case PL011_EFRAMING: return "PL011_EFRAMING";
	case PL011_EPARITY: return "PL011_EPARITY";
	case PL011_EBREAK: return "PL011_EBREAK";
	case PL011_ESTALLED: return "PL011_ESTALLED";
	case PL011_EBUSY: return "PL011_EBUSY";
	default: return "unknown";
	}
}

static bool level_valid(enum pl011_level level)
{
	return (unsigned)level <= (unsigned)PL011_LEVEL_7_8;
}

/* The line fields, which an adopted line (PL011_FLAG_ADOPT_LINE) does not use. 0 data or stop
 * bits mean 8 and 1 (8N1, as a zeroed config elsewhere means). */
uint32_t pl011_check_format(const struct pl011_config *config)
{
	if (config->baud == 0)
		return PL011_RULE_BAUD;
	if (config->data_bits != 0 && (config->data_bits < 5 || config->data_bits > 8))
		return PL011_RULE_DATA_BITS;
	if (config->stop_bits > 2)
		return PL011_RULE_STOP_BITS;
	if ((unsigned)config->parity > (unsigned)PL011_PARITY_SPACE)
		return PL011_RULE_PARITY;
	return 0;
}

/* The polled-only build (PL011_INTERRUPTS 0) serves polled configs without events or RS-485. */
static uint32_t interrupts_rule(const struct pl011_config *config)
{
#if PL011_INTERRUPTS
	(void)config;
	return 0;
#else
	if (config->tx_mode != PL011_TX_POLLED)
		return PL011_RULE_TX_MODE;
	if (config->rx_mode != PL011_RX_POLLED)
		return PL011_RULE_RX_MODE;
	if (config->event_mask != 0)
		return PL011_RULE_EVENT_MASK;
	return config->rs485 != NULL ? PL011_RULE_RS485_DRIVER : 0u;
#endif
}

/* The rules every config meets; the parts' rules follow in plan_rule. */
static uint32_t check_config(const struct pl011_config *config)
{
	if (config->base == 0 || (config->base & 3u) != 0)
		return PL011_RULE_BASE;
	uint32_t rule;
	if ((config->flags & PL011_FLAG_ADOPT_LINE) != 0)
		rule = config->clock_hz == 0 && config->baud == 0 ? PL011_RULE_ADOPT_RATE : 0u;
	else
		rule = config->clock_hz == 0 ? PL011_RULE_CLOCK_HZ : pl011_check_format(config);
	if (rule != 0)
		return rule;
	if ((unsigned)config->tx_mode > (unsigned)PL011_TX_MEASURED)
		return PL011_RULE_TX_MODE;
	if ((unsigned)config->rx_mode > (unsigned)PL011_RX_FEW_IRQS)
		return PL011_RULE_RX_MODE;
	if ((rule = interrupts_rule(config)) != 0)
		return rule;
	if (!level_valid(config->tx_trigger))
		return PL011_RULE_TX_TRIGGER;
	if (!level_valid(config->rx_trigger))
		return PL011_RULE_RX_TRIGGER;
	if ((config->flags & ~(PL011_FLAG_LOOPBACK | PL011_FLAG_RTS_CTS | PL011_FLAG_ADOPT_LINE |
			       PL011_FLAG_NO_ID)) != 0)
		return PL011_RULE_FLAGS;
	if (config->fifo_depth != 0 && config->fifo_depth != 16u && config->fifo_depth != 32u)
		return PL011_RULE_FIFO_DEPTH;
	/* Without the ID registers PeriphID2 cannot tell the depth either. */
	if (config->fifo_depth == 0 && (config->flags & PL011_FLAG_NO_ID) != 0)
		return PL011_RULE_FIFO_DEPTH_NO_ID;
	if (config->spins_per_us > PL011_SPINS_PER_US_MAX)
		return PL011_RULE_SPINS_PER_US;
	return 0;
}

/* LCR_H's parity bits per enum pl011_parity (checked in range), a table rather than a switch
 * (smaller on every target). Stick parity (TRM 3.3.7): SPS with EPS clear sends 1, with EPS
 * set sends 0. */
static const uint8_t parity_bits[] = {
	[PL011_PARITY_NONE] = 0,
	[PL011_PARITY_ODD] = PL011_LCR_H_PEN,
	[PL011_PARITY_EVEN] = PL011_LCR_H_PEN | PL011_LCR_H_EPS,
	[PL011_PARITY_MARK] = PL011_LCR_H_PEN | PL011_LCR_H_SPS,
	[PL011_PARITY_SPACE] = PL011_LCR_H_PEN | PL011_LCR_H_SPS | PL011_LCR_H_EPS,
};

static uint32_t line_control(const struct pl011_config *config)
{
	uint32_t lcr_h = PL011_LCR_H_FEN;
	uint32_t data_bits = config->data_bits != 0 ? config->data_bits : 8u;
	lcr_h |= (data_bits - 5u) << PL011_LCR_H_WLEN_SHIFT;
	if (config->stop_bits == 2)
		lcr_h |= PL011_LCR_H_STP2;
	return lcr_h | parity_bits[config->parity];
}

/* The common rules, the plan's registers (before the parts' rules: the events' and RS-485's part
 * ends by changing CR and IMSC), the rings' rules (parts->check_rings, NULL where the rings are
 * not new: a line change), the events' and RS-485's, the divisors (all without register access),
 * then with a `uart` the ID, before an adopted line's registers are read (through parts->adopt,
 * the part that reads them: the callers name it with PL011_FLAG_ADOPT_LINE; none: a line
 * change, never adopted). */
static uint32_t plan_rule(const struct pl011 *uart, const struct pl011_config *config,
			  const struct pl011_parts *parts, struct pl011_plan *plan)
{
	uint32_t rule = check_config(config);
	if (rule != 0)
		return rule;
	/* RTS asserted, as for a modem (under RS-485, DE released: its part). */
	plan->cr = PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE | PL011_CR_RTS;
	if (config->flags & PL011_FLAG_LOOPBACK)
		plan->cr |= PL011_CR_LBE;
	if (config->flags & PL011_FLAG_RTS_CTS)
		plan->cr |= PL011_CR_RTSEN | PL011_CR_CTSEN;
	plan->tx_level = config->tx_trigger;
	if (plan->tx_level == PL011_LEVEL_DEFAULT)
		plan->tx_level = config->tx_mode == PL011_TX_ADAPTIVE ? PL011_LEVEL_1_4 : PL011_LEVEL_1_2;
	plan->rx_level = config->rx_trigger;
	if (plan->rx_level == PL011_LEVEL_DEFAULT)
		plan->rx_level = config->rx_mode == PL011_RX_FEW_IRQS ? PL011_LEVEL_3_4 : PL011_LEVEL_1_8;
	/* RT is needed with any RX level: without it a partial FIFO would never be seen. */
	plan->imsc = config->rx_mode == PL011_RX_POLLED ? 0u
						       : PL011_INT_RX | PL011_INT_RT | PL011_INT_ERRORS;
	if (parts->check_rings != NULL && (rule = parts->check_rings(uart, config)) != 0)
		return rule;
	if (parts->events_rs485 != NULL && (rule = parts->events_rs485->plan(config, plan)) != 0)
		return rule;
	bool adopted = (config->flags & PL011_FLAG_ADOPT_LINE) != 0;
	if (!adopted) {
		if (pl011_compute_baud(config->clock_hz, config->baud, config->baud_tolerance_ppm,
				       &plan->baud) != 0)
			return PL011_RULE_BAUD_UNREACHABLE;
		plan->lcr_h = line_control(config);
	}
	if (uart != NULL && (config->flags & PL011_FLAG_NO_ID) == 0 &&
	    !pl011_hw_is_primecell(config->base))
		return PL011_RULE_NOT_PL011;
	if (adopted &&
	    (parts->adopt == NULL || parts->adopt->read_line(config, &plan->baud, &plan->lcr_h) != 0))
		return PL011_RULE_ADOPT_UNPROGRAMMED;
	return 0;
}

#if PL011_INTERRUPTS
/* The events' rules, then RS-485's, and the bits they mean: DE released (RTS as RS-485 says),
 * the modem change interrupts for PL011_EVENT_MODEM. */
static uint32_t events_rs485_plan(const struct pl011_config *config, struct pl011_plan *plan)
{
	uint32_t rule = pl011_events_check(config);
	if (rule == 0)
		rule = pl011_rs485_check(config);
	if (config->rs485 != NULL)
		plan->cr = (plan->cr & ~PL011_CR_RTS) | pl011_rs485_rts(config->rs485->flags, false);
	plan->imsc |= pl011_events_imsc(config);
	return rule;
}

/* Init, the instance cleared, the config the port's: each feature reached through its driver,
 * so that a firmware with neither links none of it. */
static uint32_t events_rs485_start(struct pl011 *uart, uint32_t rx_head)
{
	const struct pl011_config *config = uart->config;
	if ((config->event_mask & PL011_EVENT_TX_DONE) != 0)
		uart->events.tx_done_open = config->event_driver->tx_emptied;
	if (config->rs485 != NULL)
		config->rs485->driver->adopt(uart, config->rs485);
	return pl011_events_start(uart, rx_head);
}

const struct pl011_events_rs485_driver pl011_events_rs485_driver = {
	.plan = events_rs485_plan,
	.start = events_rs485_start,
	.unmask = pl011_start_unmask,
};
#endif

/* A line change's plan: no uart (no ID read), no rings, never adopted. */
int pl011_make_plan(const struct pl011_config *config, struct pl011_plan *plan)
{
#if PL011_INTERRUPTS
	const struct pl011_parts parts = {.events_rs485 = &pl011_events_rs485_driver};
#else
	const struct pl011_parts parts = {.events_rs485 = NULL};
#endif
	return pl011_rule_error(plan_rule(NULL, config, &parts, plan));
}

static uint32_t fifo_depth_from_id(const struct pl011 *uart)
{
	if (uart->config->fifo_depth != 0)
		return uart->config->fifo_depth; /* the board knows better than the ID (BCM283x) */
	uint32_t id2 = pl011_reg_read(uart, PL011_PERIPHID2);
	uint32_t revision = (id2 >> PL011_PERIPHID2_REVISION_SHIFT) & PL011_PERIPHID2_REVISION_MASK;
	return revision >= PL011_REVISION_32_DEEP_FIFO ? 32u : 16u;
}

/*
 * TRM 3.3.8: disable, let the character in flight finish, flush the FIFOs by clearing FEN,
 * silence interrupts. BUSY stays set while the FIFO holds data even with the UART disabled,
 * so the wait is bounded by two frames and the FEN flush follows regardless. What the RX FIFO
 * holds by then (the UART finishes a character it is receiving when disabled, TRM 3.3.8) goes
 * into the RX ring or is counted, before FEN flushes it.
 */
void pl011_hw_quiesce(struct pl011 *uart, uint32_t frame_budget_us, struct pl011_ring *received,
		      const struct pl011_rx_ring_driver *rx)
{
	uint32_t cr = pl011_reg_read(uart, PL011_CR);
	pl011_reg_write(uart, PL011_CR, cr & ~PL011_CR_UARTEN);
	(void)pl011_wait_fr_for(uart, PL011_FR_BUSY, 0, frame_budget_us);
	if (received != NULL)
		rx->take_fifo(uart, received);
	else
		pl011_rx_discard_fifo(uart);
	/* An adopted line is left as found when there is nothing to flush. */
	if (!pl011_line_keeps_format(uart))
		pl011_hw_flush_fifos(uart->base);
	pl011_reg_write(uart, PL011_IMSC, 0);
	pl011_reg_write(uart, PL011_ICR, PL011_INT_ALL);
}

static void program_uart(struct pl011 *uart, const struct pl011_plan *plan)
{
	/* An adopted line keeps the divisors as found; LCR_H is written only to turn the FIFOs
	 * on (or back on after a flush), the format as it was. */
	if (uart->line.adopted == 0)
		pl011_hw_program_line(uart->base, &plan->baud, plan->lcr_h);
	else if (pl011_reg_read(uart, PL011_LCR_H) != plan->lcr_h)
		pl011_reg_write(uart, PL011_LCR_H, plan->lcr_h);
	pl011_reg_write(uart, PL011_IFLS, pl011_ifls_value(plan->tx_level, plan->rx_level));
	pl011_reg_write(uart, PL011_RSR_ECR, 0);
	pl011_reg_write(uart, PL011_ICR, PL011_INT_ALL);
	pl011_reg_write(uart, PL011_CR, plan->cr); /* IMSC stays 0 (the quiesce): see the start's end */
}

/* The frame time (1/256 us) of whatever the registers hold now (a boot loader's settings, or
 * ours), 0 when the UART was never programmed. Reads back the IBRD/FBRD holding registers. */
static uint32_t frame_time_in_hardware(const struct pl011 *uart)
{
	uint32_t ibrd = pl011_reg_read(uart, PL011_IBRD) & PL011_IBRD_MAX;
	uint32_t fbrd = pl011_reg_read(uart, PL011_FBRD) & PL011_FBRD_MASK;
	uint32_t lcr_h = pl011_reg_read(uart, PL011_LCR_H);
	uint32_t clock_hz = uart->config->clock_hz;
	if (ibrd == 0 || clock_hz == 0)
		return 0; /* never programmed, or an adopted line of unknown clock */
	/* One bit is 16 * (IBRD + FBRD / 64) UARTCLK periods (TRM 2.4.3): in 1/256 us, 64 * 10^6
	 * times (64 * IBRD + FBRD) / clock, rounded up; saturated past 2^32 - 1 (16 s a frame).
	 * bits * (64 * IBRD + FBRD) < 12 * 2^22. */
	uint32_t periods = pl011_lcr_h_frame_bits(lcr_h) * (ibrd * 64u + fbrd);
	return pl011_divide_product(periods, 64000000u, clock_hz - 1u, clock_hz);
}

/* Let what an earlier owner (a boot loader) queued finish before the FIFO is flushed; the
 * line runs at the slower of its rate and ours until then. */
static void let_previous_output_finish(const struct pl011 *uart)
{
	if ((pl011_reg_read(uart, PL011_CR) & PL011_CR_UARTEN) == 0)
		return; /* a disabled UART sends nothing: waiting would only burn the bound */
	(void)pl011_wait_fr_for(uart, PL011_FR_DRAINED_MASK, PL011_FR_DRAINED,
				pl011_frames_us(uart, uart->line.fifo_depth + 1u) + 1u);
}

uint32_t pl011_start_rule(const struct pl011 *uart, const struct pl011_config *config,
			  enum pl011_tx_mode strategy_mode, const struct pl011_parts *parts,
			  struct pl011_plan *plan)
{
	if (uart == NULL)
		return PL011_RULE_UART;
	if (config == NULL)
		return PL011_RULE_CONFIG;
	/* The polled-only build's reason first: its strategy is always none. */
	uint32_t rule = interrupts_rule(config);
	if (rule != 0)
		return rule;
	/* The object must be the mode's, which the rest of the config is checked against. */
	if (config->tx_mode != strategy_mode)
		return PL011_RULE_TX_STRATEGY;
	/* A part the config does not use is left out, so the start never reaches it. */
	plan->strategy = parts->tx_strategy;
	plan->rx = config->rx_mode != PL011_RX_POLLED ? parts->rx_ring : NULL;
	plan->events_rs485 = parts->events_rs485;
	return plan_rule(uart, config, parts, plan);
}

/* Parts that match the config: pl011_init names them from it, the other callers all. */
int pl011_start_plan(const struct pl011 *uart, const struct pl011_config *config,
		     const struct pl011_parts *parts, struct pl011_plan *plan)
{
	if (parts == NULL)
		return PL011_EINVAL;
	const struct pl011_tx_strategy *strategy = parts->tx_strategy;
	return pl011_rule_error(pl011_start_rule(
		uart, config, strategy == NULL ? PL011_TX_POLLED : strategy->mode, parts, plan));
}

/* Zero [from, to) of the instance, a whole number of words. Word stores, not memset: a C
 * library's memset (168 bytes in newlib-nano on the M0+) is larger than the whole loop; relaxed
 * atomic stores, plain stores on every target, so that the compiler does not turn the loop
 * back into a memset call. */
static void clear_words(struct pl011 *uart, size_t from, size_t to)
{
	_Static_assert(_Alignof(struct pl011) % sizeof(uint32_t) == 0,
		       "struct pl011 must be word-aligned");
	uint32_t *word = (uint32_t *)(void *)((uint8_t *)uart + from);
	for (size_t i = 0; i < (to - from) / sizeof(uint32_t); i++)
		__atomic_store_n(&word[i], 0u, __ATOMIC_RELAXED);
}

uint32_t pl011_start_begin(struct pl011 *uart, const struct pl011_config *config,
			   const struct pl011_plan *plan, bool keep_presence)
{
	pl011_state_set(uart, PL011_STATE_STOPPED);
	/* The owner word is not cleared with the rest: shutdown left it taken for good, so a
	 * panic that passed its state check before the shutdown is refused until the port runs.
	 * Nor cleared and put back: a panic on another core that looked in between would find
	 * it free and take TX while we program the UART. (A port that was not running keeps
	 * whatever it held until pl011_tx_reset frees it, programmed.) */
	size_t owner_at = offsetof(struct pl011, tx) + offsetof(struct pl011_tx, owner);
	/* Nor tx.beside, as the handlers' presence below: a panic that looked at the word before
	 * the stop may announce itself while we clear, and withdraw after (it finds STOPPED and
	 * leaves); a count cleared in between would wrap and silence every owner. */
	_Static_assert(offsetof(struct pl011_tx, beside) ==
			       offsetof(struct pl011_tx, owner) + sizeof(uint32_t),
		       "beside must follow owner in struct pl011_tx");
	size_t after_owner = owner_at + 2u * sizeof(uint32_t);
	/* Nor the config and the base, replaced in one store each before the clearing: a panic or
	 * a handler that passed its state check before the stop reads the old config or the new
	 * one (both the caller's to keep until we return), never a NULL. Nor the state, just set,
	 * nor the handlers' presence: a handler that looked at the state before the shutdown may
	 * still be between its announcement and its withdrawal. A port neither running nor shut
	 * down by us (garbage, for all we know) starts from 0, the presence cleared with the
	 * rest. */
	_Static_assert(offsetof(struct pl011, base) + sizeof(uintptr_t) ==
				       offsetof(struct pl011, state) &&
			       offsetof(struct pl011, state) + sizeof(uint32_t) ==
				       offsetof(struct pl011, irq_inside) &&
			       offsetof(struct pl011, irq_inside) + sizeof(uint32_t) ==
				       offsetof(struct pl011, ticks_inside) &&
			       offsetof(struct pl011, ticks_inside) + sizeof(uint32_t) ==
				       offsetof(struct pl011, line),
		       "config, base, state and the presence must lead struct pl011");
	size_t cleared_from = keep_presence ? offsetof(struct pl011, line)
					    : offsetof(struct pl011, irq_inside);
	__atomic_store_n(&uart->config, config, __ATOMIC_RELAXED);
	__atomic_store_n(&uart->base, config->base, __ATOMIC_RELAXED);
	_Static_assert(offsetof(struct pl011, line) % sizeof(uint32_t) == 0 &&
			       sizeof(struct pl011) % sizeof(uint32_t) == 0,
		       "the cleared parts of struct pl011 must be whole words");
	clear_words(uart, cleared_from, owner_at);
	clear_words(uart, after_owner, sizeof(struct pl011));
	if (!keep_presence)
		pl011_atomic_store(&uart->tx.beside, 0u, __ATOMIC_SEQ_CST);
	uart->tx.strategy = plan->strategy;
	uart->line.adopted = (config->flags & PL011_FLAG_ADOPT_LINE) != 0 ? 1u : 0u;
	uart->line.tolerance_ppm = config->baud_tolerance_ppm;
	uart->line.baud = plan->baud;
	uart->line.lcr_h = plan->lcr_h;
	uart->line.cr = plan->cr;
#if PL011_INTERRUPTS
	uart->line.rx_level = plan->rx_level;
	uart->line.rx_imsc = plan->imsc;
	uart->line.irq_passes = plan->tx_level > PL011_LEVEL_1_2 ? 4u : 1u;
#endif
	uart->line.fifo_depth = fifo_depth_from_id(uart);

	/* The character in flight runs at the old rate: budget by the slower of the two. */
	uint32_t old_frame_time = frame_time_in_hardware(uart);
	uint32_t new_frame_time = pl011_lcr_h_frame_time(plan->lcr_h, plan->baud.actual_baud);
	uart->line.frame_time = old_frame_time > new_frame_time ? old_frame_time : new_frame_time;
	let_previous_output_finish(uart);
	/* The ring before the quiesce, which moves what the FIFO holds into it (after what a
	 * restart carries over: the FIFO's bytes came later). */
	if (plan->rx != NULL)
		plan->rx->attach(uart, config);
	return new_frame_time;
}

void pl011_start_finish(struct pl011 *uart, const struct pl011_plan *plan, uint32_t frame_time)
{
#if PL011_INTERRUPTS
	uint32_t head = uart->rx.ring.head;
	pl011_hw_quiesce(uart, pl011_frames_us(uart, 2) + 1u,
			 plan->rx != NULL ? &uart->rx.ring : NULL, plan->rx);
#else
	pl011_hw_quiesce(uart, pl011_frames_us(uart, 2) + 1u, NULL, NULL);
#endif
	uart->line.frame_time = frame_time;

	/* Before programming, where the regime matrix proved MEASURED: the clock reads this spins
	 * on set the clock's phase against the line, and its waiting-writer cells (the writer's
	 * stall passes racing a late interrupt) are sensitive to that phase. */
	pl011_tx_prepare(uart);
	/* TX done's opener and RS-485's settings (both cleared by the begin), RX idle's clock step
	 * and a burst for bytes carried, before the UART can interrupt. */
#if PL011_INTERRUPTS
	const struct pl011_events_rs485_driver *events_rs485 = plan->events_rs485;
	uint32_t rx_idle_us = events_rs485 != NULL ? events_rs485->start(uart, head) : 0u;
	uart->imsc = plan->imsc; /* no other context runs yet */
#endif
	program_uart(uart, plan);
	/* Last: it frees the owner word, and nothing may write the FIFO before it is programmed. */
	pl011_tx_reset(uart, plan->tx_level);
	pl011_state_set(uart, PL011_STATE_RUNNING);
#if PL011_INTERRUPTS
	/* Unmasked only now, by the part that asked (a polled port links none of it): a handler
	 * called before RUNNING returns at once, the cause still asserted, and the level-sensitive
	 * line calls it again and again: characters arriving after the CR write would keep this
	 * thread from ever setting RUNNING. */
	if (plan->rx != NULL)
		plan->rx->unmask(uart);
	else if (events_rs485 != NULL)
		events_rs485->unmask(uart);
	if (rx_idle_us != 0)
		pl011_timer_arm(uart, rx_idle_us);
#endif
}

/* The first start: a running port is refused (pl011_restart stops it first), so nothing of a
 * restart is linked here; nor a part the caller did not name, nor the check that it named them
 * all (pl011_init's parts are the config's by construction). */
int pl011_init_named_parts(struct pl011 *uart, const struct pl011_config *config,
			   const struct pl011_parts *parts)
{
	struct pl011_plan plan;
	int err = pl011_start_plan(uart, config, parts, &plan);
	if (err != 0)
		return err;
	uint32_t state = pl011_state_get(uart);
	if (state == PL011_STATE_RUNNING)
		return PL011_EBUSY; /* nothing touched: it keeps running */
	/* The stop named the wait (so that a firmware that never stops a port links none). */
	if (state == PL011_STATE_SHUT && !uart->old_run_left(uart))
		return PL011_ESTALLED; /* nothing touched: call again once it has left */
	uint32_t frame_time = pl011_start_begin(uart, config, &plan, state == PL011_STATE_SHUT);
	pl011_start_finish(uart, &plan, frame_time);
	return 0;
}

int pl011_init_parts(struct pl011 *uart, const struct pl011_config *config,
		     const struct pl011_parts *parts)
{
	/* A caller that names the parts itself may leave out one the config needs. */
	if (parts == NULL ||
	    (config != NULL && pl011_config_uses_rings(config) && parts->check_rings == NULL) ||
	    (config != NULL && config->rx_mode != PL011_RX_POLLED && parts->rx_ring == NULL) ||
	    (config != NULL && (config->flags & PL011_FLAG_ADOPT_LINE) != 0 && parts->adopt == NULL) ||
	    (config != NULL && pl011_config_uses_events_rs485(config) && parts->events_rs485 == NULL))
		return PL011_EINVAL;
	return pl011_init_named_parts(uart, config, parts);
}

/* For a caller that cannot see the config: every part named. */
int pl011_init_port(struct pl011 *uart, const struct pl011_config *config,
		    const struct pl011_tx_strategy *strategy)
{
	const struct pl011_parts parts = {
		.tx_strategy = strategy,
		.check_rings = PL011_INTERRUPT_PART(pl011_check_rings),
		.rx_ring = PL011_INTERRUPT_PART(&pl011_rx_ring_driver),
		.adopt = &pl011_adopt_driver,
		.events_rs485 = PL011_INTERRUPT_PART(&pl011_events_rs485_driver),
	};
	return pl011_init_named_parts(uart, config, &parts);
}

#if PL011_INTERRUPTS
static void count_causes(struct pl011 *uart, uint32_t mis)
{
	if (mis & PL011_INT_RX)
		PL011_COUNT(uart, irq_rx, 1);
	if (mis & PL011_INT_RT)
		PL011_COUNT(uart, irq_rt, 1);
	if (mis & PL011_INT_ERRORS)
		PL011_COUNT(uart, irq_error, 1);
	if (mis & PL011_INT_TX)
		PL011_COUNT(uart, irq_tx, 1);
}

/* One pass over the causes MIS showed; `beside`: a panic wrote beside the TX owner when we
 * looked before reading MIS. */
static void service_causes(struct pl011 *uart, uint32_t mis, bool beside)
{
	count_causes(uart, mis);
	/* Error causes are acknowledged before draining, so an error on a character that arrives
	 * during the drain raises them again. RX and RT are not acknowledged: reading the FIFO
	 * below the trigger (RX) or empty (RT) clears them (TRM 2.8), and a drain that stops at
	 * its bound leaves them asserted so the handler comes back. An ICR here would lose them
	 * for good where the RX interrupt is edge-like: QEMU raises it only when the FIFO goes
	 * from empty to one character, and never raises RT. TX is not acknowledged either: its
	 * refill clears it. */
	if (mis & (PL011_INT_ERRORS | PL011_INT_MODEM))
		pl011_reg_write(uart, PL011_ICR, mis & (PL011_INT_ERRORS | PL011_INT_MODEM));
	if (mis & (PL011_INT_RX | PL011_INT_RT | PL011_INT_ERRORS))
		pl011_rx_service(uart, mis);
	if (mis & PL011_INT_TX)
		pl011_tx_service_irq(uart, beside);
}

/*
 * One MIS read per entry, as a minimal handler makes, unless a second TX cause is likely: the
 * line is level-sensitive, so a cause still (or newly) asserted when we return calls us again,
 * and reading MIS once more before returning would cost every entry a register read to save
 * the rare one a re-entry. With a trigger above 1/2, though, a refill writes fewer characters
 * than the trigger level, so one that comes after a few characters have left leaves the FIFO
 * at or below the trigger and the cause latched: every late interrupt would then carry only
 * `depth - trigger` characters per interrupt latency. There line.irq_passes allows up to four
 * passes, each after a fresh MIS read.
 */
static void service_passes(struct pl011 *uart, struct pl011_event_watch *watch)
{
	uint32_t pass = 0;
	do {
		/* The look before MIS: a panic that read FR before the TX cause latched may have
		 * written beside the owner and left by the refill's look, its character still in
		 * the FIFO; the blind count would then overflow (docs/beside_places.pml). */
		bool beside = pl011_tx_uses_ring(uart) && pl011_tx_beside_present(uart);
		uint32_t mis = pl011_reg_read(uart, PL011_MIS);
		if (mis == 0)
			return;
		/* Frozen, IMSC is 0 and the port is shutdown's or the line switch's, which take the
		 * RX FIFO themselves: only a stale write unmasked these causes. Serve none (the ring
		 * keeps one producer) and write the 0 again. */
		uint32_t word = pl011_imsc_load(uart);
		if ((word & PL011_IMSC_FROZEN) != 0) {
			pl011_imsc_publish(uart);
			return;
		}
		if (pass == 0)
			PL011_COUNT(uart, irq_entries, 1);
		service_causes(uart, mis, beside);
		pl011_imsc_repair(uart, word, mis);
		watch->mis |= mis;
	} while (++pass < uart->line.irq_passes);
}

/* A handler announces itself before it looks at the state again, and withdraws when done:
 * shutdown and pl011_restart (pl011_stop_port) set STOPPED, then wait for no handler to be
 * inside before they flush the RX FIFO, carry the ring over or clear the instance, so a
 * handler that was already draining on another core never writes into a ring they
 * re-initialise. A stopped port's handler returns without announcing itself, so init of a
 * stopped port may clear the flag. */
/* Shut down, IMSC frozen at 0: a reader's publish that loaded the word before the freeze may
 * write it after (a stale unmask). Write the 0 again, or the level-sensitive line calls this
 * handler for ever while that reader waits to run. */
static void shut_port_mask_again(struct pl011 *uart)
{
	if ((pl011_imsc_load(uart) & PL011_IMSC_FROZEN) != 0 &&
	    pl011_reg_read(uart, PL011_MIS) != 0)
		pl011_imsc_publish(uart);
}

void pl011_irq_handler(struct pl011 *uart)
{
	if (uart == NULL)
		return;
	uint32_t state = pl011_state_get(uart);
	if (pl011_state_stopped(state)) {
		if (state == PL011_STATE_SHUT)
			shut_port_mask_again(uart);
		return;
	}
	pl011_irq_presence(uart, 1u);
	pl011_io_atomic_point();
	if (!pl011_state_stopped(pl011_atomic_load(&uart->state, __ATOMIC_SEQ_CST))) {
		struct pl011_event_watch watch;
		pl011_events_begin(uart, &watch);
		service_passes(uart, &watch);
		pl011_events_end(uart, &watch);
	}
	pl011_irq_presence(uart, 0u);
}
#endif

int pl011_get_stats(const struct pl011 *uart, struct pl011_stats *out)
{
	if (uart == NULL || out == NULL)
		return PL011_EINVAL;
#if PL011_STATS
	memcpy(out, &uart->stats, sizeof *out);
#else
	/* The instance keeps only PL011_STATS_KEPT (pl011_instance.h): the rest read 0. */
	memset(out, 0, sizeof *out);
#define PL011_STATS_COPY(name) out->name = uart->stats.name;
	PL011_STATS_KEPT(PL011_STATS_COPY)
#undef PL011_STATS_COPY
#endif
	out->tx_bytes += __atomic_load_n(&uart->tx.unowned_bytes, __ATOMIC_RELAXED);
	return 0;
}

int pl011_get_baud(const struct pl011 *uart, struct pl011_baud *out)
{
	if (uart == NULL || out == NULL)
		return PL011_EINVAL;
	if (pl011_is_stopped(uart))
		return PL011_ESHUTDOWN;
	*out = uart->line.baud;
	return 0;
}

int pl011_get_fifo_depth(const struct pl011 *uart)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (pl011_is_stopped(uart))
		return PL011_ESHUTDOWN;
	return (int)uart->line.fifo_depth;
}

/* How long pl011_stop_port waits for a handler already inside on another core: its own work is at
 * most 4 passes of 2 x depth RX characters and a refill (microseconds of CPU); the backlog
 * deadline of those 8 x depth characters leaves an RX callback room for its own bounded work
 * (a short panic write). */
uint32_t pl011_handlers_wait_us(const struct pl011 *uart)
{
	return pl011_backlog_deadline_us(uart, (size_t)8u * uart->line.fifo_depth);
}

/*
 * Init of a port a shutdown stopped: a context of that run which the shutdown gave up waiting
 * for (a handler stuck in its RX callback, a panic that kept TX or wrote beside its owner: a
 * stopped core, or on one core a lower-priority task the shutdown's task preempted) still uses
 * the ring, the FIFO or a count that init would reset. Wait for it as the shutdown did; the
 * wait hook may let that task run. Once it has left, whatever it does next is of the new run.
 */
static bool old_run_left(struct pl011 *uart)
{
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, pl011_handlers_wait_us(uart));
	for (;;) {
		if (pl011_handlers_gone(uart) && pl011_tx_left(uart))
			return true;
		if (pl011_wait_expired(&wait))
			return false;
	}
}

int pl011_stop_port(struct pl011 *uart, uint32_t bound_us, struct pl011_ring *received,
		    const struct pl011_rx_ring_driver *rx, bool *handlers_out, bool *tx_out)
{
	/* Our core before the state: a panic that finds the port stopping on its own core has
	 * preempted us, and writes until we disable the UART (pl011_write_panic). */
	pl011_atomic_store(&uart->tx.stop, pl011_core_tag(uart), __ATOMIC_SEQ_CST);
	pl011_state_set(uart, PL011_STATE_SHUTTING_DOWN);

	uint32_t budget = pl011_backlog_deadline_us(uart, pl011_tx_queued(uart));
	if (bound_us < budget)
		budget = bound_us;
	(void)pl011_tx_wait_drained(uart, budget);
	/* From here on this thread owns TX for good, with every interrupt masked and IMSC
	 * frozen at 0: no other context writes the FIFO or IMSC. */
	bool kept = false;
	uint32_t discarded = pl011_tx_stop(uart, &kept);
	uart->stats.tx_discarded += discarded;
	/* An owner that kept the ring past both waits may still consume it: the count is what it
	 * held, not an exact one. */
	int result = kept ? PL011_ESTALLED : (int)discarded;
	/* Stopped before the last look at the FIFO: a panic write from now on is refused (but
	 * one over us on our own core), and one taken before it has its bytes waited for, not
	 * flushed with the FIFO. */
	uart->old_run_left = old_run_left; /* before SHUT: what init then calls */
	pl011_state_set(uart, PL011_STATE_SHUT);
	/* A handler that entered before this store may still drain RX into the ring on another
	 * core: wait it out (pl011_irq_handler) before the FIFO is read out and the ring handed
	 * on. One that outlives the bound leaves the FIFO's bytes to it: they are counted as
	 * discarded, not moved, and pl011_init touches nothing. */
	pl011_atomic_fence();
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, pl011_handlers_wait_us(uart));
	*handlers_out = pl011_wait_handlers_gone(uart, &wait);
	if (!*handlers_out)
		result = PL011_ESTALLED;
	/* Bytes already in the FIFO get their own time to leave: the backlog deadline of one more
	 * byte, whose margin also covers an interrupt taken meanwhile. */
	if (pl011_wait_fr_for(uart, PL011_FR_DRAINED_MASK, PL011_FR_DRAINED,
			      pl011_backlog_deadline_us(uart, 1)) != 0) {
		uart->stats.tx_fifo_abandoned++;
		result = PL011_ESTALLED;
	}
	pl011_rs485_stop(uart);
	pl011_rx_count_masked_overrun(uart);
	bool beside_gone = pl011_tx_disabling(uart);
	if (!beside_gone)
		result = PL011_ESTALLED;
	*tx_out = !kept && beside_gone;
	pl011_hw_quiesce(uart, pl011_frames_us(uart, 2) + 1u, *handlers_out ? received : NULL, rx);
	return result;
}

int pl011_shutdown(struct pl011 *uart, uint32_t bound_us)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	bool handlers_out, tx_out;
	int result = pl011_stop_port(uart, bound_us, NULL, NULL, &handlers_out, &tx_out);
#if PL011_INTERRUPTS
	/* Nobody can read them any more. */
	if (pl011_rx_uses_ring(uart))
		uart->stats.rx_discarded += (uint32_t)pl011_ring_count(&uart->rx.ring);
#endif
	return result;
}

int pl011_send_break(struct pl011 *uart, uint32_t duration_us)
{
	if (uart == NULL)
		return PL011_EINVAL;
	if (!pl011_is_running(uart))
		return PL011_ESHUTDOWN;
	if (pl011_flush(uart, PL011_WAIT_AUTO, NULL) != 0)
		return PL011_ETIMEDOUT;
	/* The receiver only sees a break if the line is low for more than a frame. */
	uint32_t minimum = pl011_frames_us(uart, 2);
	if (duration_us < minimum)
		duration_us = minimum;
	pl011_reg_write(uart, PL011_LCR_H, uart->line.lcr_h | PL011_LCR_H_BRK);
	struct pl011_wait wait;
	pl011_wait_start(&wait, uart, duration_us);
	while (!pl011_wait_expired(&wait))
		(void)pl011_reg_read(uart, PL011_FR);
	pl011_reg_write(uart, PL011_LCR_H, uart->line.lcr_h);
	return 0;
}
