#!/usr/bin/env python3
"""make sync-count: the synchronisation instructions along the TX interrupt's call tree.

Builds the size firmware "interrupt TX with one strategy (MEASURED) + interrupt RX"
(tests/size/irq_measured_rx.c) the way make size does (tools/size.py: -Os, --gc-sections) for
an ARMv7-A core (Cortex-A9, ARM state) and an ARMv6-M core (Cortex-M0+, whose atomic
read-modify-writes are calls to the boards' interrupt-masking helpers), disassembles the linked
image (objdump -d) and walks the calls from pl011_irq_handler through the driver's functions
(those the linker map places from libpl011.a): bl, blx and b to another function. Per
function it counts

  DMB SY   pl011_io_barrier (lib/pl011_io.h)
  DMB ISH  what GCC emits around a C11 atomic (a seq_cst load is LDR between two DMB ISH on ARMv7)
  LDREX / STREX   the exclusive pairs of the atomic read-modify-writes (ARMv7)
  helper calls    calls to __atomic_* and __sync_* functions (ARMv6-M read-modify-writes)
  interrupt masks MRS of PRIMASK, CPSR or DAIF: one per masked section, the read-modify-writes
                  of a PL011_SINGLE_CORE=1 build (--single-core builds so)

These are static counts of instructions in each function's code, summed over the functions
of the call tree once each: not what one interrupt executes (a branch skips some, a loop
repeats some). The bench (make bench, "Register accesses per TX interrupt") counts per entry.
An indirect call (blx/bx to a register) cannot be followed statically: the functions whose
address the image holds (strategy and part tables) are listed apart as what such a call may
reach, with their own counts, and are not in the call tree's total.

  tools/sync_count.py             the tables (markdown)
  tools/sync_count.py --list      also every function's instructions that were counted
  tools/sync_count.py --single-core  the library built with -DPL011_SINGLE_CORE=1
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = "irq_measured_rx"
ROOT_FUNCTION = "pl011_irq_handler"
# tools/size.py's targets measured here: (its table name, the name printed here).
TARGETS = [("ARMv7-A, ARM", "ARMv7-A (Cortex-A9, ARM state)"),
           ("Cortex-M0+", "ARMv6-M (Cortex-M0+)")]
COLUMNS = ("dmb_sy", "dmb_ish", "dmb_other", "ldrex", "strex", "helper", "mask")
HEADINGS = ("DMB SY", "DMB ISH", "other DMB", "LDREX", "STREX", "__atomic/__sync calls",
            "interrupt masks")


def load_size():
    spec = importlib.util.spec_from_file_location("size", os.path.join(ROOT, "tools", "size.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(command):
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("sync_count: %s failed:\n%s%s" % (" ".join(command), result.stdout, result.stderr))
    return result.stdout


def driver_functions(size, elf):
    """The functions the linker map places from libpl011.a (one section each)."""
    names = set()
    for section, length, path in size.map_sections(elf):
        if length and "libpl011.a(" in path:
            match = re.match(r"\.text\.(.+)$", section)
            if match:
                names.add(match.group(1))
    return names


HEADER = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{4,8}\s(?:[0-9a-f]{4}\s)?)\s*(\S+)\s*(.*)$")
TARGET = re.compile(r"<([^>+]+)(\+0x[0-9a-f]+)?>")


def disassemble(prefix, elf):
    """{function: [(mnemonic, operands)]} and {address: function} of the image's code.

    Static functions of one name in several objects (an inline helper GCC kept out of line in
    each) are told apart as name@address, and calls to them renamed so."""
    functions = {}
    starts = {}
    current = None
    for line in run([prefix + "objdump", "-d", "--no-show-raw-insn", elf]).splitlines():
        header = HEADER.match(line)
        if header:
            address = int(header.group(1), 16)
            current = header.group(2)
            if current in functions:
                current = "%s@%x" % (current, address)
            functions[current] = []
            starts[address] = current
            continue
        match = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if match and current is not None:
            functions[current].append((match.group(2), match.group(3)))
    for name, insns in functions.items():
        for i, (mnemonic, operands) in enumerate(insns):
            call = re.match(r"^([0-9a-f]+) <([^>+]+)>", operands)
            if call and starts.get(int(call.group(1), 16), call.group(2)) != call.group(2):
                key = starts[int(call.group(1), 16)]
                insns[i] = (mnemonic, operands.replace("<%s>" % call.group(2), "<%s>" % key))
    return functions, starts


def image_bytes(prefix, elf):
    """{address: byte} of the image's allocated contents (objdump -s)."""
    memory = {}
    for line in run([prefix + "objdump", "-s", "-j", ".text", "-j", ".data", elf]).splitlines():
        match = re.match(r"^ ([0-9a-f]+) ((?:[0-9a-f]{2,8} ){1,4})", line + " ")
        if not match:
            continue
        address = int(match.group(1), 16)
        for byte in bytes.fromhex("".join(match.group(2).split())):
            memory[address] = byte
            address += 1
    return memory


