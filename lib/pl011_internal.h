/* Shared internals of the driver: register access, instance state, timing and bounded waits. */
#ifndef PL011_INTERNAL_H
#define PL011_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pl011.h"
#include "pl011_hw.h"
#include "pl011_io.h"
#include "pl011_regs.h"

/* Instance states; a zeroed instance is STOPPED. RUNNING is a magic value so that garbage is
 * unlikely to pass for a started port. SHUT is a port a shutdown (or a re-init's stop) stopped:
 * its presence words and owner word are real, and a context of that run it gave up waiting
 * for may still hold them, which pl011_init waits out; any other stopped state is garbage for
 * all init knows. */
enum pl011_state {
	PL011_STATE_STOPPED = 0,
	PL011_STATE_RUNNING = 0x9011u,
	PL011_STATE_SHUTTING_DOWN = 0x9012u,
	PL011_STATE_SHUT = 0x9013u,
};

/*
 * The config rules, one number each (0: every rule holds). The checks return the number of the
 * first rule broken; pl011_init maps it to its error code (pl011_rule_error), and
 * pl011_config_check (lib/pl011_config_check.c, linked only by a firmware that calls it) to the
 * field and rule it prints. docs/configuration.md lists them in this order.
 */
enum pl011_rule {
	PL011_RULE_NONE = 0,
	PL011_RULE_UART,
	PL011_RULE_CONFIG,
	PL011_RULE_TX_STRATEGY,
	PL011_RULE_BASE,
	PL011_RULE_CLOCK_HZ,
	PL011_RULE_ADOPT_RATE,
	PL011_RULE_BAUD,
	PL011_RULE_DATA_BITS,
	PL011_RULE_STOP_BITS,
	PL011_RULE_PARITY,
	PL011_RULE_TX_MODE,
	PL011_RULE_RX_MODE,
	PL011_RULE_TX_TRIGGER,
	PL011_RULE_RX_TRIGGER,
	PL011_RULE_FLAGS,
	PL011_RULE_FIFO_DEPTH,
	PL011_RULE_FIFO_DEPTH_NO_ID,
	PL011_RULE_SPINS_PER_US,
	PL011_RULE_TX_BUFFER, /* each buffer's size rule follows its buffer's */
	PL011_RULE_TX_BUFFER_SIZE,
	PL011_RULE_RX_BUFFER,
	PL011_RULE_RX_BUFFER_SIZE,
	PL011_RULE_RINGS_OVERLAP,
	PL011_RULE_TX_BUFFER_OVER_UART,
	PL011_RULE_RX_BUFFER_OVER_UART,
	PL011_RULE_EVENT_DRIVER,
	PL011_RULE_EVENT_MASK,
	PL011_RULE_EVENT_CALLBACK,
	PL011_RULE_EVENT_TX_KINDS,
	PL011_RULE_EVENT_RX_KINDS,
	PL011_RULE_EVENT_TIMER,
	PL011_RULE_RS485_DRIVER,
	PL011_RULE_RS485_FLAGS,
	PL011_RULE_RS485_DELAY_BEFORE,
	PL011_RULE_RS485_DELAY_AFTER,
	PL011_RULE_RS485_FLOW_CONTROL,
	PL011_RULE_RS485_TX_MODE,
	PL011_RULE_RS485_TIMER,
	PL011_RULE_NOT_PL011,
	/* PL011_EBAUD from here on, PL011_EINVAL before. */
	PL011_RULE_BAUD_UNREACHABLE,
	PL011_RULE_ADOPT_UNPROGRAMMED,
	PL011_RULE_COUNT
};

static inline int pl011_rule_error(uint32_t rule)
{
	if (rule == PL011_RULE_NONE)
		return 0;
	return rule >= PL011_RULE_BAUD_UNREACHABLE ? PL011_EBAUD : PL011_EINVAL;
}

static inline uint32_t pl011_reg_read(const struct pl011 *uart, uint32_t offset)
{
	return pl011_io_read(uart->base + offset);
}

static inline void pl011_reg_write(const struct pl011 *uart, uint32_t offset, uint32_t value)
{
	pl011_io_write(uart->base + offset, value);
}

/* Bytes to one register, the address computed once: the per-character loop of every refill is
 * then a load and a store. */
static inline void pl011_reg_write_bytes(const struct pl011 *uart, uint32_t offset,
					 const uint8_t *bytes, size_t n)
{
	uintptr_t addr = uart->base + offset;
	for (size_t i = 0; i < n; i++)
		pl011_io_write(addr, bytes[i]);
}

static inline uint32_t pl011_state_get(const struct pl011 *uart)
{
	return pl011_atomic_load(&uart->state, __ATOMIC_ACQUIRE);
}

static inline void pl011_state_set(struct pl011 *uart, uint32_t state)
{
	pl011_atomic_store(&uart->state, state, __ATOMIC_RELEASE);
}

static inline bool pl011_is_running(const struct pl011 *uart)
{
	return pl011_state_get(uart) == PL011_STATE_RUNNING;
}

/* Neither running nor stopping: never started, shut down, or garbage. */
static inline bool pl011_state_stopped(uint32_t state)
{
	return state != PL011_STATE_RUNNING && state != PL011_STATE_SHUTTING_DOWN;
}

static inline bool pl011_is_stopped(const struct pl011 *uart)
{
	return pl011_state_stopped(pl011_state_get(uart));
}

/*
 * tx.stop, set by a shutdown (or a re-init's stop) as it begins: its core + 1 (0 when
 * config.core_id is not given), and DISABLING once it begins to disable the UART. A panic
 * that finds its own core stopping the port has preempted that stop, which goes on only when
 * the panic returns (contexts on one core nest: config.core_id's premise): it may write until
 * DISABLING, where any other panic stops once the port is no longer running.
 */
#define PL011_STOP_CORE_MASK 0xFFu
#define PL011_STOP_DISABLING (1u << 8)

/*
 * One core (PL011_SINGLE_CORE): the TX interrupt's pass runs in one masked section
 * (lib/pl011_tx_ring.c), inside which the owner word's swaps are a load and a store. The user's
 * hooks called from inside it (config.clock, event_timer, core_id) run outside it, with
 * interrupts as the handler had them: a hook that unmasks (cpsie i, an RTOS's unlock) would
 * otherwise let an interrupt split one of those swaps. Elsewhere both calls are nothing.
 */
