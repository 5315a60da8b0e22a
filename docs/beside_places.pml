/* The places of panics writing beside the TX owner (lib/pl011_tx.c, beside_may_write; TX_BESIDE_CHARS in lib/pl011_tx_owner.h) as a Promela model, checked exhaustively by SPIN. */

/*
 * A panic write that finds TX owned writes beside the owner, one character at a time, and
 * only into a FIFO that FR shows empty. Before its FR read it takes one of CHARS places (the
 * upper half of tx.beside, an atomic add that returns the word as it was: a panic that finds
 * every place taken gives its add back and waits), and gives the place back once its character
 * is written. With CTS holding the line, that character stays in the FIFO, and the panic
 * leaves (tx.beside's lower half) at its deadline with the character still there.
 *
 * The owner looks at tx.beside's lower half and writes nothing while a panic is there. The
 * rule the model checks: every write of the owner rests on what it read (FR, or MIS with
 * TXRIS) after a look that found nobody, and between two looks it writes at most
 * DEPTH - CHARS characters: a burst after FR showed the FIFO empty (a writer's burst,
 * ADAPTIVE's fill after an underrun), or that many one at a time after FR reads that showed
 * room; the interrupt's blind refill is DEPTH - TRIGGER, after TXRIS latched as the level went
 * down through TRIGGER (TRM 2.8), with TRIGGER >= CHARS, then (HYBRID, MEASURED) what is left
 * of the look's DEPTH - CHARS one at a time on FR.
 *
 * Processes: PANICS panics, each writing PANIC_BYTES characters (on other cores, or nested
 * in each other on one: every interleaving is searched, a superset of the nested ones); an
 * owner making OWNER_PASSES passes, each of one of the kinds below; the line, which may empty
 * the FIFO one character at a time or, CTS held, never. A panic may give up waiting (its
 * deadline) only while every place is taken or the FIFO is not empty. Sequential consistency:
 * the barriers after a panic's add and after its DR write, and before the owner's look, are
 * what make the real accesses keep this order.
 *
 * Checked in every interleaving: no DR write into a full FIFO, by the owner or a panic, and no
 * deadlock (every process ends but the line). The mutations PLACES_3 (one place more than the
 * owner leaves room for), PLACE_FREED_BEFORE_WRITE, WRITES_ON_ROOM (a panic writes whenever
 * FR shows room), BURST_FULL_DEPTH (a burst after TXFE of the whole depth: ADAPTIVE's fill
 * before the fix), TRIGGER_1 (a blind refill of DEPTH - 1 after a trigger of 1 entry) and the
 * three below must each be caught, and with a FIFO of 8 TOPUP_WHOLE_LOOK (the top-up writing a
 * whole look's worth after the blind part).
 *
 * The three ways lib/ broke the rule until this model found them, each an overflow: FR_BEFORE_LOOK, a burst's first character written on an FR value read before
 * its look (write_while_room in lib/pl011_tx_fifo.c); MIS_BEFORE_LOOK, the interrupt's blind
 * refill on MIS read before any look (the look before MIS is in lib/pl011.c, service_passes);
 * PER_LOOK_DEPTH_1, DEPTH - 1 characters between two looks (pl011_tx_fill_polling,
 * pl011_tx_burst_allowed). The first two need the owner stalled between its read and its look
 * for longer than a panic's wait for TXFE.
 */

#ifndef DEPTH
#define DEPTH 6
#endif
#ifndef CHARS
#define CHARS 2        /* TX_BESIDE_CHARS */
#endif
#ifdef PLACES_3
#define PLACES 3
#else
#define PLACES CHARS   /* the places a panic may take */
#endif
#ifdef TRIGGER_1
#define TRIGGER 1
#elif !defined(TRIGGER)
#define TRIGGER 2      /* the 1/2 and 1/4 triggers of a 16-deep FIFO keep at least 2 entries */
#endif
#ifdef BURST_FULL_DEPTH
#define BURST DEPTH
#else
#define BURST (DEPTH - CHARS)
#endif
#ifndef PANICS
#define PANICS 3
#endif
#ifndef PANIC_BYTES
#define PANIC_BYTES 1
#endif
#ifdef PER_LOOK_DEPTH_1
#define PER_LOOK (DEPTH - 1)
#else
#define PER_LOOK BURST /* characters an owner writes between two looks */
#endif
#ifdef TOPUP_WHOLE_LOOK
#define TOPUP PER_LOOK /* the top-up as if the blind part had made its own look */
#else
#define TOPUP (PER_LOOK - (DEPTH - TRIGGER))
#endif
#ifndef OWNER_PASSES
#define OWNER_PASSES 3
#endif

