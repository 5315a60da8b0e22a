"""What each example must print and do under QEMU. One Spec per example folder."""
import re
import time

from console_session import run_console


class Spec:
    def __init__(self, run, icount=False, timeout=30.0, extra_serials=0):
        self.run = run
        self.icount = icount
        self.timeout = timeout
        self.extra_serials = extra_serials  # QEMU serial ports besides the console's


def expect_exit_zero(session):
    status = session.wait_exit()
    if status is None:
        return ["QEMU did not exit before the deadline (hang?)"]
    if status != 0:
        return [f"exit status {status} (semihosting), expected 0"]
    return []


def run_hello(session, board, machine):
    problems = expect_exit_zero(session)
    if not re.search(rf"Hello from pl011 \d+\.\d+\.\d+ on {re.escape(board)}\n", session.output):
        problems.append("greeting with version and board name missing")
    match = re.search(r"IBRD=(\d+) FBRD=(\d+), actual (\d+) baud .* FIFO (\d+)", session.output)
    if not match:
        problems.append("divisor line missing")
    elif int(match.group(1)) == 0:
        problems.append("IBRD is 0")
    return problems


def run_early(session, board, machine):
    """The early console: a greeting, a line echoed, then the board's port started again."""
    if not session.read_until(f"early console on {board}: type a line\n", timeout=10):
        return ["no early greeting"]
    session.send(b"ping\n")
    problems = []
    if not session.read_until("early got: ping\n", timeout=10):
        problems.append("line read with pl011_early_getc not echoed")
    if not session.read_until("the port again, after the early console\n", timeout=10):
        problems.append("pl011_init after the early console did not print")
    return expect_exit_zero(session) + problems


def _phase(session, number):
    """The numbers a shutdown_drain phase reports, and the bytes it put on the wire."""
    report = re.search(rf"\n\[phase {number}\] accepted=(\d+) sent=(\d+) discarded=(-?\d+)\n",
                       session.output)
    start = session.output.find(f"<<PHASE{number}>>")
    if not report or start < 0:
        return None
    accepted, sent, discarded = (int(x) for x in report.groups())
    return accepted, sent, discarded, session.output[start:report.start()]


def run_shutdown_drain(session, board, machine):
    problems = expect_exit_zero(session)
    verse = "the quick brown fox jumps over the lazy dog 0123456789\n"
    # Phase 1 (bound 0) discards whatever is still queued. Under QEMU that is nothing: its
    # FIFO never fills, so each write sends its bytes before it returns. The discard itself is
    # proven on the model (tests/unit/test_shutdown.c); here the counts must add up.
    for number in (1, 2):
        phase = _phase(session, number)
        if phase is None:
            problems.append(f"phase {number} marker or report missing")
            continue
        accepted, sent, discarded, wire = phase
        if sent + discarded != accepted:
            problems.append(f"phase {number}: sent {sent} + discarded {discarded} != accepted {accepted}")
        if discarded < 0:
            problems.append(f"phase {number}: shutdown failed with {discarded}")
        if number == 2 and discarded != 0:
            problems.append(f"phase {number}: ample bound discarded {discarded}")
        if len(wire) != sent:
            problems.append(f"phase {number}: {len(wire)} bytes arrived, driver says {sent} sent")
        full = f"<<PHASE{number}>>" + verse * 100
        if not full.startswith(wire):
            problems.append(f"phase {number}: the bytes that arrived are not the text's prefix")
    if "MARKER: restarted and transmitting\n" not in session.output:
        problems.append("marker line after the restart did not arrive")
    return problems


# The 1 MiB echo soak takes about a minute per machine under QEMU, so `make test` runs a 32 KiB
# soak everywhere (LONG_SOAK_MACHINES: where it would run 1 MiB); `make test-full` runs the 1 MiB
# one on one machine per architecture (versatilepb, virt64, lm3s6965evb) and `make
# qemu-test-full` (run_qemu_tests.py --full-soak, LONG_SOAK_EVERYWHERE) on every machine.
LONG_SOAK_MACHINES = set()
LONG_SOAK_EVERYWHERE = False
LONG_SOAK_BYTES = 1 << 20
SHORT_SOAK_BYTES = 1 << 15