#if PL011_SINGLE_CORE
struct pl011_masked_section {
	uint32_t inside; /* not 0 inside the section, interrupts masked by it */
	uintptr_t saved; /* the interrupt state its end restores */
};
extern struct pl011_masked_section pl011_tx_section;
#endif

/* Before a hook: leave the section if inside it; returns whether it did. */
static inline uint32_t pl011_hook_begin(void)
{
#if PL011_SINGLE_CORE
	uint32_t inside = pl011_tx_section.inside;
	if (inside != 0) {
		pl011_tx_section.inside = 0;
		pl011_interrupts_restore(pl011_tx_section.saved);
	}
	return inside;
#else
	return 0;
#endif
}

/* After it: back into the section, masked again (a second mask: the bench counts it). */
static inline void pl011_hook_end(uint32_t inside)
{
#if PL011_SINGLE_CORE
	if (inside != 0) {
		pl011_io_atomic_rmw_point();
		(void)pl011_interrupts_mask();
		pl011_tx_section.inside = 1;
	}
#else
	(void)inside;
#endif
}

/* Between two passes of the section's owner: let in the interrupts that came meanwhile. */
static inline void pl011_section_window(void)
{
#if PL011_SINGLE_CORE
	uint32_t inside = pl011_hook_begin();
	if (inside != 0)
		pl011_interrupts_settle();
	pl011_hook_end(inside);
#endif
}

/* config.clock's reading (it must be set) and config.event_timer's arming, through the hook
 * calls above. */
static inline uint32_t pl011_clock_now(const struct pl011 *uart)
{
	uint32_t inside = pl011_hook_begin();
	uint32_t now = uart->config->clock(uart->config->clock_context);
	pl011_hook_end(inside);
	return now;
}

static inline void pl011_timer_arm(const struct pl011 *uart, uint32_t delay_us)
{
	uint32_t inside = pl011_hook_begin();
	uart->config->event_timer(delay_us, uart->config->event_timer_context);
	pl011_hook_end(inside);
}

/* The caller's core + 1 for the owner word and tx.stop, 0 when not known: its number modulo
 * 255, folded a byte at a time (256 is 1 modulo 255), without a division. */
static inline uint32_t pl011_core_tag(const struct pl011 *uart)
{
	if (uart->config->core_id == NULL)
		return 0;
	uint32_t inside = pl011_hook_begin();
	uint32_t id = uart->config->core_id(uart->config->core_context);
	pl011_hook_end(inside);
	while (id > 255u)
		id = (id & 0xFFu) + (id >> 8); /* smaller, the same modulo 255 */
	return (id == 255u ? 0u : id) + 1u;
}

static inline uint32_t pl011_stop_word(const struct pl011 *uart)
{
	pl011_io_atomic_point();
	return pl011_atomic_load(&uart->tx.stop, __ATOMIC_SEQ_CST);
}

/* When a panic writes no more and its waits end early. */
enum pl011_panic_cut {
	PL011_CUT_WHEN_STOPPING = 0, /* the port no longer runs: a stop the panic did not preempt */
	PL011_CUT_WHEN_DISABLING,    /* the stop it preempted on its own core disables the UART */
	PL011_CUT_NEVER,             /* by its bound only */
};

static inline bool pl011_panic_cut_off(const struct pl011 *uart, enum pl011_panic_cut cut)
{
	if (cut == PL011_CUT_WHEN_DISABLING)
		return (pl011_stop_word(uart) & PL011_STOP_DISABLING) != 0;
	return cut == PL011_CUT_WHEN_STOPPING && !pl011_is_running(uart);
}

/* The polled-only build (PL011_INTERRUPTS 0) has no ring, so the ring paths compile away. */
static inline bool pl011_tx_uses_ring(const struct pl011 *uart)
{
#if PL011_INTERRUPTS
	return uart->tx.strategy != NULL;
#else
	(void)uart;
	return false;
#endif
}

/* Whether a panic writes beside the TX owner now (pl011_tx_burst_up_to then allows nothing). */
static inline bool pl011_tx_beside_present(const struct pl011 *uart)
{
	pl011_io_atomic_point();
	return pl011_atomic_load(&uart->tx.beside, __ATOMIC_SEQ_CST) != 0;
}

/* The ring pl011_init attached (an interrupt RX mode): the instance says it, not the config, so
 * the stop that a re-init begins with treats the old run as it ran. */
static inline bool pl011_rx_uses_ring(const struct pl011 *uart)
{
#if PL011_INTERRUPTS
	return uart->rx.ring.storage != NULL;
#else
	(void)uart;
	return false;
#endif
}

/*
 * IMSC is shared: the TX owner arms and disarms TXIM, the RX side masks RX, RT and OE while its
 * ring is full (back-pressure: that pause is the state of those bits in the word, nowhere
 * else) and unmasks them when the reader has made room, and these run in different contexts
 * (thread, handler, another core). So nobody writes IMSC from its own idea of the other bits:
 * each changes its bits in uart->imsc with a compare-and-swap, then writes the word's value to
 * IMSC and looks at the word again, writing again until it is unchanged. The context whose
 * swap came last also writes last, so IMSC ends as the word says. One preempted between its
 * load and its write writes a stale value first: if that unmasks a cause the word masks, the
 * handler, which that cause then calls, writes the word again (pl011_imsc_repair), so the
 * stale write cannot keep the line up while the writer waits to run. PL011_IMSC_FROZEN (set by
 * shutdown and pl011_set_line once they hold TX) makes every write of the word write 0; the
 * bits still change under it, and a handler that finds it serves nothing (service_passes).
 */
#define PL011_IMSC_FROZEN (1u << 31)

/* The publish-and-recheck of a register that several contexts change through a word: write
 * the word's value, look again, write again until it is unchanged. IMSC and CR (the RS-485
 * driver enable beside pl011_set_modem_lines) use it; CR never has bit 31. */
static inline void pl011_word_publish(struct pl011 *uart, const uint32_t *word, uint32_t offset)
{
	pl011_io_atomic_point();
	uint32_t value = pl011_atomic_load(word, __ATOMIC_SEQ_CST);
	for (;;) {
		pl011_reg_write(uart, offset, (value & PL011_IMSC_FROZEN) != 0 ? 0u : value);
		/* The write reaches the UART before another core can see our next look (lib/pl011_io.h). */
		pl011_io_barrier();
		pl011_io_atomic_point();
		uint32_t now = pl011_atomic_load(word, __ATOMIC_SEQ_CST);
		if (now == value)
			return;
		value = now;
	}
}

