#!/usr/bin/env python3
"""make size: builds the size firmwares (tests/size/) for each target and prints what they cost.

Each firmware is linked from libpl011.a built -Os -ffunction-sections -fdata-sections and
--gc-sections, the C library's memcpy/memset and libgcc. Every number comes from the linked
image: total flash is every allocated section with contents (readelf), the shares come from the
linker map (each input section names the object it came from; with -ffunction-sections it also
names the function), and the RAM of struct pl011 is the size nm gives the firmware's instance.
Each target is built twice: as it comes, and with -DPL011_STATS=0 (library and firmwares, so
that they agree: include/pl011.h), whose driver code and RAM are the last two columns.

  tools/size.py                  the table (markdown), as docs/size.md holds it
  tools/size.py --functions      also each firmware's driver functions and helpers, largest first
  tools/size.py --functions --extra-cflags=-fno-inline-functions-called-once
                                 the same with each static function on its own, to see which
                                 strategy's code an inlined function carries (docs/design.md)
  tools/size.py --functions --target=Cortex-M0+ --firmware=polled_hi
                                 one target's one firmware only (a quick look while cutting)
  tools/size.py --check-readme   fail if docs/size.md's table is not the one printed
  tools/size.py --write-readme   put the table printed into docs/size.md
  tools/size.py --check-divisions  fail if a polled firmware of a 32-bit target links a
                                 64-bit division helper (nm of the image)
  tools/size.py --check-ram      fail if the polled-only "hi" keeps more than POLLED_RAM_MOST bytes
                                 of struct pl011 on a 32-bit target
  tools/size.py --check-strategies  fail if a firmware links a TX strategy or a feature
                                 (FEATURES: restarting a running port...) it does not name, or
                                 lacks one it names (nm of every image on every target)
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WARNINGS = ("-Wall -Wextra -Werror -Wshadow -Wconversion -Wstrict-prototypes "
            "-Wmissing-prototypes -Wundef -Wcast-align -fno-common").split()
PICOLIBC = "/usr/lib/picolibc/aarch64-linux-gnu"
ARM_LINK = ["--specs=nano.specs"]
AARCH64_FLAGS = ["-mstrict-align", "-mno-outline-atomics", "-isystem", PICOLIBC + "/include"]
AARCH64_LINK = ["--specs=" + PICOLIBC + "/picolibc.specs", "-static", "-Wl,--no-warn-rwx-segments"]

# (name in the table, compiler prefix, CPU flags, link flags, extra sources). ARMv6-M has no
# exclusives: the atomic read-modify-writes GCC calls come from the boards' IRQ-masking helpers.
TARGETS = [
    ("Cortex-M0+", "arm-none-eabi-", ["-mcpu=cortex-m0plus", "-mthumb", "-mfloat-abi=soft"],
     ARM_LINK, ["boards/common/atomics_irqmask.c"]),
    ("Cortex-M3", "arm-none-eabi-", ["-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"], ARM_LINK, []),
    ("ARMv7-A, ARM", "arm-none-eabi-", ["-mcpu=cortex-a9", "-marm", "-mfloat-abi=soft"], ARM_LINK, []),
    ("ARMv7-A, Thumb", "arm-none-eabi-", ["-mcpu=cortex-a9", "-mthumb", "-mfloat-abi=soft"],
     ARM_LINK, []),
    ("AArch64", "aarch64-linux-gnu-", ["-mcpu=cortex-a53"] + AARCH64_FLAGS, AARCH64_LINK, []),
]
FIRMWARES = [
    ("early_hi", 'early console "hi": no instance (pl011_early_init, pl011_early_write)'),
    ("polled_hi", 'polled only: console "hi"'),
    ("irq_measured_rx", "interrupt TX with one strategy (MEASURED) + interrupt RX"),
    ("everything", "everything: every function, every TX strategy and RX mode"),
]
# libgcc's 64-bit division and modulo: the helpers a polled build must not need.
DIVISION_HELPERS = ("__aeabi_uldivmod", "__aeabi_ldivmod", "__udivdi3", "__divdi3", "__umoddi3",
                    "__moddi3", "__udivmoddi4", "__divmoddi4")
# The TX strategies as lib/ spells them: each is a const object pl011_tx_<name> whose refill is
# pl011_tx_<name>_refill, and all share the interrupt mechanism of lib/pl011_tx_ring.c (the object
# pl011_tx_ring_ops and functions pl011_tx_ring_*). Polled mode is no object (a zeroed tx_mode).
STRATEGIES = ("half_fifo", "poll_full", "hybrid", "adaptive", "measured")
RING_OPS = "pl011_tx_ring_ops"
RING_PREFIX = "pl011_tx_ring_"
# The mechanism polls with POLL_FULL's refill when another writer filled the FIFO, so any
# interrupt firmware may link that refill; POLL_FULL's object only if it names it.
SHARED_REFILL = "poll_full"
# The features a firmware pays for only when it names them: (name, the call or object that
# names it in a firmware's source, the symbols it must link when named, the symbols it must not
# link otherwise). Checked like the strategies, by nm (--check-strategies).
FEATURES = [
    ("restart", r"\bpl011_restart(_port)?\b", ("pl011_restart_port",),
     ("pl011_restart_port", "pl011_rx_carry_over")),
    # A stop names init's wait for the stopped run's contexts (the instance keeps it).
    ("stop", r"\bpl011_(shutdown|restart(_port)?)\b", ("pl011_stop_port",),
     ("pl011_stop_port", "pl011_tx_left")),
    ("rs485", r"\bpl011_rs485_driver\b", ("pl011_rs485_driver",), ("pl011_rs485_driver",)),
    ("events", r"\bpl011_event_driver\b", ("pl011_event_driver",), ("pl011_event_driver",)),
    ("stream calls", r"\bpl011_(rx_available|tx_free|read_exact|read_until|discard_input)\b",
     ("pl011_read_exact",), ("pl011_rx_available", "pl011_tx_free", "pl011_read_exact",
                             "pl011_read_until", "pl011_discard_input")),
    ("early console", r"\bpl011_early_write\b", ("pl011_early_write",), ("pl011_early_write",)),
    ("early init", r"\bpl011_early_init\b", ("pl011_early_init",), ("pl011_early_init",)),
    ("early read", r"\bpl011_early_getc\b", ("pl011_early_getc",), ("pl011_early_getc",)),
    # pl011_init names these parts by the config (include/pl011.h, struct pl011_parts).
    ("RX ring", r"\b(PL011_RX_LOW_LATENCY|PL011_RX_FEW_IRQS|pl011_rx_ring_driver)\b",
     ("pl011_rx_ring_driver",), ("pl011_rx_ring_driver", "pl011_rx_take_fifo")),
    # pl011_config_check reads an adopted line as pl011_init does: it names the part too.
    ("adopt line", r"\b(PL011_FLAG_ADOPT_LINE|pl011_adopt_driver|pl011_config_check(_port)?)\b",
     ("pl011_adopt_driver",), ("pl011_adopt_driver", "pl011_line_adopt")),
    ("line change", r"\bpl011_set_line\b", ("pl011_set_line",), ("pl011_set_line",)),
    # The rings' rules: a part of init named by a ring mode (pl011_init), and by the calls that
    # name every part.
    ("ring rules", r"\b(PL011_TX_(HALF_FIFO|POLL_FULL|HYBRID|ADAPTIVE|MEASURED)|PL011_RX_LOW_LATENCY|"
     r"PL011_RX_FEW_IRQS|pl011_init_port|pl011_restart(_port)?|pl011_config_check(_port)?)\b",
     ("pl011_check_rings",), ("pl011_check_rings",)),
    ("config check", r"\bpl011_config_check(_port)?\b", ("pl011_config_check",),
     ("pl011_config_check", "pl011_config_check_port", "config_rule_texts")),
    # The events' and RS-485's start: a part of init named by an event mask or RS-485 settings
    # (pl011_init), and by the calls that name every part.
    ("events or RS-485 start", r"\b(event_mask|rs485|pl011_init_port|pl011_restart(_port)?|"
     r"pl011_config_check(_port)?|pl011_set_line)\b", ("pl011_events_rs485_driver",),
     ("pl011_events_rs485_driver",)),
]
# The document that holds the table, between these markers.
TABLE_FILE = os.path.join("docs", "size.md")
README_BEGIN = "<!-- size table: tools/size.py (make size) -->"
README_END = "<!-- end of size table -->"


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def run(command):
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("size: %s failed:\n%s%s" % (" ".join(command), result.stdout, result.stderr))
    return result.stdout


def image_symbols(nm_output):
    """The symbols nm lists as defined in an image (address, type, name); undefined ones have no
    address: a weak reference nothing defines is not linked code."""
    return set(fields[2] for fields in (line.split() for line in nm_output.splitlines())
               if len(fields) == 3)


def named_strategies(source):
    """The strategies a firmware's C source names, as PL011_TX_<NAME> or pl011_tx_<name>, outside
    comments; sorted in the order of STRATEGIES."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*", " ", source, flags=re.S)
    return tuple(s for s in STRATEGIES
                 if re.search(r"\b(PL011_TX_%s|pl011_tx_%s)\b" % (s.upper(), s), code))


