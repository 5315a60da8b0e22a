#!/usr/bin/env python3
"""Every atomic access in lib/ and include/ passes the seam's atomic point (lib/pl011_io.h).

The explorers (tests/unit) preempt the driver only at register accesses and at the atomic
points, and the model counts the points (make bench): an atomic access without its point is
a schedule no explorer tries and a cost no table shows. The rules, per call site:

  * an atomic read-modify-write (__atomic_compare_exchange*, __atomic_exchange*,
    __atomic_fetch_*, __atomic_*_fetch, __atomic_test_and_set) is immediately preceded by
    pl011_io_atomic_rmw_point(); (the previous statement, nothing but the start of its own
    statement between them);
  * a plain atomic load (__atomic_load*, pl011_atomic_load), a raw __atomic_store* or a swap
    in a section the caller masked (pl011_atomic_swap_masked, one core) is immediately
    preceded by pl011_io_atomic_point(); in the same way;
  * pl011_atomic_store passes the point itself (its body in lib/pl011_io.h, checked here);
  * the accesses listed in EXEMPT below, each with the reason it needs no point.

Comments are ignored. The helpers' own bodies in lib/pl011_io.h are the seam and are not
call sites. Usage: tools/check_atomic_points.py [--self-test] [ROOT] (default: the
repository). Exit 1 with one line per offending access, 0 with a summary; --self-test checks
that copies with one point removed or weakened fail.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ("lib", "include")
SEAM = "lib/pl011_io.h"
# The seam's helpers: their bodies are what the call sites' rules are about.
SEAM_HELPERS = {"pl011_atomic_load", "pl011_atomic_store", "pl011_atomic_fence",
                "pl011_atomic_swap", "pl011_atomic_swap_masked", "pl011_atomic_add"}

RMW = re.compile(r"\b(?:__atomic_(?:compare_exchange(?:_n)?|exchange(?:_n)?|fetch_[a-z]+|"
                 r"[a-z]+_fetch|test_and_set)|pl011_atomic_(?:swap|add))\s*\(")
# A swap inside a section the caller masked (one core) is a load and a store: a plain point.
PLAIN = re.compile(r"\b(?:__atomic_load(?:_n)?|__atomic_store(?:_n)?|pl011_atomic_load|"
                   r"pl011_atomic_swap_masked)\s*\(")
SELF_POINTED = re.compile(r"\bpl011_atomic_store\s*\(")
ANY_ACCESS = re.compile(RMW.pattern + "|" + PLAIN.pattern + "|" + SELF_POINTED.pattern)
RMW_POINT = "pl011_io_atomic_rmw_point();"
POINT = "pl011_io_atomic_point();"

# (file, function, the accessed word as written): accesses that need no point, and why.
# A word here is touched by one context at a time, or before any other context can exist.
EXEMPT = {
    ("lib/pl011.c", "clear_words", "&word[i]"):
        "init's clear loop: relaxed stores (so that the loop is not made a memset call) to "
        "words no other context reads until the port runs",
    ("lib/pl011.c", "pl011_start_begin", "&uart->config"):
        "init replaces the config pointer in one relaxed store; a reader that passed its "
        "state check before the stop sees the old one or the new one",
    ("lib/pl011.c", "pl011_start_begin", "&uart->base"):
        "init replaces the base in one relaxed store, as the config",
    ("lib/pl011.c", "pl011_get_stats", "&uart->tx.unowned_bytes"):
        "a statistics counter read relaxed for a snapshot; no decision depends on it",
    ("lib/pl011_tx.c", "pl011_tx_reset", "&uart->tx.unowned_bytes"):
        "init and restart zero the counter, relaxed, before the owner word is freed",
    ("lib/pl011_tx.c", "pl011_tx_reset", "&uart->tx.stall_feeding"):
        "init and restart zero the hint, relaxed, before the owner word is freed",
    ("lib/pl011_tx.c", "pl011_tx_reset", "&uart->tx.panic_budget_us"):
        "init and restart zero the budget, relaxed, before the owner word is freed",
    ("lib/pl011_rx.c", "move_bytes", "&to[i]"):
        "memmove of the caller's own buffer: relaxed byte stores so that the compiler does "
        "not make the loop a memmove call; no shared word",
    ("lib/pl011_ring.c", "ring_load_relaxed", "index"):
        "a ring side reads its own index, which only it writes",
    ("lib/pl011_tx.c", "panic_owner_expired", "&uart->tx.panic_budget_us"):
        "a relaxed time budget a panic publishes for a later panic; only a bound of a wait",
    ("lib/pl011_tx.c", "pl011_write_panic", "&uart->tx.panic_budget_us"):
        "the panic owner publishes its time budget, relaxed; only a bound of a wait",
    ("lib/pl011_tx_ring.c", "tx_watch_feed", "&uart->tx.stall_feeding"):
        "a relaxed hint between waiting writers that picks a stall window; no ownership",
    ("lib/pl011_tx_ring.c", "tx_watch_start", "&uart->tx.stall_feeding"):
        "a relaxed hint between waiting writers that picks a stall window; no ownership",
    ("lib/pl011_tx_ring.c", "tx_tail", "&uart->tx.ring.tail"):
        "a waiting writer's stall watch samples the ring's tail (acquire) to see it move; "
        "no point today: not a step of the ownership protocol",
    ("lib/pl011_internal.h", "pl011_state_get", "&uart->state"):
        "the port state, acquire, read without a point today; the state changes the "
        "explorers need are taken at the owner word and the handlers' presence, which have points",
}


def strip_comments(text):
    """The text with comments (and string and character literals) blanked, lines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote:
                j += 2 if text[j] == "\\" else 1
            out.append(quote + " " * (j - i - 1) + quote)
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