/* Change bits of the word in one swap, then publish it; returns the word as it was before. */
static inline uint32_t pl011_word_update(struct pl011 *uart, uint32_t *word, uint32_t offset,
					 uint32_t clear, uint32_t set)
{
	pl011_io_atomic_point();
	uint32_t value = pl011_atomic_load(word, __ATOMIC_SEQ_CST);
	for (;;) {
		pl011_io_atomic_rmw_point();
		if (pl011_atomic_swap(word, &value, (value & ~clear) | set))
			break;
	}
	pl011_word_publish(uart, word, offset);
	return value;
}

#if PL011_INTERRUPTS
static inline void pl011_imsc_publish(struct pl011 *uart)
{
	pl011_word_publish(uart, &uart->imsc, PL011_IMSC);
}

static inline uint32_t pl011_imsc_update(struct pl011 *uart, uint32_t clear, uint32_t set)
{
	return pl011_word_update(uart, &uart->imsc, PL011_IMSC, clear, set);
}

/* The handler, before the causes of one MIS read: the word as they found it. */
static inline uint32_t pl011_imsc_load(const struct pl011 *uart)
{
	pl011_io_atomic_point();
	return pl011_atomic_load(&uart->imsc, __ATOMIC_SEQ_CST);
}

/* The handler, after the causes: one the word (loaded before them) masks fired, so IMSC holds
 * a stale value (a writer preempted between its load and its write): write the word again.
 * Not TX: the handler's own refill masks it in the word when the ring runs dry, and a stale
 * TXIM is the TX owner's to write (tx_send_and_release). */
static inline void pl011_imsc_repair(struct pl011 *uart, uint32_t word, uint32_t mis)
{
	if ((mis & ~PL011_INT_TX & ~word) != 0)
		pl011_imsc_publish(uart);
}
#else
/* The polled-only build unmasks nothing: IMSC stays 0, and the word's changes have no bits. */
static inline uint32_t pl011_imsc_update(struct pl011 *uart, uint32_t clear, uint32_t set)
{
	(void)uart;
	(void)clear;
	(void)set;
	return 0;
}
#endif

/* The IMSC bits an RX pause masks: RX and RT, which would fire again at once while the FIFO
 * waits, and OE, which a full FIFO without flow control raises again for every character lost
 * (its latch stays in RIS, so the resume's unmask counts the pause's overrun once). */
#define PL011_RX_PAUSE_BITS (PL011_INT_RX | PL011_INT_RT | PL011_INT_OE)

/* IFLS for two enum pl011_level values (TRM 3.3.9 codes are level - 1). */
static inline uint32_t pl011_ifls_value(uint32_t tx_level, uint32_t rx_level)
{
	return ((tx_level - 1u) << PL011_IFLS_TXIFLSEL_SHIFT) |
	       ((rx_level - 1u) << PL011_IFLS_RXIFLSEL_SHIFT);
}

/*
 * Every increment of a counter that PL011_STATS 0 leaves out (docs/api.md, "Counters") is one of
 * these: PL011_COUNT for a field, PL011_COUNT_AT for an element of one (the histogram); n and
 * index must have no side effect. With 0 they compile to nothing, yet the field is still
 * checked against struct pl011_stats (unevaluated), so a misspelt name fails in both builds,
 * and uart, n and index count as used (the index evaluated, so that the analyzer sees it
 * read). The kept counters are written plainly.
 */
#if PL011_STATS
#define PL011_COUNT(uart, field, n) ((void)((uart)->stats.field += (n)))
#define PL011_COUNT_AT(uart, field, index, n) ((void)((uart)->stats.field[index] += (n)))
#else
#define PL011_COUNT(uart, field, n) \
	((void)(uart), (void)sizeof(((struct pl011_stats *)0)->field), (void)(n))
#define PL011_COUNT_AT(uart, field, index, n) \
	((void)(uart), (void)sizeof(((struct pl011_stats *)0)->field[0]), (void)(index), (void)(n))
#endif

/* ---- lib/pl011_wait.c: time on the line, and bounded waits ---- */

/*
 * dividend / divisor rounded down when the quotient fits 32 bits, else UINT32_MAX (divisor 0
 * too): the one division of lib/. C's `/` is a libgcc call where the core has no divide
 * instruction (ARMv6-M: __udivsi3, 276 bytes; on 64-bit operands __aeabi_uldivmod and its
 * helpers, 0.5 to 1.6 KiB on every 32-bit core); this is shift-and-subtract. Init and line
 * changes use it; no per-call path divides.
 */
uint32_t pl011_divide(uint64_t dividend, uint32_t divisor);

/* a * b, all 64 bits, from four 16-bit products: ARMv6-M and ARMv8-M Baseline multiply
 * 32 x 32 -> 32 only, and GCC's 64-bit product there is libgcc's __aeabi_lmul (92 bytes). */
uint64_t pl011_multiply_in_halves(uint32_t a, uint32_t b);
static inline uint64_t pl011_multiply(uint32_t a, uint32_t b)
{
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
	return pl011_multiply_in_halves(a, b);
#else
	return (uint64_t)a * b;
#endif
}

/* (a * b + add) / divisor as pl011_divide computes it: a product, a rounding and a division.
 * A 32-bit core pays for a 64-bit sum at each caller: there it is one function; AArch64 adds in
 * one instruction, where the call would cost more. */
#if defined(__aarch64__)
static inline uint32_t pl011_divide_product(uint32_t a, uint32_t b, uint32_t add, uint32_t divisor)
{
	return pl011_divide(pl011_multiply(a, b) + add, divisor);
}
#else
uint32_t pl011_divide_product(uint32_t a, uint32_t b, uint32_t add, uint32_t divisor);
#endif

/* FIFO entries at a trigger level: depth * {1, 2, 4, 6, 7} / 8 (TRM 3.3.9). */
uint32_t pl011_level_entries(uint32_t depth, uint32_t level);

/* Time for `frames` frames on the wire at the programmed rate, in microseconds, rounded up and
 * saturated below PL011_WAIT_AUTO. */
uint32_t pl011_frames_us(const struct pl011 *uart, uint32_t frames);

