#!/usr/bin/env python3
"""Mutation testing of lib/: apply each mutant of a set to a copy of lib/, build the host tests
against it (no sanitizers, -O1), run them under a timeout, print the score.

Two sets: "curated" (tools/mutants.py, the default: written with the tests) and "blind"
(tools/mutants_blind.py: written from lib/ and the docs without reading tests/). Their scores
are reported separately (docs/testing.md); --set picks one.

A mutant is killed when a test program fails, crashes or times out; it survives when every
program passes. Only the programs that execute the mutant's lines run (measured once with
gcov, see Coverage; --all-programs runs them all). lib/ and build/ are never written: each mutant gets its own copy of lib/ in a
temporary folder. Usage: tools/mutate.py [--set curated|blind | --set-file PATH] [--mutants PATTERNS]
[--jobs N] [--min-score PCT].
PATTERNS is a comma-separated list of shell patterns on mutant ids; "quick" selects the fast
subset that `make test` runs.
"""
import argparse
import concurrent.futures
import fnmatch
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import importlib  # noqa: E402
import importlib.util  # noqa: E402

# The mutant sets: name -> module in tools/ holding MUTANTS.
SETS = {"curated": "mutants", "blind": "mutants_blind"}
MUTANTS = []  # the chosen set, loaded by main()

CC = os.environ.get("HOST_CC", "gcc")
CFLAGS = ["-std=c11", "-O1", "-g0", "-w", "-DPL011_IO_HOOKS"]
UNIT = os.path.join(ROOT, "tests", "unit")
MODEL = os.path.join(ROOT, "tests", "model")
# The one-core build (docs/building.md, "One core"): what make unit-test-single-core builds.
SINGLE_CORE = ["-DPL011_SINGLE_CORE=1"]
# Changed whenever Coverage.measure's output changes: part of the cache's key.
COVERAGE_FORMAT = "1"
# Programs that only exercise the ring: run for ring mutants only.
RING_ONLY = {"test_ring", "test_ring_threads"}
# Fast first, so that most mutants die within seconds (CPU time at -O1 on 2 December 2026;
# the baseline's own times replace it when it runs). Programs not named here run last.
ORDER = ["test_baud", "test_config", "test_model", "test_contract", "test_ring", "test_bounds",
         "test_divide", "test_rx_lossless", "test_rs485", "test_driver_polled", "test_measured_judge",
         "test_events", "test_ring_threads", "test_line", "test_irq_rx", "test_documented_bounds",
         "test_counters", "test_tx_regressions", "test_irq_tx", "test_two_cores", "test_regimes",
         "test_shutdown", "test_random_ops", "test_call_matrix", "test_preemption"]


def run(cmd, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, **kwargs)


def compile_objects(sources, lib_dir, out_dir, extra=()):
    """Compile sources to out_dir in parallel; returns {source: object}, raises on error."""
    objects = {}
    procs = []
    for source in sources:
        obj = os.path.join(out_dir, os.path.basename(source).replace(".c", ".o"))
        cmd = [CC] + CFLAGS + list(extra) + ["-I" + lib_dir, "-I" + os.path.join(ROOT, "include"),
                               "-I" + MODEL, "-I" + UNIT, "-c", source, "-o", obj]
        procs.append((source, subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                               stderr=subprocess.STDOUT, text=True)))
        objects[source] = obj
    errors = []
    for source, proc in procs:
        out, _ = proc.communicate()
        if proc.returncode != 0:
            errors.append(f"{source}: {out[-2000:]}")
    if errors:
        raise RuntimeError("\n".join(errors))
    return objects


def single_core_skipped():
    """The programs make unit-test-single-core leaves out (UNIT_TESTS_SINGLE_SKIP in
    mk/host.mk: those whose second context is another core)."""
    with open(os.path.join(ROOT, "mk", "host.mk")) as f:
        text = f.read()
    start = text.index("UNIT_TESTS_SINGLE_SKIP :=")
    end = text.index("\n", start)
    while text[end - 1] == "\\":
        end = text.index("\n", end + 1)
    return set(text[start:end].replace("\\", " ").split()[2:])


