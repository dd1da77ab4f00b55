#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots bench_convert_gl's Google Benchmark JSON and prints its Markdown table.

Usage: plot_convert_gl.py RESULTS.json OUT.png

Without matplotlib it prints the table only. The plot: wall-clock time per frame, one bar per output and pipeline (the
median over the repetitions), with plot_core.py's colours and the target of
docs/BENCHMARKS.md ("efconvert on GL memory"): efconvert gl at most a third
of the GstGL chain's time for the same output. The table: wall, CPU and GPU
time per frame, copies and read-backs, and the ratios the targets are about.
"""

import json
import statistics
import sys
from collections import defaultdict

try:  # the table needs no matplotlib, which a device machine may lack
    from plot_core import load_rows, plot
except ImportError as missing:
    load_rows = plot = None
    MISSING = missing

OUTPUTS = {"GL-RGBA": "GL-memory RGBA", "RGB": "plain RGB", "RGBP": "plain RGBP",
           "F32-NCHW": "plain float32 NCHW tensor", "I8-NHWC": "plain int8 NHWC tensor",
           "GL-F32-NCHW": "GL-buffer float32 NCHW tensor", "GL-I8-NHWC": "GL-buffer int8 NHWC tensor"}
TENSORS = ["F32-NCHW", "I8-NHWC", "GL-F32-NCHW", "GL-I8-NHWC"]
CASES = {
    "efconvert-gl": "efconvert gl, readback-depth=1",
    "efconvert-gl-fragment": "efconvert gl, fragment shader, readback-depth=1",
    "efconvert-gl-depth0": "efconvert gl, readback-depth=0",
    "efconvert-gl-direct": "efconvert gl, the pass writes the output (EF_GL_TENSOR_WRITE=direct)",
    "gl-chain": "glcolorconvert ! glcolorscale",
    "efconvert-cpu": "efconvert cpu (maps the GL frames)",
    "efconvert-auto": "efconvert auto",
}
FIGURES = ["wall_us", "cpu_us", "gpu_own_us", "gpu_readback_us", "gpu_stamp_us", "copies_per_frame",
           "readbacks_per_frame", "bytes_read_per_frame", "allocs_per_frame"]
GPU_TARGET_US = 50  # efconvert's own GPU time, 1080p NV12 -> 640x640 RGB
TENSOR_GPU_TARGET_US = 25  # the same for the tensors (issue 18)
TENSOR_WALL_RATIO = 1.5  # a tensor's wall time against the RGB output's


def label(name):
    _, out, case = name.split("/")[:3]
    return f"{OUTPUTS.get(out, out)}: {CASES.get(case, case)}"


def medians(path):
    """{(output, case): {figure: median}} and the run's context."""
    samples = defaultdict(lambda: defaultdict(list))
    with open(path, encoding="utf-8") as f:
        results = json.load(f)
    for bench in results["benchmarks"]:
        if bench.get("run_type", "iteration") != "iteration" or bench.get("error_occurred"):
            continue
        _, out, case = bench["run_name"].split("/")[:3]
        for key in FIGURES:
            if key in bench:
                samples[(out, case)][key].append(bench[key])
    return ({k: {f: statistics.median(v) for f, v in figs.items()} for k, figs in samples.items()},
            results["context"])


def cell(figs, key, digits=1, unit=""):
    value = figs.get(key)
    if value is None or value < 0:
        return ""
    return f"{value:.{digits}f}{unit}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    path, png = sys.argv[1], sys.argv[2]
    found, context = medians(path)
    print(f"GL: {context.get('gl_renderer', '?')}, {context.get('gl_version', '?')}")
    print("| output | pipeline | wall / frame | CPU / frame | GPU (efconvert's pass) | "
          "GPU (its read-back copy) | GPU (timestamps around the chain) | copies / frame | "
          "bytes read / frame | allocations / frame |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for out in OUTPUTS:
        for case in CASES:
            figs = found.get((out, case))
            if figs:
                cells = [cell(figs, k, 1, " µs") for k in
                         ("wall_us", "cpu_us", "gpu_own_us", "gpu_readback_us", "gpu_stamp_us")]
                cells += [cell(figs, k, 0) for k in ("copies_per_frame", "bytes_read_per_frame")]
                cells += [cell(figs, "allocs_per_frame", 2)]
                print(f"| {OUTPUTS[out]} | {CASES[case]} | " + " | ".join(cells) + " |")
    targets = {}
    for out in OUTPUTS:
        ours, chain = found.get((out, "efconvert-gl")), found.get((out, "gl-chain"))
        if ours and chain:
            ratio = chain["wall_us"] / ours["wall_us"]
            print(f"{OUTPUTS[out]}: efconvert {ratio:.2f}x faster than the chain (wall; target 3x)")
            targets[label(f"BM_ConvertGl/{out}/efconvert-gl")] = chain["wall_us"] * 1e3 / 3
    rgb = found.get(("RGB", "efconvert-gl"))
    if rgb and rgb.get("gpu_own_us", -1) >= 0:
        print(f"RGB: efconvert GPU time {rgb['gpu_own_us']:.1f} µs (target ≤ {GPU_TARGET_US} µs)")
    for out in TENSORS:
        ours = found.get((out, "efconvert-gl"))
        if not ours:
            continue
        line = f"{OUTPUTS[out]}: efconvert GPU time {cell(ours, 'gpu_own_us', 1, ' µs') or '?'}"
        line += f" (target ≤ {TENSOR_GPU_TARGET_US} µs)"
        if rgb:
            line += (f", wall {ours['wall_us'] / rgb['wall_us']:.2f}x plain RGB's"
                     f" (target ≤ {TENSOR_WALL_RATIO}x)")
            targets[label(f"BM_ConvertGl/{out}/efconvert-gl")] = (
                rgb["wall_us"] * 1e3 * TENSOR_WALL_RATIO)
        line += f", {cell(ours, 'allocs_per_frame', 2) or '?'} allocations a frame (target 0)"
        print(line)
    if plot is None:
        print(f"plot skipped: {MISSING}")
        return
    names = {name for name, _ in load_rows([path])}
    plot([path], png, "efconvert on GL memory: wall-clock time per frame",
         {name: label(name) for name in names}, targets)


if __name__ == "__main__":
    main()