/* Microseconds between two ticks of config.clock, timed at init by MEASURED and by RX idle
 * from the timer; 0 without a clock or if it does not move within 2^17 reads. */
uint32_t pl011_clock_step_us(const struct pl011 *uart);

/*
 * A bounded wait. With a clock, elapsed time is the sum of the clock's steps (each taken
 * modulo 2^32, so no bound is lost to a wrap); if the clock stops advancing for
 * PL011_FROZEN_CLOCK_STEPS steps, each further step counts 1 / spins_per_us microseconds, as
 * without a clock (docs/waiting.md).
 */
struct pl011_wait {
	const struct pl011 *uart;
	uint32_t elapsed_us;         /* saturated: no budget is above UINT32_MAX */
	uint32_t spins_since_change; /* steps that saw the clock unchanged, up to the frozen limit */
	uint32_t spin_fraction;      /* steps not yet worth a whole microsecond */
	uint32_t last_us;
	uint32_t budget_us;
	bool panic; /* a panic write's wait: no wait hook, and it ends when the panic is cut off */
	enum pl011_panic_cut cut; /* (a panic's wait) when that is */
	/* (a panic's wait) pl011_panic_cut_off, set by pl011_wait_start_panic: a firmware that
	 * never writes a panic links no cut-off check in its waits and polled writes. */
	bool (*cut_off)(const struct pl011 *uart, enum pl011_panic_cut cut);
};

void pl011_wait_start(struct pl011_wait *wait, const struct pl011 *uart, uint32_t budget_us);
/* A panic write's wait: config.wait_hook (an RTOS yield, a WFI) is not called from the panic's
 * contexts, and a shutdown it did not preempt ends it at the next step (pl011_panic_cut_off). */
void pl011_wait_start_panic(struct pl011_wait *wait, const struct pl011 *uart, uint32_t budget_us);
uint32_t pl011_wait_elapsed_us(const struct pl011_wait *wait);
/* Counts one step (calling the wait hook) and says whether the budget is used up. */
bool pl011_wait_expired(struct pl011_wait *wait);

/*
 * Poll FR until (FR & mask) == want or the wait runs out; returns the last FR value read, so
 * the caller can tell which. The single FR-polling loop of the driver.
 */
uint32_t pl011_wait_fr(const struct pl011 *uart, uint32_t mask, uint32_t want,
		       struct pl011_wait *wait);
/* The same with a fresh wait of budget_us; returns 0 or PL011_ETIMEDOUT. */
int pl011_wait_fr_for(const struct pl011 *uart, uint32_t mask, uint32_t want, uint32_t budget_us);

/*
 * A count of contexts inside a section that another core waits out before it changes what
 * they use (tx.beside: panics writing beside the owner, before shutdown disables the UART).
 * Each enters, then looks at the state it depends on; the waiter changes that state, then
 * waits for the count: one of them sees the other.
 * The decrement is an add of 2^32 - 1: the cores without exclusives have a board helper for
 * fetch_add (boards/common/atomics_irqmask.c), none for fetch_sub.
 */
static inline void pl011_presence_enter(uint32_t *count)
{
	pl011_io_atomic_rmw_point();
	(void)pl011_atomic_add(count, 1u, __ATOMIC_SEQ_CST);
}

static inline void pl011_presence_leave(uint32_t *count)
{
	pl011_io_atomic_rmw_point();
	(void)pl011_atomic_add(count, UINT32_MAX, __ATOMIC_SEQ_CST);
}

/*
 * The same for ticks_inside, which only the event tick enters (one timer's call at a time, but
 * a stray call may come beside it). On one core (PL011_SINGLE_CORE) a plain load and store,
 * unmasked: a tick that preempts another between them runs to completion, entering and leaving
 * once, so it leaves the count as it found it (the host explorers preempt there).
 */
static inline void pl011_tick_count(struct pl011 *uart, uint32_t delta)
{
#if PL011_SINGLE_CORE
	pl011_io_atomic_point();
	uint32_t before = pl011_atomic_load(&uart->ticks_inside, __ATOMIC_RELAXED);
	pl011_atomic_store(&uart->ticks_inside, before + delta, __ATOMIC_RELAXED);
#else
	pl011_io_atomic_rmw_point();
	(void)pl011_atomic_add(&uart->ticks_inside, delta, __ATOMIC_SEQ_CST);
#endif
}

/*
 * pl011_irq_handler's presence: a flag, not a count, as the handler never runs beside itself
 * (docs/api.md), so a store where a count needs a read-modify-write. Seq_cst: the waiter sets
 * the state, fences, then loads the flag; the handler stores the flag, then loads the state;
 * one of them sees the other (C11 7.17.3p9 and p10), as with a count.
 */
static inline void pl011_irq_presence(struct pl011 *uart, uint32_t inside)
{
	pl011_atomic_store(&uart->irq_inside, inside, __ATOMIC_SEQ_CST);
}

/* Whether the interrupt handler is inside; whether no handler (it, a tick) is. */
static inline bool pl011_irq_inside(const struct pl011 *uart)
{
	pl011_io_atomic_point();
	return pl011_atomic_load(&uart->irq_inside, __ATOMIC_SEQ_CST) != 0;
}

static inline bool pl011_handlers_gone(const struct pl011 *uart)
{
	if (pl011_irq_inside(uart))
		return false;
	pl011_io_atomic_point();
	return pl011_atomic_load(&uart->ticks_inside, __ATOMIC_SEQ_CST) == 0;
}

/* Wait, within `wait`, until nobody is inside; returns whether nobody is. */
bool pl011_wait_presence_gone(const uint32_t *count, struct pl011_wait *wait);
/* The same for the handlers (pl011_handlers_gone). */
bool pl011_wait_handlers_gone(const struct pl011 *uart, struct pl011_wait *wait);

/* ---- lib/pl011_rx.c ---- */

/* Whether the RX ring's back-pressure has RX masked (its bits clear in the IMSC word). */
#if PL011_INTERRUPTS
bool pl011_rx_paused(const struct pl011 *uart);
#else
static inline bool pl011_rx_paused(const struct pl011 *uart)
{
	(void)uart;
	return false; /* no ring */
}
#endif

/* Decode one DR value into a byte (0..255) or a PL011_E* code, counting FE, PE and BE (not OE:
 * overruns are counted where they are seen first, from MIS or RSR). */
