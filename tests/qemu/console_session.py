#!/usr/bin/env python3
"""examples/console typed at as a user's terminal does, through `make run SERIAL=pty` and
`make run SERIAL=tcp` (make console-test), on one cheap machine per architecture.

A terminal in raw mode sends each key as it is typed (Enter as CR, Backspace as DEL or BS) and
shows what comes back: the example does the echo. Each key here is sent alone and its echo
checked byte for byte: the characters, "\\b \\b" for an erase, CR LF for Enter, then the
commands' output and the quit's semihosting exit. Every wait is on qemu_session.RunClock
(seconds that count only while this script and QEMU are not kept from a CPU), so a loaded
machine slows the test but cannot fail it. Ends with 'N passed, N failed'.

converse() also serves tests/qemu/examples.py's generic runner (run_console below), over its
Unix socket.
"""
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
import tty

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qemu_session import QemuSession, RunClock  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", "build")  # make's BUILD, relative to the repository as make's
# (board, QEMU machine): 32-bit A-profile, AArch64, Cortex-M; the soak's cheap machines.
MACHINES = [("versatilepb", "versatilepb"), ("virt64", "virt"), ("lm3s6965", "lm3s6965evb")]
PROMPT = b"pl011> "
KEY_WAIT = 10.0  # run-clock seconds for any one answer
SESSION_BOUND = 60.0  # run-clock seconds for a whole session, start to exit


class Mismatch(Exception):
    """The console did not answer as a terminal user expects."""


class Dialogue:
    """The bytes the console sent, read in order: each expectation starts where the last ended."""

    def __init__(self, session):
        self.session = session
        self.seen = 0
        self.sent = 0

    def send(self, data):
        self.session.send(data)
        self.sent += len(data)

    def expect(self, what, data):
        end = self.seen + len(data)
        self.session.read_raw(end, timeout=KEY_WAIT)
        got = self.session.raw_bytes()[self.seen:end]
        if got != data:
            raise Mismatch(f"{what}: expected {data!r}, got {got!r}")
        self.seen = end

    def expect_match(self, what, pattern):
        """Wait until the bytes from here on match pattern; returns the match, past it."""
        regex = re.compile(pattern, re.DOTALL)
        while True:
            match = regex.match(bytes(self.session.raw_bytes()), self.seen)
            if match:
                self.seen = match.end()
                return match
            if not self.session.read_raw(len(self.session.raw_bytes()) + 1, timeout=KEY_WAIT):
                got = self.session.raw_bytes()[self.seen:]
                raise Mismatch(f"{what}: expected {pattern!r}, got {got!r}")

    def type(self, keys, echo):
        """Send keys one at a time, as typed, each after the echo of the one before."""
        shown = 0
        for key in keys:
            self.send(bytes([key]))
            # What a key shows is known only for printable keys; the rest is checked in all.
            if 0x20 <= key < 0x7f and echo[shown:shown + 1] == bytes([key]):
                self.expect(f"echo of {bytes([key])!r} in {keys!r}", echo[shown:shown + 1])
                shown += 1
        self.expect(f"echo of {keys!r}", echo[shown:])

    def enter(self, keys, echo, answer):
        """Type keys, then Enter (CR): CR LF, answer (a pattern), a new prompt."""
        self.type(keys, echo)
        self.send(b"\r")
        return self.expect_match(f"answer to {keys!r}", rb"\r\n" + answer + re.escape(PROMPT))