byte fifo;     /* TX FIFO level */
bool latched;  /* RIS.TXRIS */
byte present;  /* tx.beside, lower half: panics beside the owner */
byte places;   /* tx.beside, upper half: panics about to write a character */

inline dr_write() {
	assert(fifo < DEPTH);
	fifo++;
	if
	:: fifo > TRIGGER -> latched = false /* written above the trigger: the cause clears */
	:: else -> skip
	fi
}

/* n characters without an FR read between them. */
inline write_blind(n) {
	i = 0;
	do
	:: i < n -> dr_write(); i++
	:: else -> break
	od
}

/* tx.beside's lower half at the owner's look: a panic there, the owner writes nothing. */
inline look(clear) {
	clear = (present == 0)
}

/* FR.TXFE and room. */
inline read_fr() {
	atomic { was_empty = (fifo == 0); had_room = (fifo < DEPTH) }
}

/* After an FR read: a burst if it showed the FIFO empty, else up to PER_LOOK characters, each
 * after an FR read that showed room (the first on the read just made). */
inline write_after_fr() {
	if
	:: was_empty -> write_blind(BURST)
	:: else ->
		i = 0;
		do
		:: i < PER_LOOK && had_room -> dr_write(); i++; read_fr()
		:: else -> break
		od
	fi
}

active proctype owner() {
	byte pass = 0, i;
	bool clear, was_empty, had_room;
	do
	:: pass == OWNER_PASSES -> break
	:: else ->
		if
		:: /* a pass that looks, then reads FR */
			look(clear);
			if
			:: clear -> read_fr(); write_after_fr()
			:: else -> skip
			fi
#ifdef FR_BEFORE_LOOK
		:: /* a pass that reads FR, then looks */
			read_fr();
			look(clear);
			if
			:: clear -> write_after_fr()
			:: else -> skip
			fi
#endif
		:: /* the TX interrupt: TXRIS latched, the blind refill */
#ifdef MIS_BEFORE_LOOK
			latched;
			look(clear);
#else
			look(clear);
			clear = clear && latched;
#endif
			if
			:: clear ->
				write_blind(DEPTH - TRIGGER);
				/* HYBRID's and MEASURED's top-up: on FR read after the blind
				 * part, in what is left of the look's budget */
				i = 0;
				read_fr();
				do
				:: i < TOPUP && had_room ->
					dr_write(); i++; read_fr()
				:: else -> break
				od
			:: else -> skip
			fi
		:: /* a pass that waits for nothing: the owner let go */
			skip
		fi;
		pass++
	od
}

proctype panic() {
	byte done = 0, before;
	bool was_empty;
	present++;
	do
	:: done == PANIC_BYTES -> break
	:: else ->
		/* pl011_atomic_add(&tx.beside, TX_BESIDE_WRITER): the word as it was */
		atomic { before = places; places++ };
		if
		:: before < PLACES ->
			was_empty = (fifo == 0);            /* FR.TXFE, after the barrier */
			if
			:: was_empty ->
#ifdef PLACE_FREED_BEFORE_WRITE
				places--;
				dr_write();
#else
				dr_write();
				places--;               /* after the barrier: our byte first */
#endif
				done++
#ifdef WRITES_ON_ROOM
			:: !was_empty && fifo < DEPTH ->
				dr_write();
				places--;
				done++
#endif
			:: else -> places--
			fi
		:: else -> places--                     /* every place taken: give it back */
		fi;
		/* The deadline: only while waiting for a place or for the FIFO to empty. */
		if
		:: done < PANIC_BYTES ->
			if
			:: atomic { places >= PLACES || fifo != 0 -> break }
			:: skip
			fi
		:: else -> skip
		fi
	od;
	present--
}

active proctype line() {
end:	do
	:: atomic { fifo > 0 ->
		if
		:: fifo == TRIGGER + 1 -> latched = true /* down through the trigger */
		:: else -> skip
		fi;
		fifo-- }
	od
}

init {
	byte k = 0;
	atomic {
		do
		:: k < PANICS -> run panic(); k++
		:: else -> break
		od
	}
}
