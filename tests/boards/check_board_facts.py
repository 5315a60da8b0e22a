#!/usr/bin/env python3
"""Check that each board's PL011 FIFO depth, UART clock and UART interrupt agree with the docs
and, on every QEMU machine the board lists, with the machine itself.

The board side comes from `make print-board-facts BOARD=<b>`, which preprocesses
tests/boards/board_facts.h with the board's own flags, so the values are the macros the board's
code uses. The docs side is the table that follows the "board-facts" marker comment in
docs/hardware-bring-up.md, where each row also cites its sources. Every board folder with a
board.mk must have a row and every row a board. The machine side is examples/probe run on each
QEMU machine: the RX FIFO depth it measured must be BOARD_UART_FIFO_DEPTH, and BOARD_UART_IRQ
must be among the interrupt lines a received byte asserted (so a board.h and a table that agree
on a wrong number fail here). Prints one line per board and machine and "N passed, N failed";
exits 1 on any mismatch.

Usage: check_board_facts.py [--root DIR] [--board B ...]
  (DIR: a copy of the repository, default this one; --board: only these boards, as
  `make board-check TEST_BOARDS="B ..."`; the table's rows without a board are checked anyway)
"""
import argparse
import ast
import operator
import os
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "qemu"))
import examples as qemu_examples  # noqa: E402
from qemu_session import QemuSession  # noqa: E402

DOC = pathlib.Path("docs/hardware-bring-up.md")
MARKER = "<!-- board-facts"
COLUMNS = ("board", "pl011 fifo depth", "uart clock", "uart interrupt", "sources")


def evaluate(expression):
    """Value of a preprocessed C integer expression: literals with u/l suffixes, + - * << ( )."""
    operators = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                 ast.LShift: operator.lshift}

    def walk(node):
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in operators:
            return operators[type(node.op)](walk(node.left), walk(node.right))
        raise ValueError(f"not a constant expression: {expression}")

    plain = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expression)
    return walk(ast.parse(plain, mode="eval"))