def table_words(prefix, elf, starts):
    """{data object: the functions whose address (Thumb bit or not) is one of its words}."""
    memory = image_bytes(prefix, elf)
    tables = {}
    for line in run([prefix + "readelf", "-sW", elf]).splitlines():
        fields = line.split()
        if len(fields) < 8 or fields[3] != "OBJECT":
            continue
        begin, length = int(fields[1], 16), int(fields[2], 0)
        for address in range(begin & ~3, begin + length, 4):
            if not all(address + i in memory for i in range(4)):
                continue
            value = int.from_bytes(bytes(memory[address + i] for i in range(4)), "little")
            for candidate in (value, value & ~1):
                if candidate in starts:
                    tables.setdefault(fields[7], set()).add(starts[candidate])
    return tables


def count(insns, own_name):
    """(counts, direct callees, indirect call count, counted lines) of one function."""
    counts = dict.fromkeys(COLUMNS, 0)
    callees = set()
    indirect = 0
    lines = []
    for mnemonic, operands in insns:
        base = mnemonic.split(".")[0]
        counted = None
        if base == "dmb":
            option = operands.split(";")[0].split("@")[0].strip() or "sy"
            counted = {"sy": "dmb_sy", "ish": "dmb_ish"}.get(option, "dmb_other")
        elif re.match(r"ldrex[bhd]?$", base):
            counted = "ldrex"
        elif re.match(r"strex[bhd]?$", base):
            counted = "strex"
        elif base == "mrs" and re.search(r"\b(primask|cpsr|daif)\b", operands, re.I):
            counted = "mask"  # a masked section's save (PL011_SINGLE_CORE=1)
        target = TARGET.search(operands)
        if base in ("bl", "blx", "b") and target and not target.group(2) and \
                target.group(1) != own_name:
            callee = target.group(1)
            if re.match(r"__(atomic|sync)_", callee):
                counted = "helper"
            else:
                callees.add(callee)
        elif base in ("blx", "bx") and re.match(r"r\d+|ip", operands.strip()) or \
                (base in ("ldr", "mov", "pop") and re.search(r"\bpc\b", operands.split(",")[0])
                 and base != "pop"):
            indirect += 1
        if counted:
            counts[counted] += 1
            lines.append("%s %s" % (mnemonic, operands))
    return counts, callees, indirect, lines


# The calls through a table that the interrupt path makes, followed by name: (table object,
# the member function it holds in this firmware, the C call). Each member must be a word of
# its table in the image, or the script fails (a renamed function or table).
POINTER_CALLS = [
    ("pl011_tx_ring_ops", "service_irq", "uart->tx.strategy->ring->service_irq (pl011_tx_service_irq)"),
    ("pl011_tx_measured", "pl011_tx_measured_refill", "strategy->refill (refill_by_strategy)"),
    ("pl011_tx_measured", "measured_lost_track", "strategy->lost_track (refill_by_strategy)"),
]


