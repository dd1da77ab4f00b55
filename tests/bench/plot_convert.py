#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_convert's Google Benchmark JSON: efconvert against the stock chains.

Usage: plot_convert.py RESULTS.json OUT.png  (also writes OUT_threads.png)

One panel per output format (RGB and RGBP, 640x640 from 1080p NV12), one row
per pipeline, each the median over the repetitions: the net wall-clock time
per frame (the bar) and the net process CPU time per frame (the thin hatched
bar under it), log scale, each with its value. Colours say what a row is
(efconvert, a stock chain, the libyuv loop); dashed ticks mark the targets
of docs/BENCHMARKS.md ("efconvert"), and each row's label says its targets
and whether they were met: efconvert cpu at most 1/20 of videoconvert !
videoscale and at most 1.3x the libyuv loop, efconvert gl at most 1/5 of the
GstGL chain. The title names the machine (plot_core.machine_of: a recorded
result's words, EF_BENCH_MACHINE, or the benchmark's context). A case that
did not run says why ("n/a (not built)" for a backend missing from the
build).

RESULTS.json is a run's --benchmark_out, or a recorded one:
docs/bench/data/convert.json (the figures docs/BENCHMARKS.md tabulates for
docs/bench/convert.png) and convert_threads-h200.json (convert_threads.png).

Also prints the medians as the Markdown table docs/BENCHMARKS.md shows, the
ratios the targets are about, and how far efconvert cpu's output is from the
libyuv loop's for the same frame (0: byte for byte the same work).

OUT_threads.png and the second table: efconvert cpu at n-threads 1, 2, 4, 8
and 16, 1080p (wall-clock time per frame against the 100 µs target) and 4K
NV12 → 1280×1280 (bytes read and written per second against a memcpy of the
same bytes on as many threads, BM_Memcpy4k, measured in the same run).
"""

import json
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display on build machines
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from matplotlib.lines import Line2D  # noqa: E402

from plot_core import KIND_COLORS, format_ns, machine_of, when_of  # noqa: E402

FORMATS = {"RGB": "RGB, letterboxed", "RGBP": "RGBP (planar), letterboxed"}
CASES = {  # benchmark name -> label, top-down
    "efconvert-cpu": "efconvert cpu",
    "efconvert-cpu-1cpu": "efconvert cpu, pinned to 1 CPU",
    "efconvert-gl": "efconvert gl (llvmpipe)",
    "videoconvert-videoscale": "videoconvert ! videoscale",
    "gl-chain": "GstGL chain (llvmpipe, stretches)",
    "libyuv": "libyuv loop, 1 thread (the limit)",
}
# The targets of docs/BENCHMARKS.md: CASE's wall-clock time per frame at most
# FACTOR times AGAINST's.  (case, against, factor, tick label)
TARGETS = [
    ("efconvert-cpu", "videoconvert-videoscale", 1 / 20, "videoconvert / 20"),
    ("efconvert-cpu", "libyuv", 1.3, "libyuv × 1.3"),
    ("efconvert-gl", "gl-chain", 1 / 5, "GstGL / 5"),
]
CPU_COLOR = "#b0b0b0"
THREADS = [1, 2, 4, 8, 16]
# 1080p → 640×640 with every core: docs/BENCHMARKS.md ("Threads").
THREADS_TARGET_US = 100
# The benchmark families of the thread sweep at 4K.
FAMILIES_4K = ("BM_Convert4k", "BM_Memcpy4k")


def targets_us(medians):
    """{case: [(target µs, tick label)]} from the other cases' medians, where they ran."""
    found = defaultdict(list)
    for case, against, factor, text in TARGETS:
        if against in medians:
            found[case].append((medians[against]["wall_us"] * factor, text))
    return found


