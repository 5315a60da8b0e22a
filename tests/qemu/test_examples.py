#!/usr/bin/env python3
"""The QEMU checks themselves, without QEMU: every example's check, fed a capture with nothing
in it (QEMU said nothing, no tick came, the run timed out) or a report with nothing behind it,
must return problems and never raise. A check that raised ended the whole run with a traceback
and skipped the board's other examples (issue 38: min() of no frames in run_rt_loop).

Run by make qemu-test before any QEMU starts: python3 tests/qemu/test_examples.py
"""
import os
import random
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import examples  # noqa: E402
import run_qemu_tests  # noqa: E402


class FakeSocket:
    def settimeout(self, _seconds):
        pass


class FakePort:
    """A serial port that received `captured` and nothing more, and takes whatever is sent."""

    def __init__(self, captured=b""):
        self._raw = bytearray(captured)
        self.sock = FakeSocket()
        self.sent = bytearray()

    def raw_bytes(self):
        return bytes(self._raw)

    def send(self, data):
        self.sent += data

    def pump(self):
        return None

    _pump = pump


class FakeSession(FakePort):
    """A finished QEMU run: its console said `captured`, it exited with `status` (None: it was
    still running at the deadline). Every wait returns at once with what is there."""

    def __init__(self, captured="", status=None):
        super().__init__(captured.encode("latin-1"))
        self.status = status
        self.ports = [FakePort() for _ in range(examples.MULTIPORT_EXTRA_SERIALS)]
        self._time = 0.0

    def clock(self):
        self._time += 1.0  # every look at the clock a second later: loops reach their deadline
        return self._time

    @property
    def output(self):
        return self._raw.decode("latin-1").replace("\r\n", "\n")

    def wait_exit(self):
        return self.status

    def read_until(self, text, timeout=None):
        return text in self.output

    def read_match(self, pattern, timeout=None):
        return re.search(pattern, self.output)

    def read_raw(self, count, timeout=None):
        return len(self._raw) >= count

    def send_unpaced(self, data, timeout):
        self.send(data)
        return True


def check(name, captured, status=None, board="virt", machine="virt"):
    """The problems example `name`'s check finds in the capture."""
    return examples.SPECS[name].run(FakeSession(captured, status), board=board, machine=machine)


class EmptyCapture(unittest.TestCase):
    def test_every_example_fails_without_raising(self):
        for name in examples.SPECS:
            for status in (None, 0, 1):
                with self.subTest(example=name, status=status):
                    self.assertTrue(check(name, "", status), f"{name}: no problem found in nothing")

    def test_on_every_long_soak_and_smp_machine(self):
        pairs = examples.LONG_SOAK_MACHINES | examples.SMP_RUNS | set(examples.MULTIPORT_PORTS)
        for board, machine in sorted(pairs):
            for name in examples.SPECS:
                with self.subTest(board=board, example=name):
                    self.assertTrue(check(name, "", 0, board, machine))


class ReportsWithoutSubstance(unittest.TestCase):
    def test_rt_loop_without_a_tick(self):
        # What a board whose tick never fires prints: the report, with no period measured.
        report = ("rt_loop: periods 0 over 0 under 0 band 970..1030 us\n"
                  "rt_loop: min 0 max 0 mean 0.0 max_deviation 0 us\n"
                  "rt_loop: frames 0 dropped_bytes 0 \n")
        problems = check("rt_loop", report, 0)
        self.assertTrue(any("0 periods measured" in p for p in problems), problems)

    def test_tx_cost_with_a_short_result_line(self):
        problems = check("tx_cost", "tx_cost POLLED: 23.0 instructions per byte, odd\n", 0)
        self.assertTrue(any("POLLED: result line" in p for p in problems), problems)

    def test_smp_with_more_letters_than_written(self):
        letters = "".join(chr(ord("a") + i % 26) for i in range(examples.SMP_WRITER_BYTES + 5))
        problems = check("smp", f"\n=====\n{letters}\n+++++\n", 0, "virt64", "virt")
        self.assertTrue(any("pl011_write (core 1)" in p for p in problems), problems)

    def test_packets_split_in_two(self):
        # The second burst framed as two packets (an RX idle in its middle).
        rng = random.Random(37)
        bursts = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))
                  for n in examples.PACKET_BURSTS]
        first = f"packet 1: 1 bytes, crc {examples.crc16_modbus(bursts[0]):04X}\n"
        halves = (bursts[1][:3], bursts[1][3:])
        split = "".join(f"packet {2 + i}: {len(h)} bytes, crc {examples.crc16_modbus(h):04X}\n"
                        for i, h in enumerate(halves))
        problems = check("packets", "packets ready\n" + first + split, 0)
        self.assertTrue(any("burst 2" in p for p in problems), problems)

    def test_probe_that_never_answers(self):
        self.assertTrue(check("probe", "probe: send 16 bytes\n", None))


class Runner(unittest.TestCase):
    def test_qemu_that_does_not_start_is_a_problem(self):
        # A QEMU command that exits at once: run_one reports it instead of raising.
        spec = examples.Spec(examples.run_hello, timeout=5.0)
        problems, session = run_qemu_tests.run_one(spec, [sys.executable, "-c", "pass"],
                                                   os.devnull, "virt", "virt")
        self.assertIsNone(session)
        self.assertTrue(problems and "stopped" in problems[0], problems)

    def test_check_that_raises_is_a_problem(self):
        def broken(session, board, machine):
            raise ValueError("min() arg is an empty sequence")
        spec = examples.Spec(broken, timeout=5.0)
        # A fake QEMU that opens its serial socket and waits: the check's error is the problem.
        fake = [sys.executable, "-c", FAKE_QEMU]
        problems, session = run_qemu_tests.run_one(spec, fake, os.devnull, "virt", "virt")
        self.assertIsNotNone(session)
        self.assertTrue(any("ValueError" in p for p in problems), problems)


# Listens on the -serial unix:PATH,... socket it is given, accepts one client, then sleeps.
FAKE_QEMU = """
import socket, sys, time
path = sys.argv[sys.argv.index('-serial') + 1].split(':', 1)[1].split(',')[0]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(1)
server.accept()
time.sleep(30)
"""


if __name__ == "__main__":
    random.seed(0)
    sys.exit(0 if unittest.main(exit=False, verbosity=1).result.wasSuccessful() else 1)