def assembly_of(lib_dir, name, extra):
    """The assembly of lib_dir's name (a .c file), read from stdin so that no path is in it."""
    with open(os.path.join(lib_dir, name)) as f:
        source = f.read()
    cmd = [CC] + CFLAGS + list(extra) + ["-I" + lib_dir, "-I" + os.path.join(ROOT, "include"),
                                         "-I" + MODEL, "-I" + UNIT, "-x", "c", "-", "-S",
                                         "-o", "-"]
    result = run(cmd, input=source, cwd=lib_dir)
    if result.returncode != 0:
        raise RuntimeError(f"{name}: {result.stderr[-2000:]}")
    return result.stdout


class Build:
    """Objects of everything but lib/ (built once from the real tree), and the test list."""

    def __init__(self, work):
        self.work = work
        self.tests = sorted(f[:-2] for f in os.listdir(UNIT)
                            if f.startswith("test_") and f.endswith(".c"))
        support = [os.path.join(UNIT, f) for f in os.listdir(UNIT)
                   if f.endswith(".c") and not f.startswith("test_")]
        model = [os.path.join(MODEL, f) for f in os.listdir(MODEL) if f.endswith(".c")]
        self.lib_sources = sorted(f for f in os.listdir(os.path.join(ROOT, "lib"))
                                  if f.endswith(".c"))
        base = os.path.join(work, "base")
        os.makedirs(base)
        test_sources = [os.path.join(UNIT, t + ".c") for t in self.tests]
        objs = compile_objects(support + model + test_sources, os.path.join(ROOT, "lib"), base)
        self.support = [objs[s] for s in support + model]
        self.test_objs = {t: objs[os.path.join(UNIT, t + ".c")] for t in self.tests}
        lib_objs = compile_objects([os.path.join(ROOT, "lib", f) for f in self.lib_sources],
                                   os.path.join(ROOT, "lib"), base)
        self.base_lib = {os.path.basename(s): o for s, o in lib_objs.items()}
        self.times = {}
        self.coverage = None
        self.single = None  # the one-core build, made by single_core() on first need
        self.single_lock = threading.Lock()
        self.assembly = {}  # (lib file, one core?) -> its assembly, unmutated

    def single_core(self):
        """The one-core build's objects of everything but lib/, and its programs: those of
        make unit-test-single-core (mk/host.mk names the ones left out)."""
        with self.single_lock:
            if self.single is None:
                out = os.path.join(self.work, "single")
                os.makedirs(out)
                support = [os.path.join(UNIT, f) for f in os.listdir(UNIT)
                           if f.endswith(".c") and not f.startswith("test_")]
                support += [os.path.join(MODEL, f) for f in os.listdir(MODEL) if f.endswith(".c")]
                skip = single_core_skipped()
                tests = [t for t in self.tests if t not in skip]
                sources = support + [os.path.join(UNIT, t + ".c") for t in tests]
                objs = compile_objects(sources, os.path.join(ROOT, "lib"), out, SINGLE_CORE)
                lib = compile_objects([os.path.join(ROOT, "lib", f) for f in self.lib_sources],
                                      os.path.join(ROOT, "lib"), out, SINGLE_CORE)
                self.single = {
                    "support": [objs[s] for s in support if s in objs],
                    "tests": {t: objs[os.path.join(UNIT, t + ".c")] for t in tests},
                    "lib": {os.path.basename(k): v for k, v in lib.items()},
                }
            return self.single

    def changes_code(self, lib_dir, names, one_core):
        """Does the copy of lib/ in lib_dir compile any of names to other assembly than lib/
        does, in the default build or (one_core) the one-core one?"""
        extra = SINGLE_CORE if one_core else []
        for name in names:
            key = (name, one_core)
            if key not in self.assembly:
                self.assembly[key] = assembly_of(os.path.join(ROOT, "lib"), name, extra)
            if assembly_of(lib_dir, name, extra) != self.assembly[key]:
                return True
        return False

    def order(self, mutated_file):
        ring = mutated_file.endswith("pl011_ring.c")
        tests = [t for t in self.tests if ring or t not in RING_ONLY]
        rank = {t: i for i, t in enumerate(ORDER)}
        if self.times:
            return sorted(tests, key=lambda t: self.times.get(t, 1e9))
        return sorted(tests, key=lambda t: rank.get(t, len(ORDER)))

    def link(self, lib_objs, out_dir, tests):
        procs = []
        for t in tests:
            exe = os.path.join(out_dir, t)
            cmd = [CC, self.test_objs[t]] + lib_objs + self.support + \
                ["-lcmocka", "-lpthread", "-o", exe]
            procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True))
        for p in procs:
            out, _ = p.communicate()
            if p.returncode != 0:
                raise RuntimeError(out[-2000:])
        return {t: os.path.join(out_dir, t) for t in tests}