def converse(session, board):
    """A user's session at the console; returns the problems (none: all as a terminal expects)."""
    d = Dialogue(session)
    try:
        # The banner is the first byte on the wire: nothing went before the terminal attached.
        d.expect_match("banner", rb"pl011 \d+\.\d+\.\d+ console on " + re.escape(board.encode())
                       + rb": type help, quit to end\r\n" + re.escape(PROMPT))
        # A typo erased with DEL, what Backspace sends in raw mode; help lists every command.
        d.enter(b"helo\x7fp", b"helo\b \bp",
                rb"help +this list\r\nstats +[^\r\n]*\r\necho TEXT +[^\r\n]*\r\n"
                rb"quit +[^\r\n]*\r\n[^\r\n]*\r\n")
        # An erase on an empty line shows nothing: the next echo follows the prompt at once.
        d.type(b"\x7f\x08x\x7f", b"x\b \b")
        # BS erases too; spaces inside the text stay as typed.
        d.enter(b"echo hi\x08\x08ok  there", b"echo hi\b \b\b \bok  there", rb"ok  there\r\n")
        # An arrow key (ESC [ A) is swallowed, not shown.
        d.enter(b"echo \x1b[Ab", b"echo b", rb"b\r\n")
        # Ctrl-U erases the whole line, visibly; Ctrl-C drops one and gives a new prompt.
        d.type(b"garbage\x15", b"garbage" + b"\b \b" * 7)
        d.type(b"oops\x03", b"oops^C\r\n" + PROMPT)
        d.enter(b"bogus", b"bogus", rb"unknown command 'bogus': try help\r\n")
        # Every key so far reached the line editor, once (the stats line's own CR included).
        stats = d.enter(b"stats", b"stats", rb"lines=(\d+) rx_bytes=(\d+) [^\r\n]*\r\n")
        lines, rx_bytes = int(stats.group(1)), int(stats.group(2))
        if (lines, rx_bytes) != (5, d.sent):
            raise Mismatch(f"stats counted {lines} lines and {rx_bytes} keys; "
                           f"5 lines and {d.sent} keys were sent")
        # Enter as CR LF (some terminals): one line, one prompt; the LF adds nothing.
        d.type(b"echo crlf", b"echo crlf")
        d.send(b"\r\n")
        d.expect_match("answer to CR LF", rb"\r\ncrlf\r\n" + re.escape(PROMPT))
        d.type(b"quit", b"quit")
        d.send(b"\r")
        # QEMU's exit closes a pty's far end and Linux drops what the terminal had not read:
        # the example pauses before it exits, but a loaded machine may still cut the end.
        if not getattr(session, "cuts_at_exit", False):
            d.expect("quit", b"\r\nbye\r\n")
    except Mismatch as problem:
        return [str(problem)]
    status = session.wait_exit()
    problems = []
    if getattr(session, "cuts_at_exit", False):
        end = session.raw_bytes()[d.seen:]
        if not b"\r\nbye\r\n".startswith(end):
            problems.append(f"after quit: expected {b'bye'!r} or less of it, got {end!r}")
        d.seen += len(end)
    if status != 0:
        problems.append(f"exit status {status} after quit, expected 0 (None: still running)")
    extra = session.raw_bytes()[d.seen:]
    if extra:
        problems.append(f"bytes after bye: {extra!r}")
    if re.search(rb"(?<!\r)\n", session.raw_bytes()):
        problems.append("a line ended in LF alone, not CR LF")
    return problems


def run_console(session, board, machine):
    """For tests/qemu/examples.py: the same session over the generic runner's socket."""
    return converse(session, board)