def soak_bytes(board, machine):
    long_soak = LONG_SOAK_EVERYWHERE or (board, machine) in LONG_SOAK_MACHINES
    return LONG_SOAK_BYTES if long_soak else SHORT_SOAK_BYTES


FLOOD_BYTES = 256 << 10


def run_flood(session, rng):
    """A user pasting a file: the bytes go out as fast as the socket takes them, with no window,
    while a thread of its own reads the echo. QEMU's PL011 holds its chardev off while the RX
    FIFO is full, so a driver that stops draining at a full ring loses nothing; one that drains
    into nowhere (issue 21) lost 148 to 20,009 bytes per run here. Returns (problems, bytes)."""
    import threading
    base = len(session.raw_bytes())
    data = bytes(rng.getrandbits(8) for _ in range(FLOOD_BYTES))
    reader = threading.Thread(target=session.read_raw, args=(base + FLOOD_BYTES, 120))
    reader.start()
    try:
        if not session.send_unpaced(data, timeout=120):
            return ["flood: the socket stopped taking bytes (guest stuck?)"], 0
    finally:
        reader.join()
    echoed = session.raw_bytes()[base:base + FLOOD_BYTES]
    if len(echoed) < FLOOD_BYTES:
        lost = FLOOD_BYTES - len(echoed)
        return [f"flood: {len(echoed)} of {FLOOD_BYTES} bytes came back, {lost} lost"], 0
    if echoed != data:
        first = next(i for i in range(FLOOD_BYTES) if echoed[i] != data[i])
        return [f"flood: echoed bytes differ from byte {first}"], 0
    return [], FLOOD_BYTES


def run_echo(session, board, machine):
    """Echo a line, ask for stats, soak (seeded random bytes in random chunks), then flood."""
    import random
    problems = []
    if not session.read_until("lines !stats and !quit\n", timeout=10):
        return ["no ready line"]
    base = len(session.raw_bytes())
    session.send(b"hello, pl011\n")
    if not session.read_raw(base + 13, timeout=10) or session.raw_bytes()[base:base + 13] != b"hello, pl011\n":
        problems.append("line was not echoed")
    session.send(b"!stats\n")
    if not session.read_until("stats: rx_bytes=", timeout=10):
        problems.append("!stats gave no counters")
    # The soak's echo must start after the whole counters line, its CR LF included.
    if not session.read_match(r"tx_timeouts=\d+\n", timeout=10):
        problems.append("counters line incomplete")
    base = len(session.raw_bytes())
    # Soak: at most 2 KiB in flight, so the 4 KiB RX ring can never be the bottleneck.
    rng = random.Random(20260)
    total = soak_bytes(board, machine)
    data = bytes(rng.getrandbits(8) for _ in range(total))
    sent = 0
    window = 2048
    while sent < total:
        chunk = min(rng.randint(1, 700), total - sent)
        if sent + chunk - (len(session.raw_bytes()) - base) > window:
            if not session.read_raw(base + sent + chunk - window, timeout=20):
                problems.append(f"soak stalled after {len(session.raw_bytes()) - base} of {total} bytes")
                return problems
            continue
        session.send(data[sent:sent + chunk])
        sent += chunk
    if not session.read_raw(base + total, timeout=30):
        problems.append(f"soak: only {len(session.raw_bytes()) - base} of {total} bytes came back")
        return problems
    echoed = session.raw_bytes()[base:base + total]
    if echoed != data:
        first = next(i for i in range(total) if echoed[i] != data[i])
        problems.append(f"soak: echoed bytes differ from byte {first}")
    flood_problems, flooded = run_flood(session, rng)
    problems += flood_problems
    if flood_problems:
        return problems
    session.send(b"\n!quit\n")
    problems += expect_exit_zero(session)
    stats = re.findall(r"stats: rx_bytes=(\d+) .*rx_discarded=(\d+) rx_pauses=(\d+) "
                       r"rx_overrun=(\d+)", session.output)
    if not stats:
        problems.append("final stats missing")
    else:
        rx_bytes, discarded, _pauses, overrun = (int(x) for x in stats[-1])
        if discarded or overrun:
            problems.append(f"soak lost data in the driver: discarded {discarded}, "
                            f"overrun {overrun}")
        if rx_bytes < total + flooded:
            problems.append(f"driver counted {rx_bytes} bytes received, "
                            f"expected >= {total + flooded}")
    if "bye\n" not in session.output:
        problems.append("no goodbye")
    return problems


