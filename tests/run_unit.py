#!/usr/bin/env python3
"""Run the host test programs given on the command line; sum cmocka's results.

Usage: run_unit.py [--run "EMULATOR ARGS"] PROGRAM...   (--run: start each program through it)
"""
import re
import shlex
import subprocess
import sys


def main(arguments):
    runner = []
    if arguments[:1] == ["--run"]:
        runner = shlex.split(arguments[1])
        arguments = arguments[2:]
    programs = arguments
    passed = failed = 0
    for program in programs:
        result = subprocess.run(runner + [program], capture_output=True, text=True, timeout=600)
        text = result.stdout + result.stderr
        ok = re.search(r"\[  PASSED  \] (\d+) test", text)
        bad = re.search(r"\[  FAILED  \] (\d+) test", text)
        n_ok = int(ok.group(1)) if ok else 0
        n_bad = int(bad.group(1)) if bad else 0
        if result.returncode != 0 and n_bad == 0:
            n_bad = 1  # crashed or sanitizer abort: count the program as one failure
        passed += n_ok
        failed += n_bad
        status = "ok  " if result.returncode == 0 and n_bad == 0 else "FAIL"
        print(f"{status} {program}: {n_ok} passed, {n_bad} failed")
        if status == "FAIL":
            print(text[-4000:])
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
