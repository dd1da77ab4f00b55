#!/usr/bin/env python3
"""scripts/doc_commands.py, the checks scripts/test_readme.py applies to the
commands written in the documentation's text and to every command's rules,
on a document made here: each check must pass what holds and fail what does
not (a meson target's name given to ninja, which does not know it (the
README's `ninja -C build gstef-doc` was one; the manual's target is absent
from the sanitizer builds, so a target every build has stands here), a
sudo, a bare python3 under meson devenv, typographic quotes in code).

    test_doc_commands.py SOURCE_ROOT BUILD_DIR"""
import os
import pathlib
import sys

SOURCE, BUILD = (pathlib.Path(a).resolve() for a in sys.argv[1:3])
sys.path.insert(0, str(SOURCE / "scripts"))
import doc_commands  # noqa: E402

DOCUMENT = f"""
Build the helpers with `ninja -C {BUILD} gstef-internals` or `meson compile -C {BUILD} gstef-internals`;
run `meson test -C {BUILD} --suite doc` (not `meson test -C {BUILD} --suite no-such-suite`
nor `meson test -C {BUILD} no_such_test`). `bash scripts/demo.sh` runs the demo,
`/usr/bin/python3 scripts/no_such_script.py` nothing. `gst-inspect-1.0 fakesink`
and `gst-inspect-1.0 no-such-element`; `gst-launch-1.0 fakesrc ! no-such-element`;
`bash scripts/debian-root.sh SUITE run CMD...` is a template; `sudo ldconfig` and
`meson devenv -C {BUILD} python3 x.py` break the rules; `meson` and `gst-launch-1.0`
are names.

```sh
meson devenv -C build -w . /usr/bin/python3 x.py
sudo apt-get install -y x    # as root
```

```c
g_print ("\u201cquoted\u201d");
```
"""

WANT = {
    f"`ninja -C {BUILD} gstef-internals`": "FAIL",
    f"`meson compile -C {BUILD} gstef-internals`": "OK",
    f"`meson test -C {BUILD} --suite doc`": "OK",
    f"`meson test -C {BUILD} --suite no-such-suite`": "FAIL",
    f"`meson test -C {BUILD} no_such_test`": "FAIL",
    "`bash scripts/demo.sh`": "OK",
    "`/usr/bin/python3 scripts/no_such_script.py`": "FAIL",
    "`gst-inspect-1.0 fakesink`": "OK",
    "`gst-inspect-1.0 no-such-element`": "FAIL",
    "`gst-launch-1.0 fakesrc ! no-such-element`": "FAIL",
    "`bash scripts/debian-root.sh SUITE run CMD...`": "SKIP",
    "`sudo ldconfig`": "FAIL",
    f"`meson devenv -C {BUILD} python3 x.py`": "FAIL",
    "(rules of its commands)": "FAIL",
}


def main():
    fenced, lines = [], DOCUMENT.split("\n")
    start = None
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            if start is None:
                start, lang = n, line[3:]
            else:
                fenced.append(doc_commands.Fenced(lang, start, n - 1,
                                                  "\n".join(lines[start:n - 1])))
                start = None
    env = dict(os.environ, GST_REGISTRY_1_0=str(BUILD / "doc-commands-registry.bin"))
    checks = doc_commands.check_document("doc.md", DOCUMENT, fenced,
                                         doc_commands.Tree(SOURCE, env))
    failures = 0
    seen = set()
    for check in checks:
        key = next((k for k in WANT if check.name.endswith(k)), None)
        if key is None:
            print(f"unexpected check {check.name}: {check.result}")
            failures += 1
            continue
        seen.add(key)
        ok = check.result == WANT[key]
        print(f"{'ok  ' if ok else 'BAD '} {check.name}: {check.result} (want {WANT[key]}): "
              f"{check.message}")
        failures += not ok
    rules = next(c for c in checks if c.name.endswith("(rules of its commands)"))
    for says in ("line 13: sudo", "typographic quote in code, line 17"):
        if says not in rules.message:
            print(f"BAD  the rules' message does not say {says!r}")
            failures += 1
    if "line 12" in rules.message:
        print("BAD  /usr/bin/python3 under meson devenv was taken for a bare python3")
        failures += 1
    for key in set(WANT) - seen:
        print(f"BAD  no check for {key}")
        failures += 1
    print(f"{len(checks)} checks, {failures} wrong")
    return 1 if failures else 0


sys.exit(main())
