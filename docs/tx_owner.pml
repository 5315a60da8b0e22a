/* The TX owner word of lib/pl011_tx_owner.h (and its passes in lib/pl011_tx_ring.c) as a Promela model, checked exhaustively by SPIN. */

/*
 * The processes are the rows of docs/design.md's transition table: a writer thread on core 0
 * that queues W bytes one at a time, each after a look at PANIC (write_queued: nothing while a
 * panic owns TX), and primes (tx_kick, tx_own_or_request), a panic write that interrupts that
 * thread at any point (panic_own; as owner it drains what was queued at its entry, then its own
 * bytes, then its last pass with PANIC; beside a preempted owner it writes only into an empty
 * FIFO, leaves it empty, then restarts the ring: panic_last_pass),
 * the UART interrupt handler on core 1 (pl011_tx_service_irq: the latched refill with its
 * blind count, or ICR then a request), the line, which empties the FIFO one character at a
 * time and latches TXRIS as the level passes down through the trigger (TRM 2.8), and
 * shutdown on core 0 after the writer (pl011_tx_stop: tx_take_for_good's first wait, STOPPED,
 * the second wait, tx_wait_beside_done). tx_send_and_release's rules: a pass that wrote
 * PASS_LIMIT bytes without TXFF lets go, waits while PANIC_WAITS says a panic wants TX
 * (tx_let_waiter_in), then owns again or requests; the panic's last pass goes on there unless
 * PANIC_WAITS or STOPPED is set, and owns again with PANIC (tx_mark); a pass that stopped short
 * beside a panic or under STOPPED masks and lets go (tx_must_pause). Sequential consistency:
 * lib/pl011_io.h's barrier before every release is what makes the register writes part of that
 * order. The FR read and the DR write it allows are separate steps.
 *
 * Checked in every interleaving (`make spin-check`): no DR write into a full FIFO, only the
 * owner consumes the ring, IMSC equals ARMED whenever nobody owns TX, no byte both sent and
 * counted discarded by shutdown, a waiting panic overtaken by at most two passes at the
 * limit, no look of the writer's that finds PANIC clear while the panic's last pass owns TX
 * and has let no waiter in (so the pass sends only what was queued before it or after a look
 * made before it: it ends however fast the writer queues), and no accepted byte stranded (the
 * writer waits for an empty ring, or one shutdown counted, at the end: otherwise an invalid
 * end state).
 * PANIC_ON_OTHER_CORE puts the panic on the TX interrupt's core instead (the interrupt
 * preempts it), where it sets PANIC_WAITS while it waits and may give up waiting for any owner
 * and write beside it while that owner runs on (tx.beside and tx_burst_allowed); poll_next is
 * tx.poll_next, without which the interrupt's blind count would overflow after any other
 * writer.
 *
 * STUCK lets shutdown's waits give up on any owner and on a panic beside it (its core stopped,
 * or on one core a lower-priority task the shutdown's task preempted), as PL011_ESTALLED says:
 * the ring counted under an owner that may still consume it. RESTART then starts the port
 * again (pl011_init of the stopped port): it waits until no context of the old run owns TX
 * (OWNED without HELD, here who != SHUTDOWN), writes beside it or runs the handler (init
 * refuses meanwhile and is called again), resets the port, and the writer sends one byte of
 * the new run. Each context notes the run it took TX or went beside in (my_run); no context
 * writes the FIFO or consumes the ring of a later run, and the new run's byte leaves (the
 * end state). beside is a count, as tx.beside, which init keeps: reset under a panic that
 * withdraws later, it wrapped and silenced TX (docs/shutdown.md's known limit 1; the mutant
 * INIT_CLEARS_BESIDE).
 *
 * OVER_STOP: with config.core_id, a panic that comes while the shutdown below it on its own
 * core has yet to disable the UART (stopping, not disabling) writes all its bytes, beside the
 * shutdown once it holds TX, and shutdown marks disabling and waits for tx.beside before the
 * disable (pl011_tx_disabling). Checked: it writes every byte, none after the disable.
 *
 * The mutations RELEASE_IGNORES_RETRY, PANIC_WRITES_ON_ROOM, NO_BESIDE_CHECK,
 * STOP_WITHOUT_STOPPED, INIT_IGNORES_OLD_RUN, INIT_CLEARS_BESIDE, OVER_STOP_CUT (the panic
 * over its own core's stop cut off as another core's: it wrote nothing there) and
 * PANIC_PASS_LETS_GO (the panic's last pass lets go at every limit and owns again without
 * PANIC: with the panic on the other core, its pass after writing beside the owner reaches the
 * limit with no RETRY to take, and the writer queues on) must each be caught.
 * OWNER_SPINS_BESIDE and LIMIT_IGNORES_PANIC_WAITS are not caught yet at the bounds `make
 * spin-check` affords (docs/testing.md).
 */

