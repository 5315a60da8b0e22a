#!/usr/bin/env python3
"""Check that include/pl011.h stays a reference card (issue 34).

- include/pl011.h has at most 400 lines (as wc -l counts them);
- no comment block in it runs to more than 10 lines: a block is a run of lines that hold
  nothing but comment, so a function's contract, a type's or a flag's note each stay short.
  The full contracts live in docs/api.md.
Prints the header's line count, its comment words (whitespace-separated, inside /* */ and //)
and its code tokens (identifiers, numbers, strings, each punctuation character), and does the
same for the other headers of include/ (not checked: the instance's layout is private).
  tests/docs/check_header.py [header...]   check these instead of include/pl011.h
Ends with 'N passed, N failed'; exits 1 if a budget is exceeded.
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HEADER = os.path.join(ROOT, "include", "pl011.h")
MAX_LINES = 400
MAX_BLOCK = 10
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|\w+|[^\w\s]')


def counts(text):
    """(comment words, code tokens) of C text."""
    comments = COMMENT.findall(text)
    words = sum(len(re.sub(r"^\s*/[*/]|\*/$", " ", c).replace("\n *", "\n").split())
                for c in comments)
    code = COMMENT.sub(" ", text)
    return words, len(TOKEN.findall(code))


def comment_only_lines(text):
    """For each line (1-based list), whether it holds only comment (and white space)."""
    marks = []
    stripped = COMMENT.sub(lambda m: re.sub(r"[^\n]", "\0", m.group(0)), text)
    for original, line in zip(text.split("\n"), stripped.split("\n")):
        rest = line.replace("\0", "").strip()
        marks.append(bool(original.strip()) and "\0" in line and not rest)
    return marks


def long_blocks(text):
    """(first line, length) of each run of comment-only lines longer than MAX_BLOCK."""
    found, start = [], None
    marks = comment_only_lines(text) + [False]
    for number, mark in enumerate(marks, 1):
        if mark and start is None:
            start = number
        elif not mark and start is not None:
            if number - start > MAX_BLOCK:
                found.append((start, number - start))
            start = None
    return found


def main(argv):
    headers = [os.path.abspath(p) for p in argv] or [HEADER]
    passed = failed = 0
    for extra in sorted(glob.glob(os.path.join(ROOT, "include", "*.h"))):
        if extra not in headers:
            with open(extra, encoding="utf-8") as handle:
                text = handle.read()
            words, tokens = counts(text)
            print(f"{os.path.relpath(extra, ROOT)}: {text.count(chr(10))} lines, "
                  f"{words} comment words, {tokens} code tokens (not checked)")
    for header in headers:
        name = os.path.relpath(header, ROOT)
        with open(header, encoding="utf-8") as handle:
            text = handle.read()
        lines = text.count("\n")
        words, tokens = counts(text)
        print(f"{name}: {lines} lines, {words} comment words, {tokens} code tokens")
        checks = [(lines <= MAX_LINES, f"{name}: {lines} lines, at most {MAX_LINES}")]
        blocks = long_blocks(text)
        checks.append((not blocks, f"{name}: every comment block at most {MAX_BLOCK} lines"))
        for start, length in blocks:
            print(f"     {name}:{start}: a comment block of {length} lines")
        for ok, label in checks:
            print(("ok   " if ok else "FAIL ") + label)
            passed, failed = passed + ok, failed + (not ok)
    print(f"header budget: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
