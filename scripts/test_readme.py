#!/usr/bin/env python3
"""Runs every command of the documentation as written, as a new user would
from a fresh clone: the fenced ```sh blocks of README.md, docs/*.md and
docs/reference/*.md(.in). scripts/test.sh calls it.

    /usr/bin/python3 scripts/test_readme.py [DIR]     (DIR: default build-readme)

The tree (git's tracked and untracked, not ignored files) is copied to
DIR/tree, and the blocks run there in order, file by file, as one user's
terminal would: each block in `bash -e` (the first failing command fails
the block), with the exported variables and the folder a block leaves
carried to the next block of the same file. The environment is a fresh
login's on Debian: HOME, LANG, TERM, XDG_RUNTIME_DIR and Debian's default
PATH (so `python3` is /usr/bin/python3), nothing else. DIR/tree keeps its
build folders between runs (a clone that was pulled); CI's first run builds
from nothing.

A comment right before a block (blank lines between are allowed) changes how
it runs, and the markdown shows the reader why:

    <!-- not run: REASON -->
        the block is not run; it counts as skipped, with REASON
    <!-- stand-in: OLD => NEW | REASON -->
        every OLD in the block becomes NEW before it runs (a camera, a
        hardware decoder or a display this machine lacks); several may
        precede one block and apply in order

Blocks in other languages (```c, ```python, ```cpp) and indented blocks are
examples of code, not commands, and are not run.

Commands in the text, inline code spans whose first word (after VAR=value
settings) is one of ninja, meson, gst-launch-1.0, gst-inspect-1.0, python3,
/usr/bin/python3, bash, sh or sudo and that have an argument, are checked
after the blocks ran, against the tree the blocks built (DIR/tree/build):
a ninja or `meson compile` target must be one the build has, a `meson
test` name or suite one it lists, a meson subcommand one meson has, a
script given to python3, bash or sh a file of the tree, and a
gst-inspect-1.0 or gst-launch-1.0 element one GStreamer finds (the build's
plugin included). A span with a placeholder (SUITE, CMD..., `...`) is a
template, counted as skipped. Every command, in blocks and in the text,
must also hold to two rules: no `sudo` (a root shell, a container's or CI's,
often has none: the text says when a command needs root), and `meson
devenv ... /usr/bin/python3`, not `python3` (the first python3 on a PATH,
a pyenv's or a virtual environment's, may have no PyGObject). And no code,
in blocks or spans, has typographic quotes: pasted, they break the command.

Each block, each command in the text and each file's rules are one test in
DIR/meson-logs/testlog.json (meson's format, read by scripts/test_summary.py):
OK, FAIL (with its output) or SKIP (not run, with the reason). Exits 1 if
one failed.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import doc_commands

REPO = pathlib.Path(__file__).resolve().parent.parent
DEBIAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TIMEOUT_S = 900  # a block: the quick start from nothing builds the plugin (4.5–6.5 min measured under load)

FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(.+?)\s*-->\s*$")
STAND_IN = re.compile(r"^\s*<!--\s*stand-in:\s*(.+?)\s*=>\s*(.+?)\s*\|\s*(.+?)\s*-->\s*$")


class Block:
    def __init__(self, path, line, text, not_run, stand_ins):
        self.path, self.line, self.text = path, line, text
        self.not_run, self.stand_ins = not_run, stand_ins

    @property
    def name(self):
        return f"{self.path}:{self.line}"

    def command(self):
        text = self.text
        for old, new, _ in self.stand_ins:
            if old not in text:
                raise ValueError(f"{self.name}: stand-in for '{old}', which the block lacks")
            text = text.replace(old, new)
        return text


def blocks_of(path, code_blocks=None):
    """The fenced sh blocks of a markdown file with the comments before them;
    every fenced block (sh too) into code_blocks, if given."""
    rel = path.relative_to(REPO).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, pending_not_run, pending_stand_ins = [], None, []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            if m := NOT_RUN.match(lines[i]):
                pending_not_run = m.group(1)
            elif m := STAND_IN.match(lines[i]):
                pending_stand_ins.append(m.groups())
            elif lines[i].strip():
                pending_not_run, pending_stand_ins = None, []
            i += 1
            continue
        indent, lang = fence.group(1), fence.group(2)
        start = i + 1
        i += 1
        while i < len(lines) and not FENCE.match(lines[i]):
            i += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip()
                for line in lines[start:i]]
        if lang == "sh":
            blocks.append(Block(rel, start, "\n".join(body) + "\n",
                                pending_not_run, pending_stand_ins))
        if code_blocks is not None:
            code_blocks.append(doc_commands.Fenced(lang, start, i, "\n".join(body)))
        pending_not_run, pending_stand_ins = None, []
        i += 1
    return blocks


def documents():
    docs = REPO / "docs"
    return ([REPO / "README.md"] + sorted(docs.glob("*.md")) +
            sorted((docs / "reference").glob("*.md")) +
            sorted((docs / "reference").glob("*.md.in")))


def copy_tree(tree):
    """The working tree's files into tree, as a clone would have them; build
    folders left by an earlier run stay, files no longer in the tree go."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, check=True, capture_output=True).stdout.decode().split("\0")
    wanted = {f for f in listed if f and (REPO / f).is_file()}
    tree.mkdir(parents=True, exist_ok=True)
    for old in subprocess.run(["find", ".", "-type", "f", "-not", "-path", "./build*"],
                              cwd=tree, check=True, capture_output=True,
                              text=True).stdout.split():
        if old[2:] not in wanted:
            (tree / old).unlink()
    for f in wanted:
        src, dst = REPO / f, tree / f
        st = src.stat()
        if dst.exists() and dst.stat().st_mtime_ns == st.st_mtime_ns and \
                dst.stat().st_size == st.st_size:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def user_env():
    env = {
        "PATH": DEBIAN_PATH,
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
    }
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        env["XDG_RUNTIME_DIR"] = runtime
    return env