#define DEPTH 4
#define TRIGGER 2   /* entries at the trigger: TXIS as the level goes from 3 to 2 */
#ifndef WRITES
#define WRITES 3    /* bytes the writer queues (4 with the panic on the other core: as many as
                     * the FIFO holds, so that an owner could overflow it) */
#endif
#ifndef PANIC_BYTES
#define PANIC_BYTES 2
#endif
/* tx_pass_limit: 2 x depth characters in the code; 2 here, so that the model's small ring can
 * reach it (the rule is the same: a pass that wrote its limit without seeing TXFF lets go). */
#ifndef PASS_LIMIT
#define PASS_LIMIT 2
#endif

#define NOBODY 0
#define WRITER 1
#define HANDLER 2
#define PANIC 3
#define SHUTDOWN 4

byte fifo;        /* TX FIFO level */
byte ring;        /* TX ring count */
bool owned, retry, armed, panic_owns, stopped;
byte port_run;    /* the port's run: RESTART advances it */
bool frozen;      /* IMSC frozen at 0 by shutdown: an arm writes 0 */
bool disabling;   /* tx.stop's DISABLING: shutdown's last step */
bool disabled;    /* the UART disabled by shutdown: nothing leaves, init flushes it */
bool stalled;     /* a wait of shutdown's gave up (PL011_ESTALLED) */
bool panic_waits; /* PANIC_WAITS */
byte who;         /* which context owns TX (the test's view, not a field of the driver) */
bool txim;        /* IMSC.TXIM */
bool latched;     /* RIS.TXRIS */
bool preempted;   /* the panic runs on core 0: the writer does not */
bool in_irq;      /* the handler runs: with the panic on its core, the panic does not */
byte beside;      /* tx.beside: panics writing beside the owner */
bool poll_next;   /* tx.poll_next: someone other than the interrupt's refill wrote the FIFO */
bool writer_done;
bool stopping;    /* shutdown began: the port is no longer running */
byte overtaken;   /* passes stopped at the limit while PANIC_WAITS was set (the test's view) */
bool second_wait; /* shutdown's second wait began */
byte stop_passes; /* pass ends of any owner since then, up to 2 (the test's view) */
bool counted;     /* shutdown counted the ring as discarded without taking it */
bool panic_pass;  /* the panic's last pass owns TX and has let no waiter in (the test's view) */

/* A step of the writer: only while the panic that interrupted it has not returned. */
#define W_STEP (!preempted)
/* A step of the panic: with it on the TX interrupt's core, only while the handler is not
 * running over it (an RX callback's panic, preempted by the TX interrupt). */
#ifdef PANIC_ON_OTHER_CORE
#define P_STEP (!in_irq)
#else
#define P_STEP true
#endif

/* A DR write by a context that took TX (or went beside) in run r. */
inline dr_write(r) {
	assert(r == port_run);   /* no context of an older run writes the new run's FIFO */
	if
	:: disabled -> skip  /* counted as discarded by the stop that gave up on it; init flushes */
	:: else ->
		assert(fifo < DEPTH);
		fifo++;
		if
		:: fifo > TRIGGER -> latched = false
		:: else -> skip
		fi
	fi
}

/*
 * tx_burst_allowed, before an owner's DR write: with the panic on the other core, the owner
 * looks at tx.beside at least every DEPTH - 1 characters (the code looks more often) and,
 * while it is set, writes nothing and ends its pass (paused): tx_send_and_release then lets
 * go masked. NO_BESIDE_CHECK removes the look; OWNER_SPINS_BESIDE waits for the panic to
 * leave instead of ending the pass (the code before the nested-panic fix): both mutants.
 */