int pl011_rx_decode(struct pl011 *uart, uint32_t dr);
/* The RX causes of one MIS value: count an overrun, drain the FIFO into the ring, pause when
 * the ring is full. */
void pl011_rx_service(struct pl011 *uart, uint32_t mis);
/* Shutdown, with the interrupt masked: count an overrun that no MIS or RSR look saw yet. */
void pl011_rx_count_masked_overrun(struct pl011 *uart);
/* Before a FEN flush (init, shutdown): move what the RX FIFO holds into `received` while it has
 * room; the rest is counted in rx_discarded. pl011_rx_discard_fifo counts it all. */
void pl011_rx_take_fifo(struct pl011 *uart, struct pl011_ring *received);
void pl011_rx_discard_fifo(struct pl011 *uart);
/* Init of a running port: move what the old ring held into the new one (or keep it, when the
 * storage is the same); the rest is counted in rx_discarded. */
void pl011_rx_carry_over(struct pl011 *uart, const struct pl011_ring *old);

/* ---- lib/pl011_events.c ---- */

/* The IMSC bits the events need beside the RX ones (the modem change interrupts). */
static inline uint32_t pl011_events_imsc(const struct pl011_config *config)
{
	return (config->event_mask & PL011_EVENT_MODEM) != 0 ? PL011_INT_MODEM : 0u;
}

/* What one handler entry saw, for the events it gives when it returns. */
struct pl011_event_watch {
	bool active;     /* an event mask: otherwise nothing is looked at */
	uint32_t rx_head; /* RX ring head at entry: bytes taken if it moved */
	uint32_t mis;    /* every cause serviced in this entry */
	uint32_t breaks; /* stats.rx_break at entry */
	uint32_t errors; /* framing + parity + overrun counts at entry */
	size_t tx_free;  /* TX ring space at entry */
};

/*
 * The events' code is reached only through the driver object the config names
 * (pl011_event_driver), so that a firmware without events links none of it; the core keeps
 * only the checks that need none of it.
 */
struct pl011_event_driver {
	/* pl011_init: the rule an event mask the config cannot serve breaks (include/pl011.h). */
	uint32_t (*check)(const struct pl011_config *config);
	/* A handler entry: what it sees before the causes (watch->active: anything to give). */
	void (*begin)(struct pl011 *uart, struct pl011_event_watch *watch);
	/* After the causes: the callbacks, with TX let go. */
	void (*end)(struct pl011 *uart, const struct pl011_event_watch *watch);
	/* TX space: a ring write that came up short asks for it (PL011_EVENT_TX_SPACE in the
	 * mask); the context that frees the space gives it once the ring is at least half free,
	 * with TX not owned by it. */
	void (*want_tx_space)(struct pl011 *uart);
	void (*give_tx_space)(struct pl011 *uart);
	/* PL011_EVENT_TX_DONE: pl011_events_tx_emptied opens its drain. */
	void (*tx_emptied)(struct pl011 *uart);
	/* Init before programming: RX idle's clock step, a burst for bytes no handler saw (the
	 * FIFO flush moved the ring's head from rx_head); returns the delay to arm once running. */
	uint32_t (*start)(struct pl011 *uart, uint32_t rx_head);
	/* pl011_set_line put FIFO bytes in the ring: the handlers out (resumed false), then TX
	 * let go (true). */
	void (*rx_taken)(struct pl011 *uart, bool resumed);
};

/* The TX owner, the ring just emptied: open a TX_DONE drain (lib/pl011_events.c), which the
 * event driver and the RS-485 driver name (events.tx_done_open). */
void pl011_events_tx_emptied(struct pl011 *uart);

/* pl011_init: the rule broken by events without their driver, or a mask the driver refuses;
 * 0 when none is. */
static inline uint32_t pl011_events_check(const struct pl011_config *config)
{
	if (config->event_mask == 0)
		return 0;
	return config->event_driver == NULL ? PL011_RULE_EVENT_DRIVER
					    : config->event_driver->check(config);
}

static inline void pl011_events_begin(struct pl011 *uart, struct pl011_event_watch *watch)
{
	const struct pl011_event_driver *driver = uart->config->event_driver;
	watch->mis = 0;
	watch->active = false;
	if (driver != NULL)
		driver->begin(uart, watch);
}

/* Active only where begin ran the driver: the config's, which only a restart changes (after
 * waiting for the handler). */
static inline void pl011_events_end(struct pl011 *uart, const struct pl011_event_watch *watch)
{
	if (watch->active)
		uart->config->event_driver->end(uart, watch);
}

static inline uint32_t pl011_events_start(struct pl011 *uart, uint32_t rx_head)
{
	const struct pl011_event_driver *driver = uart->config->event_driver;
	return driver != NULL ? driver->start(uart, rx_head) : 0u;
}

#if PL011_INTERRUPTS
/* Restart, the handlers out: whether an RX burst is open (bytes since the last RX_IDLE). */
static inline bool pl011_events_rx_open(struct pl011 *uart)
{
	pl011_io_atomic_point();
	uint32_t drains = pl011_atomic_load(&uart->events.rx_drains, __ATOMIC_SEQ_CST);
	pl011_io_atomic_point();
	return drains != pl011_atomic_load(&uart->events.rx_idle_drains, __ATOMIC_SEQ_CST);
}

static inline void pl011_events_rx_taken(struct pl011 *uart, bool resumed)
{
	const struct pl011_event_driver *driver = uart->config->event_driver;
	if (driver != NULL)
		driver->rx_taken(uart, resumed);
}

static inline void pl011_events_want_tx_space(struct pl011 *uart)
{
	const struct pl011_event_driver *driver = uart->config->event_driver;
	if (driver != NULL)
		driver->want_tx_space(uart);
}

/* After a pass that moved ring bytes, TX let go. One load when nobody asked (only the driver
 * asks). The owner's release before it is a sequentially consistent swap: the ring's tail
 * store is seen by a writer that asks after this load (want_tx_space looks at the ring then). */
static inline void pl011_events_tx_space_freed(struct pl011 *uart)
{
	pl011_io_atomic_point();
	if (pl011_atomic_load(&uart->events.tx_space_wanted, __ATOMIC_SEQ_CST) != 0 &&
	    uart->config->event_driver != NULL)
		uart->config->event_driver->give_tx_space(uart);
}

