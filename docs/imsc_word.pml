/* The IMSC word of lib/pl011_internal.h and the RX pause kept in it (lib/pl011_rx.c) as a
 * Promela model, checked exhaustively by SPIN (issue 33). */

/*
 * IMSC is shared by the TX side and the RX side, which run in different contexts. Each changes
 * its bits in the word uart->imsc with one compare-and-swap, then publishes: it loads the word,
 * writes its value to IMSC, loads the word again, and writes again until it is unchanged
 * (pl011_word_update, pl011_word_publish). The RX pause is the state of RX|RT|OE in the word
 * (pl011_rx_paused), nowhere else: the handler pauses with pl011_imsc_update, which always
 * publishes, and a resume is one swap of the word and a publish (rx_resume_if_room). After
 * each MIS pass the handler publishes again when MIS shows a cause the word masks
 * (pl011_imsc_repair). A context preempted between its load and its IMSC write writes a stale
 * value; if that unmasks RX under the pause, the line (level-sensitive: RIS & IMSC != 0) calls
 * the handler, which must put IMSC right or be called again for ever. pl011_set_line freezes
 * the word (PL011_IMSC_FROZEN: a publish of a frozen word writes 0), waits until no handler is
 * inside (irq_inside), takes the RX FIFO into the ring itself, a second producer, and thaws;
 * a stale write can unmask RX meanwhile, so a handler that loads a frozen word serves nothing
 * and publishes (service_passes).
 *
 * The processes, each load, store, CAS and register access one step (an atomic block):
 *  - tx_owner, a thread: pl011_tx_arm(true), then (false), ARMS times each, TX owned (not
 *    while the switcher holds it): pl011_imsc_update of TXIM (load, CAS until one succeeds,
 *    publish: load, then write and load again until unchanged). Only its TXIM writes are
 *    modelled: the TX cause is not (RIS.TX stays 0; docs/tx_owner.pml is TX ownership and
 *    TXRIS), nor TX_ARMED, the owner's own bit;
 *  - reader, a thread: read_ring (one character, as pl011_getc, or all the ring holds, as
 *    pl011_read), then rx_resume_if_room (pl011_rx_paused's load of the word, the ring's
 *    space, the word loaded, CAS until it succeeds or another context resumed, publish);
 *  - switcher, a thread: pl011_set_line once: pl011_rx_paused (paused: EBUSY, nothing done);
 *    pl011_tx_hold (TX taken once the owner lets go, then pl011_imsc_update setting FROZEN);
 *    rx_hold_partner (RTS off: the line sends nothing until the CR write); the handlers
 *    waited out (pl011_wait_handlers_gone: irq_inside clear), unless a wait expires
 *    (pl011_wait_fr_for before it: ETIMEDOUT; it: ESTALLED); rx_fifo_fits (the FIFO empty,
 *    or RX not paused and a FIFO's worth of ring free; else EBUSY); switch_line's
 *    pl011_hw_quiesce: pl011_rx_take_fifo (drain_fifo into the ring through the switcher's
 *    own segment, bounded and stopped at a full ring as the handler's; then discard_fifo and
 *    the FEN flush, which lose what is left), IMSC written 0, then CR (RTS again); every path
 *    then imsc_thaw (an update clearing FROZEN and TXIM) and pl011_tx_give_back. Shutdown
 *    (pl011_stop_port) freezes, waits and takes alike but never thaws, and its handler
 *    returns before its presence once the port is SHUT: it is not modelled;
 *  - handler: entered when the line is up, present (irq_inside) from before its MIS read to
 *    its return; per pass (PASSES: line.irq_passes, 1, or 4 above a TX trigger of 1/2) the
 *    MIS read (0: return), pl011_imsc_load (frozen: publish and return), pl011_rx_service
 *    (drain_fifo: FR, commit and reserve when the segment is used up, DR into the segment, up
 *    to 2 x DEPTH characters, then commit; stopped at a full ring with a character waiting:
 *    rx_pause, which looks at the ring again with rx_resume_if_room; else rx_resume_if_room),
 *    then pl011_imsc_repair with the word loaded before;
 *  - line: TOTAL characters into the RX FIFO, waiting while it is full (flow control: with
 *    RTS/CTS the sender stops; nothing is lost to an overrun) or RTS is off.
 * Simplifications: RX and RT are one cause and one IMSC bit (RXB), which stands for all of
 * PL011_RX_PAUSE_BITS (OE, which a pause masks too, has no cause here: no overrun); RIS.RX is
 * "the FIFO holds a character". An FR read that shows a character is one step with what the
 * reader of the FIFO does next (a DR read, or a commit): one context takes characters out at
 * a time (6), so what it showed stays true, and a read changes nothing another process could
 * see in between. The ring is a count: pl011_ring_space's two index loads are one step, and
 * a reserved segment is all the free space (the ring's wrap only splits a drain into more
 * reserves). The switcher's RTS off is one step with its wait (it only gives the line more
 * room to send), and rx_fifo_fits with drain_fifo's first FR, commit and reserve (meanwhile
 * the FIFO stays, a pause can only end and the space only grow). Sequential consistency: the
 * code's accesses are seq_cst, with a fence before each side's look at the other and
 * lib/pl011_io.h's barrier after each IMSC write. The other IMSC bits (modem, errors) are not
 * modelled.
 *
 * One core (the default): the handler preempts the threads. Once the line is up it is taken
 * after any number of thread steps (the latency, none included), runs to completion without a
 * thread step, and if it returns with the line still up it is entered again at once
 * (tail-chaining, as on a Cortex-M: no thread instruction in between). TWO_CORES: the
 * handler runs on core 1 beside the threads, entered whenever the line is up; its presence
 * store and its load of the word are then steps of their own.
 *
 * Checked in every interleaving:
 *  (1) no storm: at most MAX_ENTRIES handler entries in a row without a thread step. On one
 *      core a handler that returns leaving the line up and finds nothing to change at its
 *      next entry is entered for ever: the thread whose recheck would fix IMSC never runs.
 *      The bound: every entry but the first after a thread step takes a character the line
 *      sent since, or pauses (the runs reach 3, and 5 with the ring of 4);
 *  (2) at quiescence (every process done, the line down, the handler out) IMSC equals the
 *      word, the word is not frozen, and RX is unmasked in IMSC iff RX is not paused;
 *  (3) nothing lost: characters sent = read + in the ring + in the handler's and the
 *      switcher's segments + in the FIFO at every state, and at quiescence the reader has
 *      read them all. The reader waits for the ring; one that waits with nothing else able
 *      to move is quiescence too, so a character stranded in the FIFO fails (2), (3) or (4),
 *      never only an end state;
 *  (4) no pause stuck: at quiescence with the ring empty, RX is not paused;
 *  (5) on one core, the handler never returns with RX unmasked in IMSC under the pause (a
 *      stale write that unmasked it is undone before the handler returns, not only when its
 *      writer looks again). NO_RETURN_CHECK leaves (5) out, so that a mutant's run shows
 *      the storm that follows;
 *  (6) the ring has one producer at a time: no handler step of drain_fifo while the
 *      switcher owns the FIFO and the ring (from its wait, which saw no handler inside, to
 *      its FIFO flush).
 * Mutants, each required to fail (tests/spin/check_imsc_word.sh): OLD_DESIGN (the design
 * before cee4466: a paused flag beside the word, set after masking; a pause that returns at
 * once when the flag is set; a resume that swaps the flag 1 -> 0, then updates the word; no
 * repair) and NO_REPAIR (a pause that publishes only when it changed the word, and no
 * pl011_imsc_repair), both a storm (1); NO_RECHECK (publish: one load and one write, no look
 * again), (2); NO_LOOK_AFTER_PAUSE (rx_pause without its rx_resume_if_room: a reader on the
 * other core that emptied the ring before it could see the pause is left waiting; on one core
 * the handler runs to completion, so it needs TWO_CORES), (4); NO_REPAIR_CALL (no
 * pl011_imsc_repair, the pause still always publishing), (5) only: for the RX cause a handler
 * that finds RX unmasked under the pause either empties the FIFO, and the line goes down, or
 * reaches the full ring and pauses, which writes IMSC; NO_FROZEN_CHECK (a handler that serves
 * under a frozen word: a stale write during the switcher's take calls one that drains beside
 * it), (6). PAUSE_PUBLISHES_ON_CHANGE (the repair kept) passes every check: the repair writes
 * what the pause did not.
 */

