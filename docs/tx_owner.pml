/* The TX owner word of lib/pl011_tx.c as a Promela model, checked exhaustively by SPIN. */

/*
 * The processes are the rows of docs/design.md's transition table: a writer thread on core 0
 * that queues W bytes one at a time and primes (tx_kick, tx_own_or_request), a panic write
 * that interrupts that thread at any point (panic_own; as owner it drains what was queued at
 * its entry, then its own bytes; beside a preempted owner it writes only into an empty FIFO
 * and leaves it empty), the UART interrupt handler on core 1 (pl011_tx_service_irq: the
 * latched refill with its blind count, or ICR then a request), the line, which empties the
 * FIFO one character at a time and latches TXRIS as the level passes down through the
 * trigger (TRM 2.8), and shutdown on core 0 after the writer (pl011_tx_stop). Sequential
 * consistency: lib/pl011_io.h's barrier before every release is what makes the register
 * writes part of that order. The FR read and the DR write it allows are separate steps.
 *
 * Checked in every interleaving (`make spin-check`): no DR write into a full FIFO, only the
 * owner consumes the ring, IMSC equals ARMED whenever nobody owns TX, and no accepted byte is
 * stranded (the writer waits for an empty ring at the end: otherwise an invalid end state).
 * PANIC_ON_OTHER_CORE puts the panic on the TX interrupt's core instead, where it may give up
 * waiting for any owner and write beside it while that owner runs on (tx.beside and
 * tx_burst_allowed); poll_next is tx.poll_next, without which the interrupt's blind count
 * would overflow after any other writer. The mutations RELEASE_IGNORES_RETRY,
 * PANIC_WRITES_ON_ROOM and NO_BESIDE_CHECK must each be caught.
 */

#define DEPTH 4
#define TRIGGER 2   /* entries at the trigger: TXIS as the level goes from 3 to 2 */
#ifndef WRITES
#define WRITES 3    /* bytes the writer queues (5 with the panic on the other core: more than
                     * the FIFO holds, so that an owner could overflow it) */
#endif
#define PANIC_BYTES 2

#define NOBODY 0
#define WRITER 1
#define HANDLER 2
#define PANIC 3
#define SHUTDOWN 4

byte fifo;        /* TX FIFO level */
byte ring;        /* TX ring count */
bool owned, retry, armed, panic_owns, stopped;
byte who;         /* which context owns TX (the test's view, not a field of the driver) */
bool txim;        /* IMSC.TXIM */
bool latched;     /* RIS.TXRIS */
bool preempted;   /* the panic runs on core 0: the writer does not */
bool beside;      /* tx.beside: a panic writes beside the owner */
bool poll_next;   /* tx.poll_next: someone other than the interrupt's refill wrote the FIFO */
bool writer_done;

/* A step of the writer: only while the panic that interrupted it has not returned. */
#define W_STEP (!preempted)

inline dr_write() {
	assert(fifo < DEPTH);
	fifo++;
	if
	:: fifo > TRIGGER -> latched = false
	:: else -> skip
	fi
}

/*
 * tx_burst_allowed, before an owner's DR write: with the panic on the other core, the owner
 * looks at tx.beside at least every DEPTH - 1 characters (the code looks more often) and
 * writes nothing while it is set. NO_BESIDE_CHECK removes the look: the mutant.
 */
inline owner_burst() {
#if defined(PANIC_ON_OTHER_CORE) && !defined(NO_BESIDE_CHECK)
	if
	:: burst == 0 -> atomic { !beside -> burst = DEPTH - 1 }
	:: else -> skip
	fi;
	burst--
#else
	skip
#endif
}

/* One byte from the ring by the owner `me`. */
inline consume(me) {
	assert(owned && who == me);
	ring--
}

/* Owner: fill while FR shows room, until TXFF or the ring is empty; saw_full says which. */
inline fill_polling(me, guard, saw_full) {
	saw_full = false;
	do
	:: guard;
		atomic { if
		:: fifo == DEPTH -> saw_full = true; break
		:: ring == 0 -> break
		:: else -> skip
		fi }
		guard;
		owner_burst();
		atomic { dr_write(); consume(me); poll_next = true }
	od
}

