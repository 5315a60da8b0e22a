#!/usr/bin/env python3
"""Rewrite increments of the optional counters in lib/ files to PL011_COUNT (issue 25)."""
# Usage, at the top: python3 /path/to/stats_rewrite.py lib/pl011_tx*.c   (in place; prints what it did)
# `uart->stats.F++;` and `uart->stats.F += EXPR;` become `PL011_COUNT(uart, F, 1);` and
# `PL011_COUNT(uart, F, EXPR);`, `uart->stats.F[I]++;` becomes `PL011_COUNT_AT(uart, F, I, 1);`,
# for every F not in include/pl011.h's PL011_STATS_KEPT list; kept counters stay plain. Any
# other use of an optional counter is left alone and reported, and the exit status is then 1:
# it would not compile with PL011_STATS=0.
import pathlib
import re
import sys

# Run from the repository's top (where include/pl011.h is), wherever the script itself lies.
header = pathlib.Path("include/pl011.h").read_text()
block = re.search(r"#define PL011_STATS_KEPT\(X\)(.*?)\n\n", header, re.S).group(1)
kept = set(re.findall(r"X\((\w+)\)", block))

increment = re.compile(
    r"(\w+)->stats\.(\w+)((?:\[[^\]]+\])?)\s*(?:\+\+|\+=\s*([^;]+?))\s*;")
use = re.compile(r"->stats\.(\w+)")


def rewrite(match):
    base, field, index, amount = match.groups()
    if field in kept:
        return match.group(0)
    amount = amount if amount else "1"
    if index:
        return "PL011_COUNT_AT(%s, %s, %s, %s);" % (base, field, index[1:-1].strip(), amount)
    return "PL011_COUNT(%s, %s, %s);" % (base, field, amount)


status = 0
for name in sys.argv[1:]:
    path = pathlib.Path(name)
    text = path.read_text()
    new = increment.sub(rewrite, text)
    changed = sum(1 for a, b in zip(text.splitlines(), new.splitlines()) if a != b)
    if new != text:
        path.write_text(new)
    print("%s: %d increments rewritten" % (name, changed))
    for number, line in enumerate(new.splitlines(), 1):
        for field in use.findall(line):
            if field not in kept:
                print("%s:%d: optional counter %s used otherwise: %s"
                      % (name, number, field, line.strip()))
                status = 1
sys.exit(status)