#ifndef DEPTH
#define DEPTH 2     /* RX FIFO entries */
#endif
#ifndef SIZE
#define SIZE 2      /* RX ring bytes (a power of two, as pl011_ring_init wants) */
#endif
#ifndef TOTAL
#define TOTAL 5     /* characters the line sends */
#endif
#ifndef ARMS
#define ARMS 2      /* TXIM arm-disarm pairs of the TX owner */
#endif
#ifndef PASSES
#define PASSES 1    /* MIS reads per handler entry (line.irq_passes) */
#endif
#ifndef MAX_ENTRIES
#define MAX_ENTRIES (TOTAL + 2)
#endif

/* resume_room: a FIFO's worth, or the whole ring if smaller */
#if DEPTH < SIZE
#define RESUME_ROOM DEPTH
#else
#define RESUME_ROOM SIZE
#endif

#define RXB 1       /* RX|RT|OE (PL011_RX_PAUSE_BITS), one bit here */
#define TXB 2       /* TXIM */
#define FROZEN 4    /* PL011_IMSC_FROZEN */

#define HANDLER 0
#define THREAD 1

byte word = RXB;    /* uart->imsc: RX unmasked, TXIM masked */
byte imsc = RXB;    /* the IMSC register */
byte fifo;          /* RX FIFO level; RIS.RX = fifo > 0 */
byte ring;          /* RX ring count (committed) */
byte seg;           /* characters the handler took from DR and has not committed yet */
byte sent;          /* characters the line sent */
byte nread;         /* characters the reader read */
bool in_irq;        /* the handler runs */
bool chained;       /* it returned with the line up: one core, it is entered again at once */
byte entries;       /* handler entries since the last thread step (the test's view) */
bool tx_done, reader_done;
bool reading;       /* the reader is between its read and the end of its resume */
bool inside;        /* irq_inside: the handler's presence */
bool tx_busy;       /* the TX owner is in an arm (it owns TX) */
bool tx_held;       /* the switcher holds TX (pl011_tx_hold to pl011_tx_give_back) */
bool held;          /* rx_hold_partner: RTS deasserted, the line sends nothing */
bool owns;          /* the switcher saw no handler inside and has not flushed the FIFO yet */
byte sseg;          /* characters the switcher took from DR and has not committed yet */
bool switch_done;
#ifdef OLD_DESIGN
bool paused_flag;   /* rx.paused */
#define PAUSED paused_flag
#else
#define PAUSED ((word & RXB) == 0)
#endif