def board_facts(root, board):
    """{'fifo_depth': int, 'uart_clock': (kind, value), 'uart_irq': int} from the board's code."""
    result = subprocess.run(
        ["make", "-s", "--no-print-directory", "-C", str(root), f"BOARD={board}",
         "BOARD_UART_CLOCK_HZ=", "print-board-facts"],
        capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ValueError(f"make print-board-facts failed: {result.stderr.strip()[-300:]}")
    facts = {}
    for line in result.stdout.splitlines():
        words = line.split(None, 3)
        if len(words) < 3 or words[0] != "board-fact":
            continue
        if words[1] == "uart_clock":
            facts["uart_clock"] = (words[2], evaluate(" ".join(words[3:])))
        elif words[1] == "extra_uarts":
            facts["extra_uarts"] = line.count("{")
        else:
            facts[words[1]] = evaluate(" ".join(words[2:]))
    missing = {"fifo_depth", "uart_clock", "uart_irq"} - facts.keys()
    if missing:
        raise ValueError(f"board defines no value for {', '.join(sorted(missing))}")
    return facts


def parse_clock(cell):
    """'fixed 24 MHz' -> ('fixed', 24000000); 'system clock 50 MHz' -> ('system', 50000000);
    'firmware mailbox, clock id 2' -> ('mailbox', 2)."""
    fixed = re.fullmatch(r"fixed (\d+(?:\.\d+)?) MHz", cell)
    if fixed:
        return ("fixed", round(float(fixed.group(1)) * 1_000_000))
    system = re.fullmatch(r"system clock (\d+(?:\.\d+)?) MHz", cell)
    if system:
        return ("system", round(float(system.group(1)) * 1_000_000))
    mailbox = re.fullmatch(r"firmware mailbox, clock id (\d+)", cell)
    if mailbox:
        return ("mailbox", int(mailbox.group(1)))
    raise ValueError(f"UART clock '{cell}' is neither 'fixed <n> MHz', 'system clock <n> MHz' "
                     "nor 'firmware mailbox, clock id <n>'")


def doc_table(path):
    """{board: {'fifo_depth', 'uart_clock', 'uart_irq', 'sources'}} from the marked table."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(MARKER)), None)
    if start is None:
        raise ValueError(f"{path}: no '{MARKER} ...' marker before the board table")
    rows = []
    for line in lines[start + 1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    if len(rows) < 3:
        raise ValueError(f"{path}: the board table after the marker is empty")
    header = tuple(cell.lower() for cell in rows[0])
    if header != COLUMNS:
        raise ValueError(f"{path}: board table columns {header}, expected {COLUMNS}")
    table = {}
    for cells in rows[2:]:
        if len(cells) != len(COLUMNS):
            raise ValueError(f"{path}: row {cells} has {len(cells)} cells")
        board = cells[0].strip("`")
        irq = re.search(r"\d+", cells[3])
        table[board] = {
            "fifo_depth": int(cells[1]) if cells[1].isdigit() else cells[1],
            "uart_clock": cells[2],
            "uart_irq": int(irq.group(0)) if irq else cells[3],
            "sources": cells[4],
        }
    return table


def compare(code, documented):
    problems = []
    if documented["fifo_depth"] != code["fifo_depth"]:
        problems.append(f"FIFO depth: board.h says {code['fifo_depth']}, "
                        f"the docs say {documented['fifo_depth']}")
    try:
        clock = parse_clock(documented["uart_clock"])
        if clock != code["uart_clock"]:
            problems.append(f"UART clock: the code uses {code['uart_clock'][0]} "
                            f"{code['uart_clock'][1]}, the docs say {clock[0]} {clock[1]}")
    except ValueError as error:
        problems.append(str(error))
    if documented["uart_irq"] != code["uart_irq"]:
        problems.append(f"UART interrupt: the code routes {code['uart_irq']}, "
                        f"the docs say {documented['uart_irq']}")
    if len(documented["sources"]) < 10:
        problems.append("no source cited")
    return problems


def make_output(root, board, *goals):
    result = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(root), f"BOARD={board}",
                             *goals], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ValueError(f"make {' '.join(goals)} failed: {result.stderr.strip()[-300:]}")
    return result.stdout.strip()


def machine_problems(root, board, code):
    """{machine: [problems]} from examples/probe on each of the board's QEMU machines."""
    machines = make_output(root, board, "print-qemu-machines").split()
    if not machines:
        return {}
    build = os.environ.get("BUILD", "build")
    elf = root / build / board / "examples" / "probe.elf"
    make_output(root, board, str(elf.relative_to(root)))
    results = {}
    for machine in machines:
        base = make_output(root, board, f"QEMU_MACHINE={machine}", "print-qemu").split()
        session = QemuSession(base, str(elf), timeout=60)
        try:
            facts = qemu_examples.drive_probe(session)
        finally:
            session.close()
        problems = []
        if facts["status"] != 0:
            problems.append(f"probe exit status {facts['status']}")
        if facts["fifo_depth"] != code["fifo_depth"]:
            problems.append(f"FIFO depth: board.h says {code['fifo_depth']}, the probe measured "
                            f"{facts['fifo_depth']} (PeriphID says {facts['periph_id_depth']})")
        if code["uart_irq"] not in facts["uart_irqs"]:
            problems.append(f"UART interrupt: board.h routes {code['uart_irq']}, a received byte "
                            f"asserted {facts['uart_irqs'] or 'no line'}")
        results[machine] = (problems, facts)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2])
    parser.add_argument("--board", action="append", help="only these boards")
    args = parser.parse_args()
    root = args.root
    every_board = sorted(p.parent.name for p in (root / "boards").glob("*/board.mk"))
    boards = [board for board in every_board if not args.board or board in args.board]
    passed = failed = 0
    for board in sorted(set(args.board or []) - set(every_board)):
        failed += 1
        print(f"FAIL {board}: no boards/{board}/board.mk")
    try:
        table = doc_table(root / DOC)
    except (OSError, ValueError) as error:
        print(f"FAIL {DOC}: {error}")
        print("0 passed, 1 failed")
        return 1
    for board in boards:
        if board not in table:
            problems = [f"no row in the table of {DOC}"]
            code = None
        else:
            try:
                code = board_facts(root, board)
                problems = compare(code, table[board])
            except ValueError as error:
                code, problems = None, [str(error)]
        if problems:
            failed += 1
            print(f"FAIL {board}: " + "; ".join(problems))
        else:
            passed += 1
            kind, value = code["uart_clock"]
            clock = f"mailbox clock id {value}" if kind == "mailbox" else f"{value / 1e6:g} MHz {kind}"
            print(f"ok   {board}: FIFO {code['fifo_depth']}, UART clock {clock}, "
                  f"interrupt {code['uart_irq']}, as {DOC} says")
        if code is None:
            continue
        try:
            probed = machine_problems(root, board, code)
        except (ValueError, OSError, RuntimeError, TimeoutError) as error:
            failed += 1
            print(f"FAIL {board}: probe: {error}")
            continue
        for machine, (problems, facts) in probed.items():
            if problems:
                failed += 1
                print(f"FAIL {board} on QEMU {machine}: " + "; ".join(problems))
            else:
                passed += 1
                print(f"ok   {board} on QEMU {machine}: the probe measured FIFO {facts['fifo_depth']} "
                      f"(PeriphID says {facts['periph_id_depth']}), interrupt lines "
                      f"{facts['uart_irqs']}, as board.h says")
    for board in sorted(table.keys() - set(every_board)):
        failed += 1
        print(f"FAIL {board}: a row in {DOC} but no boards/{board}/board.mk")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
