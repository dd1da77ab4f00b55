#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_upload's Google Benchmark JSON: efupload against glupload.

Usage: plot_upload.py RESULTS.json OUT.png

Three panels, one bar per element and memory case, each the median over the
repetitions: imports per frame, the upload's CPU time per frame (log scale,
with the identity baseline) and bytes copied per frame. Colours follow
plot_core.py: green meets its target, red misses it, grey has none. The
targets are those of docs/BENCHMARKS.md: no import per frame for efupload in
either case, and with re-wrapped memory efupload's CPU time at most a fifth
of glupload's (the dashed tick).

Also prints the medians as the Markdown table docs/BENCHMARKS.md shows.
"""

import json
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display on build machines
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from plot_core import _COLORS as COLORS, format_ns  # noqa: E402

CASES = [  # (element, memory), top-down
    ("efupload", "stable"),
    ("efupload", "rewrap"),
    ("glupload", "stable"),
    ("glupload", "rewrap"),
]
BASELINES = [("identity", "stable"), ("identity", "rewrap")]
MEMORY = {"stable": "stable memory", "rewrap": "re-wrapped memory"}
CPU_SPEEDUP_TARGET = 5  # re-wrapped: efupload at most a fifth of glupload


def load_samples(path):
    """{(element, memory): {figure: [value per repetition]}}, and the run's thread placement."""
    samples = defaultdict(lambda: defaultdict(list))
    with open(path, encoding="utf-8") as f:
        results = json.load(f)
    placement = results["context"].get("placement", "")
    for bench in results["benchmarks"]:
        if bench.get("run_type", "iteration") != "iteration":
            continue
        if bench.get("error_occurred"):
            print(f"{path}: {bench['name']} failed: {bench.get('error_message')}",
                  file=sys.stderr)
            continue
        _, element, memory = bench["run_name"].split("/")[:3]
        figures = samples[(element, memory)]
        figures["upload_us"].append(bench["real_time"])  # manual time, in µs
        for key, value in bench.items():
            if isinstance(value, (int, float)) and key.endswith(("_us", "_per_frame")):
                figures[key].append(value)
    return samples, placement


def medians_of(samples):
    """{(element, memory): {figure: median over repetitions}}."""
    return {case: {k: statistics.median(v) for k, v in figures.items()}
            for case, figures in samples.items()}


def label(case):
    element, memory = case
    return f"{element}, {MEMORY[memory]}"


def verdict(value, target):
    if target is None:
        return "no target"
    return "meets target" if value <= target else "misses target"


def bars(ax, rows, fmt):
    """rows: [(label, value, target or None)], drawn top-down."""
    rows = list(reversed(rows))
    ys = range(len(rows))
    verdicts = [verdict(value, target) for _, value, target in rows]
    ax.barh(ys, [value for _, value, _ in rows], color=[COLORS[v] for v in verdicts],
            height=0.6)
    ax.set_yticks(list(ys), [text for text, _, _ in rows])
    for y, (_, value, target), v in zip(ys, rows, verdicts):
        if value == 0:  # a bar of zero has no width: a marker shows its colour
            ax.plot([0], [y], marker="s", markersize=5, color=COLORS[v], clip_on=False)
        ax.annotate(fmt(value), (value, y), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=8)
        if target is not None:
            ax.plot([target, target], [y - 0.4, y + 0.4], color="black", linestyle="--",
                    linewidth=1)
            ax.annotate(f"target ≤ {fmt(target)}", (target, y + 0.4), xytext=(3, 0),
                        textcoords="offset points", va="top", fontsize=7)
    ax.grid(axis="x", which="major", alpha=0.3)
    return verdicts


def plot(medians, placement, png):
    missing = [c for c in CASES + BASELINES if c not in medians]
    if missing:
        sys.exit(f"no results for {', '.join(map(label, missing))}")
    glupload_rewrap_us = medians[("glupload", "rewrap")]["upload_us"]

    fig, (imports, cpu, copied) = plt.subplots(
        3, 1, figsize=(10, 8.5), dpi=150, gridspec_kw={"height_ratios": [4, 6, 4]})
    verdicts = []

    verdicts += bars(imports, [
        (label(c), medians[c]["imports_per_frame"], 0 if c[0] == "efupload" else None)
        for c in CASES], lambda v: f"{v:.3g}")
    imports.set_xlim(0, 1.3)
    imports.set_title("imports per frame (efupload: its counter; glupload: frames showing "
                      "a new EGLImage)", fontsize=9)

    cpu_rows = []
    for c in CASES + BASELINES:
        target = None
        if c == ("efupload", "rewrap"):
            target = glupload_rewrap_us / CPU_SPEEDUP_TARGET
        cpu_rows.append((label(c) if c[0] != "identity" else f"identity (no upload), "
                         f"{MEMORY[c[1]]}", medians[c]["upload_us"], target))
    verdicts += bars(cpu, cpu_rows, lambda us: format_ns(us * 1e3))
    cpu.set_xscale("log")
    cpu.set_xlim(right=max(v for _, v, _ in cpu_rows) * 8)
    cpu.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: format_ns(v * 1e3)))
    cpu.set_title("upload CPU time per frame: element chain + release of its output + its GL "
                  "thread (log scale)", fontsize=9)

    verdicts += bars(copied, [(label(c), medians[c]["bytes_copied_per_frame"], None)
                              for c in CASES], lambda v: f"{v:,.0f} B")
    copied.set_xlim(0, max(3.2e6, *(medians[c]["bytes_copied_per_frame"] for c in CASES)) * 1.2)
    copied.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{v / 1e6:g} MB"))
    copied.set_title("bytes copied per frame (a 1080p NV12 frame is 3,110,400 B)", fontsize=9)

    cpu.legend(handles=[Patch(color=COLORS[v], label=v) for v in COLORS if v in verdicts],
               loc="lower right", fontsize=8)
    fig.suptitle("efupload against glupload: appsrc ring of 4 memfds, 1080p NV12, "
                 f"300 measured frames\n({placement or 'thread placement unknown'})",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(png)
    print(f"wrote {png}")


def print_table(samples, medians):
    columns = [("imports_per_frame", "imports / frame", "{:.3g}"),
               ("upload_us", "upload CPU / frame", "{:.1f} µs"),
               ("upload_range", "(min–max)", "{}"),
               ("chain_us", "chain", "{:.1f} µs"),
               ("release_us", "release", "{:.1f} µs"),
               ("gl_thread_us", "GL thread", "{:.1f} µs"),
               ("process_us", "process CPU / frame", "{:.1f} µs"),
               ("bytes_copied_per_frame", "bytes copied / frame", "{:,.0f}")]
    print("| element, memory | " + " | ".join(title for _, title, _ in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for case in CASES + BASELINES:
        cpu = samples[case]["upload_us"]
        figures = dict(medians[case], upload_range=f"{min(cpu):.1f}–{max(cpu):.1f}")
        cells = [fmt.format(figures[key]) for key, _, fmt in columns]
        print(f"| {label(case)} | " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    samples, placement = load_samples(sys.argv[1])
    medians = medians_of(samples)
    plot(medians, placement, sys.argv[2])
    print_table(samples, medians)


if __name__ == "__main__":
    main()