#define LINE_UP (fifo > 0 && (imsc & RXB) != 0)

/* A step of a thread: on one core, not while the handler runs or is about to run again. Each
 * thread step resets the count of handler entries without one. */
#ifdef TWO_CORES
#define G(me) true
#else
#define G(me) ((me) == HANDLER || (!in_irq && !chained))
#endif
#define R(me) entries = ((me) == HANDLER -> entries : 0)

/* pl011_word_publish: load, then write and look again until the word is unchanged; a frozen
 * word writes 0. */
#define WRITTEN(v) (((v) & FROZEN) != 0 -> 0 : (v))
inline publish(me) {
	atomic { G(me) -> v = word; R(me) };
#ifdef NO_RECHECK
	atomic { G(me) -> imsc = WRITTEN(v); R(me) }
#else
	do
	:: atomic { G(me) -> imsc = WRITTEN(v); R(me) };
		atomic { G(me) -> now = word; R(me);
			if
			:: now == v -> break
			:: else -> v = now
			fi }
	od
#endif
}

/* pl011_word_update: load, CAS until it succeeds (a failed CAS reloads), publish; old gets
 * the word as it was before. swap_publish is what follows the load. */
inline swap_publish(me, clear, set, old) {
	do
	:: atomic { G(me) -> R(me);
		if
		:: word == old -> word = (old & ~(clear)) | (set); break
		:: else -> old = word
		fi }
	od;
	publish(me)
}

