#!/usr/bin/env python3
"""Check that the board tables of docs/boards.md and docs/porting.md list exactly the boards in boards/.

A board table is a Markdown table whose first header cell is `board` or `BOARD=`; its rows name
one board each, as the first `code` word of the first cell. Every folder with a board.mk must
have a row, and every row a folder. Where the table has a column whose header mentions QEMU,
the `code` words of that cell must be the board's BOARD_QEMU_MACHINES (make print-qemu-machines).
The README's opening paragraph (the prose list of machines a reader sees first) must name every
QEMU machine of every board as a `code` word, and no machine that no board lists.
Ends with 'N passed, N failed'; exits 1 on any mismatch.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCUMENTS = [os.path.join("docs", "boards.md"), os.path.join("docs", "porting.md")]


def folders():
    boards = os.path.join(ROOT, "boards")
    return sorted(d for d in os.listdir(boards) if os.path.isfile(os.path.join(boards, d, "board.mk")))


def qemu_machines(board):
    result = subprocess.run(["make", "-s", "--no-print-directory", f"BOARD={board}", "print-qemu-machines"],
                            cwd=ROOT, check=True, capture_output=True, text=True)
    return result.stdout.split()


def cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def board_tables(path):
    """Each board table of the document as (header cells, [(line number, cells)])."""
    tables = []
    with open(path, encoding="utf-8") as handle:
        lines = handle.readlines()
    number = 0
    while number < len(lines):
        line = lines[number]
        first = cells(line)[0].strip("`").lower() if line.lstrip().startswith("|") else ""
        if first in ("board", "board=") and number + 1 < len(lines) and re.match(r"^\s*\|[\s:|-]+\|\s*$", lines[number + 1]):
            header = [cell.lower() for cell in cells(line)]
            rows = []
            number += 2
            while number < len(lines) and lines[number].lstrip().startswith("|"):
                rows.append((number + 1, cells(lines[number])))
                number += 1
            tables.append((header, rows))
        else:
            number += 1
    return tables


def main():
    boards = folders()
    machines = {board: qemu_machines(board) for board in boards}
    passed = failed = 0

    def verdict(problem, label):
        nonlocal passed, failed
        if problem:
            failed += 1
            print(f"FAIL {label}: {problem}")
        else:
            passed += 1

    for document in DOCUMENTS:
        tables = board_tables(os.path.join(ROOT, document))
        verdict(None if tables else "no board table (first header cell `board` or `BOARD=`)", document)
        for header, rows in tables:
            qemu_column = next((i for i, name in enumerate(header) if "qemu" in name), None)
            listed = {}
            for line, row in rows:
                names = re.findall(r"`([^`]+)`", row[0])
                if not names:
                    verdict(f"row without a `board` name: {'|'.join(row)}", f"{document}:{line}")
                    continue
                board = names[0].removeprefix("BOARD=")
                listed[board] = line
                if board not in machines:
                    verdict(f"`{board}` has no boards/{board}/board.mk", f"{document}:{line}")
                    continue
                if qemu_column is not None:
                    shown = re.findall(r"`([^`]+)`", row[qemu_column]) if qemu_column < len(row) else []
                    verdict(None if sorted(shown) == sorted(machines[board]) else
                            f"QEMU machines {shown}, but board.mk says {machines[board]}",
                            f"{document}:{line} ({board})")
                passed += 1
            for board in boards:
                verdict(None if board in listed else
                        f"board `{board}` (boards/{board}/board.mk) has no row in the table",
                        document)
    every_machine = {machine for names in machines.values() for machine in names}
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        opening = handle.read().split("\n\n")[1]
    named = set(re.findall(r"`([^`]+)`", opening)) - {"qemu-system-arm", "qemu-system-aarch64"}
    for machine in sorted(every_machine):
        verdict(None if machine in named else f"QEMU machine `{machine}` missing from the opening "
                "paragraph's list", "README.md")
    for machine in sorted(named - every_machine):
        verdict(f"the opening paragraph names `{machine}`, which no board.mk lists", "README.md")
    print(f"board tables: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
