#!/usr/bin/env python3
"""Check what docs/porting.md and the other documents say about the tree against the tree.

- Every repository path in a `code` span of README.md and docs/*.md (boards/..., linker/...,
  tools/..., tests/..., mk/...) exists; spans with <placeholders> or wildcards are skipped.
- Every shared board piece (each source, start-up and make file of boards/common,
  boards/aarch64, boards/cortex-m; headers go with their source) is named in docs/porting.md,
  so a new board's author can find it there.
- The list after the "boards without code" marker in docs/porting.md is exactly the boards
  whose folder holds no .c or .S file.
- BOARD_QEMU_MACHINES holds plain machine names: options (virt,gic-version=3) belong in
  BOARD_QEMU_FLAGS as -machine ..., since the installer and the tests match names exactly.
- The table after the "start states" marker in docs/porting.md has a row for every QEMU
  machine of every board, and none for a machine no board lists.
Ends with 'N passed, N failed'; exits 1 on any failure.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_board_tables import ROOT, folders as boards, qemu_machines  # noqa: E402

PORTING = os.path.join("docs", "porting.md")
PATH_SPAN = re.compile(r"`((?:boards|linker|tools|tests|examples|lib|include|mk|cmake)/[^`\s]+)`")
SHARED_FOLDERS = ("boards/common", "boards/aarch64", "boards/cortex-m")


def read(relative):
    with open(os.path.join(ROOT, relative), encoding="utf-8") as handle:
        return handle.read()


def after_marker(text, marker):
    """The lines after the marker comment up to the first blank line that follows content."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(marker)), None)
    if start is None:
        return None
    block = []
    for line in lines[start + 1:]:
        if not line.strip():
            if block:
                break
            continue
        block.append(line)
    return block


def path_problems(documents):
    problems = []
    for document in documents:
        for span in PATH_SPAN.findall(read(document)):
            if any(c in span for c in "<>*$"):
                continue
            if not os.path.exists(os.path.join(ROOT, span.split("#")[0].rstrip("/"))):
                problems.append(f"{document}: `{span}` does not exist")
    return problems


def shared_piece_problems(porting):
    problems = []
    for folder in SHARED_FOLDERS:
        for path in sorted(glob.glob(os.path.join(ROOT, folder, "*"))):
            name = os.path.basename(path)
            if name.endswith(".h"):
                continue
            if not re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", porting):
                problems.append(f"{PORTING} never names {folder}/{name}")
    return problems


def codeless_problems(porting, names):
    block = after_marker(porting, "<!-- boards without code")
    if block is None:
        return [f"{PORTING}: no '<!-- boards without code' marker"]
    listed = set(re.findall(r"`([^`]+)`", " ".join(block))) & set(names)
    actual = {board for board in names
              if not glob.glob(os.path.join(ROOT, "boards", board, "*.[cS]"))}
    problems = [f"{PORTING}: `{b}` is listed as a board without code, but boards/{b}/ has some"
                for b in sorted(listed - actual)]
    problems += [f"{PORTING}: boards/{b}/ holds no C or assembly file; add it to the list of "
                 "boards without code" for b in sorted(actual - listed)]
    return problems


def machine_problems(porting, machines):
    problems = []
    for board, names in machines.items():
        for name in names:
            if not re.fullmatch(r"[\w.-]+", name):
                problems.append(f"boards/{board}/board.mk: BOARD_QEMU_MACHINES has '{name}': "
                                "only machine names there; options go in BOARD_QEMU_FLAGS "
                                "(-machine gic-version=3)")
    block = after_marker(porting, "<!-- start states")
    if block is None:
        return problems + [f"{PORTING}: no '<!-- start states' marker before the table"]
    rows = [line for line in block if line.startswith("|")][2:]
    listed = set()
    for row in rows:
        first = row.strip().strip("|").split("|")[0]
        listed |= set(re.findall(r"`([^`]+)`", first))
    every = {name for names in machines.values() for name in names}
    problems += [f"{PORTING}: QEMU machine `{m}` has no row in the start-state table"
                 for m in sorted(every - listed)]
    problems += [f"{PORTING}: the start-state table lists `{m}`, which no board.mk names"
                 for m in sorted(listed - every)]
    return problems


def main():
    names = boards()
    machines = {board: qemu_machines(board) for board in names}
    porting = read(PORTING)
    documents = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    checks = [("paths", path_problems(documents)), ("shared pieces", shared_piece_problems(porting)),
              ("boards without code", codeless_problems(porting, names)),
              ("QEMU machines", machine_problems(porting, machines))]
    for label, problems in checks:
        for problem in problems:
            print(f"FAIL {label}: {problem}")
    failed = sum(1 for _, problems in checks if problems)
    print(f"doc facts: {len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