inline update(me, clear, set, old) {
	atomic { G(me) -> old = word; R(me) };
	swap_publish(me, clear, set, old)
}

/* rx_resume_if_room: not paused, or too little room: nothing; else one swap that sets the
 * pause bits (a failed one reloads, and stops once another context resumed), then publish. */
inline resume_if_room(me) {
#ifdef OLD_DESIGN
	/* paused_load, the ring's space, then a CAS of the flag 1 -> 0, then the IMSC update */
	atomic { G(me) -> R(me); ok = paused_flag };
	if
	:: ok ->
		atomic { G(me) -> R(me); ok = (SIZE - ring >= RESUME_ROOM) };
		if
		:: ok ->
			atomic { G(me) -> R(me);
				if
				:: paused_flag -> paused_flag = false; ok = true
				:: else -> ok = false
				fi };
			if
			:: ok -> update(me, 0, RXB, old)
			:: else -> skip
			fi
		:: else -> skip
		fi
	:: else -> skip
	fi
#else
	atomic { G(me) -> R(me); ok = PAUSED };
	if
	:: ok ->
		atomic { G(me) -> R(me); ok = (SIZE - ring >= RESUME_ROOM) };
		if
		:: ok ->
			atomic { G(me) -> w = word; R(me) };
			do
			:: (w & RXB) == 0 ->
				atomic { G(me) -> R(me);
					if
					:: word == w -> word = w | RXB; ok = true
					:: else -> w = word; ok = false
					fi };
				if
				:: ok -> publish(me); break
				:: else -> skip
				fi
			:: else -> break
			od
		:: else -> skip
		fi
	:: else -> skip
	fi
#endif
}

/* rx_pause, handler only: mask (which is the pause), then look at the ring again. */
inline pause() {
#if defined(OLD_DESIGN)
	/* if (paused) return; imsc_update(RX|RT, 0); paused = 1; fence; resume_if_room */
	if
	:: paused_flag -> skip
	:: else ->
		update(HANDLER, RXB, 0, old);
		paused_flag = true;
		resume_if_room(HANDLER)
	fi
#elif defined(NO_REPAIR) || defined(PAUSE_PUBLISHES_ON_CHANGE)
	/* the swap, and a publish only when it changed the word */
	old = word;
	do
	:: atomic { if
		:: word == old -> word = old & ~RXB; break
		:: else -> old = word
		fi }
	od;
	if
	:: (old & RXB) != 0 -> publish(HANDLER)
	:: else -> skip
	fi;
	resume_if_room(HANDLER)
#else
	update(HANDLER, RXB, 0, old);
#ifndef NO_LOOK_AFTER_PAUSE
	resume_if_room(HANDLER)
#endif
#endif
}

active proctype tx_owner() {
	byte k = 0, v, now, old;
	do
	:: k < 2 * ARMS ->
		/* pl011_tx_arm(uart, k is even), TX owned: not while the switcher holds it.
		 * TX_ARMED is the owner's own, so every call here changes TXIM */
		atomic { G(THREAD) && !tx_held -> tx_busy = true; old = word; R(THREAD) };
		if
		:: k % 2 == 0 -> swap_publish(THREAD, TXB, TXB, old)
		:: else -> swap_publish(THREAD, TXB, 0, old)
		fi;
		atomic { G(THREAD) -> tx_busy = false; k++; R(THREAD); v = 0; now = 0; old = 0 }
	:: else -> break
	od;
	atomic { G(THREAD) -> tx_done = true; R(THREAD) }
}

active proctype reader() {
	byte v, now, old, w;
	bool ok;
	do
	:: nread < TOTAL ->
		/* read_ring: what the ring holds (getc: one; pl011_read: all), then resume */
		atomic { G(THREAD) && ring > 0 -> R(THREAD); reading = true;
			if
			:: nread++; ring--
			:: nread = nread + ring; ring = 0
			fi };
		resume_if_room(THREAD);
		atomic { G(THREAD) -> reading = false; R(THREAD); v = 0; now = 0; old = 0; w = 0;
			ok = false }
	:: else -> break
	od;
	atomic { G(THREAD) -> reader_done = true; R(THREAD) }
}