inline owner_burst(paused) {
#if defined(PANIC_ON_OTHER_CORE) && !defined(NO_BESIDE_CHECK)
	if
	:: burst == 0 ->
#ifdef OWNER_SPINS_BESIDE
		atomic { beside == 0 -> burst = DEPTH - 1 }
#else
		atomic { if
		:: beside != 0 -> paused = true
		:: else -> burst = DEPTH - 1
		fi }
#endif
	:: else -> skip
	fi;
	if
	:: !paused -> burst--
	:: else -> skip
	fi
#else
	skip
#endif
}

/* One byte from the ring by the owner `me`, which took TX in run my_run. */
inline consume(me) {
	assert(owned && who == me);
	assert(my_run == port_run);
	/* never both sent and counted discarded (review S1), but where a wait of shutdown's gave
	 * up on the owner and said so */
	assert(!counted || stalled);
	ring--
}

/* Owner: fill while FR shows room, until TXFF, the ring is empty, the pass limit or a panic
 * beside; saw_full says whether it saw TXFF, limited whether it stopped at the limit. */
inline fill_polling(me, guard, saw_full) {
	saw_full = false;
	written = 0;
	do
	:: guard;
		atomic { if
		:: fifo == DEPTH -> saw_full = true; break
		:: ring == 0 -> break
		:: written == PASS_LIMIT -> limited = true; break
		:: else -> skip
		fi }
		guard;
		owner_burst(paused);
		if
		:: paused -> break
		:: else -> skip
		fi;
		atomic { dr_write(my_run); consume(me); poll_next = true };
		written++
	od
}

/* tx_release: let go unless RETRY, which it takes instead (released says which). */
inline release(released) {
#ifdef RELEASE_IGNORES_RETRY
	atomic { owned = false; retry = false; who = NOBODY; panic_owns = false };
	released = true
#else
	atomic { if
		:: retry -> retry = false; released = false
		:: else -> owned = false; who = NOBODY; panic_owns = false; released = true
		fi }
#endif
}

/* tx_own_or_request: take TX, or ask the owner for one more pass. */
inline own_or_request(me, got) {
	atomic { if
		:: stopped -> got = false
		:: owned -> retry = true; got = false
		:: else -> owned = true; who = me; got = true; my_run = port_run
		fi }
}

/*
 * tx_send_and_release: refill (blind if latched), then arm, mask, or let go between passes
 * at the pass limit (tx_let_waiter_in: while PANIC_WAITS is set, wait for the panic to own TX,
 * then own again or request; the panic's last pass only for a waiter), or mask and let go
 * beside a panic or under STOPPED (tx_must_pause); release unless RETRY.
 */