def run_rt_loop(session, board, machine):
    """1 kHz tick, one frame per period by interrupt TX: every period inside +/-3%, no frame lost."""
    problems = expect_exit_zero(session)
    out = session.output
    periods = re.search(r"rt_loop: periods (\d+) over (\d+) under (\d+) band (\d+)\.\.(\d+) us\n", out)
    extremes = re.search(r"rt_loop: min (\d+) max (\d+) mean (\d+)\.(\d+) max_deviation (\d+) us\n", out)
    frames = re.search(r"rt_loop: frames (\d+) dropped_bytes (\d+) ", out)
    if not (periods and extremes and frames):
        return problems + ["report lines missing"]
    count, over, under, low, high = (int(x) for x in periods.groups())
    smallest, largest = int(extremes.group(1)), int(extremes.group(2))
    if count != 2000:
        problems.append(f"{count} periods measured, expected 2000")
    if over or under:
        problems.append(f"{over} periods over and {under} under the {low}..{high} us band")
    if not low <= smallest <= largest <= high:
        problems.append(f"period range {smallest}..{largest} us outside {low}..{high}")
    sent, dropped = int(frames.group(1)), int(frames.group(2))
    if sent != count or dropped:
        problems.append(f"{sent} frames sent for {count} periods, {dropped} bytes dropped")
    # The frames themselves: 2 hex digits of sequence, 4 digits of measured period, in order.
    wire = re.findall(r"^([0-9A-F]{2})(\d{4})$", out, re.MULTILINE)
    if len(wire) != count:
        problems.append(f"{len(wire)} frames arrived, expected {count}")
    elif any(int(seq, 16) != i % 256 for i, (seq, _) in enumerate(wire)):
        problems.append("frame sequence numbers out of order (lost or repeated frames)")
    elif not wire:
        problems.append("no frame arrived (no tick?)")
    elif (min(int(p) for _, p in wire), max(int(p) for _, p in wire)) != (smallest, largest):
        problems.append("periods in the frames disagree with the report's min/max")
    return problems


def run_rtos_wait(session, board, machine):
    """Lines in, upper-cased lines out, through two tasks that block on events; an idle share."""
    import random
    problems = []
    if not session.read_until("rtos_wait ready", timeout=10):
        return ["ready line missing"]
    rng = random.Random(23)
    # Long lines fill the 256-byte TX ring whenever the FIFO pushes back (not under QEMU,
    # whose FIFO never fills: there the producer's TX space waits are proven on the model).
    sent = []
    for i in range(40):
        line = f"line {i:02d} " + "".join(rng.choice("abcdefghij xyz") for _ in range(rng.randrange(1, 110)))
        sent.append(line)
        session.send(line.encode() + b"\n")
        if not session.read_until(line.upper() + "\n", timeout=10):
            return problems + [f"line {i} did not come back upper-cased"]
    session.send(b"!quit\n")
    problems += expect_exit_zero(session)
    report = re.search(r"rtos_wait: lines (\d+) rx_bytes (\d+) tx_bytes (\d+) consumer_waits (\d+) "
                       r"producer_waits (\d+) \(tx_space (\d+)\) sleeps (\d+)\n", session.output)
    idle = re.search(r"rtos_wait: idle (\d+)\.(\d)% of (\d+) us(.*)\n", session.output)
    if not (report and idle):
        return problems + ["report lines missing"]
    lines, rx, tx, consumer_waits, producer_waits, tx_space_waits, sleeps = (int(x) for x in report.groups())
    expected_rx = sum(len(line) + 1 for line in sent) + len("!quit\n")
    if lines != len(sent) + 1 or rx != expected_rx or tx != expected_rx + lines:
        problems.append(f"lines {lines} rx {rx} tx {tx}, expected {len(sent) + 1}, {expected_rx}, "
                        f"{expected_rx + len(sent) + 1}")
    # The consumer waited for every line the host sent after the last echo: it must have
    # blocked (on RX data), and the CPU must have slept while it did.
    if consumer_waits < len(sent) or sleeps == 0:
        problems.append(f"consumer blocked {consumer_waits} times, CPU slept {sleeps} times")
    share = int(idle.group(1)) + int(idle.group(2)) / 10
    if idle.group(4) or not 0 < share <= 100:
        problems.append(f"idle share {share}% {idle.group(4)}")
    echoed = [m for m in re.findall(r"^(LINE \d\d .*)$", session.output, re.MULTILINE)]
    if echoed != [line.upper() for line in sent]:
        problems.append("upper-cased lines out of order, lost or repeated")
    return problems


