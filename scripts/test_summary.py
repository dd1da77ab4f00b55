#!/usr/bin/env python3
"""Prints one 'N passed, N failed, N skipped' line for each build directory
given (the meson test log of one run), lists every skipped test with its
reason, and ends with the same line for all of them together."""
import json
import pathlib
import sys


def count(build, skips):
    """passed, failed, skipped of one build directory's test log."""
    log = pathlib.Path(build) / "meson-logs" / "testlog.json"
    if not log.exists():
        print(f"{build}: no test log")
        return 0, 1, 0
    passed = failed = skipped = 0
    for line in log.read_text().splitlines():
        result = json.loads(line)
        verdict = result["result"]
        if verdict in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif verdict == "SKIP":
            skipped += 1
            reason = [l for l in result.get("stdout", "").splitlines() if "SKIP" in l]
            skips.append(f"{build}/{result['name']}: {reason[-1] if reason else 'skipped'}")
        else:
            failed += 1
    return passed, failed, skipped


def line(passed, failed, skipped):
    return f"{passed} passed, {failed} failed, {skipped} skipped"


skips = []
runs = [(build, count(build, skips)) for build in sys.argv[1:]]
for s in skips:
    print("skipped:", s)
for build, counts in runs:
    print(f"{build}: {line(*counts)}")
print(line(*(sum(c[i] for _, c in runs) for i in range(3))))
