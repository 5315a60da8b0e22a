#!/usr/bin/env python3
"""The calls between lib/'s files, from nm of each object: which file calls which, the cycles
between files, and the calls that go up a layer.

Each lib/*.c is compiled on its own for the host (-O2: a call into another file is an undefined
symbol whatever the compiler inlines inside one file); an undefined symbol that another file of
lib/ defines is an edge from the first file to the second. LAYERS below orders the files from
the bottom: a file may call its own layer's files and the layers below it, never above, and no
two files may call each other, directly or around a loop.

  tools/check_layers.py            the edges, the cycles and the upward calls; exit 1 if any
  tools/check_layers.py --graph    also each file's callees
"""
import argparse
import concurrent.futures
import fnmatch
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Bottom first: (layer, file patterns); docs/design.md "Layers" shows the same table. A file no
# pattern names is reported, so a new file must be given its layer here.
LAYERS = [
    # The ring buffer, frame times, deadlines and bounded waits; the register steps that need
    # no instance (divisors, ID, FIFO flush) and the early console on them. Registers only
    # through lib/pl011_io.h (a header: no object of its own).
    ("registers and time", ["pl011_ring.c", "pl011_wait.c", "pl011_hw.c", "pl011_early.c"]),
    # Init, shutdown, the polled write and read, the TX owner word, the adopted line, the
    # interrupt handler's dispatch: what a polled console links.
    ("polled core", ["pl011.c", "pl011_adopt.c", "pl011_rings_check.c", "pl011_tx_owner.c",
                     "pl011_rx.c", "pl011_tx.c", "pl011_console.c"]),
    # The TX ring mechanism an interrupt strategy runs on: the FIFO fills and the refill.
    ("interrupt TX", ["pl011_tx_ring.c", "pl011_tx_fifo.c"]),
    # Each strategy a const object a firmware names in pl011_init_tx (pl011_tx_<name>).
    ("TX strategies", ["pl011_tx_*.c"]),
    # Optional: what a firmware links only by calling it or naming its driver object.
    ("features", ["pl011_line.c", "pl011_events.c", "pl011_rs485.c", "pl011_stream.c",
                  "pl011_restart.c", "pl011_config_check.c"]),
]


def layer_of(name):
    for index, (_, patterns) in enumerate(LAYERS):
        if any(fnmatch.fnmatch(name, p) for p in patterns):
            return index
    return None


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDRBVW":
            defined.add(parts[2])
    return defined, undefined


def compile_and_read(source, work):
    obj = os.path.join(work, os.path.basename(source) + ".o")
    subprocess.run(["cc", "-std=c11", "-O2", "-ffreestanding", "-w",
                    "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "lib"),
                    "-c", source, "-o", obj], check=True)
    return symbols(obj)


def edges_of_lib():
    sources = sorted(glob.glob(os.path.join(ROOT, "lib", "*.c")))
    defined, undefined = {}, {}
    with tempfile.TemporaryDirectory() as work:
        # Two compilers at once: make test runs this among its checks, and it should stay quick.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            found = pool.map(lambda source: compile_and_read(source, work), sources)
            for source, (defs, undefs) in zip(sources, found):
                name = os.path.basename(source)
                defined[name], undefined[name] = defs, undefs
    owner = {sym: name for name, syms in defined.items() for sym in syms}
    edges = {name: {} for name in defined}
    for name, syms in undefined.items():
        for sym in sorted(syms):
            callee = owner.get(sym)
            if callee is not None and callee != name:
                edges[name].setdefault(callee, []).append(sym)
    return edges


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for callee in edges[node]:
            if callee not in index:
                visit(callee)
                low[node] = min(low[node], low[callee])
            elif callee in on_stack:
                low[node] = min(low[node], index[callee])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", action="store_true", help="print each file's callees")
    args = parser.parse_args()
    edges = edges_of_lib()
    problems = []
    for name in sorted(edges):
        if layer_of(name) is None:
            problems.append(f"{name}: in no layer (tools/check_layers.py, LAYERS)")
    for name in sorted(edges):
        for callee, syms in sorted(edges[name].items()):
            if args.graph:
                print(f"{name} -> {callee}: {', '.join(syms)}")
            low, high = layer_of(callee), layer_of(name)
            if low is not None and high is not None and low > high:
                problems.append(f"{name} ({LAYERS[high][0]}) calls up into {callee} "
                                f"({LAYERS[low][0]}): {', '.join(syms)}")
    for component in cycles(edges):
        problems.append("cycle between " + ", ".join(component))
    for problem in problems:
        print("layers: " + problem)
    count = sum(len(c) for c in edges.values())
    print(f"layers: {len(edges)} files, {count} file-to-file edges, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