/* The TX owner, the ring just emptied: a TX_DONE drain may begin. One load when unused. */
static inline void pl011_events_tx_ring_emptied(struct pl011 *uart)
{
	void (*open)(struct pl011 *uart) = uart->events.tx_done_open;
	if (open != NULL)
		open(uart);
}
#endif

/* ---- lib/pl011_rs485.c ---- */

/*
 * RS-485's code is reached only through the driver object its settings name
 * (pl011_rs485_driver), so that a firmware without RS-485 links none of it; the core keeps
 * only what needs no code of it: the settings copied, the CR bits they mean.
 */
struct pl011_rs485_driver {
	/* pl011_init: the rule an RS-485 setting the config cannot serve breaks. */
	uint32_t (*check)(const struct pl011_config *config);
	/* pl011_init: the settings copied in (pl011_rs485_adopt). */
	void (*adopt)(struct pl011 *uart, const struct pl011_rs485 *rs485);
	/* The TX owner, before the first DR write of a send: DE asserted, the before-delay (not
	 * named assert: newlib-nano's string.h brings the assert macro into lib/'s sources). */
	void (*assert_de)(struct pl011 *uart);
	/* The tick: a drain ended (TX_DONE); release DE after the delay, as the TX owner. */
	void (*drain_ended)(struct pl011 *uart, uint32_t sent);
	/* The second tick: DE released if nothing was sent since. */
	void (*tick)(struct pl011 *uart);
	/* Shutdown or pl011_set_line, TX taken and drained: the after-delay, then DE released. */
	void (*stop)(struct pl011 *uart);
	/* The end of a send is TX done: pl011_events_tx_emptied opens its drain. */
	void (*tx_emptied)(struct pl011 *uart);
};

/* pl011_init: the rule broken by RS-485 settings without their driver, or that it refuses. */
static inline uint32_t pl011_rs485_check(const struct pl011_config *config)
{
	const struct pl011_rs485 *rs485 = config->rs485;
	if (rs485 == NULL)
		return 0;
	return rs485->driver == NULL ? PL011_RULE_RS485_DRIVER : rs485->driver->check(config);
}

/* pl011_init once the config is the port's, or pl011_set_line with TX held and DE released:
 * copy the settings in (NULL = off), TX done wanted as they need it (lib/pl011_rs485.c). */
void pl011_rs485_adopt(struct pl011 *uart, const struct pl011_rs485 *rs485);

/* CR.RTS drives nUARTRTS low (TRM 3.3.8): for DE asserted (sending) or released, set while
 * sending with DE_LOW, while idle without. */
static inline uint32_t pl011_rs485_rts(uint32_t flags, bool sending)
{
	bool low = (flags & PL011_RS485_DE_LOW) != 0;
	return low == sending ? PL011_CR_RTS : 0u;
}

/* Whether RS-485 drives DE (the polled-only build has no RS-485). */
static inline bool pl011_rs485_on(const struct pl011 *uart)
{
#if PL011_INTERRUPTS
	return uart->events.rs485_driver != NULL;
#else
	(void)uart;
	return false;
#endif
}

/* The CR bits DE owns (RTS, and RXE with PL011_RS485_RX_OFF): pl011_set_line keeps them. */
#if PL011_INTERRUPTS
static inline uint32_t pl011_rs485_cr_bits(const struct pl011 *uart)
{
	if (uart->events.rs485_driver == NULL)
		return 0;
	return PL011_CR_RTS |
	       ((uart->events.rs485.flags & PL011_RS485_RX_OFF) != 0 ? PL011_CR_RXE : 0u);
}
#else
static inline uint32_t pl011_rs485_cr_bits(const struct pl011 *uart)
{
	(void)uart;
	return 0; /* no RS-485 in the polled-only build */
}
#endif

/* Shutdown or pl011_set_line, TX taken and drained: DE released, if RS-485 is on. */
#if PL011_INTERRUPTS
static inline void pl011_rs485_stop(struct pl011 *uart)
{
	const struct pl011_rs485_driver *driver = uart->events.rs485_driver;
	if (driver != NULL)
		driver->stop(uart);
}
#else
static inline void pl011_rs485_stop(struct pl011 *uart)
{
	(void)uart;
}
#endif

/* The TX owner, before the first DR write of a pass: DE asserted (RS-485). One load unused. */
#if PL011_INTERRUPTS
static inline void pl011_rs485_before_send(struct pl011 *uart)
{
	const struct pl011_rs485_driver *driver = uart->events.rs485_driver;
	if (driver != NULL && uart->tx.de_asserted == 0)
		driver->assert_de(uart);
}
#endif

/* ---- TX: lib/pl011_tx.c (writes, flush, panic, stop), lib/pl011_tx_owner.h (the owner word),
 * lib/pl011_tx_fifo.c (filling the FIFO), lib/pl011_tx_ring.c (the interrupt-driven path every
 * ring strategy shares) and lib/pl011_tx_<strategy>.c (one refill policy each) ---- */

/* The highest trigger ADAPTIVE and MEASURED use. Above 1/2 each interrupt carries so few
 * characters that, under a jittery load, more interrupts mean more late ones
 * (docs/benchmarks.md). */
#define PL011_TX_CEILING PL011_LEVEL_1_2

/*
 * The interrupt-driven TX path (lib/pl011_tx_ring.c): what the mode-independent code calls in
 * a ring mode, through the strategy, so that a POLLED firmware links none of it.
 */
struct pl011_tx_ring_ops {
	/* At a start: the config's TX ring, empty, as the instance's. */
	void (*attach)(struct pl011 *uart);
	/* The bytes the ring holds (pl011_tx_queued). */
	size_t (*queued)(const struct pl011 *uart);
	/* pl011_write: straight to an idle FIFO, the rest queued and primed, within bound_us. */
	size_t (*write)(struct pl011 *uart, const uint8_t *data, size_t len, uint32_t bound_us);
	/* The TX interrupt cause: refill by the strategy, or defer to the context that owns TX. */
	void (*service_irq)(struct pl011 *uart, bool beside);
	/* pl011_tx_wait_drained with the stall guard. */
	int (*wait_drained)(struct pl011 *uart, uint32_t budget_us);
	/* A panic that owns TX: the `count` ring bytes queued before it, by polling, within the
	 * wait; false when the wait ran out first. */
	bool (*drain_for_panic)(struct pl011 *uart, uint32_t count, struct pl011_wait *wait);
	/* The owner: a polling pass, then let go keeping the invariant (lib/pl011_tx_owner.h); a
	 * panic's last pass holds writers back while it runs. */
	void (*send_pass)(struct pl011 *uart, bool panic);
	/* After bytes were queued: make sure somebody sends them. */
	void (*kick)(struct pl011 *uart);
};

