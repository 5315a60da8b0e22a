#!/usr/bin/env python3
"""Run every example on every QEMU machine of every board and check what the UART said.

Each example's expectations live in tests/qemu/examples.py. The exit status of an example comes
back through semihosting. Ends with 'N passed, N failed'; exits non-zero on any failure.
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import examples as specs  # noqa: E402
from qemu_session import QemuSession  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# make's BUILD (make qemu-test passes it); relative to the repository like make's.
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))


def make(*args):
    return subprocess.run(["make", "-s", "--no-print-directory", *args], cwd=ROOT,
                          check=True, capture_output=True, text=True).stdout.strip()


def uart_count(board):
    """The PL011s besides the console that board.h lists (BOARD_EXTRA_UARTS, one {base, line}
    each), as make print-board-facts shows them."""
    facts = make(f"BOARD={board}", "BOARD_UART_CLOCK_HZ=", "print-board-facts")
    return sum(line.count("{") for line in facts.splitlines()
               if line.startswith("board-fact extra_uarts"))


def boards(selected=None):
    """(board, [machines]) of every board with a QEMU machine (of `selected` only, if given);
    machines None where make could not say."""
    names = sorted(d for d in os.listdir(os.path.join(ROOT, "boards"))
                   if os.path.isfile(os.path.join(ROOT, "boards", d, "board.mk")))
    result = []
    for name in names:
        if selected and name not in selected:
            continue
        try:
            machines = make(f"BOARD={name}", "print-qemu-machines").split()
            if machines and make(f"BOARD={name}", "print-qemu-smp") == "yes":
                specs.SMP_RUNS.update((name, machine) for machine in machines)
            if machines:
                ports = 1 + uart_count(name)
                if ports > 1:
                    specs.MULTIPORT_PORTS.update({(name, machine): ports for machine in machines})
        except subprocess.CalledProcessError:
            machines = None
        if machines != []:
            result.append((name, machines))
    return result


def example_names():
    folder = os.path.join(ROOT, "examples")
    return sorted(d for d in os.listdir(folder) if os.path.isfile(os.path.join(folder, d, "main.c")))


def run_one(spec, base, elf, board, machine):
    """(problems, session) of one example on one machine. Never raises: a QEMU that would not
    start, a socket that broke, a check that tripped over output it did not expect all become a
    problem, so that the board's other examples still run (session None if QEMU never ran)."""
    session = None
    try:
        session = QemuSession(base, elf, icount=spec.icount, timeout=spec.timeout,
                              extra_serials=spec.extra_serials)
        problems = spec.run(session, board=board, machine=machine)
    except Exception as error:  # noqa: BLE001 - any failure of one run is that run's FAIL
        problems = [f"the test itself stopped: {type(error).__name__}: {error}"]
    finally:
        if session is not None:
            session.close()
    return problems, session


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--board", action="append", help="only these boards")
    parser.add_argument("--example", action="append", help="only these examples")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--full-soak", action="store_true",
                        help="the 1 MiB echo soak on every machine, not only on examples.LONG_SOAK_MACHINES")
    args = parser.parse_args()
    specs.LONG_SOAK_EVERYWHERE = args.full_soak

    passed = failed = 0
    for board in args.board or []:
        if not os.path.isfile(os.path.join(ROOT, "boards", board, "board.mk")):
            print(f"FAIL {board}: no boards/{board}/board.mk")
            failed += 1
    for board, machines in boards(args.board):
        if machines is None:
            print(f"FAIL {board}: make print-qemu-machines failed")
            failed += 1
            continue
        build = subprocess.run(["make", "--no-print-directory", f"-j{os.cpu_count() or 1}",
                                f"BOARD={board}", "examples"],
                               cwd=ROOT, capture_output=True, text=True)
        if build.returncode != 0:
            print(f"FAIL build {board}\n{build.stdout}{build.stderr}")
            failed += 1
            continue
        for machine in machines:
            try:
                base = make(f"BOARD={board}", f"QEMU_MACHINE={machine}", "print-qemu").split()
            except subprocess.CalledProcessError as error:
                print(f"FAIL {board} on {machine}: make print-qemu failed: {error.stderr.strip()[-300:]}")
                failed += 1
                continue
            for name in example_names():
                if args.example and name not in args.example:
                    continue
                spec = specs.SPECS.get(name)
                label = f"{name} on {machine} ({board})"
                if spec is None:
                    print(f"FAIL {label}: no expectations in tests/qemu/examples.py")
                    failed += 1
                    continue
                elf = os.path.join(BUILD, board, "examples", f"{name}.elf")
                started = time.monotonic()
                problems, session = run_one(spec, base, elf, board, machine)
                took = time.monotonic() - started
                if problems:
                    failed += 1
                    print(f"FAIL {label} [{took:.1f}s]")
                    for problem in problems:
                        print(f"     {problem}")
                    tail = session.output[-1500:] if session else ""
                    print("     --- output tail ---\n" + "\n".join("     " + line for line in tail.splitlines()))
                else:
                    passed += 1
                    print(f"ok   {label} [{took:.1f}s]")
                    if args.verbose:
                        print(session.output)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
