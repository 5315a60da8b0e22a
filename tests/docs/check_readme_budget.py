#!/usr/bin/env python3
"""Check README.md's reading budget and docs/interrupts.md's snippet length (issue 36).

README.md: at most 400 words before its interrupt-driven example (the first ```c block) and
at most 1,500 in all. Words are counted outside fenced code blocks: whitespace-separated
tokens of the prose, tables and lists, with Markdown link targets `(...)` after `]` and HTML
comments left out. The count of every word, code included, is printed beside it.
docs/interrupts.md: every ```c block has at most 15 lines.
Ends with 'N passed, N failed'; exits 1 if a budget is exceeded.
"""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BEFORE_EXAMPLE = 400
TOTAL = 1500
SNIPPET_LINES = 15


def words(text):
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", "] ", text)
    return len(text.split())


def readme_counts(path):
    """(prose words before the first ```c block, prose words in all, every word in all)."""
    prose, before, inside, seen_example = [], None, False, False
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    for line in lines:
        if line.startswith("```"):
            if not inside and line.strip() == "```c" and not seen_example:
                seen_example = True
                before = words("\n".join(prose))
            inside = not inside
            continue
        if not inside:
            prose.append(line)
    total = words("\n".join(prose))
    return (before if before is not None else total), total, words("\n".join(lines)), seen_example


def long_snippets(path):
    """(first line, length) of each ```c block longer than SNIPPET_LINES."""
    found, start, count = [], None, 0
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if start is None and line.strip() == "```c":
                start, count = number, 0
            elif start is not None and line.startswith("```"):
                if count > SNIPPET_LINES:
                    found.append((start, count))
                start = None
            elif start is not None:
                count += 1
    return found


def main():
    passed = failed = 0
    before, total, every, example = readme_counts(os.path.join(ROOT, "README.md"))
    print(f"README.md: {before} words before the example, {total} in all (outside code blocks); "
          f"{every} counting code")
    checks = [
        (example, "README.md has an example (a ```c block)"),
        (before <= BEFORE_EXAMPLE, f"README.md: {before} words before the example, at most {BEFORE_EXAMPLE}"),
        (total <= TOTAL, f"README.md: {total} words in all, at most {TOTAL}"),
    ]
    for start, count in long_snippets(os.path.join(ROOT, "docs", "interrupts.md")):
        checks.append((False, f"docs/interrupts.md:{start}: a ```c block of {count} lines, at most {SNIPPET_LINES}"))
    for ok, label in checks:
        print(("ok   " if ok else "FAIL ") + label)
        passed, failed = passed + ok, failed + (not ok)
    print(f"reading budget: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
