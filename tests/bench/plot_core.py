#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots Google Benchmark JSON output as a horizontal bar chart (log time axis).

Usage: plot_core.py RESULTS.json OUT.png

One bar per benchmark: the median over repetitions of its real time. A
benchmark that reports percentile counters (p50_us, p99_us, ...) gets one bar
per percentile instead, since its mean hides the tail that matters. Bars with a
target are green when they meet it and red when they miss it; the target is
drawn as a dashed tick.

plot() is meant to be reused by the other benchmark programs' plot scripts.
"""

import json
import os
import re
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # no display on build machines
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

_COLORS = {"no target": "#8c8c8c", "meets target": "#2e8b57", "misses target": "#c0392b"}
_NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_PERCENTILE = re.compile(r"^p(\d+)_(ns|us|ms|s)$")
# Run options Google Benchmark appends to names; they say how, not what, was measured.
_RUN_OPTIONS = re.compile(r"/(iterations|repeats|min_time):[^/]+|/(manual|real)_time")

# Labels and targets (ns) of the core benchmarks, as docs/BENCHMARKS.md states them.
CORE_LABELS = {
    "BM_IdentityFromFd": "identity_from_fd (memfd)",
    "BM_CacheHit<StoredSource>/entries:16": "cache hit, 16 entries, stored identity",
    "BM_CacheHit<StoredSource>/entries:256": "cache hit, 256 entries, stored identity",
    "BM_CacheHit<MemfdSource>/entries:16": "cache hit, 16 entries, re-derived from fd",
    "BM_CacheHit<MemfdSource>/entries:256": "cache hit, 256 entries, re-derived from fd",
    "BM_CacheMissImportEvict<StoredSource>": "miss + import + evict, stored identity",
    "BM_CacheMissImportEvict<MemfdSource>": "miss + import + evict, fd (dup + close)",
    "BM_GateArmToWake p50": "gate arm → wake p50",
    "BM_GateArmToWake p99": "gate arm → wake p99",
}
CORE_TARGETS_NS = {
    "cache hit, 16 entries, stored identity": 100,
    "gate arm → wake p50": 50_000,
}


def load_rows(paths):
    """[(benchmark row name, median ns)] in the order the benchmarks ran."""
    samples = defaultdict(list)  # row name -> [ns]
    for path in paths:
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
        for bench in results["benchmarks"]:
            if bench.get("run_type", "iteration") != "iteration":
                continue  # recomputed below from the repetitions themselves
            if bench.get("error_occurred"):
                print(f"{path}: {bench['name']} failed: {bench.get('error_message')}",
                      file=sys.stderr)
                continue
            name = _RUN_OPTIONS.sub("", bench.get("run_name", bench["name"]))
            percentiles = [(int(m.group(1)), value * _NS_PER[m.group(2)])
                           for key, value in bench.items()
                           if (m := _PERCENTILE.match(key))]
            if percentiles:
                for p, ns in sorted(percentiles):
                    samples[f"{name} p{p}"].append(ns)
            else:
                samples[name].append(bench["real_time"] * _NS_PER[bench["time_unit"]])
    return [(name, statistics.median(values)) for name, values in samples.items()]


# The colours of the other plots: ef's rows, the stock elements they are
# compared with, and the limits (a loop, memcpy) they are measured against.
KIND_COLORS = {"ef": "#1f77b4", "stock": "#8c8c8c", "limit": "#c7c7c7"}


def machine_of(context):
    """Where a run was measured, for a plot's title: EF_BENCH_MACHINE if set,
    the words a recorded result carries (docs/bench/data/*.json), else what
    Google Benchmark's context says of the host."""
    if os.environ.get("EF_BENCH_MACHINE"):
        return os.environ["EF_BENCH_MACHINE"]
    if context.get("ef_machine"):
        return context["ef_machine"]
    cpus, mhz = context.get("num_cpus"), context.get("mhz_per_cpu")
    speed = f" at {mhz / 1000:.1f} GHz" if mhz else ""
    return f"{context.get('host_name', 'an unnamed host')}, {cpus or '?'} CPUs{speed}"


def when_of(context):
    """When a run was measured: the words a recorded result carries, or
    Google Benchmark's date."""
    return context.get("ef_recorded") or context.get("date", "")


def format_ns(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def plot(paths, png, title, labels=None, targets_ns=None):
    labels = labels or {}
    targets_ns = targets_ns or {}
    rows = [(labels.get(name, name), ns) for name, ns in load_rows(paths)]
    if not rows:
        sys.exit(f"no benchmark results in {', '.join(paths)}")
    rows.reverse()  # barh draws bottom-up; keep the run order top-down

    fig, ax = plt.subplots(figsize=(10, 0.45 * len(rows) + 1.6), dpi=150)
    ys = range(len(rows))
    verdicts = []
    for label, ns in rows:
        target = targets_ns.get(label)
        verdicts.append("no target" if target is None else
                        "meets target" if ns <= target else "misses target")
    ax.barh(ys, [ns for _, ns in rows], color=[_COLORS[v] for v in verdicts], height=0.6)
    ax.legend(handles=[Patch(color=_COLORS[v], label=v) for v in _COLORS if v in verdicts],
              loc="lower right", fontsize=8)
    ax.set_xscale("log")
    ax.set_yticks(list(ys), [label for label, _ in rows])
    for y, (label, ns) in zip(ys, rows):
        ax.annotate(format_ns(ns), (ns, y), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=8)
        if label in targets_ns:
            target = targets_ns[label]
            ax.plot([target, target], [y - 0.4, y + 0.4], color="black", linestyle="--",
                    linewidth=1)
            ax.annotate(f"target ≤ {format_ns(target)}", (target, y + 0.4), xytext=(3, 0),
                        textcoords="offset points", va="top", fontsize=7)
    high = max(max(ns for _, ns in rows), max(targets_ns.values(), default=0))
    ax.set_xlim(right=high * 8)  # room for the value labels
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: format_ns(v)))
    ax.set_xlabel("time per operation (log scale; median over repetitions)")
    ax.set_title(title)
    ax.grid(axis="x", which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png)
    print(f"wrote {png}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    plot([sys.argv[1]], sys.argv[2], "ef core library", CORE_LABELS, CORE_TARGETS_NS)


if __name__ == "__main__":
    main()
