#!/usr/bin/env python3
"""Checks that what the documentation names in inline code is in the tree:
every `path/like/this` (or `file.cpp`) names a tracked file or folder, and
every `function()`, `Type::member`, `snake_name`, `CamelName`, `ENV_NAME`
(also `ENV_NAME=value`) and `property-name` (also `property-name=value`) is
a word of the code (a hyphenated one, for a property): gst/, lib/,
tests/, scripts/, examples/ and the meson files. It catches what moved or was
renamed and left a document naming the old place.

    /usr/bin/python3 scripts/check_doc_refs.py [FILE.md ...]

Without files it reads README.md, docs/*.md but the benchmarks' and
docs/reference/*.md(.in). A path is resolved as a suffix of a tracked path, with or without its extension (`gl/gl_device`
is gst/plugin/efconvert/backends/gl/gl_device.cpp), and checked only where
its first part is the name of some folder or file of the tree (so caps such
as `video/x-raw` are not paths). An identifier resolves where the code has
it as a word, or a word ending in `_` + it (`class_init`) or in it where it
begins with `_` or `...`. Names of other projects' APIs (GStreamer's, GL's,
EGL's, Vulkan's, CUDA's, GLib's), which a document may name without the
code using them, are not checked; ef's own (gst_ef_, GST_EF_, GstEf) are.
Fenced code blocks are not read. Prints each miss as FILE:LINE: `TOKEN`
(why) and exits 1 if there is one; exits 0 and prints a count otherwise.
"""
import os
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_doc_links as links  # noqa: E402

REPO = links.REPO

INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
PATH = re.compile(r"[\w.+-]+(?:/[\w.+-]+)+/?|[\w+-]+\.(?:cpp|hpp|h|c|cu|py|sh|build|md|in|txt)")
IDENT = re.compile(r"(?:…|\.\.\.)?((?:[A-Za-z_]\w*::)*_?[A-Za-z_]\w*)(?:\(\)|\(\.\.\.\)|\(…\))?")
PROPERTY = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
COMMIT = re.compile(r"[0-9a-f]{7,40}")
ENV = re.compile(r"([A-Z][A-Z0-9_]+)=\S*")
CODE_DIRS = ("gst/", "lib/", "tests/", "scripts/", "examples/")
# Other projects' names: a document explains what they do, the code need
# not call them.
FOREIGN = re.compile(r"^(?!gst_ef_|GST_EF_|GstEf)(gst_|GST_|Gst|g_|G_|GL|gl[A-Z]|egl|EGL|vk|Vk|VK_"
                     r"|cu[A-Z]|cuda[A-Z]|CU_|CUDA_|Py|DMA_BUF|DRM_|V4L2)")


def tracked():
    """The tree's files: git's list, else (a release tarball) a walk that
    leaves out hidden folders and build folders."""
    try:
        out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout.split("\n")
        return [f for f in out if f and (REPO / f).is_file()]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for root, dirs, names in os.walk(REPO):
            dirs[:] = [d for d in dirs if not d.startswith(".")
                       and not (pathlib.Path(root, d) / "meson-private").exists()]
            found += [str(pathlib.Path(root, n).relative_to(REPO)) for n in names]
        return found


def documents():
    """check_doc_links.py's documents but the benchmarks': their dated
    entries name what was measured then, by design."""
    return [p for p in links.documents() if not p.name.startswith("BENCHMARKS")]


class Tree:
    def __init__(self):
        files = tracked()
        self.paths = set(files)
        for f in files:
            parts = f.split("/")
            for i in range(1, len(parts)):
                self.paths.add("/".join(parts[:i]))
        # Each path's suffixes, with and without the last part's extension.
        self.suffixes = set()
        self.parts = set()
        for p in self.paths:
            parts = p.split("/")
            self.parts.update(parts)
            stem = p.rsplit(".", 1)[0] if "." in parts[-1] else None
            for i in range(len(parts)):
                self.suffixes.add("/".join(parts[i:]))
                if stem is not None:
                    self.suffixes.add("/".join(stem.split("/")[i:]))
        self.parts.update(pathlib.PurePath(p).stem for p in self.paths)
        text = []
        for f in files:
            if f.startswith(CODE_DIRS) or f.endswith("meson.build") or f == "meson_options.txt":
                try:
                    text.append((REPO / f).read_text(encoding="utf-8", errors="replace"))
                except (IsADirectoryError, OSError):
                    pass
        self.code = "\n".join(text)
        self.words = set(re.findall(r"[A-Za-z_]\w*", self.code))
        self.hyphened = set(re.findall(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+", self.code))

    def has_path(self, token):
        return token.rstrip("/") in self.suffixes

    def has_word(self, name, suffix=False):
        if name in self.words or name in self.parts:
            return True
        if suffix or name.startswith("_"):
            tail = name if name.startswith("_") else "_" + name
            return any(w.endswith(tail) for w in self.words)
        return False


def miss(tree, token):
    """Why `token` names nothing in the tree, or None."""
    token = token.strip()
    if PATH.fullmatch(token):
        if token.startswith("/") or token.split("/")[0] not in tree.parts:
            return None
        return None if tree.has_path(token) else "no such file or folder"
    m = ENV.fullmatch(token)
    if m:
        if FOREIGN.match(m.group(1)):
            return None
        return None if tree.has_word(m.group(1)) else "not in the code"
    if PROPERTY.fullmatch(token.split("=", 1)[0]) and " " not in token:
        name = token.split("=", 1)[0]
        # A library by its file's name: libef-core is meson's ef-core.
        names = {name, name[3:]} if name.startswith("lib") else {name}
        found = any(n in tree.hyphened or n in tree.parts for n in names)
        return None if found else "not in the code"
    m = IDENT.fullmatch(token)
    if not m or len(m.group(1)) < 3 or COMMIT.fullmatch(token):
        return None
    elided = token.startswith(("…", "..."))
    for part in m.group(1).split("::"):
        if FOREIGN.match(part) and not tree.has_word(part, True):
            return None
        if not tree.has_word(part, elided or "_" in part):
            return f"no `{part}` in the code"
    return None


def check(tree, path):
    found, count = [], 0
    rel = path.relative_to(REPO)
    for number, line in links.text_lines(path):
        for m in INLINE_CODE.finditer(line):
            count += 1
            why = miss(tree, m.group(1))
            if why:
                found.append(f"{rel}:{number}: `{m.group(1)}` ({why})")
    return found, count


def main():
    tree = Tree()
    return links.run(lambda path: check(tree, path), documents, "names checked", "not found")


if __name__ == "__main__":
    sys.exit(main())
