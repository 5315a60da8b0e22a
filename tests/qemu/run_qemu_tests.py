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


def boards():
    names = sorted(d for d in os.listdir(os.path.join(ROOT, "boards"))
                   if os.path.isfile(os.path.join(ROOT, "boards", d, "board.mk")))
    result = []
    for name in names:
        machines = make(f"BOARD={name}", "print-qemu-machines").split()
        if machines:
            result.append((name, machines))
    return result


def example_names():
    folder = os.path.join(ROOT, "examples")
    return sorted(d for d in os.listdir(folder) if os.path.isfile(os.path.join(folder, d, "main.c")))


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
    for board, machines in boards():
        if args.board and board not in args.board:
            continue
        build = subprocess.run(["make", "--no-print-directory", f"BOARD={board}", "examples"],
                               cwd=ROOT, capture_output=True, text=True)
        if build.returncode != 0:
            print(f"FAIL build {board}\n{build.stdout}{build.stderr}")
            failed += 1
            continue
        for machine in machines:
            base = make(f"BOARD={board}", f"QEMU_MACHINE={machine}", "print-qemu").split()
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
                session = QemuSession(base, elf, icount=spec.icount, timeout=spec.timeout,
                                      extra_serials=spec.extra_serials)
                try:
                    problems = spec.run(session, board=board, machine=machine)
                finally:
                    session.close()
                took = time.monotonic() - started
                if problems:
                    failed += 1
                    print(f"FAIL {label} [{took:.1f}s]")
                    for problem in problems:
                        print(f"     {problem}")
                    tail = session.output[-1500:]
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
