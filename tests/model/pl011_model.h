/* Discrete-event behavioural model of the ARM PL011 UART for host tests (docs/design.md, "Layers"). */
#ifndef PL011_MODEL_H
#define PL011_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The model defines pl011_io_read / pl011_io_write (lib/pl011_io.h with PL011_IO_HOOKS), so the
 * driver runs against it unmodified. Up to PL011_MODEL_MAX instances live at once; an access is
 * routed by address to the instance whose 4 KiB window [base, base + 0x1000) holds it, and an
 * access anywhere else aborts the test.
 *
 * Time is simulated nanoseconds. It moves only when the "CPU" spends it: a register access costs
 * read_cost_ns / write_cost_ns, a clock read costs clock_read_cost_ns, and the test says "the
 * CPU does other work for ns" with pl011_model_advance. While time moves, every event due is
 * processed in time order: a TX character finishing, an RX character arriving, the receive
 * timeout, and the dispatch of the interrupt handler. A dispatch that falls inside an access
 * made by thread code runs the handler there, before the access takes effect: that is how
 * preemption between two register accesses is modelled.
 *
 * Not modelled: IrDA (SIREN), the modem status interrupts of DSR, DCD and RI (those lines show
 * in FR only; a CTS change raises RIS.CTS),
 * DMA (DMACR is stored only), the integration test registers, and the external RX line being
 * disconnected in loopback (injected characters still arrive with LBE). nUARTRTS is modelled
 * (RTSEn or CR.RTS) and only the RX line partner looks at it.
 */

#define PL011_MODEL_MAX 4
#define PL011_MODEL_WINDOW 0x1000u
#define PL011_MODEL_REGS (PL011_MODEL_WINDOW / 4u) /* counters are indexed by offset / 4 */

struct pl011_model_config {
	uintptr_t base;         /* start of the 4 KiB register window */
	uint32_t uartclk_hz;    /* UARTCLK */
	unsigned fifo_depth;    /* 16 (PeriphID2 revision 1) or 32 (revision 3, r1p5) */
	/* The depth PeriphID2 claims, for silicon whose ID lies (BCM2835/6/7: revision 3, 16
	 * entries): 0 = fifo_depth; else 16 or 32. */
	unsigned id_fifo_depth;
	/* Bits flipped in PCellID0-3 read as one word (PCellID0 the low byte), for a block that is
	 * not a PL011: 0 = the PL011's 0xB105F00D; 0xB105F00D makes all four read 0. */
	uint32_t cell_id_flipped_bits;
	uint32_t read_cost_ns;  /* CPU time of one register read (a round trip) */
	uint32_t write_cost_ns; /* CPU time of one register write (posted) */
	uint32_t clock_read_cost_ns; /* CPU time of one pl011_model_clock_us call (a timer read) */
	uint32_t irq_entry_cost_ns;  /* exception entry, controller acknowledge and exit */
	uint64_t irq_latency_ns;     /* line asserted -> handler dispatched (fixed part) */
	/* Loaded CPU: when latency_jitter_ns > 0 each dispatch adds a heavy-tailed jitter in
	 * [0, latency_jitter_ns] drawn from a xorshift32 generator seeded with latency_seed. */
	uint32_t latency_seed;
	uint64_t latency_jitter_ns;
	/* Abort when simulated time passes this (catches a driver spinning forever); 0 = never. */
	uint64_t time_limit_ns;
};