class PtyEnd:
    """The terminal's end of QEMU's pty, opened and set raw as a terminal program does; recv
    and sendall as a socket's, for QemuSession's reading methods."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)

    def recv(self, size):
        ready, _, _ = select.select([self.fd], [], [], 0.2)
        if not ready:
            raise socket.timeout()
        try:
            return os.read(self.fd, size)
        except OSError:
            return b""  # EIO: QEMU closed its end, the machine is gone

    def sendall(self, data):
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]

    def close(self):
        os.close(self.fd)


def descendants(pid):
    """The processes under pid (make's QEMU), from /proc."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                children = [int(child) for child in f.read().split()]
        except (OSError, ValueError):
            continue
        for child in children:
            found += [child] + descendants(child)
    return found


class MakeRun(QemuSession):
    """`make run RUN_EXAMPLE=console SERIAL=pty|tcp`, as a user starts it, with the terminal's
    end of the UART in place of QemuSession's socket; what make and QEMU print (the monitor,
    where the pty is) is in said."""

    def __init__(self, board, machine, serial):
        # What QemuSession's reading methods use; its own __init__ starts QEMU its way.
        self._output = ""
        self._decoded = 0
        self._raw = bytearray()
        self.exit_status = None
        self.ports = []
        self.sock = None
        self.said = b""
        self.cuts_at_exit = serial == "pty"
        self.clock = RunClock()
        self.deadline = self.clock() + SESSION_BOUND
        command = ["make", "-s", "--no-print-directory", "run", f"BUILD={BUILD}", f"BOARD={board}",
                   f"QEMU_MACHINE={machine}", "RUN_EXAMPLE=console", f"SERIAL={serial}",
                   "DEPS_CHECKED=1"]
        if serial == "tcp":
            command.append("SERIAL_PORT=0")  # QEMU takes a free port and names it
        # Its own process group: make and its QEMU end together in close().
        self.process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        self.clock.pids.append(self.process.pid)
        try:
            self._attach(serial)
        except BaseException:
            self.close()  # a machine left halted or waiting for its client would never end
            raise
        self.clock.pids += descendants(self.process.pid)

    def _attach(self, serial):
        """Attach the terminal as a user does once make run has said where."""
        if serial == "pty":
            path = self._wait_said(rb"char device redirected to (/dev/pts/\d+)")
            self.sock = PtyEnd(path.decode())
            # Attached: start the halted machine, as the user types c at (qemu).
            self.process.stdin.write(b"c\n")
            self.process.stdin.flush()
        else:
            port = self._wait_said(rb"waiting for connection on: \S*tcp:127\.0\.0\.1:(\d+)")
            self.sock = socket.create_connection(("127.0.0.1", int(port)), timeout=KEY_WAIT)
            self.sock.settimeout(0.2)

    def _wait_said(self, pattern):
        """Read make's output until pattern matches; its group 1."""
        out = self.process.stdout.fileno()
        while self.clock() < self.deadline:
            match = re.search(pattern, self.said)
            if match:
                return match.group(1)
            ready, _, _ = select.select([out], [], [], 0.2)
            data = os.read(out, 4096) if ready else b""
            if ready and not data:
                raise RuntimeError(f"make run ended before {pattern!r}: {self.said!r}")
            self.said += data
        raise TimeoutError(f"make run never printed {pattern!r}: {self.said!r}")

    def close(self):
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        if self.sock is not None:
            self.sock.close()


def build(board):
    elf = os.path.join(BUILD, board, "examples", "console.elf")
    result = subprocess.run(["make", "-s", "--no-print-directory", f"BUILD={BUILD}", f"BOARD={board}",
                             "DEPS_CHECKED=1", elf], cwd=ROOT, capture_output=True, text=True)
    return result.stdout + result.stderr if result.returncode else None


def report(label, problems, took, session):
    """Print a session's line, and under a failure its problems and what both ends printed;
    returns whether it passed."""
    lines = [f"{'FAIL' if problems else 'ok  '} {label} [{took:.1f}s]"]
    lines += [f"     {problem}" for problem in problems]
    if problems and session is not None:
        lines += [f"     make run printed: {session.said[-600:]!r}",
                  f"     UART tail: {session.raw_bytes()[-600:]!r}"]
    print("\n".join(lines))
    return not problems


def main():
    passed = failed = 0
    for board, machine in MACHINES:
        failure = build(board)
        if failure:
            print(f"FAIL build console for {board}\n{failure}")
            failed += 1
            continue
        # The pty on every machine; the TCP server's wait once is enough (no guest code differs).
        for serial in ("pty", "tcp") if board == MACHINES[0][0] else ("pty",):
            label = f"console over {serial} on {machine} ({board})"
            started = time.monotonic()
            session = None
            try:
                session = MakeRun(board, machine, serial)
                problems = converse(session, board)
            except Exception as error:  # one failed session, not the end of the run
                problems = [f"{type(error).__name__}: {error}"]
            finally:
                if session is not None:
                    session.close()
            if report(label, problems, time.monotonic() - started, session):
                passed += 1
            else:
                failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