/* pl011_set_line, once. */
active proctype switcher() {
	byte v, now, old, room, i;
	bool ok;
	atomic { G(THREAD) -> R(THREAD); ok = !PAUSED;   /* pl011_rx_paused: EBUSY */
		if
		:: ok -> skip
		:: else -> switch_done = true
		fi };
	if
	:: ok ->
		/* pl011_tx_hold: TX taken once its owner lets go, then the freeze */
		atomic { G(THREAD) && !tx_busy -> tx_held = true; old = word; R(THREAD);
			ok = false };
		swap_publish(THREAD, 0, FROZEN, old);
		/* rx_hold_partner (RTS off: the line stops; here at the wait, which only gives
		 * the line more to do), then the fence and pl011_wait_handlers_gone: no handler
		 * inside; or a wait expires (pl011_wait_fr_for before: ETIMEDOUT; this one, with
		 * a handler inside: ESTALLED) */
		if
		:: atomic { G(THREAD) && !inside -> held = true; owns = true; R(THREAD); v = 0;
			now = 0; old = 0 }
		:: atomic { G(THREAD) -> held = true; R(THREAD); v = 0; now = 0; old = 0 }
		fi;
		/* rx_fifo_fits (FR, the word, the ring's space), then drain_fifo's first FR,
		 * commit and reserve: one step, as the FIFO stays as it is (the line held, no
		 * handler in), and a pause can only end and the space only grow meanwhile */
		atomic { G(THREAD) -> R(THREAD);
			ok = owns && (fifo == 0 || (!PAUSED && SIZE - ring >= DEPTH));
			if
			:: ok && fifo > 0 -> room = SIZE - ring
			:: else -> skip
			fi };
		if
		:: ok ->
			/* switch_line: pl011_hw_quiesce's pl011_rx_take_fifo, drain_fifo into the
			 * RX ring */
			do
			:: atomic { G(THREAD) && i < 2 * DEPTH && fifo > 0 && sseg != room ->
				R(THREAD); fifo--; sseg++; i++ }   /* FR, then DR read */
			:: atomic { G(THREAD) && i < 2 * DEPTH && fifo > 0 && sseg == room ->
				R(THREAD); ring = ring + sseg; sseg = 0 };   /* FR, then commit */
				atomic { G(THREAD) -> R(THREAD); room = SIZE - ring;   /* reserve */
					if
					:: room == 0 -> break   /* full */
					:: else -> skip
					fi };
				atomic { G(THREAD) -> R(THREAD); fifo--; sseg++; i++ }   /* DR */
			:: atomic { G(THREAD) && (i == 2 * DEPTH || fifo == 0) -> R(THREAD);
				ring = ring + sseg; sseg = 0; break }   /* bound, RXFE: commit */
			od;
			/* discard_fifo and the FEN flush (what is left is lost, (3)), IMSC written
			 * 0, then CR: RTS again */
			atomic { G(THREAD) -> R(THREAD); fifo = 0; imsc = 0; held = false;
				owns = false; room = 0; i = 0; ok = false }
		:: else ->
			atomic { G(THREAD) -> R(THREAD); held = false; owns = false; ok = false }
		fi;
		update(THREAD, FROZEN | TXB, 0, old);   /* resume: imsc_thaw */
		atomic { G(THREAD) -> R(THREAD); tx_held = false; switch_done = true; v = 0;
			now = 0; old = 0 }   /* pl011_tx_give_back */
	:: else -> skip
	fi
}

/* (6) the ring's one producer: no step of the handler's drain while the switcher owns the FIFO
 * and the ring. */
#define ONE_PRODUCER assert(!owns)

