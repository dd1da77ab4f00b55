#!/usr/bin/env bash
# Builds and runs the benchmark programs of a meson build directory, writes
# their Google Benchmark JSON to BUILD/bench/NAME.json and regenerates the
# plots in docs/bench/. docs/BENCHMARKS.md says how to read them.
#
# Usage: scripts/bench.sh [BUILD_DIR]      (default: the repository's build/)
# BENCH_ARGS adds Google Benchmark options, e.g. BENCH_ARGS=--benchmark_filter=Cache
# PYTHON names an interpreter with matplotlib (default: python3, else /usr/bin/python3).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out="$build/bench"
mkdir -p "$out" "$root/docs/bench"

# Repetitions give the plots a median and the console a spread; the JSON keeps
# every repetition.
repetitions=(--benchmark_repetitions=5 --benchmark_display_aggregates_only=true)

# NAME  PROGRAM (inside the build dir)  PLOT SCRIPT (inside the repository)
benchmarks=(
  "core tests/bench/bench_core tests/bench/plot_core.py"
  "upload tests/bench/bench_upload tests/bench/plot_upload.py"
  "convert tests/bench/bench_convert tests/bench/plot_convert.py"
  "vkbridge tests/bench/bench_vkbridge tests/bench/plot_vkbridge.py"
  "convert_gl tests/bench/bench_convert_gl tests/bench/plot_convert_gl.py"
)

python=${PYTHON:-python3}
# A pyenv or venv python3 first on PATH often lacks the distribution's matplotlib.
"$python" -c 'import matplotlib' 2>/dev/null || python=/usr/bin/python3

meson compile -C "$build"

for entry in "${benchmarks[@]}"; do
  read -r name program plot <<<"$entry"
  if [ ! -x "$build/$program" ]; then
    echo "skipping $name: $build/$program not built (is -Dbenchmarks enabled?)" >&2
    continue
  fi
  # BENCH_ARGS is split on purpose: it may hold several options.
  # shellcheck disable=SC2086
  "$build/$program" "${repetitions[@]}" --benchmark_out="$out/$name.json" \
    --benchmark_out_format=json ${BENCH_ARGS:-}
  "$python" "$root/$plot" "$out/$name.json" "$root/docs/bench/$name.png"
done

# bench_convert's tensor cases (BM_Tensor, in the same run) have a plot of their own.
if [ -f "$out/convert.json" ]; then
  "$python" "$root/tests/bench/plot_tensor.py" "$out/convert.json" "$root/docs/bench/tensor.png"
fi