def load(path, family="BM_Convert"):
    """{format: {case: {figure: [value per repetition]}}}, {format: {case: error}}, context,
    of one benchmark family (families FAMILIES_4K are read as one, their cases distinct)."""
    samples = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    errors = defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        results = json.load(f)
    families = FAMILIES_4K if family in FAMILIES_4K else (family,)
    for bench in results["benchmarks"]:
        if bench.get("run_type", "iteration") != "iteration":
            continue
        name, fmt, case = bench["run_name"].split("/")[:3]
        if name not in families:
            continue
        if bench.get("error_occurred"):
            errors[fmt][case] = bench.get("error_message", "failed")
            continue
        for key, value in bench.items():
            if isinstance(value, (int, float)) and (key.endswith(("_us", "_per_frame"))
                                                    or key in ("libyuv_max_diff", "gb_per_s")):
                samples[fmt][case][key].append(value)
    return samples, errors, results["context"]


def medians_of(samples):
    return {fmt: {case: {k: statistics.median(v) for k, v in figures.items()}
                  for case, figures in cases.items()}
            for fmt, cases in samples.items()}


def short_error(message):
    return "n/a (not built)" if message.startswith("n/a (not built)") else "failed"


def kind_of(case):
    return "limit" if case == "libyuv" else "ef" if case.startswith("efconvert") else "stock"


def row_label(case, wall, targets):
    """The row's name and, under it, each of its targets with met or missed:
    the verdict is words, not a colour that reads as a failed test."""
    lines = [CASES[case]]
    for target, text in targets:
        lines.append(f"target ≤ {text} = {format_ns(target * 1e3)}: "
                     f"{'met' if wall <= target else 'missed'}")
    return "\n".join(lines)


def panel(ax, fmt, medians, errors):
    rows = list(reversed(CASES))  # barh draws bottom-up
    targets = targets_us(medians)
    labels = []
    for y, case in enumerate(rows):
        if case not in medians:
            labels.append(CASES[case])
            ax.annotate(short_error(errors.get(case, "no result")), (0, y), xytext=(4, 0),
                        xycoords=("axes fraction", "data"), textcoords="offset points",
                        va="center", fontsize=8)
            continue
        wall, cpu = medians[case]["wall_us"], medians[case]["cpu_us"]
        labels.append(row_label(case, wall, targets.get(case, [])))
        ax.barh(y + 0.12, wall, height=0.45, color=KIND_COLORS[kind_of(case)])
        ax.barh(y - 0.25, cpu, height=0.2, color=CPU_COLOR, hatch="////", edgecolor="white",
                linewidth=0)
        # Values right of the row's target ticks, which must not cross them.
        ticks = [t for t, _ in targets.get(case, [])]
        ax.annotate(f"{format_ns(wall * 1e3)} wall", (max([wall] + ticks), y + 0.12),
                    xytext=(4, 0), textcoords="offset points", va="center", fontsize=8)
        ax.annotate(f"{format_ns(cpu * 1e3)} CPU", (max([cpu] + ticks), y - 0.25),
                    xytext=(4, 0), textcoords="offset points", va="center", fontsize=7,
                    color="#555555")
        # The targets: ticks across the row, named in its label (no text over the values).
        for target, _ in targets.get(case, []):
            ax.plot([target, target], [y - 0.42, y + 0.42], color="black", linestyle="--",
                    linewidth=1.2)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.set_xscale("log")
    values = [medians[c][k] for c in medians if c in CASES for k in ("wall_us", "cpu_us")]
    ax.set_xlim(min(values) / 2, max(values) * 6)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: format_ns(v * 1e3)))
    ax.grid(axis="x", which="major", alpha=0.3)
    ax.set_title(f"1080p NV12 → 640×640 {FORMATS[fmt]}", fontsize=10)


def plot(medians, errors, context, png):
    fig, axes = plt.subplots(len(FORMATS), 1, figsize=(11, 9.5), dpi=150)
    for ax, fmt in zip(axes, FORMATS):
        panel(ax, fmt, medians.get(fmt, {}), errors.get(fmt, {}))
    axes[-1].set_xlabel("time per frame, source subtracted (log scale; median over repetitions)")
    handles = [Patch(color=KIND_COLORS["ef"], label="efconvert, wall clock"),
               Patch(color=KIND_COLORS["stock"], label="stock GStreamer chain, wall clock"),
               Patch(color=KIND_COLORS["limit"], label="libyuv loop (the limit), wall clock"),
               Patch(facecolor=CPU_COLOR, hatch="////", edgecolor="white",
                     label="process CPU time"),
               Line2D([], [], color="black", linestyle="--",
                      label="target (the row's label: met or missed)")]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=7.5)
    fig.suptitle("efconvert against videoconvert ! videoscale, the GstGL chain and a libyuv "
                 f"loop\non {machine_of(context)}\n(appsrc ring of 4 memfd frames ! CASE ! "
                 f"fakesink; no queue; {when_of(context)})", fontsize=9.5)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(png)
    print(f"wrote {png}")