active proctype handler() {
	byte mis, pass, i, room, v, now, old, w, loaded;
	bool stopped_full, ok;
end:
	do
	:: atomic { LINE_UP -> in_irq = true; chained = false; entries++;
		assert(entries <= MAX_ENTRIES);   /* (1) no storm */
		pass = 0;
#ifndef TWO_CORES
		inside = true
#endif
		};
#ifdef TWO_CORES
		atomic { inside = true };   /* pl011_irq_presence(1), before the MIS read */
#endif
		do
		:: atomic {
			mis = ((fifo > 0 && (imsc & RXB) != 0) -> RXB : 0);   /* MIS read */
			if
			:: mis == 0 -> break
			:: else -> stopped_full = false; room = 0; i = 0
			fi;
#ifndef TWO_CORES
			loaded = word   /* pl011_imsc_load: on one core nothing runs in between */
#endif
			};
#ifdef TWO_CORES
			atomic { loaded = word };   /* pl011_imsc_load */
#endif
#ifndef NO_FROZEN_CHECK
			/* frozen: serve nothing, write the 0 again */
			if
			:: (loaded & FROZEN) != 0 -> publish(HANDLER); break
			:: else -> skip
			fi;
#endif
			/* pl011_rx_service: drain_fifo. An FR read that shows a character is merged
			 * with the step after it: one context at a time takes characters out of the
			 * FIFO (6), so what it showed stays true, and a read changes no state in
			 * between. */
			do
			:: atomic { i < 2 * DEPTH && fifo > 0 && seg != room -> ONE_PRODUCER;
				fifo--; seg++; i++ }   /* FR, then DR read into the segment */
			:: atomic { i < 2 * DEPTH && fifo > 0 && seg == room -> ONE_PRODUCER;
				ring = ring + seg; seg = 0 };   /* FR, then commit */
				/* reserve: the reader's index */
				atomic { ONE_PRODUCER; room = SIZE - ring;
					if
					:: room == 0 -> stopped_full = true; break
					:: else -> skip
					fi };
				atomic { ONE_PRODUCER; fifo--; seg++; i++ }   /* DR read */
			:: atomic { i == 2 * DEPTH || fifo == 0 -> ONE_PRODUCER;
				break }   /* the bound, or FR.RXFE */
			od;
			atomic { ONE_PRODUCER; ring = ring + seg; seg = 0 };   /* commit */
			if
			:: stopped_full -> pause()
			:: else -> resume_if_room(HANDLER)
			fi;
#if !defined(OLD_DESIGN) && !defined(NO_REPAIR) && !defined(NO_REPAIR_CALL)
			/* pl011_imsc_repair, with the word loaded before the causes */
			if
			:: (mis & ~loaded) != 0 -> publish(HANDLER)
			:: else -> skip
			fi;
#endif
			pass++;
			if
			:: pass == PASSES -> break
			:: else -> skip
			fi
		od;
		/* the return (withdrawn): on one core, a line still up takes the handler again at
		 * once */
		atomic {
#if !defined(TWO_CORES) && !defined(NO_RETURN_CHECK)
			assert(!((imsc & RXB) != 0 && PAUSED));   /* (5) */
#endif
			in_irq = false;
			inside = false;
#ifndef TWO_CORES
			chained = LINE_UP;
#endif
			mis = 0; pass = 0; i = 0; room = 0; v = 0; now = 0; old = 0; w = 0;
			loaded = 0; stopped_full = false; ok = false }
	od
}

/* The line: flow control, and nothing sent while the switcher holds RTS off. */
active proctype line() {
	do
	:: atomic { sent < TOTAL && fifo < DEPTH && !held -> fifo++; sent++ }
	:: sent == TOTAL -> break
	od
}

/* Every state: no character lost or made up (3). */
active proctype monitor() {
	assert(nread + ring + seg + sseg + fifo == sent)
}

/* Quiescence: nothing can move any more: the threads done (or the reader waiting for the
 * ring, outside its resume, with the ring empty), the line done and down, the handler out. */
active proctype quiescence() {
	atomic {
		tx_done && switch_done && sent == TOTAL && !in_irq && !LINE_UP &&
		(reader_done || (!reading && ring == 0)) ->
		assert(!(ring == 0 && PAUSED));                  /* (4) no pause stuck */
		assert(imsc == word);                            /* (2) */
		assert(((imsc & RXB) != 0) == !PAUSED);          /* (2) */
		assert((word & FROZEN) == 0);                    /* (2) thawed */
		assert(nread == TOTAL)                           /* (3) */
	}
}