/* A ring strategy: the refill of a TX interrupt whose cause is latched, and its state. */
struct pl011_tx_strategy {
	enum pl011_tx_mode mode;
	/* Write from the ring, `guaranteed` = depth - trigger characters of room known without an
	 * FR read (none since the cause, nobody else wrote); returns the characters written. */
	uint32_t (*refill)(struct pl011 *uart, uint32_t guaranteed);
	/* Optional: before the UART is programmed (MEASURED times its clock's step). */
	void (*prepare)(struct pl011 *uart);
	/* Optional: the state for a port being started, the trigger already set. */
	void (*reset)(struct pl011 *uart);
	/* Optional: pl011_set_line gave TX back at a new frame time. */
	void (*line_changed)(struct pl011 *uart);
	/* Optional: this refill polls instead, someone else having written the FIFO. */
	void (*lost_track)(struct pl011 *uart);
	const struct pl011_tx_ring_ops *ring;
};

extern const struct pl011_tx_ring_ops pl011_tx_ring_ops;

/* POLL_FULL's refill, which every strategy's refill becomes when another writer voids the
 * blind count: poll FR before every character, up to two FIFOs' worth. */
uint32_t pl011_tx_poll_full_refill(struct pl011 *uart, uint32_t guaranteed);

/* lib/pl011_tx_fifo.c, the owner only. FR read and counted. */
uint32_t pl011_tx_read_fr(struct pl011 *uart);
/* Write up to limit ring bytes without reading FR: only where space is guaranteed. */
uint32_t pl011_tx_fill_blind(struct pl011 *uart, uint32_t limit);
/* Write bytes while FR shows room, a pass of at most limit at a time, until someone waits for
 * TX (*fr receives the last FR value read; *reads counts the FR reads). Fewer than len when
 * *fr shows TXFF, a panic writes beside us, or one waits. */
size_t pl011_tx_write_passes(struct pl011 *uart, const uint8_t *data, size_t len, size_t limit,
			     uint32_t *fr, uint32_t *reads);
/* Ring bytes while FR.TXFF is clear, at most limit; since_look: what the caller wrote since its
 * last look at tx.beside (a blind fill's count), or PL011_TX_NO_LOOK; *first_fr (if given)
 * receives the first FR value (an underrun shows there). Returns whether it stopped at TXFF. */
#define PL011_TX_NO_LOOK UINT32_MAX
bool pl011_tx_fill_polling(struct pl011 *uart, uint32_t limit, uint32_t since_look,
			   uint32_t *first_fr, uint32_t *written);
/* Move the TX trigger (IFLS); the next refill polls. */
void pl011_tx_set_level(struct pl011 *uart, uint32_t level);

/* lib/pl011_tx.c. Prepare the TX state for a port being started (ring, trigger, strategy). */
void pl011_tx_reset(struct pl011 *uart, uint32_t tx_level);
/* The strategy's preparation, before the UART is programmed (MEASURED times its clock's
 * step, which pl011_tx_reset uses). */
void pl011_tx_prepare(struct pl011 *uart);
/* The TX interrupt cause: refill by the strategy, or defer to the context that owns TX. */
void pl011_tx_service_irq(struct pl011 *uart, bool beside);
/* Wait for ring empty, TXFE and !BUSY; refills a stalled TX. Returns 0 or PL011_ETIMEDOUT. */
int pl011_tx_wait_drained(struct pl011 *uart, uint32_t budget_us);
/*
 * Shutdown's end of TX: take ownership for good (bounded), mask TXIM, drop the ring and
 * return how many bytes it held. Ownership stays taken until pl011_tx_reset, so that no
 * context writes the FIFO or IMSC of a stopped port. *kept: an owner did not let go within
 * both waits (its core stopped, or a lower-priority task it preempted): it keeps the ring,
 * counted but not dropped, and pl011_init must wait for it (pl011_tx_left).
 */
uint32_t pl011_tx_stop(struct pl011 *uart, bool *kept);
/* Shutdown, its last step before the disable: mark DISABLING (no panic over it writes from
 * then on) and wait for a panic beside the owner to finish; false when one is still there. */
bool pl011_tx_disabling(struct pl011 *uart);
/* Init of a port a shutdown stopped: whether the contexts of that run have left TX (no owner
 * but the stop, nobody beside it). */
bool pl011_tx_left(const struct pl011 *uart);

/* ---- line control (lib/pl011_line.c, and what it shares with lib/pl011.c) ---- */

/* Everything pl011_init (and pl011_set_line) needs, computed before anything is touched. */
struct pl011_plan {
	/* The parts the start needs, from pl011_parts: the strategy (NULL: polled TX), the RX
	 * ring's driver (NULL: polled RX). */
	const struct pl011_tx_strategy *strategy;
	const struct pl011_rx_ring_driver *rx;
	const struct pl011_events_rs485_driver *events_rs485; /* NULL: no event mask, no RS-485 */
	struct pl011_baud baud;
	uint32_t lcr_h;
	uint32_t cr;
	uint32_t tx_level;
	uint32_t rx_level;
	uint32_t imsc;
};

/* The RX ring of the interrupt RX modes (lib/pl011_rx.c): attached at a start, filled from the
 * FIFO before a FEN flush. A start reaches it only through this object, which pl011_init names
 * by config.rx_mode: a polled-RX firmware links none of it. */
struct pl011_rx_ring_driver {
	/* The config's RX ring, empty, as the instance's. */
	void (*attach)(struct pl011 *uart, const struct pl011_config *config);
	/* What the RX FIFO holds into `received` while it has room; the rest counted in
	 * rx_discarded (pl011_rx_take_fifo). */
	void (*take_fifo)(struct pl011 *uart, struct pl011_ring *received);
	/* Once the port runs: its interrupts unmasked (pl011_start_unmask). */
	void (*unmask)(struct pl011 *uart);
};