def print_table(samples, medians, errors):
    print("| pipeline | " + " | ".join(f"{fmt}: wall / frame | (min–max) | CPU / frame"
                                         for fmt in FORMATS) + " |")
    print("|---|" + "---:|---:|---:|" * len(FORMATS))
    for case, label in CASES.items():
        cells = []
        for fmt in FORMATS:
            if case not in medians.get(fmt, {}):
                cells += [short_error(errors.get(fmt, {}).get(case, "no result")), "", ""]
                continue
            wall = samples[fmt][case]["wall_us"]
            m = medians[fmt][case]
            cells += [f"{m['wall_us'] / 1e3:.3f} ms", f"{min(wall) / 1e3:.3f}–"
                      f"{max(wall) / 1e3:.3f}", f"{m['cpu_us'] / 1e3:.3f} ms"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    for fmt in FORMATS:
        m = medians.get(fmt, {})
        for case, against, factor, text in TARGETS:
            if case not in m or against not in m:
                continue
            ratios = {key: m[case][key] / m[against][key] for key in ("wall_us", "cpu_us")}
            met = "met" if ratios["wall_us"] <= factor else "missed"
            print(f"{fmt}: {case} / {against}: wall {ratios['wall_us']:.3g} "
                  f"(1/{1 / ratios['wall_us']:.3g}), CPU {ratios['cpu_us']:.3g} "
                  f"(1/{1 / ratios['cpu_us']:.3g}); target ≤ {text}: {met}")
    for fmt in FORMATS:
        for case in CASES:
            stats = {k[:-10]: v for k, v in medians.get(fmt, {}).get(case, {}).items()
                     if k.endswith("_per_frame") and v}
            if stats:
                print(f"{fmt} {case}: " + ", ".join(f"{k} {v:.3g}" for k, v in stats.items())
                      + " per frame")


def print_differences(samples):
    for fmt in FORMATS:
        for case in CASES:
            diffs = samples.get(fmt, {}).get(case, {}).get("libyuv_max_diff")
            if diffs:
                print(f"{fmt} {case}: largest byte difference from the libyuv loop's output "
                      f"{max(diffs):g} (over {len(diffs)} repetitions)")


def threads_png(png):
    stem, dot, ext = png.rpartition(".")
    return f"{stem}_threads.{ext}" if dot else f"{png}_threads"


def label_points(ax, xs, ys, text, colour, below=False):
    for x, y in zip(xs, ys):
        ax.annotate(text(y), (x, y), xytext=(0, -11 if below else 5), textcoords="offset points",
                    ha="center", fontsize=6.5, color=colour)


def plot_threads(medians, medians_4k, context, png):
    """1080p time per frame, and 4K GB/s against memcpy's, by n-threads."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5), dpi=150)
    for fmt, marker, colour in zip(FORMATS, ("o", "s"), ("#1f77b4", "#ff7f0e")):
        m = medians.get(fmt, {})  # 1080p: a line a format, each point with its value
        xs = [t for t in THREADS if f"efconvert-cpu-t{t}" in m]
        ys = [m[f"efconvert-cpu-t{t}"]["wall_us"] for t in xs]
        left.plot(xs, ys, marker=marker, color=colour, label=f"efconvert cpu → {fmt}, wall clock")
        label_points(left, xs, ys, lambda v: f"{v:.0f} µs", colour, below=fmt == "RGB")
    # 4K: bars in groups of four a thread count, each with its value.
    width = 0.2
    bars = [(fmt, case) for fmt in FORMATS for case in ("efconvert-cpu", "memcpy")]
    for i, (fmt, case) in enumerate(bars):
        m4 = medians_4k.get(fmt, {})
        colour = {"RGB": "#1f77b4", "RGBP": "#ff7f0e"}[fmt]
        xs = [n for n, t in enumerate(THREADS) if f"{case}-t{t}" in m4]
        ys = [m4[f"{case}-t{THREADS[n]}"]["gb_per_s"] for n in xs]
        what = "efconvert cpu" if case == "efconvert-cpu" else "memcpy of the same bytes"
        drawn = right.bar([n + (i - 1.5) * width for n in xs], ys, width, color=colour,
                          alpha=1.0 if case == "efconvert-cpu" else 0.35,
                          hatch="" if case == "efconvert-cpu" else "..",
                          label=f"{fmt}: {what}")
        right.bar_label(drawn, fmt="%.0f", fontsize=6.5, padding=1)
    left.axhline(THREADS_TARGET_US, color="black", linestyle="--", linewidth=1,
                 label=f"target: ≤ {THREADS_TARGET_US} µs with every core")
    left.set_yscale("log")
    left.set_ylabel("wall-clock time per frame, source subtracted (log scale)")
    fmt_us = matplotlib.ticker.FuncFormatter(lambda v, _: format_ns(v * 1e3))
    left.yaxis.set_major_formatter(fmt_us)
    left.yaxis.set_minor_formatter(fmt_us)
    left.tick_params(axis="y", which="minor", labelsize=7)
    left.set_title("1080p NV12 → 640×640 letterboxed: time per frame", fontsize=10)
    right.set_ylabel("GB/s read + written")
    right.set_title("4K NV12 → 1280×1280 letterboxed: GB/s against memcpy's", fontsize=10)
    right.set_xticks(range(len(THREADS)), [str(t) for t in THREADS])
    left.set_xscale("log", base=2)
    left.set_xticks(THREADS, [str(t) for t in THREADS])
    for ax in (left, right):
        ax.set_xlabel("efconvert n-threads (memcpy: threads)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left" if ax is right else "upper right")
    fig.suptitle(f"efconvert cpu across threads on {machine_of(context)}\n"
                 f"(medians over repetitions; {when_of(context)})", fontsize=9.5)
    fig.tight_layout()
    fig.savefig(png)
    print(f"wrote {png}")


def print_threads_table(medians, medians_4k):
    """The Markdown table of docs/BENCHMARKS.md ("Threads")."""
    print("| n-threads | RGB: wall / frame | CPU / frame | speed-up | RGBP: wall / frame "
          "| CPU / frame | speed-up | 4K RGB: GB/s | memcpy GB/s | 4K RGBP: GB/s | memcpy GB/s |")
    print("|---:|" + "---:|" * 10)
    for t in THREADS:
        cells = []
        for fmt in FORMATS:
            m = medians.get(fmt, {})
            case, one = m.get(f"efconvert-cpu-t{t}"), m.get("efconvert-cpu-t1")
            if not case:
                cells += ["n/a", "", ""]
                continue
            cells += [f"{case['wall_us']:.0f} µs", f"{case['cpu_us']:.0f} µs",
                      f"{one['wall_us'] / case['wall_us']:.2f}x" if one else ""]
        for fmt in FORMATS:
            m4 = medians_4k.get(fmt, {})
            for case in ("efconvert-cpu", "memcpy"):
                figure = m4.get(f"{case}-t{t}", {}).get("gb_per_s")
                cells.append(f"{figure:.1f}" if figure else "n/a")
        print(f"| {t} | " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    samples, errors, context = load(sys.argv[1])
    medians = medians_of(samples)
    # A run filtered to the thread sweep has none of the main figure's rows.
    if any(case in medians.get(fmt, {}) for fmt in FORMATS for case in CASES):
        plot(medians, errors, context, sys.argv[2])
    print_table(samples, medians, errors)
    print_differences(samples)
    medians_4k = medians_of(load(sys.argv[1], "BM_Convert4k")[0])
    if any(f"efconvert-cpu-t{t}" in medians.get(fmt, {}) for fmt in FORMATS for t in THREADS):
        plot_threads(medians, medians_4k, context, threads_png(sys.argv[2]))
        print()
        print_threads_table(medians, medians_4k)


if __name__ == "__main__":
    main()
