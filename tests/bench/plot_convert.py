#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_convert's Google Benchmark JSON: efconvert against the stock chains.

Usage: plot_convert.py RESULTS.json OUT.png  (also writes OUT_threads.png)

One panel per output format (RGB and RGBP, 640x640 from 1080p NV12), one row
per pipeline, each the median over the repetitions: the net wall-clock time
per frame (the bar) and the net process CPU time per frame (the thin hatched
bar under it), log scale. Colours follow plot_core.py: green meets its
target, red misses it, grey has none; dashed ticks mark the targets of
docs/BENCHMARKS.md ("efconvert"): efconvert cpu at most 1/20 of
videoconvert ! videoscale and at most 1.3x the libyuv loop, efconvert gl at
most 1/5 of the GstGL chain. A case that did not run says why
("n/a (not built)" for a backend missing from the build).

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

from plot_core import _COLORS as COLORS, format_ns  # noqa: E402

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


def verdict(wall, targets):
    if not targets:
        return "no target"
    return "meets target" if all(wall <= t for t, _ in targets) else "misses target"


def panel(ax, fmt, medians, errors):
    rows = list(reversed(CASES))  # barh draws bottom-up
    targets = targets_us(medians)
    verdicts = []
    for y, case in enumerate(rows):
        if case not in medians:
            ax.annotate(short_error(errors.get(case, "no result")), (0, y), xytext=(4, 0),
                        xycoords=("axes fraction", "data"), textcoords="offset points",
                        va="center", fontsize=8, color=COLORS["misses target"])
            continue
        wall, cpu = medians[case]["wall_us"], medians[case]["cpu_us"]
        v = verdict(wall, targets.get(case))
        verdicts.append(v)
        ax.barh(y + 0.12, wall, height=0.45, color=COLORS[v])
        ax.barh(y - 0.25, cpu, height=0.2, color=CPU_COLOR, hatch="////", edgecolor="white",
                linewidth=0)
        ax.annotate(f"{format_ns(wall * 1e3)} wall", (wall, y + 0.12), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=8)
        ax.annotate(f"{format_ns(cpu * 1e3)} CPU", (cpu, y - 0.25), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=7, color="#555555")
        # Two targets of one row can lie close together: one label above, one below.
        for i, (target, text) in enumerate(targets.get(case, [])):
            ax.plot([target, target], [y - 0.4, y + 0.45], color="black", linestyle="--",
                    linewidth=1)
            above = i % 2 == 0
            ax.annotate(f"≤ {text}", (target, y + 0.45 if above else y - 0.4), xytext=(2, 0),
                        textcoords="offset points", va="bottom" if above else "top",
                        fontsize=6.5)
    ax.set_yticks(range(len(rows)), [CASES[c] for c in rows])
    ax.set_xscale("log")
    values = [medians[c][k] for c in medians if c in CASES for k in ("wall_us", "cpu_us")]
    ax.set_xlim(min(values) / 2, max(values) * 6)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: format_ns(v * 1e3)))
    ax.grid(axis="x", which="major", alpha=0.3)
    ax.set_title(f"1080p NV12 → 640×640 {FORMATS[fmt]}", fontsize=10)
    return verdicts


def plot(medians, errors, png):
    fig, axes = plt.subplots(len(FORMATS), 1, figsize=(10, 8.5), dpi=150)
    verdicts = []
    for ax, fmt in zip(axes, FORMATS):
        verdicts += panel(ax, fmt, medians.get(fmt, {}), errors.get(fmt, {}))
    axes[-1].set_xlabel("time per frame, source subtracted (log scale; median over repetitions)")
    handles = [Patch(color=COLORS[v], label=f"wall clock, {v}") for v in COLORS if v in verdicts]
    handles.append(Patch(facecolor=CPU_COLOR, hatch="////", edgecolor="white",
                         label="process CPU time"))
    axes[0].legend(handles=handles, loc="lower right", fontsize=7)
    fig.suptitle("efconvert against videoconvert ! videoscale, the GstGL chain and a libyuv "
                 "loop\n(appsrc ring of 4 memfd frames ! CASE ! fakesink; no queue)",
                 fontsize=11)
    fig.tight_layout()
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


def plot_threads(medians, medians_4k, png):
    """1080p time per frame, and 4K GB/s against memcpy's, by n-threads."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), dpi=150)
    for fmt, marker in zip(FORMATS, ("o", "s")):
        m = medians.get(fmt, {})
        xs = [t for t in THREADS if f"efconvert-cpu-t{t}" in m]
        left.plot(xs, [m[f"efconvert-cpu-t{t}"]["wall_us"] for t in xs], marker=marker,
                  label=f"{fmt} wall clock")
        m4 = medians_4k.get(fmt, {})
        for case, style in (("efconvert-cpu", "-"), ("memcpy", ":")):
            xs = [t for t in THREADS if f"{case}-t{t}" in m4]
            right.plot(xs, [m4[f"{case}-t{t}"]["gb_per_s"] for t in xs], marker=marker,
                       linestyle=style, label=f"{fmt}: {case}")
    left.axhline(THREADS_TARGET_US, color="black", linestyle="--", linewidth=1)
    left.annotate(f"target ≤ {THREADS_TARGET_US} µs", (THREADS[0], THREADS_TARGET_US),
                  xytext=(2, 2), textcoords="offset points", fontsize=7)
    left.set_yscale("log")
    left.set_ylabel("wall-clock time per frame, source subtracted")
    left.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: format_ns(v * 1e3)))
    left.set_title("1080p NV12 → 640×640, letterboxed", fontsize=10)
    right.set_ylabel("GB/s read + written")
    right.set_title("4K NV12 → 1280×1280, letterboxed, against memcpy", fontsize=10)
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xticks(THREADS, [str(t) for t in THREADS])
        ax.set_xlabel("efconvert n-threads (memcpy: threads)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("efconvert cpu across threads (medians over repetitions)", fontsize=11)
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
    samples, errors, _ = load(sys.argv[1])
    medians = medians_of(samples)
    # A run filtered to the thread sweep has none of the main figure's rows.
    if any(case in medians.get(fmt, {}) for fmt in FORMATS for case in CASES):
        plot(medians, errors, sys.argv[2])
    print_table(samples, medians, errors)
    print_differences(samples)
    medians_4k = medians_of(load(sys.argv[1], "BM_Convert4k")[0])
    if any(f"efconvert-cpu-t{t}" in medians.get(fmt, {}) for fmt in FORMATS for t in THREADS):
        plot_threads(medians, medians_4k, threads_png(sys.argv[2]))
        print()
        print_threads_table(medians, medians_4k)


if __name__ == "__main__":
    main()
