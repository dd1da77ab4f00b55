#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_streams' JSON lines and prints their Markdown tables.

Usage: plot_streams.py STREAMS.jsonl OUT.png

Without matplotlib it prints the tables only. The plot: aggregate frames a
second against the number of streams (log axes), one panel per source
(GL-memory ring, system-memory ring, decoder) and way of running them (one
process, or one process a stream), one line per chain and output, the
median over repeated runs, labelled with its first and last values; a
dotted line is one stream's figure times N (perfect scaling). A panel whose
runs are all at one stream count would be one bar: such runs share one
panel of bars with their values. Runs under a
diagnostic environment setting (EF_GL_FENCES, EF_GL_GPU_TIMER, ...) are left
out of the plot (EF_PLOT_DIAGNOSTIC=1 keeps them) but not the tables. The
title names the machine: EF_BENCH_MACHINE, a run's "machine" field (the
recorded docs/bench/data/streams.jsonl has one), or its CPUs and renderer. The tables: per stream count, fps, CPU time per
frame, how busy the CPUs were, and efconvert's own figures per frame (GPU
time of its pass, hand-overs to the GL thread, the GL thread's time on it
and its waits there, the streaming thread's waits for the GPU), then the
runs with a diagnostic setting (EF_GL_FENCES, EF_GL_GPU_TIMER, in
brackets) and the decoder part.
"""

import json
import os
import statistics
import sys
import textwrap
from collections import defaultdict

try:  # the tables need no matplotlib, which a device machine may lack
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as missing:
    plt = None
    MISSING = missing

SOURCES = {"gl": "GL-memory frames (an uploaded ring)",
           "sysmem": "system-memory frames",
           "testsrc": "one videotestsrc teed to every stream",
           "decoder": "nvh264dec to GL memory (or CUDA memory, where said)"}
COLOURS = {"efconvert-gl": "#2e8b57", "efconvert-cpu": "#1f77b4", "efconvert-cuda": "#e67e22",
           "efconvert-auto": "#8e44ad",
           "stock": "#c0392b",
           "none": "#8c8c8c", "bandwidth": "#000000", "compute": "#7f3fbf"}
CPU_TARGET = 28000  # issue 19: system-memory streams, one process, 16 cores


def settings_of(r):
    settings = [r["setting"]] if r.get("setting") else []
    if r.get("display") == "app":
        settings.append("one GstGLDisplay set by the application")
    return f" [{'; '.join(settings)}]" if settings else ""


def series_name(r):
    chain = r["chain"]
    cuda = r.get("decoder_memory") == "cuda" and r["source"] == "decoder"
    if chain == "none":
        alone = "source alone" if r["source"] != "decoder" else "decode alone"
        return alone + (", to CUDA memory" if cuda else "") + settings_of(r)
    if chain == "bandwidth":
        return "memory's limit: the bytes of NV12 1080p → RGB 640² moved, no arithmetic"
    if chain == "compute":
        return "CPUs' limit: a letterboxed frame's box arithmetic, its rows in L1"
    out = "GL RGBA 640²" if r["output"] == "glrgba" else "RGB 640²"
    extra = ""
    if chain == "efconvert-gl" and r["output"] == "rgb":
        extra = f", readback-depth={r['depth']}"
    if chain == "efconvert-cpu":
        extra = f", n-threads={r['n_threads']}"
    if cuda:
        extra = ", from CUDA memory"
    if r.get("decoder_memory") == "any" and r["source"] == "decoder":
        extra = f", memory negotiated ({r.get('backend') or '?'} backend)"
    stock = {"gl": "glcolorconvert ! glcolorscale", "decoder": "glcolorconvert ! glcolorscale",
             "sysmem": "videoconvert ! videoscale", "testsrc": "videoconvert ! videoscale"}
    name = stock.get(r["source"], "stock") if chain == "stock" else chain
    if chain == "stock" and r["output"] == "rgb" and r["source"] in ("gl", "decoder"):
        name += " ! gldownload ! videoconvert"
    return f"{name} → {out}{extra}{settings_of(r)}"


def load(path):
    """Runs grouped by (source, processes, series, streams, diagnostic)."""
    runs = defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if r.get("error"):
                print(f"failed run: {series_name(r)} x{r['streams']}: {r['error']}",
                      file=sys.stderr)
                continue
            runs[(r["source"], r["processes"] > 1, series_name(r), r["streams"])].append(r)
    return runs


def median(rs, key, sub=None):
    values = [(r[sub].get(key) if sub else r.get(key)) for r in rs]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def cell(v, fmt="{:.0f}"):
    return "" if v is None else fmt.format(v)


def table(runs, source, processes):
    keys = sorted({k for k in runs if k[0] == source and k[1] == processes},
                  key=lambda k: (k[2], k[3]))
    if not keys:
        return
    where = "N processes of one stream" if processes else "one process"
    print(f"\n### {SOURCES.get(source, source)}, {where}\n")
    print("| chain | streams | fps | CPU µs / frame | CPUs busy | GL contexts | "
          "GPU µs / frame (efconvert's pass) | hand-overs / frame | GL thread µs / frame | "
          "of it: source, pass, read-back µs | of it waiting µs | streaming thread waits µs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in keys:
        rs = runs[k]
        gpu_ns, gpu_frames = median(rs, "gpu-time-ns", "per_frame"), median(rs, "gpu-frames",
                                                                              "per_frame")
        gpu = gpu_ns / gpu_frames / 1e3 if gpu_ns and gpu_frames else None
        per = {key: median(rs, key, "per_frame") for key in
               ("gl-handovers", "gl-thread-ns", "gl-wait-ns", "gpu-wait-ns", "gl-source-ns",
                "gl-pass-ns", "gl-readback-ns")}
        us = {key: (v / 1e3 if v is not None else None) for key, v in per.items()}
        # Builds before the stages were counted have none.
        stages = " / ".join(cell(us[key], '{:.0f}') for key in
                            ("gl-source-ns", "gl-pass-ns", "gl-readback-ns"))
        stages = "" if stages == " /  / " else stages
        print(f"| {k[2]} | {k[3]} | {cell(median(rs, 'fps'))} | "
              f"{cell(median(rs, 'cpu_us_per_frame'))} | {cell(median(rs, 'cpu_busy'), '{:.0%}')} | "
              f"{cell(median(rs, 'gl_contexts'))} | {cell(gpu, '{:.1f}')} | "
              f"{cell(per['gl-handovers'], '{:.2f}')} | {cell(us['gl-thread-ns'], '{:.0f}')} | "
              f"{stages} | {cell(us['gl-wait-ns'], '{:.0f}')} | {cell(us['gpu-wait-ns'], '{:.0f}')} |")


def is_diagnostic(name):
    """A run under a diagnostic environment setting (EF_GL_FENCES, EF_GL_GPU_TIMER, ...,
    gpu-timing): in the tables, not in the plot unless EF_PLOT_DIAGNOSTIC=1.
    Settings that are configurations (gl-contexts, letterbox) stay."""
    if os.environ.get("EF_PLOT_DIAGNOSTIC") == "1" or "[" not in name:
        return False
    settings = name[name.index("[") + 1:name.rindex("]")]
    return any(part.startswith(("EF_", "gpu-timing")) for part in settings.replace(";", " ").split())


def short_fps(v):
    return f"{v / 1000:.1f}k" if v >= 10000 else f"{v:,.0f}"


def where_of(runs):
    """The machine, for the title: EF_BENCH_MACHINE, a recorded run's words, or
    the CPUs and GL renderer the runs report."""
    first = next((rs[0] for rs in runs.values()), {})
    if os.environ.get("EF_BENCH_MACHINE"):
        return os.environ["EF_BENCH_MACHINE"]
    if first.get("machine"):
        return first["machine"]
    return f"{first.get('cpus', '?')} CPUs, GL: {first.get('renderer') or 'the pipeline’s own'}"


def panel_title(source, processes):
    where = "N processes of one stream each" if processes else "N streams in one process"
    return f"{SOURCES.get(source, source)}\n({where})"


def line_panel(ax, runs, source, processes, names):
    markers = iter("osD^vP<>" * 4)
    for name in names:
        points = sorted((k[3], median(runs[k], "fps")) for k in runs
                        if k[0] == source and k[1] == processes and k[2] == name)
        chain = next(r["chain"] for k in runs if k[2] == name for r in runs[k])
        colour = COLOURS.get(chain, "#444444")
        style = "--" if "GL RGBA" in name else "-"
        ax.plot([p[0] for p in points], [p[1] for p in points], style, marker=next(markers),
                color=colour, label=name)
        for n, fps in (points[0], points[-1]) if len(points) > 1 else points:
            ax.annotate(short_fps(fps), (n, fps), xytext=(3, 3), textcoords="offset points",
                        fontsize=6.5, color=colour)
        if len(points) > 1 and chain != "none":
            n0, f0 = points[0]
            ax.plot([p[0] for p in points], [f0 * p[0] / n0 for p in points], ":",
                    color=colour, linewidth=0.6, alpha=0.6)
    ax.set_xscale("log", base=2)
    counts = sorted({k[3] for k in runs if k[0] == source and k[1] == processes})
    ax.set_xticks(counts, [str(n) for n in counts])
    ax.set_yscale("log")
    ax.set_xlabel("streams")
    ax.set_ylabel("aggregate frames / s (log scale)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.16))


SHORT_SOURCES = {"gl": "GL ring", "sysmem": "system-memory ring", "testsrc": "teed videotestsrc",
                 "decoder": "nvh264dec"}


def bar_panel(ax, runs, groups):
    """The sources and ways whose runs are all at one stream count, together:
    a bar each, with its value (a panel of one bar says little)."""
    rows = []
    for source, processes in groups:
        for k in sorted(k for k in runs if k[0] == source and k[1] == processes):
            where = f"{k[3]} processes" if processes else f"{k[3]} streams"
            rows.append((textwrap.fill(f"{SHORT_SOURCES.get(source, source)}, {where}: {k[2]}",
                                       44),
                         median(runs[k], "fps"), COLOURS.get(runs[k][0]["chain"], "#444444")))
    y = list(range(len(rows)))
    ax.barh(y, [r[1] for r in rows], color=[r[2] for r in rows], height=0.6)
    for v, (_, fps, _) in zip(y, rows):
        ax.annotate(f"{fps:,.0f}", (fps, v), xytext=(3, 0), textcoords="offset points",
                    va="center", fontsize=7.5)
    ax.set_yticks(y, [r[0] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(min(r[1] for r in rows) / 2, max(r[1] for r in rows) * 4)
    ax.set_xlabel("aggregate frames / s (log scale)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("at one stream count (runs of these sources at no other)", fontsize=9.5)


def plot(runs, png):
    runs = {k: v for k, v in runs.items() if not is_diagnostic(k[2])}
    groups = [(s, p) for s in SOURCES for p in (False, True)
              if any(k[0] == s and k[1] == p for k in runs)]
    if not groups:
        return
    counts = {g: {k[3] for k in runs if (k[0], k[1]) == g} for g in groups}
    lines = [g for g in groups if len(counts[g]) > 1]
    bars = [g for g in groups if len(counts[g]) == 1]
    n = len(lines) + bool(bars)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(7 * cols, 6.4 * rows), squeeze=False)
    flat = list(axes.flat)
    for ax, (source, processes) in zip(flat, lines):
        names = sorted({k[2] for k in runs if k[0] == source and k[1] == processes})
        line_panel(ax, runs, source, processes, names)
        cpus = max((r.get("cpus", 0) for k in runs if k[0] == source for r in runs[k]), default=0)
        if source == "sysmem" and not processes and cpus >= 16:
            ax.axhline(CPU_TARGET, color="#1f77b4", linewidth=0.8, alpha=0.5)
            ax.annotate("issue 19's CPU target: 28,000 frames/s at 16 streams",
                        (min(counts[(source, processes)]), CPU_TARGET), xytext=(2, -9),
                        textcoords="offset points", fontsize=7, color="#1f77b4")
        ax.set_title(panel_title(source, processes), fontsize=9.5)
    if bars:
        bar_panel(flat[len(lines)], runs, bars)
    for ax in flat[n:]:
        ax.set_visible(False)
    width = 75 * cols
    fig.suptitle(textwrap.fill(f"Many streams: 1080p NV12 → 640×640, on {where_of(runs)}", width)
                 + "\n" + textwrap.fill("(medians over runs; a label at each line's ends; thin "
                                        "dotted: one stream's frames/s × N, perfect scaling)",
                                        width), fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    path, png = sys.argv[1], sys.argv[2]
    runs = load(path)
    first = next((rs[0] for rs in runs.values()), None)
    if first:
        print(f"{first['cpus']} CPUs; GL: {first.get('renderer') or '(the pipeline’s own)'}")
    for source in SOURCES:
        for processes in (False, True):
            table(runs, source, processes)
    if plt is None:
        print(f"plot skipped: {MISSING}")
        return
    plot(runs, png)


if __name__ == "__main__":
    main()
