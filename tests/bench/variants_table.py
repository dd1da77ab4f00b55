#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The table of streams_variants.sh: one row per variant (its --label) and
process layout, every run's frames a second, their mean against the decoder
alone in the same layout, and efconvert's GL-thread time a frame by stage
(the mean over the variant's runs). Standard library only: it runs on the
GPU machine.

    variants_table.py variants.jsonl > variants.md
"""
import json
import sys
from collections import OrderedDict


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def per_frame_us(run, counter):
    value = run.get("per_frame", {}).get(counter)
    return None if value is None else value / 1e3


def cell(value, fmt="{:.0f}"):
    return "" if value is None else fmt.format(value)


def main(path):
    groups = OrderedDict()
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        run = json.loads(line)
        key = (run.get("label") or run["chain"], run["processes"])
        groups.setdefault(key, []).append(run)
    decode = {procs: mean([r["fps"] for r in runs if not r["error"]])
              for (label, procs), runs in groups.items() if label == "decode"}
    print("| variant | processes | setting | fps, each run | mean | of decode alone | "
          "GL contexts | GL thread µs / frame | source | pass | read-back | GL-thread waits | "
          "streaming-thread waits | hand-overs / frame | CPU µs / frame |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (label, procs), runs in groups.items():
        good = [r for r in runs if not r["error"]]
        fps = mean([r["fps"] for r in good])
        base = decode.get(procs)
        share = f"{100 * fps / base:.0f} %" if fps and base else ""
        each = " / ".join(f"{r['fps']:.0f}" if not r["error"] else "failed" for r in runs)
        setting = runs[0].get("setting", "")
        if runs[0].get("shader", "auto") != "auto":
            setting = (setting + " gl-shader=" + runs[0]["shader"]).strip()
        if runs[0].get("display") == "app":
            setting = (setting + " display=app").strip()
        if runs[0].get("depth", 1) != 1 and runs[0]["chain"] == "efconvert-gl":
            setting = (setting + f" readback-depth={runs[0]['depth']}").strip()
        us = {c: mean([per_frame_us(r, c) for r in good])
              for c in ("gl-thread-ns", "gl-source-ns", "gl-pass-ns", "gl-readback-ns",
                        "gl-wait-ns", "gpu-wait-ns")}
        handovers = mean([r.get("per_frame", {}).get("gl-handovers") for r in good])
        contexts = "/".join(str(r["gl_contexts"]) for r in good)
        print(f"| {label} | {procs} | {setting} | {each} | {cell(fps)} | {share} | {contexts} | "
              f"{cell(us['gl-thread-ns'])} | {cell(us['gl-source-ns'])} | "
              f"{cell(us['gl-pass-ns'])} | {cell(us['gl-readback-ns'])} | "
              f"{cell(us['gl-wait-ns'])} | {cell(us['gpu-wait-ns'])} | "
              f"{cell(handovers, '{:.2f}')} | {cell(mean([r['cpu_us_per_frame'] for r in good]))} |")
    errors = [(r.get("label"), r["error"]) for runs in groups.values() for r in runs if r["error"]]
    for label, error in errors:
        print(f"\n{label}: {error}")


if __name__ == "__main__":
    main(sys.argv[1])