inline send_and_release(me, guard, latch) {
	burst = 0;
	do
	:: guard ->
		limited = false;
		paused = false;
		latched_pass = latch;
		if
		:: latch && poll_next ->
			/* refill_by_strategy after another writer: poll this once */
			poll_next = false;
			fill_polling(me, guard, sure);
			poll_next = false
		:: latch && !poll_next ->
			/* the blind count: depth - trigger, no FR read */
			blind = 0;
			do
			:: blind < DEPTH - TRIGGER && ring > 0 ->
				guard;
				owner_burst(paused);
				if
				:: paused -> break
				:: else -> skip
				fi;
				atomic { dr_write(my_run); consume(me) };
				blind++
			:: else -> break
			od
		:: else -> fill_polling(me, guard, sure)
		fi;
		/* the latched refill's limit sets nothing: only refill_until_full's does */
		if
		:: latch -> sure = true; limited = false
		:: else -> skip
		fi;
		latch = false;
		guard;
		atomic { if
		:: second_wait && stop_passes < 2 -> stop_passes++
		:: else -> skip
		fi;
		if
		:: ring == 0 -> step = 0
		:: ring != 0 && latched_pass && !(beside != 0 || stopped) -> step = 1
		:: ring != 0 && !latched_pass && sure -> step = 1
		:: ring != 0 && !(latched_pass && !(beside != 0 || stopped)) && !(!latched_pass && sure) &&
			limited -> step = 2
		:: ring != 0 && !(latched_pass && !(beside != 0 || stopped)) && !(!latched_pass && sure) &&
			!limited && (beside != 0 || stopped) -> step = 0
		:: ring != 0 && !(latched_pass && !(beside != 0 || stopped)) && !(!latched_pass && sure) &&
			!limited && !(beside != 0 || stopped) -> step = 3   /* bytes came after the ring ran dry */
		fi;
		if
		:: step == 2 && panic_waits -> overtaken++
		:: else -> skip
		fi }
		if
		:: step == 0 -> atomic { txim = false; armed = false }
		:: step == 1 -> atomic { txim = !frozen; armed = true }
		:: else -> skip
		fi;
		if
		:: step == 2 ->
			/* the word loaded (mark: its PANIC, restored on owning again): the panic's
			 * last pass goes on unless a panic waits or shutdown took TX (no line switch
			 * here, so no SWITCH_WAITS; one panic, so no PANIC_OWNER). PANIC_PASS_LETS_GO:
			 * it lets go as any pass. */
			guard;
			atomic {
				mark = panic_owns;
				if
				:: panic_owns && (panic_waits || stopped) -> panic_pass = false
				:: else -> skip
				fi;
#ifndef PANIC_PASS_LETS_GO
				if
				:: panic_owns && !panic_waits && !stopped -> step = 3
				:: else -> skip
				fi
#endif
			}
		:: else -> skip
		fi;
		if
		:: step == 2 ->
			guard;
			release(released);
			if
			:: released ->
#ifndef LIMIT_IGNORES_PANIC_WAITS
				/* tx_let_waiter_in: its 100 us are the panic's spin, which takes TX */
				guard;
				(owned || !panic_waits);
#endif
				guard;
				atomic { own_or_request(me, got);
					if
					:: !got && me == PANIC -> panic_pass = false
					:: else -> skip
					fi };
				if
				:: !got -> break
				:: else -> skip
				fi;
#ifndef PANIC_PASS_LETS_GO
				/* tx_mark: owning again as the panic */
				if
				:: mark -> atomic { guard -> panic_owns = true; panic_pass = true }
				:: else -> skip
				fi
#endif
			:: else -> skip
			fi
		:: step == 3 -> skip
		:: else ->
			guard;
			atomic { release(released);
				if
				:: released && me == PANIC -> panic_pass = false
				:: else -> skip
				fi };
			if
			:: released -> break
			:: else -> skip
			fi
		fi
	od
}

/* tx_kick, after queueing: nothing if the interrupt is sure to come, else own or request. */
inline kick() {
	if
	:: W_STEP && armed && !owned -> skip
	:: W_STEP && !(armed && !owned) ->
		own_or_request(WRITER, got);
		if
		:: got -> send_and_release(WRITER, W_STEP, latch)
		:: else -> skip
		fi
	fi
}

/* A wait of shutdown's for a panic beside the owner: it ends when the panic has left, or
 * (STUCK) gives up on one whose core stopped, and says so. */
inline wait_beside_gone() {
#ifdef STUCK
	if
	:: W_STEP && beside == 0 -> skip
	:: W_STEP && beside != 0 -> stalled = true
	fi
#else
	W_STEP -> beside == 0
#endif
}