class Coverage:
    """Which lib/ lines each test program executes, from one -O0 --coverage run of the unmutated
    tree (cached in the temporary folder under a hash of the sources). A program that executes
    none of a mutant's lines cannot tell the mutant from the original, since the programs are
    deterministic: evaluate() skips it. A mutant in a header, or whose lines are none of them
    executable code (a macro, a table), runs every program."""

    def __init__(self, build):
        self.executed = {}    # program -> {lib file name: set of executed lines}
        self.executable = {}  # lib file name -> set of lines that hold code
        sources = sorted(os.path.join(d, f) for d in (os.path.join(ROOT, "lib"), UNIT, MODEL)
                         for f in os.listdir(d) if f.endswith((".c", ".h")))
        digest = hashlib.sha256()
        digest.update((COVERAGE_FORMAT + ",".join(build.tests)).encode())
        for path in sources:
            with open(path, "rb") as f:
                digest.update(os.path.relpath(path, ROOT).encode() + b"\0" + f.read())
        cache = os.path.join(tempfile.gettempdir(),
                             f"pl011-mutate-coverage-{digest.hexdigest()[:16]}.json")
        if os.path.exists(cache):
            with open(cache) as f:
                data = json.load(f)
        else:
            data = self.measure(build)
            with open(cache + ".tmp", "w") as f:
                json.dump(data, f)
            os.replace(cache + ".tmp", cache)
        for program, files in data.items():
            self.executed[program] = {name: set(lines[0]) for name, lines in files.items()}
            for name, lines in files.items():
                self.executable.setdefault(name, set()).update(lines[1])

    @staticmethod
    def measure(build):
        started = time.monotonic()
        cov = os.path.join(build.work, "coverage")
        os.makedirs(cov)
        flags = ["-std=c11", "-O0", "-g0", "-w", "--coverage", "-DPL011_IO_HOOKS",
                 "-I" + os.path.join(ROOT, "lib"), "-I" + os.path.join(ROOT, "include"),
                 "-I" + MODEL, "-I" + UNIT]
        support = [os.path.join(UNIT, f) for f in os.listdir(UNIT)
                   if f.endswith(".c") and not f.startswith("test_")]
        support += [os.path.join(MODEL, f) for f in os.listdir(MODEL) if f.endswith(".c")]
        libs = [os.path.join(ROOT, "lib", f) for f in build.lib_sources]
        objects = []
        for source in support + libs:
            obj = os.path.join(cov, os.path.basename(source)[:-2] + ".o")
            subprocess.run([CC] + flags + ["-c", source, "-o", obj], check=True)
            objects.append(obj)

        def one(program):
            exe = os.path.join(cov, program)
            subprocess.run([CC] + flags + [os.path.join(UNIT, program + ".c")] + objects +
                           ["-lcmocka", "-lpthread", "-o", exe], check=True)
            prefix = os.path.join(cov, "run-" + program)
            env = dict(os.environ, GCOV_PREFIX=prefix)
            result = run([exe], env=env, preexec_fn=cpu_limit(1800))
            if result.returncode != 0:
                raise RuntimeError(f"coverage run of {program} failed:\n{result.stdout[-2000:]}")
            files = {}
            for lib in build.lib_sources:
                gcda_dir = prefix + cov
                gcno = os.path.join(cov, lib[:-2] + ".gcno")
                if not os.path.exists(os.path.join(gcda_dir, lib[:-2] + ".gcda")):
                    continue
                shutil.copy(gcno, gcda_dir)
                out = run(["gcov", "--json-format", "--stdout", "-o", gcda_dir, lib], cwd=cov)
                for doc in out.stdout.splitlines():
                    if not doc.strip():
                        continue
                    for entry in json.loads(doc).get("files", []):
                        name = os.path.basename(entry["file"])
                        if name != lib:
                            continue
                        ran = sorted({ln["line_number"] for ln in entry["lines"] if ln["count"]})
                        code = sorted({ln["line_number"] for ln in entry["lines"]})
                        files[name] = [ran, code]
            return program, files

        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            data = dict(pool.map(one, build.tests))
        print("coverage: which lines each program executes, measured in %.0f s" %
              (time.monotonic() - started), flush=True)
        return data

    def needed(self, program, mutant, line):
        """Can program tell the mutant at line (first line of its search text) apart?"""
        name = os.path.basename(mutant.file)
        if not name.endswith(".c") or program not in self.executed or "#" in mutant.search:
            return True  # a header, or a macro whose uses are elsewhere
        span = set(range(line, line + mutant.search.count("\n") + 1))
        code = span & self.executable.get(name, set())
        if not code:
            return True
        return bool(code & self.executed[program].get(name, set()))