/* tx_send_and_release: refill (blind if latched), arm or mask, release unless RETRY. */
inline send_and_release(me, guard, latch) {
	burst = 0;
	do
	:: guard ->
		if
		:: latch && poll_next ->
			/* refill_by_strategy after another writer: poll this once */
			poll_next = false;
			fill_polling(me, guard, sure);
			poll_next = false;
			sure = true
		:: latch && !poll_next ->
			/* the blind count: depth - trigger, no FR read */
			blind = 0;
			do
			:: blind < DEPTH - TRIGGER && ring > 0 ->
				guard;
				owner_burst();
				atomic { dr_write(); consume(me) };
				blind++
			:: else -> break
			od;
			sure = true
		:: else -> fill_polling(me, guard, sure)
		fi;
		latch = false;
		guard;
		if
		:: ring == 0 -> atomic { txim = false; armed = false }; pass = true
		:: ring != 0 && sure -> atomic { txim = true; armed = true }; pass = true
		:: ring != 0 && !sure -> pass = false   /* bytes came after the ring ran dry */
		fi;
		if
		:: pass ->
			/* tx_release */
			guard;
#ifdef RELEASE_IGNORES_RETRY
			atomic { owned = false; retry = false; who = NOBODY; panic_owns = false };
			break
#else
			atomic { if
				:: retry -> retry = false; pass = false
				:: else -> owned = false; who = NOBODY; panic_owns = false
				fi };
			if
			:: pass -> break
			:: else -> skip
			fi
#endif
		:: else -> skip
		fi
	od
}

/* tx_own_or_request: take TX, or ask the owner for one more pass. */
inline own_or_request(me, got) {
	atomic { if
		:: stopped -> got = false
		:: owned -> retry = true; got = false
		:: else -> owned = true; who = me; got = true
		fi }
}

active proctype writer() {
	byte i = 0, blind = 0;
	byte burst = 0;
	bool got, sure, pass, latch = false;
	do
	:: i < WRITES ->
		W_STEP -> !panic_owns;   /* write_queued: nothing queued while a panic owns TX */
		W_STEP -> ring++;
		i++;
		/* tx_kick */
		if
		:: W_STEP && armed && !owned -> skip
		:: W_STEP && !(armed && !owned) ->
			own_or_request(WRITER, got);
			if
			:: got -> send_and_release(WRITER, W_STEP, latch)
			:: else -> skip
			fi
		fi
	:: else -> break
	od;
#ifdef SHUTDOWN_AFTER
	/* pl011_tx_stop: take TX for good, mask, discard the ring (counted) */
	W_STEP -> atomic { !owned -> owned = true; who = SHUTDOWN; stopped = true };
	atomic { txim = false; armed = false; ring = 0 };
#endif
	writer_done = true;
	/* every accepted byte leaves (or was counted discarded) */
	ring == 0
}

active proctype handler() {
	byte blind = 0, burst = 0;
	bool got, sure, pass, latch;
end:	do
	:: atomic { latched && txim -> skip };
		latch = true;
		atomic { if
			:: !owned && !stopped -> owned = true; who = HANDLER; got = true
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
		fi
	od
}

active proctype line() {
end:	do
	:: atomic { fifo > 0 -> if
		:: fifo == TRIGGER + 1 -> latched = true
		:: else -> skip
		fi;
		fifo-- }
	od
}

/* A panic write interrupting the writer on core 0, once, at any point; with
 * PANIC_ON_OTHER_CORE it runs on core 1 beside the writer instead, and may give up waiting
 * for any owner (that owner's core was stopped for longer than the panic's wait). */
active proctype panic() {
	byte snapshot, n = 0, blind = 0, burst = 0;
	bool got, sure, pass, latch = false;
end_idle:
#ifdef PANIC_ON_OTHER_CORE
	!writer_done;
#else
	atomic { !writer_done -> preempted = true };
#endif
	snapshot = ring;
	/* panic_own: the owner on this core cannot let go; one on core 1 does, within a refill */
	do
	:: atomic { !owned && !stopped -> owned = true; who = PANIC; panic_owns = true; got = true }; break
	:: atomic { owned && who == WRITER -> got = false }; break
#ifdef PANIC_ON_OTHER_CORE
	:: atomic { owned -> got = false }; break
#endif
	:: atomic { stopped -> got = false }; goto done
	od;
	if
	:: got ->
		/* drain_ring_polled: at most the snapshot, then our bytes, polling FR */
		do
		:: snapshot > 0 && ring > 0 -> atomic { fifo < DEPTH -> dr_write(); consume(PANIC) }; snapshot--
		:: else -> break
		od;
		do
		:: n < PANIC_BYTES -> atomic { fifo < DEPTH -> dr_write(); poll_next = true }; n++
		:: else -> break
		od;
		send_and_release(PANIC, true, latch)
	:: else ->
		/* panic_beside_owner: only into an empty FIFO, and leave it empty */
		beside = true;
		do
		:: n < PANIC_BYTES ->
#ifdef PANIC_WRITES_ON_ROOM
			fifo < DEPTH;
#else
			fifo == 0;
#endif
			atomic { dr_write(); n++ }
		:: else -> break
		od;
		fifo == 0;
		beside = false
	fi;
done:	preempted = false
}

/* IMSC says what the word says whenever nobody owns TX: checked at every reachable state. */
active proctype monitor() {
	assert(owned || txim == armed)
}
