#!/usr/bin/env python3
"""Checks the relative links of the documentation: every [text](target) and
![alt](target) of README.md, docs/*.md and docs/reference/*.md(.in) whose
target is a path in the tree (not a URL) must name a file or folder that
exists, and a #fragment must be a heading of the file it names (or of the
same file), as GitHub makes its anchors: the heading's text lowercased, its
markup dropped, every character but letters, digits, '_', '-' and spaces
removed, spaces made '-', and "-1", "-2", ... after repeats.

    /usr/bin/python3 scripts/check_doc_links.py [FILE.md ...]

Links inside fenced code blocks and inline code are not links and are
skipped. Prints each broken link as FILE:LINE: TARGET (why) and exits 1 if
there is one; exits 0 and prints a count otherwise.
"""
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"`+[^`]*`+")
# [text](target) or ![alt](target); the target up to the first space or ')'.
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def documents():
    """The files scripts/test_readme.py reads: README.md and docs/'s markdown."""
    found = [REPO / "README.md"]
    for pattern in ("*.md", "reference/*.md", "reference/*.md.in"):
        found += sorted((REPO / "docs").glob(pattern))
    return found


def text_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, line


def slug(heading):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen, found = {}, set()
        for _, line in text_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        for _, line in text_lines(path):
            for m in re.finditer(r"<a\s+(?:id|name)=\"([^\"]+)\"", line):
                found.add(m.group(1))
        _anchors[path] = found
    return _anchors[path]


def check(path):
    broken, count = [], 0
    rel = path.relative_to(REPO)
    for number, line in text_lines(path):
        for m in LINK.finditer(INLINE_CODE.sub("", line)):
            target = m.group(1)
            if URL.match(target):
                continue
            count += 1
            file_part, _, fragment = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            if not dest.exists():
                broken.append(f"{rel}:{number}: {target} (no such file)")
                continue
            if fragment:
                if dest.is_dir() or dest.suffix not in (".md", ".in"):
                    broken.append(f"{rel}:{number}: {target} (an anchor into a non-markdown file)")
                elif fragment not in anchors(dest):
                    broken.append(f"{rel}:{number}: {target} (no such heading in "
                                  f"{dest.relative_to(REPO)})")
    return broken, count


def run(check, documents, counted, missing):
    """Runs `check(path)` -> (misses, count) over the files named on the
    command line, else `documents()`; prints the misses and a count, and
    gives the exit status."""
    paths = [pathlib.Path(p).resolve() for p in sys.argv[1:]] or documents()
    misses, count = [], 0
    for path in paths:
        m, c = check(path)
        misses += m
        count += c
    for line in misses:
        print(line)
    print(f"{count} {counted}, {len(misses)} {missing}")
    return 1 if misses else 0


def main():
    return run(check, documents, "relative links checked", "broken")


if __name__ == "__main__":
    sys.exit(main())