/* Register accesses, interrupts and anomalies, all since create (or pl011_model_reset_counters). */
struct pl011_model_counters {
	uint64_t reads[PL011_MODEL_REGS];  /* per register, index offset / 4 */
	uint64_t writes[PL011_MODEL_REGS]; /* per register, index offset / 4 */
	uint64_t total_reads;
	uint64_t total_writes;
	uint64_t clock_reads;
	uint64_t irq_dispatches;
	uint64_t cpu_ns;     /* modelled CPU time in driver code: accesses + clock reads + irq entries */
	uint64_t irq_cpu_ns; /* the part of cpu_ns spent inside the handler (entry included) */
	uint64_t tx_overflows;   /* DR written with the TX FIFO full: byte dropped (a driver bug) */
	uint64_t tx_wire_bytes;  /* characters that finished on the wire */
	uint64_t tx_fen_flushed; /* TX bytes thrown away by clearing LCR_H.FEN */
	uint64_t rx_received;    /* characters that entered the RX FIFO */
	uint64_t rx_overruns;    /* characters lost to a full RX FIFO */
	uint64_t rx_overrun_events; /* overruns that found RIS.OE clear (each a new OE cause) */
	uint64_t rx_dropped_disabled; /* characters that arrived with UARTEN or RXE clear */
	uint64_t rx_fen_flushed;      /* RX bytes thrown away by clearing LCR_H.FEN */
	uint64_t rx_empty_reads;      /* DR read with the RX FIFO empty */
	uint64_t order_violations;    /* IBRD/FBRD/LCR_H changed while UARTEN (TRM 3.3.7) */
	/* LCR_H write changing the line (other than BRK) or latching a new divisor while a
	 * character is still shifting out, even with UARTEN clear (TRM 3.3.8: wait first) */
	uint64_t reprogram_while_shifting;
	uint64_t cr_writes_while_busy; /* informational (BCM: don't touch CR while busy) */
	uint64_t misuse; /* write to a read-only register, read of ICR, reserved IFLS code */
	uint64_t icr_tx_only; /* ICR writes of the TX bit alone (a handler deferring TX) */
	uint64_t underruns;        /* a character ended, FIFO empty, driver still had data */
	uint64_t underrun_idle_ns; /* line idle time in those gaps */
	/* The driver's synchronisation, which the model charges no time for (make bench may, at
	 * a cost it states): pl011_io_barrier calls (a DMB SY on ARMv7/v8) and atomic points
	 * (each shared-word load, store or read-modify-write), in all and inside the handler;
	 * rmw_points counts the atomic points that are read-modify-writes
	 * (pl011_io_atomic_rmw_point: compare-exchange, fetch-and-op), so the plain loads and
	 * stores are atomic_points - rmw_points. */
	uint64_t barriers, irq_barriers;
	uint64_t atomic_points, irq_atomic_points;
	uint64_t rmw_points, irq_rmw_points;
};

struct pl011_model;

/*
 * Defaults: base 0x101F1000 (versatilepb UART0), UARTCLK 48 MHz, 16-deep FIFO, read 50 ns,
 * write 10 ns, clock read 50 ns, IRQ entry 300 ns, latency 1000 ns, no jitter (seed 1),
 * time limit 60 s. The reasoning behind the costs is in pl011_model.c.
 */
void pl011_model_default_config(struct pl011_model_config *config);

/* Reset state (CR 0x300, IFLS 0x12, FIFOs empty, TXFE/RXFE set, CTS asserted), time 0.
 * Aborts on a bad config, an overlapping window, or more than PL011_MODEL_MAX instances. */
struct pl011_model *pl011_model_create(const struct pl011_model_config *config);
void pl011_model_destroy(struct pl011_model *model);

/* ---- time ---- */
uint64_t pl011_model_now_ns(const struct pl011_model *model);
/* A pl011_clock_fn: now / 1000, truncated to 32 bits. Costs clock_read_cost_ns of CPU time. */
uint32_t pl011_model_clock_us(void *model);
/* The CPU does other work for ns; everything due meanwhile happens (handlers add their time). */
void pl011_model_advance(struct pl011_model *model, uint64_t ns);
/* Advance until now >= t_ns (no-op if already there). */
void pl011_model_advance_to(struct pl011_model *model, uint64_t t_ns);

/* ---- interrupt ---- */
void pl011_model_set_irq_handler(struct pl011_model *model, void (*handler)(void *context),
				 void *context);
bool pl011_model_irq_line(const struct pl011_model *model); /* (RIS & IMSC) != 0 */
bool pl011_model_in_irq(const struct pl011_model *model);

/*
 * Preemption points, for the explorers. The hook (global: the driver's atomic points carry no
 * address) is called at the start of every register access, before its cost and effect, and
 * at every pl011_io_atomic_point and pl011_io_atomic_rmw_point the driver passes. A hook that runs driver code (an interrupt
 * it delivers) is called again from inside it: it must keep its own count. NULL removes it.
 */
void pl011_model_set_preempt_hook(void (*hook)(void *context), void *context);

/*
 * Posted Device writes, for the two-core explorers (lib/pl011_io.h states the premise): with
 * core_of set, a register write takes its cost when issued but its effect only at the writing
 * core's next register read or pl011_io_barrier, or once the other core has passed
 * other_points preemption points, in program order per core. ignore_barriers makes
 * pl011_io_barrier land nothing (the barrier removed). NULL lands everything and turns it off.
 */
void pl011_model_set_posted_writes(int (*core_of)(void), unsigned other_points,
				   bool ignore_barriers);

/* Run fn(context) as an interrupt handler of another source: while it runs the model does not
 * dispatch this UART's handler (interrupts are masked in a handler, as on a bare-metal core
 * without nesting), and its time counts as handler time. Nests. */
void pl011_model_run_as_irq(struct pl011_model *model, void (*fn)(void *context), void *context);