/* PL011_FLAG_ADOPT_LINE (lib/pl011_adopt.c), reached only through this object, which pl011_init
 * names by the flag: the divisors and format as found, as the plan's (pl011_line_adopt). */
struct pl011_adopt_driver {
	int (*read_line)(const struct pl011_config *config, struct pl011_baud *baud, uint32_t *lcr_h);
};

/* Events and RS-485 at a start (lib/pl011.c), reached only through this object, which pl011_init
 * names for a config with an event mask or RS-485 settings: a console with neither links none of
 * their rules and none of their start. */
struct pl011_events_rs485_driver {
	/* The events' rules, then RS-485's (pl011_events_check, pl011_rs485_check); the IMSC and
	 * CR bits they mean go into the plan. */
	uint32_t (*plan)(const struct pl011_config *config, struct pl011_plan *plan);
	/* Init before programming, the config the port's: TX done's opener, the RS-485 settings
	 * copied in, RX idle's start (pl011_events_start, whose delay it returns). */
	uint32_t (*start)(struct pl011 *uart, uint32_t rx_head);
	/* Once the port runs: its interrupts unmasked (pl011_start_unmask). */
	void (*unmask)(struct pl011 *uart);
};

/* Check a new line's config (its rings are the running port's, not checked again) and compute
 * what programming it means (lib/pl011.c); 0 or PL011_EINVAL, PL011_EBAUD. No register is read:
 * the config must not ask for PL011_FLAG_ADOPT_LINE. */
int pl011_make_plan(const struct pl011_config *config, struct pl011_plan *plan);
/* The rule broken by baud, data_bits, stop_bits or parity; 0 when none is. */
uint32_t pl011_check_format(const struct pl011_config *config);
/* pl011_start_plan's checks as a rule number, the strategy given by its mode (parts'
 * tx_strategy is only stored): the rules of the config, its rings against each other and
 * against *uart (through parts->check_rings), then the PrimeCell ID at base (reads only)
 * unless PL011_FLAG_NO_ID, then an adopted line through parts->adopt. pl011_config_check
 * explains the number. */
uint32_t pl011_start_rule(const struct pl011 *uart, const struct pl011_config *config,
			  enum pl011_tx_mode strategy_mode, const struct pl011_parts *parts,
			  struct pl011_plan *plan);
/* TRM 3.3.8 (lib/pl011.c): disable, wait for BUSY to clear within frame_budget_us, move the RX
 * FIFO into `received` through rx (received NULL: count it discarded; rx may then be NULL),
 * flush the FIFOs by clearing FEN, mask and clear every interrupt. */
void pl011_hw_quiesce(struct pl011 *uart, uint32_t frame_budget_us, struct pl011_ring *received,
		      const struct pl011_rx_ring_driver *rx);
/* The start pl011_init_named_parts and pl011_restart_port share (lib/pl011.c). Plan: the
 * arguments checked (PL011_EINVAL, PL011_EBAUD), nothing touched; the parts must be those the
 * config needs (pl011_init_parts checks that they are). Begin: the instance cleared but for what
 * other contexts may hold (the owner word; tx.beside and the handlers' presence unless
 * keep_presence is false), the line set, a boot loader's output let finish, the RX ring
 * attached; returns the new frame time. Finish: the TRM sequence, programmed, running. A
 * restart moves what the old run received into the ring between the two. */
int pl011_start_plan(const struct pl011 *uart, const struct pl011_config *config,
		     const struct pl011_parts *parts, struct pl011_plan *plan);
uint32_t pl011_start_begin(struct pl011 *uart, const struct pl011_config *config,
			   const struct pl011_plan *plan, bool keep_presence);
void pl011_start_finish(struct pl011 *uart, const struct pl011_plan *plan, uint32_t frame_time);
/* The RX ring's and the events' part, once the port runs: IMSC as the word says. */
void pl011_start_unmask(struct pl011 *uart);
/* Shutdown, and the first step of pl011_restart on a running port: drain, take TX, wait out
 * handlers, quiesce; what the RX FIFO holds goes into `received` (NULL: counted discarded), the
 * RX ring keeps its bytes. *handlers_out: no handler is inside; *tx_out: no context of this
 * run holds TX or writes beside it any more (else PL011_ESTALLED, and pl011_init waits for
 * it). Returns the bytes discarded or PL011_ESTALLED. */
int pl011_stop_port(struct pl011 *uart, uint32_t bound_us, struct pl011_ring *received,
		    const struct pl011_rx_ring_driver *rx, bool *handlers_out, bool *tx_out);
/* How long shutdown, init and pl011_set_line wait for a handler running on another core. */
uint32_t pl011_handlers_wait_us(const struct pl011 *uart);

/* lib/pl011_wait.c: bits of one frame that LCR_H describes: start, 5..8 data, parity, 1 or 2
 * stop (TRM 3.3.7). */
uint32_t pl011_lcr_h_frame_bits(uint32_t lcr_h);
/* One such frame at actual_baud (> 0), in 1/256 us (struct pl011_line's frame_time). */
uint32_t pl011_lcr_h_frame_time(uint32_t lcr_h, uint32_t actual_baud);
/* lib/pl011_adopt.c, PL011_FLAG_ADOPT_LINE: the divisors and format the registers hold, as
 * init's plan (the rate from config.clock_hz, or config.baud when the clock is not known);
 * PL011_EBAUD when the UART was never programmed (IBRD 0). Reads IBRD, FBRD and LCR_H only. */
int pl011_line_adopt(const struct pl011_config *config, struct pl011_baud *baud, uint32_t *lcr_h);
/* Whether a quiesce may leave LCR_H alone: an adopted line with nothing in the TX FIFO. */
bool pl011_line_keeps_format(const struct pl011 *uart);

/* lib/pl011_tx.c: pl011_set_line holds TX as shutdown takes it (for good: writers queue, panics
 * are refused), with IMSC frozen at 0; false, with nothing changed, when the owner did not let
 * go within shutdown's wait. pl011_tx_give_back lets go and sends what was queued meanwhile. */
bool pl011_tx_hold(struct pl011 *uart);
void pl011_tx_give_back(struct pl011 *uart);
/* The RS-485 release tick: own TX if nobody does (no wait), and let go as every owner does
 * (a pass for bytes queued meanwhile). */
bool pl011_tx_try_take(struct pl011 *uart);
void pl011_tx_let_go(struct pl011 *uart);

#endif
