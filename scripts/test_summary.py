#!/usr/bin/env python3
"""Prints one 'N passed, N failed, N skipped' line for the meson test logs of
the build directories given, and lists every skipped test with its reason."""
import json
import pathlib
import sys

passed = failed = skipped = 0
skips = []
for build in sys.argv[1:]:
    log = pathlib.Path(build) / "meson-logs" / "testlog.json"
    if not log.exists():
        failed += 1
        print(f"{build}: no test log")
        continue
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
for s in skips:
    print("skipped:", s)
print(f"{passed} passed, {failed} failed, {skipped} skipped")
