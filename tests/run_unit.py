#!/usr/bin/env python3
"""Run the host test programs given on the command line; sum cmocka's results.

Usage: run_unit.py [--run "EMULATOR ARGS"] PROGRAM...   (--run: start each program through it)
The programs run UNIT_JOBS at a time (default: the machine's cores); each is deterministic
(the model's simulated clock), so running them side by side changes no result, only the wall
time. The report keeps the command line's order and gives each program's CPU time.

A hang is caught by CPU time, never by wall time, so that a loaded machine (other builds,
other jobs) cannot fail a slow but healthy run:
- each program (with its emulator under --run) may use UNIT_CPU_SECONDS of CPU (default 600,
  four times the longest program at full depth): RLIMIT_CPU sends SIGXCPU there and SIGKILL
  5 s later, and the program fails with "exceeded N s of CPU";
- a program that blocks without spinning (a deadlock) uses no CPU: it is stopped once it has
  neither run nor been waiting for a CPU for UNIT_BLOCKED_SECONDS (default 300) in a row. No
  load can cause that: a program that waits for a CPU is runnable, not blocked.
"""
import concurrent.futures
import os
import re
import resource
import shlex
import signal
import sys
import tempfile
import time


def usage_of(pid):
    """(CPU ticks used so far, whether a thread of it runs or waits for a CPU), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime: every thread's
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "R":
                    return ticks, True
        return ticks, False
    except (OSError, IndexError, ValueError):
        return None  # no /proc, or it has just exited


def run_one(runner, program, cpu_seconds, blocked_seconds):
    """Returns (exit code or -signal, output, CPU seconds, why it was stopped or None)."""
    command = runner + [program]
    with tempfile.TemporaryFile() as out:
        actions = [(os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, out.fileno(), 2)]
        try:
            pid = os.posix_spawnp(command[0], command, os.environ, file_actions=actions)
        except OSError as error:
            return 127, f"{program}: cannot start {command[0]}: {error}", 0.0, None
        try:
            # Set from here, not in the child: the limit counts the CPU used before it too.
            resource.prlimit(pid, resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        except OSError:
            pass  # already exited
        stopped = None
        blocked = 0.0
        last = usage_of(pid)
        pause = 0.01
        while True:
            done, status, rusage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            before = time.monotonic()
            time.sleep(pause)
            pause = min(1.0, pause * 2)
            now = usage_of(pid)
            if now is not None and last is not None and now[0] == last[0] and not now[1]:
                blocked += time.monotonic() - before
            else:
                blocked = 0.0
            last = now
            if blocked >= blocked_seconds:
                stopped = (f"blocked {blocked_seconds} s without running or waiting for a CPU "
                           "(a deadlock?): stopped")
                os.kill(pid, signal.SIGKILL)
                _, status, rusage = os.wait4(pid, 0)
                break
        cpu = rusage.ru_utime + rusage.ru_stime
        code = os.waitstatus_to_exitcode(status)
        if stopped is None and (code == -signal.SIGXCPU or
                                (code == -signal.SIGKILL and cpu >= cpu_seconds)):
            stopped = f"exceeded {cpu_seconds} s of CPU (a hang?): stopped"
        out.seek(0)
        text = out.read().decode(errors="replace")
    return code, text, cpu, stopped


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
    cpu_seconds = int(os.environ.get("UNIT_CPU_SECONDS", "600"))
    blocked_seconds = int(os.environ.get("UNIT_BLOCKED_SECONDS", "300"))
    passed = failed = 0
    total_cpu = 0.0
    jobs = int(os.environ.get("UNIT_JOBS", "0")) or os.cpu_count() or 1
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = [pool.submit(run_one, runner, program, cpu_seconds, blocked_seconds)
                   for program in programs]
    for program, future in zip(programs, results):
        returncode, text, cpu, stopped = future.result()
        total_cpu += cpu
        ok = re.search(r"\[  PASSED  \] (\d+) test", text)
        bad = re.search(r"\[  FAILED  \] (\d+) test", text)
        n_ok = int(ok.group(1)) if ok else 0
        n_bad = int(bad.group(1)) if bad else 0
        if returncode != 0 and n_bad == 0:
            n_bad = 1  # crashed, stopped or sanitizer abort: count the program as one failure
        passed += n_ok
        failed += n_bad
        status = "ok  " if returncode == 0 and n_bad == 0 else "FAIL"
        print(f"{status} {program}: {n_ok} passed, {n_bad} failed ({cpu:.1f} s CPU)")
        if status == "FAIL" and text.strip():
            print(text[-4000:])
            if stopped:
                print(f"FAIL {program}: {stopped}")
    print(f"run_unit: {total_cpu:.0f} s of CPU in all")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
