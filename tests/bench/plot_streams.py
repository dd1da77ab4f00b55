#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_streams' JSON lines and prints their Markdown tables.

Usage: plot_streams.py STREAMS.jsonl OUT.png

Without matplotlib it prints the tables only. The plot: aggregate frames a
second against the number of streams (log axes), one panel per source
(GL-memory ring, system-memory ring, decoder), one line per chain and
output, the median over repeated runs; a dotted line is one stream's figure
times N (perfect scaling). The tables: per stream count, fps, CPU time per
frame, how busy the CPUs were, and efconvert's own figures per frame (GPU
time of its pass, hand-overs to the GL thread, the GL thread's time on it
and its waits there, the streaming thread's waits for the GPU), then the
runs with a diagnostic setting (EF_GL_FENCES, EF_GL_GPU_TIMER, in
brackets) and the decoder part.
"""

import json
import statistics
import sys
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


def plot(runs, png):
    panels = [(s, p) for s in SOURCES for p in (False, True)
              if any(k[0] == s and k[1] == p for k in runs)]
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 5.2), squeeze=False)
    for ax, (source, processes) in zip(axes[0], panels):
        names = sorted({k[2] for k in runs if k[0] == source and k[1] == processes})
        markers = iter("osD^vP<>" * 4)
        for name in names:
            points = sorted((k[3], median(runs[k], "fps")) for k in runs
                            if k[0] == source and k[1] == processes and k[2] == name)
            chain = next(r["chain"] for k in runs if k[2] == name for r in runs[k])
            colour = COLOURS.get(chain, "#444444")
            style = ":" if "[" in name else "--" if "GL RGBA" in name else "-"
            ax.plot([p[0] for p in points], [p[1] for p in points], style, marker=next(markers),
                    color=colour, label=name)
            if len(points) > 1 and chain != "none":
                n0, f0 = points[0]
                ax.plot([p[0] for p in points], [f0 * p[0] / n0 for p in points], ":",
                        color=colour, linewidth=0.6, alpha=0.6)
        cpus = max((r.get("cpus", 0) for k in runs if k[0] == source for r in runs[k]), default=0)
        if source == "sysmem" and not processes and cpus >= 16:  # the target's machine
            ax.axhline(CPU_TARGET, color="#1f77b4", linewidth=0.8, alpha=0.5)
            ax.annotate("issue 19's CPU target: 28,000 frames/s at 16 streams", (1, CPU_TARGET),
                        xytext=(2, -9), textcoords="offset points", fontsize=7, color="#1f77b4")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("streams" + (" (one process each)" if processes else " (one process)"))
        ax.set_ylabel("aggregate frames / s")
        ax.set_title(SOURCES.get(source, source), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.suptitle("Many streams: 1080p NV12 → 640×640" + ("\n" if len(panels) == 1 else " ") +
                 "(thin dotted: one stream's fps × N; [settings]: diagnostic runs)",
                 fontsize=12 if len(panels) > 1 else 10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


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