def run_tx_cost(session, board, machine):
    """Every TX mode sends its payload whole; interrupt modes refill the FIFO from the ring.

    QEMU's FIFO never fills (FR never shows TXFF), so the writer that primes an idle
    transmitter keeps sending until its ring is empty and the TX interrupt is never needed:
    the refills counted are the writer's own."""
    problems = expect_exit_zero(session)
    rows = dict(re.findall(r"tx_cost (\w+): (\d+\.\d instructions per byte, .*)\n",
                           session.output))
    for mode in ("POLLED", "HALF_FIFO", "POLL_FULL", "HYBRID", "ADAPTIVE", "MEASURED"):
        row = rows.get(mode)
        if row is None:
            problems.append(f"{mode}: no result line")
            continue
        numbers = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", row)]
        if len(numbers) != 5:
            problems.append(f"{mode}: result line has {len(numbers)} numbers, expected 5: {row}")
            continue
        instructions, _interrupts, refills, _fr_reads, sent = numbers
        if sent != 8192:
            problems.append(f"{mode}: {sent} bytes sent, expected 8192")
        if instructions == 0:
            problems.append(f"{mode}: no instructions counted (is -icount on?)")
        if mode != "POLLED" and refills == 0:
            problems.append(f"{mode}: the ring was never used (no refills)")
    return problems


# (board, machine) pairs whose QEMU machine has the cores the smp example needs and whose board
# can start them: there the example must run, elsewhere it may report that it skipped. A board
# says so in its board.mk (BOARD_QEMU_SMP := yes); run_qemu_tests.py fills the set from it.
SMP_RUNS = set()
SMP_WRITER_BYTES = 20000


def run_smp(session, board, machine):
    """Core 1 by pl011_write (a..z), core 2 by pl011_write_panic (A..Z): each complete, in order."""
    problems = expect_exit_zero(session)
    out = session.output
    begin, end = out.find("\n=====\n"), out.find("\n+++++\n")
    if begin < 0 or end < begin:
        return problems + ["marker lines missing"]
    if "cannot start another core; skipped" in out[end:]:
        if (board, machine) in SMP_RUNS:
            problems.append("skipped on a machine where it must run")
        return problems
    wire = out[begin + 7:end]
    for name, first in (("pl011_write (core 1)", "a"), ("pl011_write_panic (core 2)", "A")):
        letters = "".join(c for c in wire if first <= c <= chr(ord(first) + 25))
        expected = "".join(chr(ord(first) + i % 26) for i in range(SMP_WRITER_BYTES))
        if len(letters) != SMP_WRITER_BYTES:
            problems.append(f"{name}: {len(letters)} of {SMP_WRITER_BYTES} bytes arrived")
        if letters[:SMP_WRITER_BYTES] != expected[:len(letters)]:
            first_bad = next(i for i, c in enumerate(letters) if c != expected[i])
            problems.append(f"{name}: out of order from its byte {first_bad}")
    strays = {c for c in wire if not c.isalpha()}
    if strays:
        problems.append(f"bytes from neither writer between the markers: {sorted(strays)[:8]}")
    # A short write (its bound ran out under back-to-back panics, or while the host did not
    # run the vCPU) is sent again from where it ended: the letters above catch a lost byte.
    if not re.search(rf"smp: queued sent {SMP_WRITER_BYTES} short \d+ failures 0, panic sent "
                     rf"{SMP_WRITER_BYTES} short \d+ failures 0, finished\n", out):
        problems.append("report line missing, a writer failed or did not finish")
    return problems