def first_failure(text):
    for line in text.splitlines():
        if "[  FAILED  ]" in line or "[  ERROR   ]" in line or "ERROR:" in line:
            return line.strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def cpu_limit(seconds):
    """A preexec function: the program gets SIGXCPU after this much CPU time. The limit is on
    CPU time, not wall time, so that a loaded machine (other jobs, other sessions) cannot turn
    a slow pass into a kill; a program that spins for ever still reaches it."""
    def apply():
        limit = int(seconds) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
    return apply


def run_programs(programs, timeout_of):
    """Run in order until one fails. Returns (program, reason) of the first failure, or None."""
    for name, exe in programs:
        limit = timeout_of(name)
        try:
            # The wall-clock bound is only for a program that blocks without spinning.
            result = run([exe], timeout=20 * limit + 600, preexec_fn=cpu_limit(limit))
        except subprocess.TimeoutExpired:
            return name, "blocked past its wall-clock bound (a hang counts as killed)"
        if result.returncode == -signal.SIGXCPU:
            return name, f"used up its {limit:.0f} s of CPU (a hang counts as killed)"
        if result.returncode != 0:
            return name, first_failure(result.stdout + result.stderr)
    return None


def tsan_ring(lib_dir, out_dir):
    """The two-thread ring test under ThreadSanitizer: it sees a relaxed acquire or release."""
    exe = os.path.join(out_dir, "tsan_test_ring_threads")
    cmd = [CC, "-std=c11", "-O1", "-g", "-w", "-fsanitize=thread", "-I" + lib_dir,
           "-I" + os.path.join(ROOT, "include"), os.path.join(UNIT, "test_ring_threads.c"),
           os.path.join(lib_dir, "pl011_ring.c"), "-lcmocka", "-lpthread", "-o", exe]
    result = run(cmd)
    if result.returncode != 0:
        raise RuntimeError(result.stdout + result.stderr)
    return exe


def locate(mutant):
    """(count of the search text in its file, line of the first match)."""
    with open(os.path.join(ROOT, mutant.file)) as f:
        text = f.read()
    count = text.count(mutant.search)
    line = text[:text.find(mutant.search)].count("\n") + 1 if count else 0
    return text, count, line


