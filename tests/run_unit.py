#!/usr/bin/env python3
"""Run the host test programs given on the command line; sum cmocka's results.

Usage: run_unit.py [--run "EMULATOR ARGS"] PROGRAM...   (--run: start each program through it)
The programs run UNIT_JOBS at a time (default: the machine's cores); each is deterministic
(the model's simulated clock), so running them side by side changes no result, only the wall
time. The report keeps the command line's order.
"""
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys


def run_one(runner, program):
    try:
        result = subprocess.run(runner + [program], capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return 124, f"{program}: no result within 600 s"
    return result.returncode, result.stdout + result.stderr


def main(arguments):
    # A config on the stack of a function that returned, still read by a running port (the
    # driver keeps a pointer to it): ASan reports it only with this.
    asan = os.environ.get("ASAN_OPTIONS", "")
    if "detect_stack_use_after_return" not in asan:
        os.environ["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "detect_stack_use_after_return=1"
    runner = []
    if arguments[:1] == ["--run"]:
        runner = shlex.split(arguments[1])
        arguments = arguments[2:]
    programs = arguments
    passed = failed = 0
    jobs = int(os.environ.get("UNIT_JOBS", "0")) or os.cpu_count() or 1
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = [pool.submit(run_one, runner, program) for program in programs]
    for program, future in zip(programs, results):
        returncode, text = future.result()
        ok = re.search(r"\[  PASSED  \] (\d+) test", text)
        bad = re.search(r"\[  FAILED  \] (\d+) test", text)
        n_ok = int(ok.group(1)) if ok else 0
        n_bad = int(bad.group(1)) if bad else 0
        if returncode != 0 and n_bad == 0:
            n_bad = 1  # crashed or sanitizer abort: count the program as one failure
        passed += n_ok
        failed += n_bad
        status = "ok  " if returncode == 0 and n_bad == 0 else "FAIL"
        print(f"{status} {program}: {n_ok} passed, {n_bad} failed")
        if status == "FAIL":
            print(text[-4000:])
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