def drive_probe(session):
    """Answer examples/probe's requests (each "probe: send N bytes" line gets N bytes) until it
    ends; returns its facts {'periph_id_depth', 'fifo_depth', 'uart_irqs', 'status'}."""
    answered = 0
    while "probe: done" not in session.output:
        requests = re.findall(r"probe: send (\d+) bytes?\n", session.output)
        for count in requests[answered:]:
            session.send(b"p" * int(count))
        answered = len(requests)
        if not session.read_match(rf"(?:probe: send \d+ bytes?\n(?:.|\n)*){{{answered + 1}}}|probe: done",
                                  timeout=15):
            break
    status = session.wait_exit()
    periph = re.search(r"PeriphID says FIFO (-?\d+)\n", session.output)
    held = re.search(r"probe: RX FIFO held (-?\d+)\n", session.output)
    return {"periph_id_depth": int(periph.group(1)) if periph else None,
            "fifo_depth": int(held.group(1)) if held else None,
            "uart_irqs": [int(x) for x in re.findall(r"probe: uart interrupt line (\d+)\n",
                                                      session.output)],
            "status": status}


def run_probe(session, board, machine):
    """The probe reports a PeriphID depth, a measured depth of 16 or 32 and the UART's lines (one,
    or a PL011 with per-cause outputs wired too: musca-b1); make board-check compares them with
    board.h."""
    facts = drive_probe(session)
    problems = []
    if facts["status"] != 0:
        problems.append(f"exit status {facts['status']}, expected 0")
    if facts["periph_id_depth"] not in (16, 32):
        problems.append(f"PeriphID depth {facts['periph_id_depth']}")
    if facts["fifo_depth"] not in (16, 32):
        problems.append(f"measured RX FIFO depth {facts['fifo_depth']}")
    if not facts["uart_irqs"]:
        problems.append("no UART interrupt line became asserted")
    return problems


# Ports examples/multiport must run at once (the console included); 1 elsewhere. Filled by
# run_qemu_tests.py from each board's BOARD_EXTRA_UARTS (make print-board-facts).
MULTIPORT_PORTS = {}
MULTIPORT_EXTRA_SERIALS = 3
MULTIPORT_BYTES = 65536


def run_multiport(session, board, machine):
    """Every port echoes its own seeded stream while the others do theirs: all at once, each
    byte for byte, nothing dropped or overrun in the driver's counters."""
    import random
    expected = MULTIPORT_PORTS.get((board, machine), 1)
    ready = session.read_match(r"multiport ready on .*: (\d+) ports echo; !quit on port 0 ends\n",
                               timeout=10)
    if not ready:
        return ["no ready line"]
    if int(ready.group(1)) != expected:
        return [f"{ready.group(1)} ports started, expected {expected}"]
    console = session
    ports = [console] + session.ports[:expected - 1]
    for port in ports:
        port.sock.settimeout(0.002)  # one quiet port must not hold up the others' turns
    bases = [len(console.raw_bytes())]
    for index, port in enumerate(ports[1:], start=1):
        banner = f"port {index} ready: ".encode()
        end = session.clock() + 10
        while not re.search(re.escape(banner) + rb"\S+\n", port.raw_bytes()) and session.clock() < end:
            port.pump()
        if not re.search(re.escape(banner) + rb"\S+\n", port.raw_bytes()):
            return [f"port {index}: no banner"]
        bases.append(len(port.raw_bytes()))
    rng = random.Random(20261)
    # Letters only: no line ends, so the console's command recogniser sees no "!quit".
    streams = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(MULTIPORT_BYTES))
               for _ in ports]
    sent = [0] * len(ports)
    window = 512  # at most half an RX ring (examples/multiport RING_BYTES) in flight per port
    deadline = session.clock() + 60
    while session.clock() < deadline:
        progress = False
        for index, port in enumerate(ports):
            received = len(port.raw_bytes()) - bases[index]
            if sent[index] < MULTIPORT_BYTES and sent[index] - received < window:
                chunk = min(rng.randint(1, 300), MULTIPORT_BYTES - sent[index])
                port.send(streams[index][sent[index]:sent[index] + chunk])
                sent[index] += chunk
                progress = True
            if index == 0:
                port._pump()
            else:
                port.pump()
        if all(len(p.raw_bytes()) - bases[i] >= MULTIPORT_BYTES for i, p in enumerate(ports)):
            break
        if not progress:
            time.sleep(0.001)
    problems = []
    for index, port in enumerate(ports):
        echoed = port.raw_bytes()[bases[index]:bases[index] + MULTIPORT_BYTES]
        if echoed != streams[index]:
            problems.append(f"port {index}: {len(echoed)} of {MULTIPORT_BYTES} bytes came back"
                            + ("" if len(echoed) < MULTIPORT_BYTES else ", not the ones sent"))
    console.send(b"\n!quit\n")
    problems += expect_exit_zero(console)
    reports = re.findall(r"multiport: port (\d+) \S+ rx_bytes=(\d+) tx_bytes=\d+ irqs=\d+ "
                         r"rx_discarded=(\d+) rx_overrun=(\d+)", console.output)
    if len(reports) != expected:
        problems.append(f"{len(reports)} port reports, expected {expected}")
    for number, rx_bytes, discarded, overrun in reports:
        if int(discarded) or int(overrun):
            problems.append(f"port {number}: discarded {discarded}, overrun {overrun}")
        if int(rx_bytes) < MULTIPORT_BYTES:
            problems.append(f"port {number}: driver counted {rx_bytes} bytes received")
    return problems