def evaluate(mutant, build, timeout_of):
    text, count, line = locate(mutant)
    where = f"{mutant.file}:{line}" if line else mutant.file
    if count != 1:
        why = "search text not found" if count == 0 else f"search text found {count} times"
        return {"status": "stale", "where": where, "detail": why}
    if mutant.equivalent:
        return {"status": "equivalent", "where": where, "detail": mutant.equivalent}
    wd = tempfile.mkdtemp(dir=build.work, prefix=mutant.id + ".")
    try:
        lib_dir = os.path.join(wd, "lib")
        shutil.copytree(os.path.join(ROOT, "lib"), lib_dir)
        with open(os.path.join(lib_dir, os.path.basename(mutant.file)), "w") as f:
            f.write(text.replace(mutant.search, mutant.replace, 1))
        name = os.path.basename(mutant.file)
        rebuild = build.lib_sources if name.endswith(".h") else [name]
        try:
            objs = compile_objects([os.path.join(lib_dir, f) for f in rebuild], lib_dir, wd)
        except RuntimeError as error:
            return {"status": "broken", "where": where, "detail": str(error)[:300]}
        lib_objs = [objs.get(os.path.join(lib_dir, f), build.base_lib[f])
                    for f in build.lib_sources]
        tests = build.order(mutant.file)
        if build.coverage is not None:
            tests = [t for t in tests if build.coverage.needed(t, mutant, line)]
        ring = name == "pl011_ring.c"

        def programs():
            """The programs in order, linked in batches of 1, 2, 4...: most mutants die in the
            first few, and linking every program for each of them took most of the time."""
            done, size = 0, 1
            while done < len(tests):
                batch = tests[done:done + size]
                exes = build.link(lib_objs, wd, batch)
                for t in batch:
                    yield t, exes[t]
                done, size = done + len(batch), size * 2
            if ring:
                yield "tsan_test_ring_threads", tsan_ring(lib_dir, wd)
        # A mutant that changes the one-core build's code and not the default build's (in
        # PL011_SINGLE_CORE code) is judged by the one-core build's programs alone; one that
        # changes both and survives the default build's programs, by them too. The default
        # programs run for every other mutant, as before: the ring's ThreadSanitizer program
        # sees an ordering that the plain assembly of this machine does not show.
        default_changed = build.changes_code(lib_dir, rebuild, False)
        one_core_changed = build.changes_code(lib_dir, rebuild, True)
        one_core_only = one_core_changed and not default_changed
        failure = None if one_core_only else run_programs(programs(), timeout_of)
        if failure:
            return {"status": "killed", "where": where, "detail": f"{failure[0]}: {failure[1]}"}
        if one_core_changed:
            failure, count = run_single_core(build, lib_dir, rebuild, wd, timeout_of)
            if failure:
                return {"status": "killed", "where": where,
                        "detail": f"one core: {failure[0]}: {failure[1]}"}
            return {"status": "survived", "where": where,
                    "detail": f"{0 if one_core_only else len(tests) + ring} programs, and "
                              f"{count} of the one-core build, all passed"}
        neither = "" if default_changed else " (the code of neither build changes)"
        return {"status": "survived", "where": where,
                "detail": f"{len(tests) + ring} programs execute its lines, all passed{neither}"}
    finally:
        shutil.rmtree(wd, ignore_errors=True)


def run_single_core(build, lib_dir, rebuild, wd, timeout_of):
    """The one-core build's programs against the mutated lib/ in lib_dir: (first failure or
    None, how many programs ran)."""
    single = build.single_core()
    out = os.path.join(wd, "single")
    os.makedirs(out)
    objs = compile_objects([os.path.join(lib_dir, f) for f in rebuild], lib_dir, out,
                           SINGLE_CORE)
    lib_objs = [objs.get(os.path.join(lib_dir, f), single["lib"][f]) for f in build.lib_sources]
    tests = [t for t in build.order("") if t in single["tests"]]

    def programs():
        for t in tests:
            exe = os.path.join(out, t)
            result = run([CC, single["tests"][t]] + lib_objs + single["support"] +
                         ["-lcmocka", "-lpthread", "-o", exe])
            if result.returncode != 0:
                raise RuntimeError(result.stdout[-2000:] + result.stderr[-2000:])
            yield t, exe
    return run_programs(programs(), timeout_of), len(tests)


def select(patterns):
    if not patterns:
        return list(MUTANTS)
    chosen = []
    for m in MUTANTS:
        for p in patterns.split(","):
            p = p.strip()
            if (p == "quick" and m.quick) or fnmatch.fnmatch(m.id, p):
                chosen.append(m)
                break
    return chosen