def walk(functions, drivers, roots):
    """The driver functions reached from roots by direct calls, each once, in call order."""
    order = []
    seen = set()
    stack = list(reversed(roots))
    while stack:
        name = stack.pop()
        if name in seen or name not in drivers:
            continue
        seen.add(name)
        order.append(name)
        _, callees, _, _ = count(functions[name], name)
        stack.extend(sorted(callees, reverse=True))
    return order


def measure(size, target, build, extra_cflags):
    elf = size.build_target(target, build, [FIRMWARE], extra_cflags)[FIRMWARE]
    functions, starts = disassemble(target[1], elf)
    names = driver_functions(size, elf)
    drivers = {key for key in functions if key.split("@")[0] in names}
    tables = table_words(target[1], elf, starts)
    for table, member, call in POINTER_CALLS:
        if member not in tables.get(table, ()):
            sys.exit("sync_count: %s does not hold %s in %s (%s): update POINTER_CALLS"
                     % (table, member, FIRMWARE, call))
    tree = walk(functions, drivers, [ROOT_FUNCTION] + [m for _, m, _ in POINTER_CALLS])
    rows = {name: count(functions[name], name) for name in drivers}
    indirect = [(name, rows[name][2]) for name in tree if rows[name][2]]
    return {"tree": tree, "rows": rows, "indirect": indirect}


def print_table(title, names, rows, listing):
    print("| function | " + " | ".join(HEADINGS) + " |")
    print("|---|" + "---:|" * len(HEADINGS))
    totals = dict.fromkeys(COLUMNS, 0)
    for name in names:
        counts = rows[name][0]
        for column in COLUMNS:
            totals[column] += counts[column]
        if any(counts.values()):
            print("| %s | %s |" % (name, " | ".join(str(counts[c]) for c in COLUMNS)))
    print("| **%s** | %s |" % (title, " | ".join("**%d**" % totals[c] for c in COLUMNS)))
    print()
    if listing:
        for name in names:
            if rows[name][3]:
                print("    %s: %s" % (name, "; ".join(rows[name][3])))
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "sync-count"))
    parser.add_argument("--list", action="store_true", help="print the counted instructions")
    parser.add_argument("--single-core", action="store_true",
                        help="the library built with -DPL011_SINGLE_CORE=1")
    args = parser.parse_args()
    extra_cflags = ["-DPL011_SINGLE_CORE=1"] if args.single_core else []
    build = args.build + ("-single-core" if args.single_core else "")
    size = load_size()
    wanted = dict(TARGETS)
    targets = [t for t in size.TARGETS if t[0] in wanted]
    print("Static counts along the call tree of %s, firmware %s (tools/size.py's build, -Os): "
          "each function's synchronisation instructions counted once, summed over the "
          "functions the handler calls directly or through calls; NOT per interrupt (branches "
          "skip some, loops repeat some: make bench counts per entry). Functions with no such "
          "instruction are left out of the rows.%s\n" % (
              ROOT_FUNCTION, FIRMWARE, " Built with -DPL011_SINGLE_CORE=1." if args.single_core
              else ""))
    for target in targets:
        result = measure(size, target, build, extra_cflags)
        name = wanted[target[0]]
        print("#### %s: %d driver functions in the call tree\n" % (name, len(result["tree"])))
        print_table("call tree of " + ROOT_FUNCTION, result["tree"], result["rows"], args.list)
        print("Calls through a table followed: %s. Indirect calls in the tree's functions "
              "(those, the config's clock, the event driver's hooks, which this firmware does "
              "not link): %s.\n" % (
                  "; ".join("%s: %s" % (call, member) for _, member, call in POINTER_CALLS),
                  ", ".join("%s %d" % pair for pair in result["indirect"]) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
