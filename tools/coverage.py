#!/usr/bin/env python3
"""Line and branch coverage of lib/ by the host tests (gcov through lcov), with every line
that never ran listed. Builds under build/coverage/ (-O0 --coverage, no sanitizers), runs
every tests/unit/test_*.c program, prints lcov's summary for lib/ and the uncovered lines.
Usage: tools/coverage.py [--min-lines PCT] [--min-branches PCT]
"""
import argparse
import concurrent.futures
import os
import re
import resource
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "coverage")
CC = os.environ.get("HOST_CC", "gcc")
CFLAGS = ["-std=c11", "-O0", "-g", "--coverage", "-DPL011_IO_HOOKS", "-Iinclude", "-Ilib",
          "-Itests/model", "-Itests/unit"]
LCOV_RC = ["--rc", "lcov_branch_coverage=1"]


def sh(cmd, **kwargs):
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"coverage: {' '.join(cmd)} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return result.stdout


def sources(folder, test):
    return sorted(os.path.join(folder, f) for f in os.listdir(os.path.join(ROOT, folder))
                  if f.endswith(".c") and f.startswith("test_") == test)


def compile_one(source):
    obj = os.path.join(OUT, source.replace("/", "_")[:-2] + ".o")
    sh([CC] + CFLAGS + ["-c", source, "-o", obj])
    return source, obj


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-lines", type=float, default=0.0)
    parser.add_argument("--min-branches", type=float, default=0.0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    tests = sources("tests/unit", True)
    everything = sources("lib", False) + sources("tests/model", False) + \
        sources("tests/unit", False) + tests
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        objs = dict(pool.map(compile_one, everything))
    shared = [objs[s] for s in everything if s not in tests]
    programs = []
    for t in tests:
        exe = os.path.join(OUT, os.path.basename(t)[:-2])
        sh([CC, "--coverage", objs[t]] + shared + ["-lcmocka", "-lpthread", "-o", exe])
        programs.append(exe)

    def cpu_limit():
        # CPU time, not wall time: a loaded machine cannot make a healthy program fail.
        resource.setrlimit(resource.RLIMIT_CPU, (1800, 1805))

    def run(exe):
        result = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True,
                                preexec_fn=cpu_limit)
        return exe, result.returncode, result.stdout + result.stderr

    failed = False
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for exe, code, text in pool.map(run, programs):
            print(f"{'ok  ' if code == 0 else 'FAIL'} {os.path.basename(exe)}")
            if code != 0:
                failed = True
                print(text[-3000:])

    info = os.path.join(OUT, "all.info")
    lib_info = os.path.join(OUT, "lib.info")
    sh(["lcov", "--quiet", "--capture", "--directory", OUT, "--output-file", info] + LCOV_RC)
    sh(["lcov", "--quiet", "--extract", info, os.path.join(ROOT, "lib", "*"),
        "--output-file", lib_info] + LCOV_RC)
    # lcov 1.16 prints its summary on stderr.
    result = subprocess.run(["lcov", "--summary", lib_info] + LCOV_RC, capture_output=True,
                            text=True)
    summary = result.stdout + result.stderr
    print("lib/ coverage by the host tests:")
    for line in summary.splitlines():
        if line.strip().startswith(("lines", "functions", "branches")):
            print("  " + line.strip())
    lines_pct = float(re.search(r"lines\.*: ([\d.]+)%", summary).group(1))
    branch_match = re.search(r"branches\.*: ([\d.]+)%", summary)
    branches_pct = float(branch_match.group(1)) if branch_match else 0.0

    # The lines never run, with their text, from the tracefile's DA records.
    current = None
    uncovered = []
    with open(lib_info) as f:
        for record in f:
            record = record.strip()
            if record.startswith("SF:"):
                current = record[3:]
            elif record.startswith("DA:"):
                line, count = record[3:].split(",")[:2]
                if int(count) == 0:
                    uncovered.append((current, int(line)))
    print(f"uncovered lines of lib/: {len(uncovered)}")
    texts = {}
    for path, line in uncovered:
        if path not in texts:
            with open(path) as f:
                texts[path] = f.read().splitlines()
        print(f"  {os.path.relpath(path, ROOT)}:{line}: {texts[path][line - 1].strip()}")
    print(f"html: genhtml --branch-coverage {os.path.relpath(lib_info, ROOT)} -o build/coverage/html")
    if failed:
        return 1
    if lines_pct < args.min_lines or branches_pct < args.min_branches:
        print(f"coverage: below the minimum ({args.min_lines} % lines, {args.min_branches} % branches)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
