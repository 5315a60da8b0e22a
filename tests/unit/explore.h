/* One explorer run: a thread scenario on the model with an interrupt delivered at a chosen
 * preemption point, and the TX invariants checked afterwards (preemption explorer, fuzzer). */
#ifndef TEST_EXPLORE_H
#define TEST_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

#include "pl011.h"

/* What the thread does (each call is followed by the stuck-ring check). */
enum explore_scenario {
	EXPLORE_PRIME_IDLE,  /* write 40 bytes without waiting to an idle port */
	EXPLORE_WRITE_BUSY,  /* write 40, let 20 us pass, write 40 more while TX runs */
	EXPLORE_WRITE_WAIT,  /* 200 bytes through a 64-byte ring, waiting for room */
	EXPLORE_FLUSH,       /* write 40, then flush */
	EXPLORE_PANIC,       /* write 40, then a panic write from the thread itself */
	EXPLORE_SHUTDOWN,    /* write 40, shut down with a 10 us bound, start again, write 10 */
	EXPLORE_REINIT, /* write 40, pl011_init refused, pl011_restart of the running port, write 10 */
	/* 100 bytes through a 64-byte ring with PL011_NO_WAIT, sleeping after each short write
	 * until TX space is given (a writer blocked on a semaphore the event gives) */
	EXPLORE_WRITE_SLEEP,
	EXPLORE_SET_LINE, /* write 40, pl011_set_line to half the rate, write 10 */
	EXPLORE_SCENARIOS,
};

/* What the interrupt delivered at the chosen point does. */
enum explore_interrupt {
	EXPLORE_UART_HANDLER, /* this UART's handler (latency ending exactly there) */
	EXPLORE_PANIC_OTHER,  /* another source's handler calls pl011_write_panic */
	EXPLORE_RX_PANIC,     /* two RX characters arrive; the RX callback calls pl011_write_panic */
	EXPLORE_RX_SLOW,      /* two RX characters arrive; the RX callback works callback_ns */
	EXPLORE_NESTED,       /* the UART handler, itself preempted at inner_point by a panic */
	/* The RX ring (64 bytes) 4 short of full since the start; 10 characters arrive and the
	 * handler pauses RX, changing the IMSC word that TX shares, with 6 left in the FIFO. */
	EXPLORE_RX_FILL,
	/* Another source's interrupt writes 6 bytes with PL011_NO_WAIT, if the thread is inside
	 * pl011_set_line (so it is the only writer): bytes queued while TX is held. */
	EXPLORE_WRITE_IN_HOLD,
	/* The event timer's interrupt, if armed (RS-485 on: a DE release owns TX and sends what
	 * was queued meanwhile: a refill inside the tick). */
	EXPLORE_TICK,
	/* EXPLORE_PANIC_OTHER with config.core_id (one core): a panic inside a stop on its own
	 * core writes all its bytes unless that stop had begun to disable the UART */
	EXPLORE_PANIC_OWN_CORE,
	/* a higher-priority task (EXPLORE_PANIC only, at each point of the thread's panic):
	 * pl011_shutdown(PL011_WAIT_AUTO), pl011_init, 10 bytes; when init refuses, the thread
	 * starts the port once its panic returned. The panic is then a context of an older run. */
	EXPLORE_RESTART,
	EXPLORE_INTERRUPTS,
};

#define EXPLORE_NEVER UINT64_MAX

struct explore_params {
	enum pl011_tx_mode mode;
	enum pl011_level tx_trigger;
	unsigned depth;
	uint32_t baud;
	enum explore_scenario scenario;
	enum explore_interrupt interrupt;
	uint64_t point;       /* deliver at the thread's point number `point` (from 0) */
	uint64_t inner_point; /* EXPLORE_NESTED: the panic at this point of the handler */
	uint32_t callback_ns; /* EXPLORE_RX_SLOW: CPU time the callback takes */
	uint64_t latency_ns;  /* the model's own interrupt latency */
	uint64_t jitter_ns;
	uint32_t seed;
	/*
	 * Two cores: the scenario runs on core 0 while core 1 takes the UART interrupt whenever
	 * its line is asserted (the model's own dispatch is off), and the cores switch at
	 * preemption points. switch_one_in > 0: at each point switch with probability 1 in
	 * switch_one_in, from a generator seeded with seed. 0: scripted: core 0 runs to its point
	 * `point`, core 1 to its point `inner_point`, core 0 `resume_points` more, then core 1 runs
	 * whenever the line is up. second_panic_at: core 1 calls pl011_write_panic once core 0
	 * has passed that many points (EXPLORE_NEVER: never). `interrupt` is not used.
	 */
	bool two_cores;
	uint32_t switch_one_in;
	uint64_t resume_points;
	uint64_t second_panic_at;
	/* RS-485 on (no delays; the driver enable on nUARTRTS, active high): every thread byte
	 * must start with DE on, and DE must be off once the ticks have ended. */
	bool rs485;
};

struct explore_result {
	uint64_t thread_points; /* preemption points the thread passed (core 0) */
	uint64_t second_points; /* two cores: points core 1 passed */
	uint64_t inner_points;  /* points inside the delivered interrupt (before any nesting) */
	bool delivered;
	bool inner_delivered;
	const char *failure; /* NULL when every invariant held */
};

/* Defaults: HALF_FIFO, trigger default, depth 16, 3 Mbaud, PRIME_IDLE, UART handler, never
 * delivered, 20 us callback, 1 us latency, no jitter, one core. */
void explore_default_params(struct explore_params *params);

void explore_run(const struct explore_params *params, struct explore_result *result);

#endif