FUNCTION = re.compile(r"\b(\w+)\s*\(")


def enclosing_function(text, pos):
    """The name of the function whose body holds pos (bodies open with '{' in column 0)."""
    start = text.rfind("\n{", 0, pos)
    if start < 0:
        return None
    # The signature: after the last statement, block or preprocessor line before the brace.
    head = text[:start]
    begin = max(head.rfind(";"), head.rfind("}"))
    for directive in re.finditer(r"^#.*$", head, re.M):
        begin = max(begin, directive.end())
    match = FUNCTION.search(head[begin + 1:])
    return match.group(1) if match else None


def first_argument(text, open_paren):
    """The call's first argument as written, spaces squeezed."""
    depth, i = 0, open_paren
    while i < len(text):
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                break
        elif c == "," and depth == 1:
            break
        i += 1
    return " ".join(text[open_paren + 1:i].split())


def without_directives(text):
    """The text without its preprocessor lines (#if PL011_SINGLE_CORE and the like)."""
    return re.sub(r"^[ \t]*#.*$", "", text, flags=re.M)


def previous_statement(text, pos):
    """(the statement before the one holding pos, the start of pos's statement up to pos).

    A statement ends at ';', '{' or '}' outside parentheses (the ';' of for (;;) are inside)."""
    depth = 0
    i = pos - 1
    while i >= 0:
        c = text[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
        elif depth <= 0 and c in ";{}":
            break
        i -= 1
    prefix = without_directives(text[i + 1:pos])
    if i < 0 or text[i] != ";":
        return "", prefix
    j = i - 1
    depth = 0
    while j >= 0:
        c = text[j]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
        elif depth <= 0 and c in ";{}":
            break
        j -= 1
    return " ".join(without_directives(text[j + 1:i + 1]).split()), prefix


def seam_store_is_pointed(root):
    """Whether pl011_atomic_store's hooks build calls pl011_io_atomic_point before storing."""
    with open(os.path.join(root, SEAM)) as f:
        text = strip_comments(f.read())
    body = re.search(r"pl011_atomic_store\([^)]*\)\s*\{(.*?)\n\}", text, re.S)
    if body is None:
        return False
    hooks = re.match(r"\s*#ifdef PL011_IO_HOOKS\s*pl011_io_atomic_point\(\);\s*#endif",
                     body.group(1))
    return hooks is not None


def sources(root):
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, root).replace(os.sep, "/"), path


