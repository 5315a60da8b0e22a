#!/usr/bin/env python3
"""Check that every relative link in the repository's Markdown files resolves.

A link [text](target) or [text](target#anchor) outside code must name a file or folder that
exists, relative to the document; an anchor must match a heading of the target document (as
GitHub makes anchors from headings). Links with a scheme (https:, mailto:) are not followed.
Ends with 'N passed, N failed'; exits 1 if any link is broken.
"""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SKIP_FOLDERS = {".git", "build", "__pycache__"}
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files():
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIP_FOLDERS)
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def prose_lines(path):
    """The document's lines outside fenced code blocks, with inline code blanked out."""
    inside = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if FENCE.match(line):
                inside = not inside
                continue
            if not inside:
                yield number, re.sub(r"`[^`]*`", "``", line)


def anchors(path):
    """GitHub's anchors for the headings of a document: lower case, punctuation dropped,
    spaces to hyphens, repeats numbered."""
    seen = {}
    result = set()
    for _, line in prose_lines(path):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        text = re.sub(r"[`*]|<[^>]*>", "", match.group(1)).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


def check(path, target):
    """None if the link resolves, else what is wrong."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
        return None
    file_part, _, anchor = target.partition("#")
    resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
    if not os.path.exists(resolved):
        return f"{file_part} does not exist"
    if not resolved.startswith(ROOT + os.sep) and resolved != ROOT:
        return f"{file_part} is outside the repository"
    if anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
        return f"no heading makes the anchor #{anchor} in {os.path.relpath(resolved, ROOT)}"
    return None


def main():
    passed = failed = 0
    for path in markdown_files():
        name = os.path.relpath(path, ROOT)
        for number, line in prose_lines(path):
            for match in LINK.finditer(line):
                problem = check(path, match.group(1))
                if problem:
                    failed += 1
                    print(f"FAIL {name}:{number}: ({match.group(1)}) {problem}")
                else:
                    passed += 1
    print(f"links: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