def named_features(source):
    """The features (FEATURES) a firmware's C source names, outside comments, in their order."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*", " ", source, flags=re.S)
    return tuple(name for name, pattern, _, _ in FEATURES if re.search(pattern, code))


def feature_problems(symbols, named):
    """What an image's symbols break for a firmware that names the features `named`: each named
    one must be linked (so that a rename fails rather than passing unseen), none of the others
    may be. Sorted lines, "missing <symbol>" or "links <symbol>"; none when it holds."""
    required = set()
    forbidden = set()
    for name, _, needs, links in FEATURES:
        if name in named:
            required |= set(needs)
        else:
            forbidden |= set(links)
    return ["missing " + symbol for symbol in sorted(required - symbols)] + \
        ["links " + symbol for symbol in sorted(forbidden & symbols)]


def strategy_problems(symbols, named):
    """What an image's symbols break for a firmware that names the strategies `named`: each
    strategy named must be linked, object and refill, with the ring mechanism's object (so that a
    rename fails rather than passing unseen); one not named must not be (but POLL_FULL's refill may,
    in an interrupt firmware); a firmware naming none links nothing of the ring mechanism.
    Returns sorted lines, "missing <symbol>" or "links <symbol>"; none when it holds."""
    required = set()
    forbidden = set()
    for strategy in STRATEGIES:
        pair = {"pl011_tx_" + strategy, "pl011_tx_%s_refill" % strategy}
        if strategy in named:
            required |= pair
        elif named and strategy == SHARED_REFILL:
            forbidden.add("pl011_tx_" + strategy)
        else:
            forbidden |= pair
    if named:
        required.add(RING_OPS)
    else:
        forbidden |= set(symbol for symbol in symbols if symbol.startswith(RING_PREFIX))
    return ["missing " + symbol for symbol in sorted(required - symbols)] + \
        ["links " + symbol for symbol in sorted(forbidden & symbols)]


# The builds of each target: its directory's suffix, and the flags added to every compile.
VARIANTS = [("", []), ("-nostats", ["-DPL011_STATS=0"])]
# The polled-only build (include/pl011.h, PL011_INTERRUPTS), for the firmwares that need nothing
# more: its own table under polled_hi's.
POLLED_ONLY = ("-polled-only", ["-DPL011_INTERRUPTS=0", "-DPL011_STATS=0"])
POLLED_ONLY_FIRMWARES = ("polled_hi",)
POLLED_RAM_MOST = 128  # a polled port's RAM goal (docs/size.md)


def build_target(target, build, firmwares, extra_cflags=(), variant=VARIANTS[0]):
    """Compile the library and the firmwares for one target; return {firmware: elf path}."""
    name, prefix, cpu, link, extra = target
    out = os.path.join(build, slug(name) + variant[0])
    os.makedirs(out, exist_ok=True)
    cflags = cpu + ["-std=c11", "-Os", "-ffunction-sections", "-fdata-sections", "-ffreestanding"] + \
        WARNINGS + list(extra_cflags) + variant[1]
    lib_objects = []
    for source in sorted(os.listdir(os.path.join(ROOT, "lib"))):
        if source.endswith(".c"):
            obj = os.path.join(out, "lib_" + source[:-2] + ".o")
            run([prefix + "gcc"] + cflags + ["-mgeneral-regs-only", "-Iinclude", "-Ilib", "-c",
                                            "lib/" + source, "-o", obj])
            lib_objects.append(obj)
    library = os.path.join(out, "libpl011.a")
    if os.path.exists(library):
        os.remove(library)
    run([prefix + "ar", "rcs", library] + lib_objects)
    common = []
    for source in ["tests/size/start.c"] + extra:
        obj = os.path.join(out, os.path.basename(source)[:-2] + ".o")
        run([prefix + "gcc"] + cflags + ["-Iinclude", "-Itests/size", "-c", source, "-o", obj])
        common.append(obj)
    elves = {}
    for firmware in firmwares:
        obj = os.path.join(out, firmware + ".o")
        run([prefix + "gcc"] + cflags + ["-Iinclude", "-Itests/size", "-c",
                                        "tests/size/%s.c" % firmware, "-o", obj])
        elf = os.path.join(out, firmware + ".elf")
        run([prefix + "gcc"] + cpu + link + ["-nostartfiles", "-Wl,--gc-sections",
                                            "-T", "tests/size/size.ld", "-Wl,-Map=" + elf + ".map",
                                            obj] + common + [library, "-lc", "-lgcc", "-o", elf])
        elves[firmware] = elf
    return elves


def flash_bytes(prefix, elf):
    """Every allocated section that has contents (code, constants, data's initial values)."""
    total = 0
    for line in run([prefix + "readelf", "-SW", elf]).splitlines():
        match = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+([0-9a-f]+)\s+\S+\s+(\S*)", line)
        if match and match.group(2) != "NOBITS" and "A" in match.group(4):
            total += int(match.group(3), 16)
    return total


def map_sections(elf):
    """(input section, size, file) for each input section the linker put in a flash section."""
    sections = []
    with open(elf + ".map") as handle:
        text = handle.read()
    text = text[text.index("Linker script and memory map"):]
    output = None
    pending = None
    for line in text.splitlines():
        top = re.match(r"^(\.\S+)", line)
        if top:
            output = top.group(1)
            continue
        if output not in (".text", ".data"):
            continue
        whole = re.match(r"^ (\.\S+|COMMON)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        name_only = re.match(r"^ (\.\S+|COMMON)\s*$", line)
        rest = re.match(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        fill = re.match(r"^ \*fill\*\s+0x[0-9a-f]+\s+0x([0-9a-f]+)", line)
        if whole:
            sections.append((whole.group(1), int(whole.group(2), 16), whole.group(3).strip()))
            pending = None
        elif name_only:
            pending = name_only.group(1)
        elif rest and pending:
            sections.append((pending, int(rest.group(1), 16), rest.group(2).strip()))
            pending = None
        elif fill:
            sections.append(("*fill*", int(fill.group(1), 16), "fill"))
    return sections


def share(path):
    if "libpl011.a(" in path:
        return "driver"
    if "libgcc.a(" in path:
        return "libgcc"
    return "other"


def instance_bytes(prefix, elf):
    for line in run([prefix + "nm", "-S", elf]).splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[3] == "uart":
            return int(fields[1], 16)
    if os.path.basename(elf).startswith("early_"):
        return 0  # the early console keeps no instance
    sys.exit("size: %s has no struct pl011 'uart'" % elf)


def measure(target, elf):
    prefix = target[1]
    shares = {"driver": 0, "libgcc": 0, "other": 0}
    functions = []
    for section, size, path in map_sections(elf):
        if size == 0:
            continue
        kind = share(path)
        shares[kind] += size
        member = re.search(r"\(([^)]*)\)$", path)
        functions.append((size, kind, re.sub(r"^\.(text|rodata|data)\.", "", section),
                          member.group(1) if member else os.path.basename(path)))
    symbols = image_symbols(run([prefix + "nm", elf]))
    return {"flash": flash_bytes(prefix, elf), "instance": instance_bytes(prefix, elf),
            "functions": sorted(functions, reverse=True),
            "divisions": sorted(symbols & set(DIVISION_HELPERS)), "symbols": symbols, **shares}


def polled_only_table(polled_only):
    """polled_hi again, library and firmware built with POLLED_ONLY's flags."""
    lines = ["", "**the same, built polled-only (`-DPL011_INTERRUPTS=0 -DPL011_STATS=0`)**", "",
             "| target | total flash | driver code | libgcc helpers | RAM of `struct pl011` |",
             "|---|---:|---:|---:|---:|"]
    for target in TARGETS:
        m = polled_only.get(target[0], {}).get("polled_hi")
        if m:
            lines.append("| %s | %s B | %s B | %s B | %s B |" % (
                target[0], "{:,}".format(m["flash"]), "{:,}".format(m["driver"]),
                "{:,}".format(m["libgcc"]), m["instance"]))
    return lines


def table(results, without, polled_only):
    lines = []
    for firmware, title in FIRMWARES:
        if not any(firmware in per for per in results.values()):
            continue
        lines.append("")
        lines.append("**%s**" % title)
        lines.append("")
        lines.append("| target | total flash | driver code | libgcc helpers | other | RAM of `struct pl011` "
                     "| driver code, `PL011_STATS=0` | RAM, `PL011_STATS=0` |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        for target in TARGETS:
            m = results.get(target[0], {}).get(firmware)
            n = without.get(target[0], {}).get(firmware)
            if m and n:
                lines.append("| %s | %s B | %s B | %s B | %s B | %s B | %s B | %s B |" % (
                    target[0], "{:,}".format(m["flash"]), "{:,}".format(m["driver"]),
                    "{:,}".format(m["libgcc"]), "{:,}".format(m["other"]), m["instance"],
                    "{:,}".format(n["driver"]), n["instance"]))
        if firmware == "polled_hi" and polled_only:
            lines += polled_only_table(polled_only)
    return "\n".join(lines[1:])


def readme_table():
    with open(os.path.join(ROOT, TABLE_FILE)) as handle:
        text = handle.read()
    if README_BEGIN not in text or README_END not in text:
        sys.exit("size: %s has no size table between %s and %s" % (TABLE_FILE, README_BEGIN, README_END))
    return text, text[text.index(README_BEGIN) + len(README_BEGIN):text.index(README_END)].strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "size"))
    parser.add_argument("--functions", action="store_true")
    parser.add_argument("--extra-cflags", default="", help="added to every compile (analysis only)")
    parser.add_argument("--check-readme", action="store_true")
    parser.add_argument("--write-readme", action="store_true")
    parser.add_argument("--check-divisions", action="store_true")
    parser.add_argument("--check-strategies", action="store_true")
    parser.add_argument("--check-ram", action="store_true")
    parser.add_argument("--target", action="append", help="only this target (its table name)")
    parser.add_argument("--firmware", action="append", help="only this firmware (tests/size/)")
    args = parser.parse_args()
    targets = [t for t in TARGETS if not args.target or t[0] in args.target]
    firmwares = [fw for fw, _ in FIRMWARES if not args.firmware or fw in args.firmware]
    if not targets or not firmwares:
        sys.exit("size: no such target or firmware")
    if (args.target or args.firmware) and (args.check_readme or args.write_readme):
        sys.exit("size: the table of docs/size.md needs every target and firmware")
    builds = [(t, v) for v in VARIANTS for t in targets]
    polled_firmwares = [fw for fw in firmwares if fw in POLLED_ONLY_FIRMWARES]
    if polled_firmwares:
        builds += [(t, POLLED_ONLY) for t in targets]

    def build(b):
        chosen = polled_firmwares if b[1] == POLLED_ONLY else firmwares
        return build_target(b[0], args.build, chosen, args.extra_cflags.split(), b[1])
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        built = dict(zip([(t[0], v[0]) for t, v in builds], pool.map(build, builds)))
    measured = {(t[0], v[0]): {fw: measure(t, elf) for fw, elf in built[(t[0], v[0])].items()}
                for t, v in builds}
    results = {t[0]: measured[(t[0], VARIANTS[0][0])] for t in targets}
    without = {t[0]: measured[(t[0], VARIANTS[1][0])] for t in targets}
    polled_only = {t[0]: measured[(t[0], POLLED_ONLY[0])] for t in targets
                   if (t[0], POLLED_ONLY[0]) in measured}
    printed = table(results, without, polled_only)
    if not (args.check_divisions or args.check_readme or args.check_strategies or args.check_ram):
        print(printed)
    failed = False
    if args.check_divisions:
        for target in targets:
            for firmware in ("early_hi", "polled_hi"):
                if target[1] == "aarch64-linux-gnu-" or firmware not in firmwares:
                    continue  # a 64-bit core divides in one instruction
                found = results[target[0]][firmware]["divisions"]
                print("%s %s %s: %s" % ("FAIL" if found else "ok  ", target[0], firmware,
                      "links " + " ".join(found) if found else "no 64-bit division helper"))
                failed = failed or bool(found)
    if args.check_ram:
        for target in targets:
            m = polled_only.get(target[0], {}).get("polled_hi")
            if target[1] == "aarch64-linux-gnu-" or not m:
                continue  # 64-bit pointers: the goal is a 32-bit core's
            over = m["instance"] > POLLED_RAM_MOST
            print("%s %s polled_hi, polled-only: struct pl011 %d B (at most %d)" % (
                "FAIL" if over else "ok  ", target[0], m["instance"], POLLED_RAM_MOST))
            failed = failed or over
    if args.check_strategies:
        for firmware in firmwares:
            with open(os.path.join(ROOT, "tests", "size", firmware + ".c")) as handle:
                source = handle.read()
            named = named_strategies(source)
            features = named_features(source)
            for target in targets:
                symbols = results[target[0]][firmware]["symbols"]
                problems = strategy_problems(symbols, named) + feature_problems(symbols, features)
                for problem in problems:
                    print("FAIL %s %s: %s" % (firmware, target[0], problem))
                if not problems:
                    print("ok   %s %s: %s; %s" % (firmware, target[0], (
                        "names " + " ".join(named) + ", links them and no other strategy")
                        if named else "names no strategy, links none nor the ring mechanism",
                        "features named and linked: " + " ".join(features) if features
                        else "names no feature, links none"))
                failed = failed or bool(problems)
    if args.functions:
        for target in targets:
            for firmware, title in FIRMWARES:
                if firmware not in firmwares:
                    continue
                print("\n%s, %s: driver functions and libgcc helpers (bytes, largest first)"
                      % (target[0], title))
                for size, kind, function, member in results[target[0]][firmware]["functions"]:
                    print("  %6d  %-6s %-40s %s" % (size, kind, function, member))
    if args.write_readme:
        text, _ = readme_table()
        start = text.index(README_BEGIN) + len(README_BEGIN)
        with open(os.path.join(ROOT, TABLE_FILE), "w") as handle:
            handle.write(text[:start] + "\n" + printed + "\n" + text[text.index(README_END):])
    if args.check_readme:
        _, old = readme_table()
        if old != printed:
            print("FAIL %s's size table is not what make size prints: run " % TABLE_FILE +
                  "`make size-readme` (tools/size.py --write-readme)")
            failed = True
        else:
            print("ok   %s's size table is what make size prints" % TABLE_FILE)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