active proctype writer() {
	byte i = 0, blind = 0, written = 0, step = 0;
	byte burst = 0, my_run = 0;
	bool got, sure, pass, latch = false, limited, paused, latched_pass, released, mark;
	do
	:: i < WRITES ->
		/* write_queued: nothing queued while a panic owns TX, a look, then the queueing */
		atomic { W_STEP && !panic_owns -> assert(!panic_pass) };
		W_STEP -> ring++;
		i++;
		kick()
	:: else -> break
	od;
#ifdef SHUTDOWN_AFTER
	/* pl011_tx_stop, without waiting for the ring: tx_take_for_good's first wait (it may run
	 * out while the handler owns TX on the other core), then STOPPED and a second wait, which
	 * runs out only after the owner has ended a pass twice (the owner's core runs: it ends a
	 * pass within the wait; STUCK: at any time, its core stopped); then the ring is taken, or
	 * counted but left to the owner. Then pl011_tx_disabling: DISABLING, the last wait for a
	 * panic beside, the disable. */
	atomic { W_STEP -> stopping = true };
	if
	:: atomic { W_STEP && !owned -> owned = true; who = SHUTDOWN; stopped = true; got = true }
	:: atomic { W_STEP && owned -> got = false }   /* the first wait ran out */
	fi;
	if
	:: !got ->
#ifdef STOP_WITHOUT_STOPPED
		W_STEP -> second_wait = true;
#else
		W_STEP -> atomic { stopped = true; second_wait = true };
#endif
		if
		:: atomic { W_STEP && !owned -> owned = true; who = SHUTDOWN; stopped = true; got = true }
#ifdef STUCK
		:: atomic { W_STEP && owned -> got = false; stalled = true }
#else
		:: atomic { W_STEP && owned && stop_passes >= 2 -> got = false }
#endif
		fi
	:: else -> skip
	fi;
	wait_beside_gone();   /* tx_wait_beside_done */
	if
	:: got -> atomic { txim = false; frozen = true; armed = false; ring = 0 }
	:: else -> atomic { txim = false; frozen = true; counted = true }
	fi;
	atomic { W_STEP -> disabling = true };
	wait_beside_gone();
	atomic { W_STEP -> disabled = true; fifo = 0 };   /* the quiesce: its FEN flush */
#endif
#ifdef RESTART
	/* pl011_init of the stopped port: it waits until no context of the old run owns TX,
	 * writes beside it or runs the handler (refused meanwhile: the caller calls again), then
	 * resets what the run used and frees the word; the writer then sends one byte. */
#ifndef INIT_IGNORES_OLD_RUN
	W_STEP -> (!owned || who == SHUTDOWN) && beside == 0 && !in_irq;
#endif
	/* init keeps tx.beside (and the handlers' presence) through its clearing: a panic that decided
	 * to go beside before the stop may announce itself now, find STOPPED and withdraw */
	atomic { W_STEP -> port_run++; fifo = 0; ring = 0; owned = false; who = NOBODY;
		retry = false; armed = false; txim = false; frozen = false; latched = false;
		panic_owns = false; panic_waits = false; stopped = false; stopping = false;
		disabling = false; disabled = false; poll_next = false; counted = false;
		stalled = false; second_wait = false; stop_passes = 0 };
#ifdef INIT_CLEARS_BESIDE
	/* the count cleared with the rest: a panic that announced itself meanwhile withdraws
	 * from 0 (docs/shutdown.md's known limit 1) */
	atomic { W_STEP -> beside = 0 };
#endif
	atomic { W_STEP && !panic_owns -> assert(!panic_pass) };
	W_STEP -> ring++;
	kick();
#endif
	writer_done = true;
	/* every accepted byte leaves (or was counted discarded) */
	ring == 0 || counted
}

active proctype handler() {
	byte blind = 0, burst = 0, written = 0, step = 0, my_run = 0;
	bool got, sure, pass, latch, limited, paused, latched_pass, released, mark;
end:	do
	:: atomic { latched && txim -> in_irq = true };
		latch = true;
		atomic { if
			:: !owned && !stopped -> owned = true; who = HANDLER; got = true; my_run = port_run
			:: else -> got = false
			fi };
		if
		:: got -> send_and_release(HANDLER, true, latch)
		:: else ->
			latched = false;   /* ICR before the request */
			own_or_request(HANDLER, got);
			if
			:: got -> latch = false; send_and_release(HANDLER, true, latch)
			:: else -> skip
			fi
		fi;
		in_irq = false
	od
}

active proctype line() {
end:	do
	:: atomic { fifo > 0 && !disabled -> if
		:: fifo == TRIGGER + 1 -> latched = true
		:: else -> skip
		fi;
		fifo-- }
	od
}

/* A panic write interrupting the writer on core 0, once, at any point; with
 * PANIC_ON_OTHER_CORE it runs on core 1 beside the writer instead (where the TX interrupt may
 * preempt it), and may give up waiting for any owner (that owner's core was stopped for
 * longer than the panic's wait). */
/* Whether the panic writes no more: over its own core's stop once that stop disables the
 * UART, any other once a shutdown began (pl011_panic_cut_off). */
#define CUT (over -> disabling : stopping)

