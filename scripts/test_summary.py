#!/usr/bin/env python3
"""Prints one 'N passed, N failed, N skipped' line for each build directory
given (the meson test log of one run), lists every skipped test with its
reason, and ends with the same line for all of them together. A leg that
could not run its tests (scripts/test.sh wrote its reason to leg-failed in
its build directory) counts as one failure and says why."""
import json
import pathlib
import sys


def count(build, skips):
    """passed, failed, skipped of one build directory's test log, and what
    is to be said of the leg beside them ("" when nothing)."""
    log = pathlib.Path(build) / "meson-logs" / "testlog.json"
    leg_failed = pathlib.Path(build) / "leg-failed"
    passed = failed = skipped = 0
    note = ""
    if leg_failed.exists():
        note = f" (the leg failed: {leg_failed.read_text().strip()})"
        failed += 1
    if not log.exists():
        return (0, max(failed, 1), 0), note or " (no test log)"
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
    return (passed, failed, skipped), note


def line(passed, failed, skipped):
    return f"{passed} passed, {failed} failed, {skipped} skipped"


skips = []
runs = [(build, *count(build, skips)) for build in sys.argv[1:]]
for s in skips:
    print("skipped:", s)
for build, counts, note in runs:
    print(f"{build}: {line(*counts)}{note}")
print(line(*(sum(c[i] for _, c, _ in runs) for i in range(3))))