/* ---- faults and inputs ---- */
void pl011_model_set_tx_irq_broken(struct pl011_model *model, bool broken); /* TXRIS never sets */
void pl011_model_set_tx_stalled(struct pl011_model *model, bool stalled);   /* no new TX char */
void pl011_model_set_cts(struct pl011_model *model, bool asserted); /* blocks TX only with CTSEn */
/* The other modem status inputs, as FR shows them (DSR, DCD, RI; no change interrupts). */
void pl011_model_set_modem_inputs(struct pl011_model *model, bool dsr, bool dcd, bool ri);
/* Called with ctx when a character ends and the TX FIFO is empty: bytes the driver still holds.
 * A non-zero answer counts an underrun and the idle time until the next character starts. */
void pl011_model_set_backlog_probe(struct pl011_model *model, size_t (*probe)(void *context),
				   void *context);

/* Each dispatch's latency (assertion to handler) from latency(context, now) instead of the
 * config's fixed latency and jitter, for latency families the config cannot express (spikes,
 * regime switches). NULL restores the config's. */
void pl011_model_set_latency_fn(struct pl011_model *model,
				uint64_t (*latency)(void *context, uint64_t now_ns), void *context);

/* ---- RX ---- */
/* One character whose stop bit ends at at_ns (>= now). errors: PL011_DR_FE | PE | BE only. */
void pl011_model_rx_inject(struct pl011_model *model, uint8_t byte, unsigned errors,
			   uint64_t at_ns);
/* Back-to-back characters at line rate (the latched frame), the first start bit at start_ns:
 * character i arrives at start_ns + (i + 1) * frame time. Returns the last arrival time. */
uint64_t pl011_model_rx_inject_stream(struct pl011_model *model, const uint8_t *data, size_t n,
				      uint64_t start_ns);
size_t pl011_model_rx_pending(const struct pl011_model *model); /* injected, not yet arrived */

/*
 * The RX line partner: a sender of n bytes (copied), back to back from now, one frame_ns each
 * (0: the latched frame). With honours_rts it looks at nUARTRTS before each character and
 * waits while it is deasserted; the character in flight always completes (TRM, "Hardware flow
 * control": transmission is expected to cease after the current character). It runs beside
 * pl011_model_rx_inject; one partner transfer at a time. Aborts while one is still sending.
 */
void pl011_model_rx_partner_start(struct pl011_model *model, const uint8_t *data, size_t n,
				  uint64_t frame_ns, bool honours_rts);
size_t pl011_model_rx_partner_sent(const struct pl011_model *model); /* characters completed */
/* nUARTRTS asserted ("send"): with CR.RTSEn while the RX FIFO holds fewer than the RX trigger
 * level (the watermark), else CR.RTS. */
bool pl011_model_rts(const struct pl011_model *model);

/* ---- observation (no cost, no side effects) ---- */
const struct pl011_model_counters *pl011_model_counters(const struct pl011_model *model);
void pl011_model_reset_counters(struct pl011_model *model);
size_t pl011_model_wire_len(const struct pl011_model *model);
uint8_t pl011_model_wire_byte(const struct pl011_model *model, size_t i);
uint64_t pl011_model_wire_start_ns(const struct pl011_model *model, size_t i);
uint64_t pl011_model_wire_end_ns(const struct pl011_model *model, size_t i);
/* Line control: what frame i was sent with, the latched divisor 64 * IBRD + FBRD and LCR_H
 * (without BRK). */
uint32_t pl011_model_wire_divisor(const struct pl011_model *model, size_t i);
uint32_t pl011_model_wire_lcr_h(const struct pl011_model *model, size_t i);
size_t pl011_model_break_count(const struct pl011_model *model);
uint64_t pl011_model_break_start_ns(const struct pl011_model *model, size_t i);
uint64_t pl011_model_break_end_ns(const struct pl011_model *model, size_t i); /* UINT64_MAX: held */
/* nUARTRTS edges that CR writes made (RTSEn's watermark edges are not logged), in order: the
 * simulated time and whether RTS became asserted (pin low). */
size_t pl011_model_rts_edge_count(const struct pl011_model *model);
uint64_t pl011_model_rts_edge_ns(const struct pl011_model *model, size_t i);
bool pl011_model_rts_edge_asserted(const struct pl011_model *model, size_t i);
unsigned pl011_model_tx_level(const struct pl011_model *model);
unsigned pl011_model_rx_level(const struct pl011_model *model);
bool pl011_model_tx_shifting(const struct pl011_model *model);
uint32_t pl011_model_ris(const struct pl011_model *model);
/* A register's value as a read would return it, without popping DR or counting (DR: the
 * oldest RX entry, or the last value read when empty). IBRD/FBRD give the holding registers. */
uint32_t pl011_model_peek(const struct pl011_model *model, uint32_t offset);
/* Frame and bit time of the latched settings, rounded to the nearest ns. */
uint64_t pl011_model_frame_ns(const struct pl011_model *model);
uint64_t pl011_model_bit_ns(const struct pl011_model *model);

#endif
