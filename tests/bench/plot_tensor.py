#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_convert's tensor cases (BM_Tensor) from its Google Benchmark JSON.

Usage: plot_tensor.py RESULTS.json OUT.png

One panel per tensor (float32 NCHW normalised, int8 NHWC quantised; 1080p
NV12 to 640x640 letterboxed), one row per pipeline, each the median over the
repetitions: net wall-clock time per frame (the bar) and net process CPU
time per frame (the thin hatched bar under it), log scale. Green meets its
target, red misses it, grey has none (docs/BENCHMARKS.md, "efconvert
tensors"): efconvert's float32 tensor at most 1.5x its own RGB output and at
most 1/20 of videoconvert ! videoscale and the normalisation loop. The raw
rows are the memory's limits in the same run: the tensor's bytes streamed
into efconvert's own pool memory on its default thread count (and with
the NV12 frame read once), no pipeline; efconvert's RGB output plus the
raw write is what the tensor would cost if its write were all it added.

Also prints the medians as the Markdown table docs/BENCHMARKS.md shows, the
ratios the targets are about, and the heap allocations per frame in
efconvert's chain.
"""

import json
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display on build machines
import matplotlib.pyplot as plt  # noqa: E402

from plot_core import _COLORS as COLORS, format_ns  # noqa: E402

KINDS = {"float32-nchw": "float32 NCHW, ImageNet mean/std",
         "int8-nhwc": "int8 NHWC, quantised"}
CASES = [("efconvert-cpu-tensor", "efconvert cpu: tensor"),
         ("efconvert-cpu-rgb", "efconvert cpu: RGB"),
         ("efconvert-cpu-rgb-loop", "efconvert cpu: RGB + C loop"),
         ("videoconvert-videoscale-loop", "videoconvert ! videoscale + C loop"),
         ("raw-write", "raw limit: tensor written"),
         ("raw-write-cached", "raw limit: tensor stored through the cache"),
         ("raw-read-write", "raw limit: NV12 read + tensor written")]


def load(path):
    """{(kind, case): {counter: [values]}} of the BM_Tensor iterations."""
    runs = defaultdict(lambda: defaultdict(list))
    with open(path) as f:
        for b in json.load(f)["benchmarks"]:
            name = b["name"]
            if not name.startswith("BM_Tensor/") or b.get("run_type") == "aggregate":
                continue
            if b.get("error_occurred"):
                continue
            _, kind, case = name.split("/")[:3]
            for key in ("wall_us", "cpu_us", "allocs_per_frame"):
                if key in b:
                    runs[(kind, case)][key].append(b[key])
    return runs


def median(runs, kind, case, key):
    values = runs.get((kind, case), {}).get(key)
    return statistics.median(values) if values else None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs = load(sys.argv[1])
    print("| pipeline | " + " | ".join(f"{KINDS[k]}: wall / frame | CPU / frame" for k in KINDS)
          + " |")
    print("|---|" + "---:|---:|" * len(KINDS))
    for case, label in CASES:
        cells = []
        for kind in KINDS:
            wall = median(runs, kind, case, "wall_us")
            cpu = median(runs, kind, case, "cpu_us")
            cells += [format_ns(wall * 1e3) if wall else "n/a",
                      format_ns(cpu * 1e3) if cpu else "n/a"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    for kind in KINDS:
        tensor, rgb, chain, raw = (median(runs, kind, case, "wall_us") for case in (
            "efconvert-cpu-tensor", "efconvert-cpu-rgb", "videoconvert-videoscale-loop",
            "raw-write"))
        tensor_cpu, rgb_cpu, raw_cpu = (median(runs, kind, case, "cpu_us") for case in (
            "efconvert-cpu-tensor", "efconvert-cpu-rgb", "raw-write"))
        allocs = median(runs, kind, "efconvert-cpu-tensor", "allocs_per_frame")
        if tensor and rgb and chain:
            print(f"{kind}: tensor / RGB {tensor / rgb:.2f}x wall, "
                  f"{tensor_cpu / rgb_cpu:.2f}x CPU; videoconvert chain + loop / tensor "
                  f"{chain / tensor:.1f}x; allocations per frame {allocs}")
        if tensor and rgb and raw:
            print(f"{kind}: tensor {tensor:.0f} us wall against RGB + raw write "
                  f"{rgb + raw:.0f} us ({tensor / (rgb + raw):.2f}x); CPU {tensor_cpu:.0f} us "
                  f"against {rgb_cpu + raw_cpu:.0f} us ({tensor_cpu / (rgb_cpu + raw_cpu):.2f}x)")

    fig, axes = plt.subplots(1, len(KINDS), figsize=(12, 4.4), sharey=True)
    for ax, kind in zip(axes, KINDS):
        labels, walls, cpus, colours = [], [], [], []
        rgb = median(runs, kind, "efconvert-cpu-rgb", "wall_us")
        chain = median(runs, kind, "videoconvert-videoscale-loop", "wall_us")
        for case, label in CASES:
            wall = median(runs, kind, case, "wall_us")
            if wall is None:
                continue
            labels.append(label)
            walls.append(wall)
            cpus.append(median(runs, kind, case, "cpu_us") or 0)
            met = None
            if case == "efconvert-cpu-tensor" and kind == "float32-nchw" and rgb and chain:
                met = wall <= 1.5 * rgb and wall * 20 <= chain
            colours.append(COLORS["no target"] if met is None else
                           COLORS["meets target"] if met else COLORS["misses target"])
        y = range(len(labels))
        ax.barh(list(y), walls, color=colours, height=0.6)
        ax.barh([v + 0.38 for v in y], cpus, color="none", edgecolor="black", hatch="///",
                height=0.15)
        ax.set_xscale("log")
        ax.set_title(KINDS[kind])
        ax.set_xlabel("µs per frame (bar: wall, hatched: CPU)")
        ax.set_yticks(list(y))
        ax.set_yticklabels(labels)
        ax.invert_yaxis()
    fig.suptitle("1080p NV12 → 640x640 letterboxed model input, 2 vCPUs")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
