#!/usr/bin/env python3
"""Run the libFuzzer target for a bounded time and close with its speed and coverage.

Usage: run_fuzz.py BINARY SECONDS CORPUS_DIR. Prints libFuzzer's last status line, then
'fuzz: N executions in S s (E per second), coverage C edges, F features' and a plain
'N passed, N failed' line (one run: passed unless the fuzzer found a crash or stopped early).
"""
import os
import re
import resource
import signal
import subprocess
import sys

# libFuzzer's limit on one input (-timeout) is wall time, its only kind: 300 s for inputs that
# take about a millisecond, which no load stretches that far. The run as a whole is bounded by
# CPU time, not wall time: its SECONDS of fuzzing plus 300 s.
INPUT_SECONDS = 300


def main(binary, seconds, corpus):
    os.makedirs(corpus, exist_ok=True)
    # Crash and slow-input files beside the corpus, not in the directory make ran from.
    artifacts = os.path.join(os.path.dirname(os.path.abspath(corpus)), "fuzz-artifacts")
    os.makedirs(artifacts, exist_ok=True)
    command = [binary, f"-max_total_time={seconds}", "-max_len=4096",
               f"-timeout={INPUT_SECONDS}", "-print_final_stats=1",
               f"-artifact_prefix={artifacts}/", corpus]
    cpu_seconds = int(seconds) + INPUT_SECONDS

    def cpu_limit():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))

    result = subprocess.run(command, capture_output=True, text=True, preexec_fn=cpu_limit)
    text = result.stdout + result.stderr
    if result.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        text += f"\nfuzz: exceeded {cpu_seconds} s of CPU: stopped"
    status_lines = [line for line in text.splitlines() if re.match(r"#\d+\s", line)]
    if status_lines:
        print(status_lines[-1])
    runs = re.search(r"stat::number_of_executed_units:\s*(\d+)", text)
    speed = re.search(r"stat::average_exec_per_sec:\s*(\d+)", text)
    coverage = re.findall(r"cov: (\d+) ft: (\d+)", text)
    if result.returncode != 0 or not runs:
        print(text[-6000:])
        print("fuzz: the fuzzer stopped with an error (see above)")
        print("0 passed, 1 failed")
        return 1
    edges, features = coverage[-1] if coverage else ("?", "?")
    print(f"fuzz: {runs.group(1)} executions in {seconds} s ({speed.group(1)} per second), "
          f"coverage {edges} edges, {features} features, 0 crashes")
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
