#!/usr/bin/env python3
"""The reference manual's check: `gi-docgen check` on GstEf-1.0.gir names
every symbol whose doc comment has no description (a block with only
Returns: or parameters). gi-docgen exits 0 on those; this fails on each.

    doc_check.py GI_DOCGEN GIR"""
import subprocess
import sys

gidocgen, gir = sys.argv[1:3]
run = subprocess.run([gidocgen, "check", gir], capture_output=True, text=True)
output = run.stdout + run.stderr
warnings = [line for line in output.splitlines() if "WARNING" in line or "ERROR" in line]
for line in warnings:
    print(line)
if run.returncode != 0 or warnings:
    print(f"FAIL: gi-docgen check exited {run.returncode} with {len(warnings)} warnings")
    sys.exit(1)
print("gi-docgen check: every symbol of", gir, "is documented")
