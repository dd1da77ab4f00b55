#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_vkbridge's Google Benchmark JSON: efvkbridge against vulkanupload.

Usage: plot_vkbridge.py RESULTS.json OUT.png

Three panels, each bar the median over the repetitions:
- CPU time per frame into Vulkan (log scale), per format and case: the
  process CPU time per frame less the identity baseline's (every thread:
  the element's, the application's, the element's release thread and the
  driver's), with the raw-import loop and the cache lookup as the limits;
- imports (cache misses) per frame from efvkbridge's own counters;
- gate arm -> producer wake, p50 and p99, through ef::SlotRing alone and
  through the element (log scale).
Colours follow plot_core.py: grey has no target, green meets it, red misses
it. The one target drawn: a cache hit makes 0 imports per frame.

Also prints the medians as the Markdown tables docs/BENCHMARKS.md shows.
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

FORMATS = ["RGBA", "NV12"]
CASES = [  # (case, label), top-down
    ("hit", "efvkbridge, cache hit (ring of 4)"),
    ("miss", "efvkbridge, miss (cache-capacity=0)"),
    ("fresh", "efvkbridge, miss (a new memfd a frame)"),
    ("vulkanupload", "vulkanupload (copy to VulkanImage)"),
]
RAW = [("dma-buf", "raw import by hand, dma-buf"),
       ("host-pointer", "raw import by hand, host pointer")]


def load(path):
    """{name: {figure: [value per repetition]}} and the JSON context."""
    samples = defaultdict(lambda: defaultdict(list))
    with open(path, encoding="utf-8") as f:
        results = json.load(f)
    for bench in results["benchmarks"]:
        if bench.get("run_type", "iteration") != "iteration":
            continue
        name = bench["run_name"].split("/iterations:")[0].split("/manual_time")[0]
        if bench.get("error_occurred"):
            print(f"{path}: {name} failed: {bench.get('error_message')}", file=sys.stderr)
            continue
        figures = samples[name]
        unit = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[bench.get("time_unit", "ns")]
        figures["time_us"].append(bench["real_time"] * unit)
        figures["cpu_time_us"].append(bench["cpu_time"] * unit)
        for key, value in bench.items():
            if isinstance(value, (int, float)) and key.endswith(("_us", "_per_frame")):
                figures[key].append(value)
        figures["label"] = bench.get("label", "")
    return samples, results["context"]


def med(samples, name, key):
    values = samples.get(name, {}).get(key)
    return statistics.median(values) if values else None


def net_cpu_us(samples, fmt, case):
    """Process CPU per frame less identity's, median over repetitions."""
    gross = med(samples, f"BM_Bridge/{fmt}/{case}", "process_us")
    base = med(samples, f"BM_Bridge/{fmt}/identity", "process_us")
    return None if gross is None or base is None else gross - base


def bars(ax, rows, fmt):
    """rows: [(label, value or None, verdict)], drawn top-down."""
    rows = list(reversed(rows))
    ys = range(len(rows))
    values = [v if v is not None else 0 for _, v, _ in rows]
    ax.barh(ys, values, color=[COLORS[v] for _, _, v in rows], height=0.6)
    ax.set_yticks(list(ys), [text for text, _, _ in rows], fontsize=8)
    for y, (_, value, verdict) in zip(ys, rows):
        text = "n/a" if value is None else fmt(value)
        if value == 0:
            ax.plot([0], [y], marker="s", markersize=5, color=COLORS[verdict], clip_on=False)
        ax.annotate(text, (max(value or 0, 0), y), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=7)
    ax.grid(axis="x", which="major", alpha=0.3)