def check_list():
    ids = [m.id for m in MUTANTS]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"mutate: duplicate mutant ids: {sorted(dup)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", dest="mutant_set", choices=sorted(SETS), default="curated",
                        help="which mutant set: curated (tools/mutants.py, default) or blind "
                             "(tools/mutants_blind.py)")
    parser.add_argument("--set-file", default="",
                        help="load MUTANTS from this Python file instead (a set kept outside "
                             "the repository, so that the tests are not written against it)")
    parser.add_argument("--mutants", default=os.environ.get("MUTANTS", ""),
                        help="comma-separated id patterns; 'quick' = the make-test subset")
    parser.add_argument("--jobs", type=int, default=2, help="mutants evaluated at once")
    parser.add_argument("--min-score", type=float, default=0.0,
                        help="fail below this percentage of non-equivalent mutants killed")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip running the unmutated tests first (timeouts then fixed)")
    parser.add_argument("--tests", default="",
                        help="comma-separated test programs to run (default: all); for "
                             "trying new tests against survivors, not for the score")
    parser.add_argument("--all-programs", action="store_true",
                        help="run every program for every mutant, not only those that execute "
                             "its lines")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args()
    if args.set_file:
        spec = importlib.util.spec_from_file_location("mutant_set", args.set_file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        MUTANTS.extend(module.MUTANTS)
        args.mutant_set = os.path.basename(args.set_file)
    else:
        MUTANTS.extend(importlib.import_module(SETS[args.mutant_set]).MUTANTS)
    check_list()
    chosen = select(args.mutants)
    if args.list:
        for m in chosen:
            _, count, line = locate(m)
            flag = " equivalent" if m.equivalent else ""
            print(f"{m.id:32} {m.kind:16} {m.file}:{line}{flag}")
        return 0
    if not chosen:
        sys.exit(f"mutate: no mutant matches '{args.mutants}'")

    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="pl011-mutate.")
    try:
        build = Build(work)
        if not args.all_programs:
            build.coverage = Coverage(build)  # of every program, so one cache serves any --tests
        if args.tests:
            wanted = set(args.tests.split(","))
            build.tests = [t for t in build.tests if t in wanted]
        if not args.no_baseline:
            exes = build.link(list(build.base_lib.values()), work, build.tests)
            for t in build.tests:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                result = run([exes[t]], preexec_fn=cpu_limit(900))
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                build.times[t] = (after.ru_utime + after.ru_stime) - \
                    (before.ru_utime + before.ru_stime)  # CPU seconds, as the limits are
                if result.returncode != 0:
                    print(f"mutate: the unmutated tree fails {t}:\n{result.stdout[-3000:]}")
                    return 1
            print("baseline: every test passes on the unmutated tree (%.0f s)" %
                  sum(build.times.values()))

        def timeout_of(name):
            return max(30.0, 4.0 * build.times.get(name, 60.0) + 10.0)

        results = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {pool.submit(evaluate, m, build, timeout_of): m for m in chosen}
            for future in concurrent.futures.as_completed(futures):
                m = futures[future]
                r = future.result()
                results[m.id] = r
                print(f"{r['status']:10} {m.id:32} {r['where']:24} {r['detail'][:90]}",
                      flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    by = {}
    for m in chosen:
        by.setdefault(results[m.id]["status"], []).append(m)
    killed = len(by.get("killed", []))
    survived = by.get("survived", [])
    scored = killed + len(survived)
    score = 100.0 * killed / scored if scored else 100.0
    print()
    for m in by.get("equivalent", []):
        print(f"equivalent {m.id} ({results[m.id]['where']}): {m.equivalent}")
    for status in ("stale", "broken"):
        for m in by.get(status, []):
            print(f"{status.upper()} {m.id} ({results[m.id]['where']}): {results[m.id]['detail']}")
    for m in survived:
        print(f"SURVIVED {m.id} [{m.kind}] at {results[m.id]['where']}: "
              f"{m.search.strip()!r} -> {m.replace.strip()!r}")
    print(f"set {args.mutant_set}: mutants: {len(chosen)}, killed {killed}, survived {len(survived)}, "
          f"equivalent {len(by.get('equivalent', []))}, stale {len(by.get('stale', []))}, "
          f"broken {len(by.get('broken', []))}; score {score:.1f} % of {scored} "
          f"non-equivalent ({time.monotonic() - started:.0f} s)")
    if by.get("stale") or by.get("broken"):
        return 1
    return 1 if score < args.min_score else 0


if __name__ == "__main__":
    sys.exit(main())
