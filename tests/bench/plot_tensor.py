#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_convert's tensor cases (BM_Tensor) from its Google Benchmark JSON.

Usage: plot_tensor.py RESULTS.json OUT.png

One panel per tensor (float32 NCHW normalised, int8 NHWC quantised; 1080p
NV12 to 640x640 letterboxed), one row per pipeline, each the median over the
repetitions: net wall-clock time per frame (the bar) and net process CPU
time per frame (the thin hatched bar above it), log scale, each with its
value. Colours say what a row is (efconvert's tensor, its RGB output, a
chain with a normalisation loop, a raw limit); the float32 tensor's label
says its targets (docs/BENCHMARKS.md, "efconvert tensors") and whether they
were met: at most 1.5x its own RGB output and at most 1/20 of videoconvert !
videoscale and the normalisation loop. The raw rows are the memory's limits
in the same run: the tensor's bytes streamed into efconvert's own pool
memory on its default thread count (and with the NV12 frame read once), no
pipeline; efconvert's RGB output plus the raw write is what the tensor would
cost if its write were all it added. The title names the machine
(plot_core.machine_of).

RESULTS.json is a run's --benchmark_out or a recorded one
(docs/bench/data/tensor.json: the figures docs/BENCHMARKS.md tabulates for
docs/bench/tensor.png).

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

from matplotlib.patches import Patch  # noqa: E402

from plot_core import KIND_COLORS, format_ns, machine_of, when_of  # noqa: E402

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
    """{(kind, case): {counter: [values]}} of the BM_Tensor iterations, and
    the run's context."""
    runs = defaultdict(lambda: defaultdict(list))
    with open(path) as f:
        results = json.load(f)
        for b in results["benchmarks"]:
            name = b["name"]
            if not name.startswith("BM_Tensor/") or b.get("run_type") == "aggregate":
                continue
            if b.get("error_occurred"):
                continue
            _, kind, case = name.split("/")[:3]
            for key in ("wall_us", "cpu_us", "allocs_per_frame"):
                if key in b:
                    runs[(kind, case)][key].append(b[key])
    return runs, results.get("context", {})


def median(runs, kind, case, key):
    values = runs.get((kind, case), {}).get(key)
    return statistics.median(values) if values else None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs, context = load(sys.argv[1])
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

    plot(runs, context, sys.argv[2])


def row_colour(case):
    if case == "efconvert-cpu-tensor":
        return KIND_COLORS["ef"]
    if case == "efconvert-cpu-rgb":
        return "#9ecae1"
    return KIND_COLORS["limit"] if case.startswith("raw") else KIND_COLORS["stock"]


def tensor_label(label, wall, rgb, chain):
    """The float32 tensor's row: its targets, met or missed, in words."""
    lines = [label]
    if rgb:
        lines.append(f"target ≤ 1.5x RGB (wall): {wall / rgb:.3f}x, "
                     f"{'met' if wall <= 1.5 * rgb else 'missed'}")
    if chain:
        lines.append(f"target ≥ 20x faster than videoconvert + loop (wall): {chain / wall:.1f}x, "
                     f"{'met' if wall * 20 <= chain else 'missed'}")
    return "\n".join(lines)


def plot(runs, context, png):
    fig, axes = plt.subplots(1, len(KINDS), figsize=(13, 5))
    drawn = set()
    for ax, kind in zip(axes, KINDS):
        labels, walls, cpus, colours = [], [], [], []
        rgb = median(runs, kind, "efconvert-cpu-rgb", "wall_us")
        chain = median(runs, kind, "videoconvert-videoscale-loop", "wall_us")
        for case, label in CASES:
            wall = median(runs, kind, case, "wall_us")
            if wall is None:
                continue
            if case == "efconvert-cpu-tensor" and kind == "float32-nchw":
                label = tensor_label(label, wall, rgb, chain)
            labels.append(label)
            walls.append(wall)
            cpus.append(median(runs, kind, case, "cpu_us") or 0)
            colours.append(row_colour(case))
            drawn.add(row_colour(case))
        y = list(range(len(labels)))
        ax.barh(y, walls, color=colours, height=0.55)
        ax.barh([v - 0.38 for v in y], cpus, color="none", edgecolor="#555555", hatch="///",
                height=0.18)
        for v, wall, cpu in zip(y, walls, cpus):
            ax.annotate(f"{format_ns(wall * 1e3)} wall", (wall, v), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=8)
            if cpu:
                ax.annotate(f"{format_ns(cpu * 1e3)} CPU", (cpu, v - 0.38), xytext=(4, 0),
                            textcoords="offset points", va="center", fontsize=7,
                            color="#555555")
        ax.set_xscale("log")
        ax.set_xlim(min(walls + [c for c in cpus if c]) / 2, max(walls + cpus) * 9)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: format_ns(v * 1e3)))
        ax.set_title(KINDS[kind], fontsize=10)
        ax.set_xlabel("time per frame (log scale; median over repetitions)")
        ax.set_yticks(y, labels, fontsize=8)
        ax.invert_yaxis()
        ax.grid(axis="x", alpha=0.3)
    handles = [Patch(color=KIND_COLORS["ef"], label="efconvert cpu's tensor, wall clock"),
               Patch(color="#9ecae1", label="efconvert cpu's RGB output, wall clock"),
               Patch(color=KIND_COLORS["stock"], label="RGB, then a C normalisation loop"),
               Patch(color=KIND_COLORS["limit"], label="raw limit: the bytes alone"),
               Patch(facecolor="none", edgecolor="#555555", hatch="///",
                     label="process CPU time")]
    handles = [h for h in handles if h.get_hatch() or matplotlib.colors.to_hex(
        h.get_facecolor()) in drawn]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=7.5)
    fig.suptitle(f"1080p NV12 → 640×640 letterboxed model input, on {machine_of(context)}\n"
                 f"({when_of(context)})", fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(png, dpi=130)
    print(f"wrote {png}")


if __name__ == "__main__":
    main()
