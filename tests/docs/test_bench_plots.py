#!/usr/bin/env python3
"""docs/bench's plots drawn again from their recorded data (docs/bench/data/),
each read back from matplotlib before it is saved: its title must name the
machine the recorded data says it was measured on, every figure must have a
legend, and each panel must carry values (annotations), not bars alone.

    test_bench_plots.py SOURCE_ROOT OUT_DIR"""
import importlib
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SOURCE, OUT = (pathlib.Path(a).resolve() for a in sys.argv[1:3])
sys.path.insert(0, str(SOURCE / "tests" / "bench"))
DATA = SOURCE / "docs" / "bench" / "data"
# (plot script, recorded data, the png it is drawn for)
PLOTS = [("plot_convert", "convert.json", "convert.png"),
         ("plot_convert", "convert_threads-h200.json", "convert.png"),
         ("plot_tensor", "tensor.json", "tensor.png"),
         ("plot_tensor", "tensor-h200-cpu.json", "tensor-h200-cpu.png"),
         ("plot_streams", "streams.jsonl", "streams.png"),
         ("plot_streams", "streams-h200.jsonl", "streams-h200.png"),
         ("plot_streams", "streams-h200-cpu.jsonl", "streams-h200-cpu.png")]


def machine(path):
    if path.suffix == ".jsonl":
        return json.loads(path.read_text(encoding="utf-8").splitlines()[0])["machine"]
    return json.loads(path.read_text(encoding="utf-8"))["context"]["ef_machine"]


def problems_of(fig, where):
    found = []
    title = " ".join((fig._suptitle.get_text() if fig._suptitle else "").split())
    if " ".join(where.split()) not in title:
        found.append(f"the title does not name the machine ({where!r}): {title!r}")
    axes = [ax for ax in fig.axes if ax.get_visible()]
    if not fig.legends and not any(ax.get_legend() for ax in axes):
        found.append("no legend")
    for ax in axes:
        if not ax.texts:
            found.append(f"panel {ax.get_title()!r} shows no values")
    return found


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    failures = 0
    for module, data, png in PLOTS:
        plt.close("all")
        sys.argv = [module, str(DATA / data), str(OUT / png)]
        importlib.import_module(module).main()
        figures = [plt.figure(n) for n in plt.get_fignums()]
        if not figures:
            print(f"FAIL {module} {data}: drew nothing")
            failures += 1
        for fig in figures:
            for problem in problems_of(fig, machine(DATA / data)):
                print(f"FAIL {module} {data}: {problem}")
                failures += 1
        print(f"{'ok  ' if not failures else '    '} {module} {data}: {len(figures)} figures")
    print(f"{len(PLOTS)} plots, {failures} problems")
    return 1 if failures else 0


sys.exit(main())