def crc16_modbus(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


# Bursts for examples/packets, each sent whole and answered before the next; the last two go
# out 100 ms apart without waiting in between (two packets all the same).
PACKET_BURSTS = [1, 7, 16, 17, 40, 100]


def run_packets(session, board, machine):
    """Each burst sent is framed as one packet at RX idle (QEMU's PL011 has no receive
    timeout: the driver's event timer alone ends them) and answered with its length and CRC."""
    import random
    problems = []
    if not session.read_until("packets ready", timeout=10):
        return ["ready line missing"]
    rng = random.Random(37)
    bursts = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))
              for n in PACKET_BURSTS]
    expected = []
    for number, burst in enumerate(bursts, start=1):
        line = f"packet {number}: {len(burst)} bytes, crc {crc16_modbus(burst):04X}\n"
        expected.append(line)
        session.send(burst)
        if number == len(bursts) - 1:
            time.sleep(0.3)  # the last two with only a pause between them (5 frames: 42 ms)
            continue
        if not session.read_until(line, timeout=10):
            return problems + [f"burst {number} ({len(burst)} bytes): no '{line.strip()}'"]
    time.sleep(0.3)
    session.send(b"!quit")
    expected.append(f"packet {len(bursts) + 1}: 5 bytes, crc {crc16_modbus(b'!quit'):04X}\n")
    problems += expect_exit_zero(session)
    got = re.findall(r"^packet \d+: .*\n", session.output, re.MULTILINE)
    if got != expected:
        problems.append(f"packets {[g.strip() for g in got]}, expected {[e.strip() for e in expected]}")
    total = sum(PACKET_BURSTS) + 5
    report = re.search(r"packets: (\d+) packets, (\d+) RX idle events, (\d+) bytes", session.output)
    if not report:
        problems.append("report line missing")
    elif [int(x) for x in report.groups()] != [len(expected), len(expected), total]:
        problems.append(f"report {report.group(0)!r}: expected {len(expected)} packets and "
                        f"RX idle events, {total} bytes")
    return problems


SPECS = {
    "multiport": Spec(run_multiport, timeout=180.0, extra_serials=MULTIPORT_EXTRA_SERIALS),
    "probe": Spec(run_probe),
    "smp": Spec(run_smp),
    "tx_cost": Spec(run_tx_cost, icount=True),
    "echo": Spec(run_echo, timeout=600.0),
    "shutdown_drain": Spec(run_shutdown_drain),
    "hello": Spec(run_hello),
    "early": Spec(run_early),
    "rt_loop": Spec(run_rt_loop, icount=True),
    "rtos_wait": Spec(run_rtos_wait, timeout=60.0),
    "console": Spec(run_console),
    "packets": Spec(run_packets),
}