active proctype panic() {
	byte snapshot, n = 0, blind = 0, burst = 0, written = 0, step = 0, my_run = 0;
	bool got, sure, pass, latch = false, limited, paused, latched_pass, released, mark;
	bool in_stop = false, over = false;
end_idle:
#ifdef PANIC_ON_OTHER_CORE
	!writer_done;
#else
	atomic { !writer_done -> preempted = true; in_stop = stopping && !disabling };
#endif
#if defined(OVER_STOP) && !defined(OVER_STOP_CUT)
	/* config.core_id: the stop under way on our core is below us (panic_cut_at_entry) */
	over = in_stop;
#endif
	snapshot = ring;
	/* panic_own: the owner on this core cannot let go; one on core 1 does, within a refill;
	 * while it waits, PANIC_WAITS, which it clears when it owns TX or gives up. STOPPED:
	 * refused, unless the stop is the one below us (then beside it) */
	do
	:: atomic { P_STEP && !owned && !stopped -> owned = true; who = PANIC; got = true;
		my_run = port_run; panic_waits = false; overtaken = 0 }; break
#ifndef PANIC_ON_OTHER_CORE
	:: atomic { owned && who == WRITER && !stopped -> got = false }; break
#else
	:: atomic { P_STEP && owned && !panic_waits && !stopped -> panic_waits = true }
	:: atomic { P_STEP && owned && !stopped -> got = false; panic_waits = false; overtaken = 0 }; break
#endif
	:: atomic { P_STEP && stopped && over -> got = false }; break
	:: atomic { P_STEP && stopped && !over -> got = false; panic_waits = false }; goto done
	od;
	/* a waiting panic is overtaken by at most two passes at the limit (the owner's, then the
	 * one of an interrupt that took TX before it) */
	if
	:: got ->
		/* drain_ring_polled: at most the snapshot, then our bytes, polling FR; it stops
		 * once it is cut off */
		do
		:: snapshot > 0 && ring > 0 && !CUT ->
			atomic { P_STEP && fifo < DEPTH -> dr_write(my_run); consume(PANIC) }; snapshot--
		:: else -> break
		od;
		do
		:: n < PANIC_BYTES && !CUT ->
			atomic { P_STEP && fifo < DEPTH -> dr_write(my_run); poll_next = true }; n++
		:: else -> break
		od;
		/* panic_last_pass: PANIC, then a pass */
		atomic { P_STEP -> panic_owns = true; panic_pass = true };
		send_and_release(PANIC, P_STEP, latch)
	:: else ->
		/* panic_beside_owner: only into an empty FIFO, and leave it empty; before each byte
		 * (after its wait for an empty FIFO) a look at STOPPED and the cut, which shutdown
		 * and the line switch wait out with their look at tx.beside */
		P_STEP -> beside++;
		if
		:: atomic { P_STEP && stopped && !over -> beside-- }; goto done
		:: atomic { P_STEP && !(stopped && !over) -> my_run = port_run }
		fi;
		do
		:: n < PANIC_BYTES && !CUT ->
#ifdef PANIC_WRITES_ON_ROOM
			P_STEP && fifo < DEPTH;
#else
			P_STEP && fifo == 0;
#endif
			if
			:: P_STEP && (CUT || (stopped && !over)) -> break
			:: P_STEP && !(CUT || (stopped && !over)) -> skip
			fi;
			atomic { P_STEP -> dr_write(my_run); n++ }
		:: else -> break
		od;
		P_STEP && fifo == 0;
		atomic { P_STEP -> beside-- };
		/* an owner that found us here let go masked: the ring's bytes are ours to start
		 * again (panic_last_pass), or the owner's once more (RETRY) */
		if
		:: P_STEP && ring != 0 ->
			own_or_request(PANIC, got);
			if
			:: got ->
				atomic { P_STEP -> panic_owns = true; panic_pass = true };
				send_and_release(PANIC, P_STEP, latch)
			:: else -> skip
			fi
		:: P_STEP && ring == 0 -> skip
		fi
	fi;
done:
#ifdef OVER_STOP
	/* item 5 of issue 33: a panic over its own core's stop writes every byte of its own */
	assert(!in_stop || n == PANIC_BYTES);
#endif
	preempted = false
}

/* Checked at every reachable state: IMSC says what the word says whenever nobody owns TX
 * (but for shutdown's frozen IMSC under an owner that kept TX past both waits);
 * a panic waiting for TX is overtaken by at most two passes at the limit. */
active proctype monitor() {
	assert(owned || txim == armed || counted);
	assert(overtaken <= 2)
}
