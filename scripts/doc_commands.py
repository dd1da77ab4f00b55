"""The documentation's commands that scripts/test_readme.py cannot run as
blocks: those written inline, in code spans of the text, checked against
the tree the blocks built; and the rules every command of the documentation
holds to, in blocks and in the text (no sudo, Debian's python3 under meson
devenv, no typographic quotes in code). test_readme.py's docstring states
the rules; this module applies them."""
import collections
import json
import re
import shlex
import subprocess

Fenced = collections.namedtuple("Fenced", "lang start end text")
Check = collections.namedtuple("Check", "name result message")

# A code span: backticks around text that does not cross a blank line.
SPAN = re.compile(r"(?<!`)`(?!`)((?:[^`\n]|\n(?!\s*\n))+?)`(?!`)")
COMMANDS = {"ninja", "meson", "gst-launch-1.0", "gst-inspect-1.0", "python3", "/usr/bin/python3",
            "bash", "sh", "sudo"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# A word standing for what the reader fills in: SUITE, CMD..., BUILD, <case>, ...
PLACEHOLDER = re.compile(r"^(\.\.\.|…|[A-Z][A-Z0-9_]{2,}(\.\.\.)?|<[^>]*>|.*\.\.\.)$")
TYPOGRAPHIC = "\u201c\u201d\u2018\u2019\u201e\u00ab\u00bb"
MESON_SUBCOMMANDS = {"setup", "configure", "dist", "install", "introspect", "init", "test",
                     "wrap", "subprojects", "rewrite", "compile", "devenv", "env2mfile",
                     "format", "fmt", "help"}
SUDO_RULE = ("sudo: a root shell (a container's, CI's) often has none, and the command then "
             "fails; write the command without it and say in the text that it needs root")
DEVENV_RULE = ("meson devenv ... python3: the first python3 on PATH (a pyenv's, a virtual "
               "environment's) may have no PyGObject; write /usr/bin/python3")


def code_spans(text, fenced):
    """(line, span) of each inline code span outside the fenced blocks."""
    lines = text.split("\n")
    for block in fenced:  # blanked, so that line numbers stay
        for n in range(block.start - 1, min(block.end + 1, len(lines))):
            lines[n] = ""
    prose = "\n".join(lines)
    for m in SPAN.finditer(prose):
        yield prose.count("\n", 0, m.start()) + 1, " ".join(m.group(1).split())


def words_of(command):
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def command_words(span):
    """The words of a span that is a command (its VAR=value settings left
    out), or None for a span that is a name, a value or code."""
    words = words_of(span)
    while words and ASSIGNMENT.match(words[0]):
        words = words[1:]
    if len(words) < 2 or words[0] not in COMMANDS:
        return None
    return words


def rule_breaks(command):
    """(line of the command, rule) for each rule a command (a span or a
    whole block) breaks."""
    broken = []
    for n, line in enumerate(command.splitlines()):
        words = words_of(line)
        comment = next((i for i, w in enumerate(words) if w.startswith("#")), len(words))
        words = words[:comment]
        if "sudo" in words:
            broken.append((n, SUDO_RULE))
        if "devenv" in words and "python3" in words[words.index("devenv"):]:
            broken.append((n, DEVENV_RULE))
    return broken


def typographic_quotes(fenced, spans):
    """Where code (fenced blocks, spans) has a typographic quote."""
    found = []
    for block in fenced:
        for n, line in enumerate(block.text.split("\n")):
            if any(ch in TYPOGRAPHIC for ch in line):
                found.append(f"line {block.start + 1 + n}: {line.strip()!r}")
    for line, span in spans:
        if any(ch in TYPOGRAPHIC for ch in span):
            found.append(f"line {line}: `{span}`")
    return found


class Tree:
    """What the built tree has: ninja and meson targets, tests and suites,
    GStreamer's elements. Each is asked once, when a command needs it."""

    def __init__(self, root, env):
        self.root, self.env, self.cache = root, env, {}

    def run(self, *args, cwd=None):
        return subprocess.run(list(args), cwd=cwd or self.root, env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120)

    def remember(self, key, fn):
        if key not in self.cache:
            self.cache[key] = fn()
        return self.cache[key]

    def ninja_targets(self, build):
        def ask():
            out = self.run("ninja", "-C", build, "-t", "targets", "all").stdout
            return {line.split(":")[0] for line in out.splitlines() if ":" in line}
        return self.remember(("ninja", build), ask)

    def meson_targets(self, build):
        def ask():
            run = self.run("meson", "introspect", build, "--targets")
            names = set()
            for target in json.loads(run.stdout or "[]"):
                names |= {target["name"], target["id"]}
            return names
        return self.remember(("meson", build), ask)

    def tests(self, build):
        """(names, suites) of the build's tests, from `meson introspect --tests`
        (JSON: `meson test --list` prints them differently from one meson to
        the next)."""
        def ask():
            out = self.run("meson", "introspect", "--tests", build).stdout
            names, suites = set(), set()
            for test in json.loads(out or "[]"):
                names.add(test["name"])
                for suite in test["suite"]:  # "project:suite"
                    suites |= {suite, suite.partition(":")[2]}
            return names, suites
        return self.remember(("tests", build), ask)

    def element(self, name):
        return self.remember(("element", name),
                             lambda: self.run("gst-inspect-1.0", name).returncode == 0)


def options_and_arguments(words, with_value):
    """A command's -X VALUE options as a dict and its other words in order."""
    options, arguments, i = {}, [], 0
    while i < len(words):
        word = words[i]
        if word in with_value and i + 1 < len(words):
            options[word] = words[i + 1]
            i += 2
            continue
        if not word.startswith("-"):
            arguments.append(word)
        i += 1
    return options, arguments


def build_dir(tree, options):
    build = options.get("-C", ".")
    return build if (tree.root / build / "build.ninja").exists() else None


def check_targets(tree, words, known_of, what):
    options, targets = options_and_arguments(words[1:], {"-C", "-j", "-l"})
    if words[0] == "meson":
        targets = targets[1:]  # "compile"
    build = build_dir(tree, options)
    if build is None:
        return "SKIP", f"no build folder {options.get('-C', '.')} in the tree to check it in"
    known = known_of(build)
    missing = [t for t in targets if t not in known and t.split(":")[0] not in known]
    if missing:
        return "FAIL", f"{', '.join(missing)}: not a {what} of {build}"
    return "OK", f"{what}s found in {build}"


def check_meson_test(tree, words):
    options, names = options_and_arguments(
        words[2:], {"-C", "--suite", "--no-suite", "--timeout-multiplier", "--repeat", "-t",
                    "--num-processes", "--setup", "--wrapper", "--test-args"})
    suites = [w for i, w in enumerate(words) if i and words[i - 1] in ("--suite", "--no-suite")]
    build = build_dir(tree, options)
    if build is None:
        return "SKIP", f"no build folder {options.get('-C', '.')} in the tree to check it in"
    known_names, known_suites = tree.tests(build)
    missing = [f"test {n}" for n in names if n not in known_names]
    missing += [f"suite {s}" for s in suites if s not in known_suites]
    if missing:
        return "FAIL", f"{', '.join(missing)}: not in `meson test -C {build} --list`"
    return "OK", f"tests and suites listed by {build}"


def check_meson(tree, words):
    sub = words[1]
    if sub not in MESON_SUBCOMMANDS:
        return "FAIL", f"meson has no subcommand {sub}"
    if sub == "compile":
        return check_targets(tree, words, lambda b: tree.meson_targets(b) | tree.ninja_targets(b),
                             "meson target")
    if sub == "test":
        return check_meson_test(tree, words)
    if sub == "devenv":
        _, rest = options_and_arguments(words[2:], {"-C", "-w", "--workdir", "--dump-format"})
        if rest:
            return check_command(tree, words[words.index(rest[0]):])
    return "OK", f"meson {sub}: a meson subcommand"


def check_script(tree, words):
    if "-c" in words or "-m" in words:
        return "OK", "code given inline, nothing to find"
    _, arguments = options_and_arguments(words[1:], set())
    if not arguments:
        return "OK", "no script named"
    script = arguments[0]
    if not (tree.root / script).is_file():
        return "FAIL", f"{script}: no such file in the tree"
    return "OK", f"{script} is in the tree"


def check_elements(tree, words):
    if words[0] == "gst-inspect-1.0":
        _, names = options_and_arguments(words[1:], set())
    else:  # each element of the pipeline: a segment's first word, not caps
        pipeline = " ".join(w for w in words[1:] if not w.startswith("-"))
        names = [seg.split()[0] for seg in pipeline.split("!") if seg.split()]
        names = [n for n in names if "/" not in n and "=" not in n and not n.endswith(".")]
    missing = [n for n in names if not tree.element(n)]
    if missing:
        return "FAIL", f"{', '.join(missing)}: no such element or plugin (gst-inspect-1.0)"
    return "OK", "elements found" if names else "no element named"


def check_command(tree, words):
    """(result, message) for one command in the text."""
    templates = [w for w in words if PLACEHOLDER.match(w)]
    if templates:
        return "SKIP", f"a template ({', '.join(templates)}): nothing definite to check"
    program = words[0]
    if program == "ninja":
        return check_targets(tree, words, tree.ninja_targets, "ninja target")
    if program == "meson":
        return check_meson(tree, words)
    if program in ("python3", "/usr/bin/python3", "bash", "sh"):
        return check_script(tree, words)
    if program in ("gst-launch-1.0", "gst-inspect-1.0"):
        return check_elements(tree, words)
    return "OK", "not checked further"


def check_document(rel, text, fenced, tree):
    """The checks of one document: each command in its text, then its rules."""
    checks, spans = [], list(code_spans(text, fenced))
    for line, span in spans:
        words = command_words(span)
        if words is None:
            continue
        broken = [rule for _, rule in rule_breaks(span)]
        result, message = ("FAIL", "; ".join(broken)) if broken else check_command(tree, words)
        checks.append(Check(f"{rel}:{line} `{span}`", result, message))
    problems = [f"line {b.start + 1 + n}: {rule}" for b in fenced if b.lang == "sh"
                for n, rule in rule_breaks(b.text)]
    problems += [f"typographic quote in code, {where}" for where in typographic_quotes(fenced, spans)]
    checks.append(Check(f"{rel} (rules of its commands)", "FAIL" if problems else "OK",
                        "\n".join(problems) or "no sudo, Debian's python3 under meson devenv, "
                        "no typographic quotes in code"))
    return checks