def plot(samples, context, png):
    fig, (cpu, imports, latency) = plt.subplots(
        3, 1, figsize=(10, 11), dpi=150, gridspec_kw={"height_ratios": [11, 5, 4]})
    us = lambda v: format_ns(v * 1e3)  # noqa: E731

    rows = []
    for fmt in FORMATS:
        for case, text in CASES:
            rows.append((f"{fmt}: {text}", net_cpu_us(samples, fmt, case), "no target"))
        for path, text in RAW:
            rows.append((f"{fmt}: {text}", med(samples, f"BM_RawImport/{fmt}/{path}",
                                                 "cpu_time_us"), "no target"))
    rows.append(("cache lookup (hit validated against the memfd)",
                 med(samples, "BM_CacheLookup/memfd", "cpu_time_us"), "no target"))
    bars(cpu, rows, us)
    cpu.set_xscale("log")
    positive = [v for _, v, _ in rows if v and v > 0]
    cpu.set_xlim(min(positive) / 3, max(positive) * 8)
    cpu.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: us(v)))
    cpu.set_title("CPU time per 1080p frame into Vulkan: process CPU less appsrc ! identity ! "
                  "appsink's (log scale);\nraw loops: CPU time per import (create + destroy)",
                  fontsize=9)

    rows = []
    for fmt in FORMATS:
        for case, text in CASES[:3]:
            value = med(samples, f"BM_Bridge/{fmt}/{case}", "imports_per_frame")
            target = 0 if case == "hit" else None
            verdict = "no target" if target is None else (
                "meets target" if value is not None and value <= target else "misses target")
            rows.append((f"{fmt}: {text}", value, verdict))
    bars(imports, rows, lambda v: f"{v:.3g}")
    imports.set_xlim(0, 1.3)
    imports.set_title("efvkbridge imports (VkDeviceMemory + VkImage made) per frame, "
                      "from its counters; target for a hit: 0", fontsize=9)

    rows = []
    for name, text in [("ring", "ef::SlotRing alone"), ("element", "through efvkbridge")]:
        for p in ("p50", "p99"):
            rows.append((f"{text}, {p}", med(samples, f"BM_GateArmToWake/{name}", f"{p}_us"),
                         "no target"))
    bars(latency, rows, us)
    latency.set_xscale("log")
    positive = [v for _, v, _ in rows if v and v > 0] or [1]
    latency.set_xlim(min(positive) / 3, max(positive) * 8)
    latency.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: us(v)))
    latency.set_title("gate arm -> producer wake (log scale): producer and application on "
                      "different CPUs", fontsize=9)

    cpu.legend(handles=[Patch(color=COLORS[v], label=v) for v in COLORS],
               loc="lower right", fontsize=7)
    device = context.get("vulkan_device", "?")
    fig.suptitle(f"efvkbridge against vulkanupload, 1080p, 300 measured frames\n"
                 f"{device}; {context.get('vulkan_driver', '')}; "
                 f"{context.get('placement', '')}", fontsize=10)
    fig.tight_layout()
    fig.savefig(png)
    print(f"wrote {png}")


def print_tables(samples):
    print("| format, case | CPU / frame (process − identity) | (min–max) | element threads "
          "(chain + app) | chain | app: pull, arm, drop | wall / frame | imports / frame "
          "| hits / frame | misses / frame | copies / frame | import path |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for fmt in FORMATS:
        base = samples.get(f"BM_Bridge/{fmt}/identity", {}).get("process_us", [])
        for case, text in CASES + [("identity", "identity (baseline)")]:
            name = f"BM_Bridge/{fmt}/{case}"
            if name not in samples:
                print(f"| {fmt}, {text} | n/a |")
                continue
            s = samples[name]
            gross = s["process_us"]
            b = statistics.median(base) if base else 0
            net = statistics.median(gross) - b if case != "identity" else statistics.median(gross)
            rng = f"{min(gross) - b:.1f}–{max(gross) - b:.1f}" if case != "identity" else ""

            def m(key, f="{:.1f}"):
                v = s.get(key)
                return f.format(statistics.median(v)) if v else ""
            label = s.get("label", "")
            path = label.split(";")[0].replace("import-path ", "") if label else ""
            print(f"| {fmt}, {text} | {net:.1f} µs | {rng} | {m('time_us')} µs | "
                  f"{m('chain_us')} µs | {m('release_us')} µs | {m('wall_us')} µs | "
                  f"{m('imports_per_frame', '{:.3g}')} | {m('hits_per_frame', '{:.3g}')} | "
                  f"{m('misses_per_frame', '{:.3g}')} | {m('copies_per_frame', '{:.3g}')} | "
                  f"{path} |")
    print()
    print("| latency | p50 | p99 |")
    print("|---|---:|---:|")
    for name in ("ring", "element"):
        p50 = med(samples, f"BM_GateArmToWake/{name}", "p50_us")
        p99 = med(samples, f"BM_GateArmToWake/{name}", "p99_us")
        if p50 is not None:
            print(f"| {name} | {p50:.1f} µs | {p99:.1f} µs |")
    print()
    print("| raw loop | CPU / op |")
    print("|---|---:|")
    for fmt in FORMATS:
        for path, text in RAW:
            v = med(samples, f"BM_RawImport/{fmt}/{path}", "cpu_time_us")
            print(f"| {fmt}, {text} | {'n/a' if v is None else f'{v:.2f} µs'} |")
    v = med(samples, "BM_CacheLookup/memfd", "cpu_time_us")
    print(f"| cache lookup | {'n/a' if v is None else f'{v * 1e3:.0f} ns'} |")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    samples, context = load(sys.argv[1])
    plot(samples, context, sys.argv[2])
    print_tables(samples)


if __name__ == "__main__":
    main()