# Runs one block with the state the previous block of the file left: its
# exported variables and its folder. Written to a file, so the block's own
# text is never quoted into a command line.
RUNNER = r"""
state=$1 block=$2
. "$state/env"
cd "$(cat "$state/cwd")"
set -e
. "$block"
set +e
export -p >"$state/env"
pwd >"$state/cwd"
"""


def run_file(blocks, tree, state, results):
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    (state / "env").write_text("")
    (state / "cwd").write_text(str(tree) + "\n")
    (state / "runner.sh").write_text(RUNNER)
    failed_before = False
    for block in blocks:
        if block.not_run:
            note = f"SKIP: not run: {block.not_run}"
            print(f"skip {block.name}: {block.not_run}")
            results.append({"name": block.name, "result": "SKIP", "stdout": note + "\n"})
            continue
        if failed_before:
            note = "SKIP: an earlier block of this file failed (this one may depend on it)"
            print(f"skip {block.name}: an earlier block failed")
            results.append({"name": block.name, "result": "SKIP", "stdout": note + "\n"})
            continue
        command = block.command()
        (state / "block.sh").write_text(command)
        for old, new, why in block.stand_ins:
            print(f"     {block.name}: stand-in {old!r} -> {new!r} ({why})")
        start = time.monotonic()
        try:
            run = subprocess.run(["bash", str(state / "runner.sh"), str(state),
                                  str(state / "block.sh")],
                                 cwd=tree, env=user_env(), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 timeout=TIMEOUT_S)
            status, output = run.returncode, run.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            status = 124
            output = (e.stdout or b"").decode(errors="replace") + f"\ntimed out after {TIMEOUT_S} s\n"
        took = time.monotonic() - start
        verdict = "OK" if status == 0 else "FAIL"
        print(f"{'ok  ' if status == 0 else 'FAIL'} {block.name} ({took:.1f} s)")
        if status != 0:
            print("---- block as run:\n" + command + "---- output (end):\n" + output[-6000:])
            failed_before = True
        results.append({"name": block.name, "result": verdict, "returncode": status,
                        "duration": round(took, 1),
                        "command": command, "stdout": output[-20000:]})


def check_text(fenced, tree, results):
    """The commands written in the text of each document, against the tree
    the blocks built, and every document's rules (doc_commands.py)."""
    env = user_env()
    env["GST_PLUGIN_PATH_1_0"] = str(tree / "build" / "gst" / "plugin")
    env["GST_REGISTRY_1_0"] = str(tree.parent / "registry-inline.bin")
    built = doc_commands.Tree(tree, env)
    print("== commands in the text, and the rules of every command")
    for doc, blocks in fenced.items():
        rel = doc.relative_to(REPO).as_posix()
        for check in doc_commands.check_document(rel, doc.read_text(encoding="utf-8"), blocks,
                                                 built):
            word = {"OK": "ok  ", "FAIL": "FAIL", "SKIP": "skip"}[check.result]
            if check.result != "OK":
                print(f"{word} {check.name}: {check.message}")
            results.append({"name": check.name, "result": check.result,
                            "stdout": f"{check.result}: {check.message}\n"})


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build-readme")
    if not out.is_absolute():
        out = REPO / out
    tree = out / "tree"
    copy_tree(tree)
    results, fenced = [], {}
    for doc in documents():
        fenced[doc] = []
        blocks = blocks_of(doc, fenced[doc])
        if blocks:
            print(f"== {doc.relative_to(REPO)}: {len(blocks)} sh blocks")
            run_file(blocks, tree, out / "state", results)
    check_text(fenced, tree, results)
    logs = out / "meson-logs"
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / "testlog.json", "w") as log:
        for r in results:
            log.write(json.dumps(r) + "\n")
    counts = {v: sum(r["result"] == v for r in results) for v in ("OK", "FAIL", "SKIP")}
    print(f"documentation commands: {counts['OK']} ran, {counts['FAIL']} failed, "
          f"{counts['SKIP']} not run")
    return 1 if counts["FAIL"] else 0


sys.exit(main())