def check(root):
    problems = []
    counts = {"rmw": 0, "plain": 0, "self": 0, "exempt": 0}
    used_exemptions = set()
    if not seam_store_is_pointed(root):
        problems.append(f"{SEAM}: pl011_atomic_store no longer calls pl011_io_atomic_point "
                        "before its store in the hooks build")
    for rel, path in sources(root):
        with open(path) as f:
            text = strip_comments(f.read())
        for match in ANY_ACCESS.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            function = enclosing_function(text, match.start())
            if rel == SEAM and function in SEAM_HELPERS:
                continue
            # A definition or declaration of a helper, not a call.
            before = text[text.rfind("\n", 0, match.start()) + 1:match.start()]
            if re.search(r"\b(?:void|uint32_t|bool)\s*$", before):
                continue
            word = first_argument(text, match.end() - 1)
            where = f"{rel}:{line} ({function}, {word})"
            if SELF_POINTED.match(text, match.start()):
                counts["self"] += 1
                continue
            key = (rel, function, word)
            if key in EXEMPT:
                counts["exempt"] += 1
                used_exemptions.add(key)
                continue
            previous, prefix = previous_statement(text, match.start())
            if ANY_ACCESS.search(prefix):
                previous = "(another atomic access earlier in the same statement)"
            if RMW.match(text, match.start()):
                counts["rmw"] += 1
                if previous != RMW_POINT:
                    problems.append(f"{where}: read-modify-write not immediately preceded by "
                                    f"{RMW_POINT} (before it: {previous or 'nothing'})")
            else:
                counts["plain"] += 1
                if previous != POINT:
                    problems.append(f"{where}: atomic access not immediately preceded by "
                                    f"{POINT} (before it: {previous or 'nothing'})")
    for key in sorted(set(EXEMPT) - used_exemptions):
        problems.append(f"{key[0]}: exemption for {key[2]} in {key[1]} matches no access "
                        "(remove it from EXEMPT)")
    return problems, counts


def self_test(root):
    """The check fails on copies of lib/ and include/ with one point removed or weakened."""
    import shutil
    import tempfile
    cases = [("lib/pl011_tx_owner.h", RMW_POINT, POINT),
             # (the word update's point: the first one in the file counts a mask instead)
             ("lib/pl011_internal.h", RMW_POINT + "\n\t\tif (pl011_atomic_swap(word",
              "\n\t\tif (pl011_atomic_swap(word"),
             ("lib/pl011_events.c", POINT, "")]
    for rel, old, new in cases:
        with tempfile.TemporaryDirectory() as copy:
            for folder in FOLDERS:
                shutil.copytree(os.path.join(root, folder), os.path.join(copy, folder))
            path = os.path.join(copy, rel)
            with open(path) as f:
                text = f.read()
            if old not in text:
                return f"self-test: {rel} has no {old}"
            with open(path, "w") as f:
                f.write(text.replace(old, new, 1))
            problems, _ = check(copy)
            if not problems:
                return f"self-test: {rel} with one {old} made {new or 'nothing'} passed"
    return None


def main():
    args = sys.argv[1:]
    if args[:1] == ["--self-test"]:
        failure = self_test(args[1] if len(args) > 1 else ROOT)
        print(failure or "check_atomic_points --self-test: a removed or weakened point fails",
              file=sys.stderr if failure else sys.stdout)
        return 1 if failure else 0
    root = args[0] if args else ROOT
    problems, counts = check(root)
    for problem in problems:
        print("check_atomic_points: " + problem, file=sys.stderr)
    if problems:
        return 1
    print(f"atomic points: {counts['rmw']} read-modify-writes with {RMW_POINT}, "
          f"{counts['plain']} loads and stores with {POINT}, {counts['self']} "
          f"pl011_atomic_store calls (pointed inside), {counts['exempt']} exempt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
