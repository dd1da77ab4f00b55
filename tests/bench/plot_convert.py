#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_convert's Google Benchmark JSON: efconvert against the stock chains.

Usage: plot_convert.py RESULTS.json OUT.png

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


def targets_us(medians):
    """{case: [(target µs, tick label)]} from the other cases' medians, where they ran."""
    found = defaultdict(list)
    for case, against, factor, text in TARGETS:
        if against in medians:
            found[case].append((medians[against]["wall_us"] * factor, text))
    return found


def load(path):
    """{format: {case: {figure: [value per repetition]}}}, {format: {case: error}}, context."""
    samples = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    errors = defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        results = json.load(f)
    for bench in results["benchmarks"]:
        if bench.get("run_type", "iteration") != "iteration":
            continue
        _, fmt, case = bench["run_name"].split("/")[:3]
        if bench.get("error_occurred"):
            errors[fmt][case] = bench.get("error_message", "failed")
            continue
        for key, value in bench.items():
            if isinstance(value, (int, float)) and (key.endswith(("_us", "_per_frame"))
                                                    or key == "libyuv_max_diff"):
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


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    samples, errors, _ = load(sys.argv[1])
    medians = medians_of(samples)
    plot(medians, errors, sys.argv[2])
    print_table(samples, medians, errors)
    print_differences(samples)


if __name__ == "__main__":
    main()
