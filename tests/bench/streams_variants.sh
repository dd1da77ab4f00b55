#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Many decoded streams, efconvert's GL settings side by side, in one call on
# the GPU machine (docs/BENCHMARKS.md, "Many streams"): 16 nvh264dec
# branches in one process, and 16 processes of one branch, each decoding a
# 1080p H.264 clip to GL memory, with efconvert → RGB 640² (readback-depth
# 1) or → GL RGBA 640² behind each decoder, under each diagnostic variant
# (ARCHITECTURE.md, efconvert's GL diagnostics), beside the decoders alone
# and the stock GstGL chain. Every variant runs twice (the figures move by
# some 30 % from run to run), interleaved; the extras once. The runs left
# when BUDGET seconds are spent are skipped and listed.
#
#   . .gl/env.sh && sh tests/bench/streams_variants.sh BUILD_DIR
# Environment: OUT (results; default BUILD_DIR/bench-variants), CLIP (default
# .clips/clip-1080p-1200.h264), BUDGET (default 250), WINDOW (seconds a run
# measures, default 2), STREAMS (default 16), MODE (variants; compare:
# compare_pass below, with SETTING and OPTIONS; spread: spread_pass, with
# CONTEXTS and SPREAD_ENV).
# Results under $OUT: variants.md (the table, also printed), variants.jsonl
# (bench_streams' lines, each with its label), variants.log, machine.txt,
# dmon.txt (nvidia-smi dmon, a line a second).
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$build/bench-variants}
mkdir -p "$out"
clip=${CLIP:-$root/.clips/clip-1080p-1200.h264}
budget=${BUDGET:-250}
window=${WINDOW:-2}
n=${STREAMS:-16}
export GST_GL_WINDOW="${GST_GL_WINDOW:-egl-device}"
export GST_PLUGIN_PATH_1_0="$build/gst/plugin"
export GST_REGISTRY_1_0="${GST_REGISTRY_1_0:-/tmp/ef-variants-registry.bin}"
bench="$build/tests/bench/bench_streams"
results="$out/variants.jsonl"
log="$out/variants.log"
: >"$results"
: >"$log"

{
  echo "date: $(date -u +%FT%TZ)"
  echo "cpus: $(nproc)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  gst-launch-1.0 --version | head -1
  echo "clip: $clip"
} >"$out/machine.txt" 2>&1
# EF_BENCH_DECODER (bench_streams): another decoder to GL memory, to try
# the script out where there is no nvh264dec, e.g. "avdec_h264 ! glupload".
decoder=${EF_BENCH_DECODER:-nvh264dec}
if ! gst-inspect-1.0 "${decoder%% *}" >/dev/null 2>&1 || [ ! -s "$clip" ] || [ ! -x "$bench" ]; then
  echo "needs ${decoder%% *}, the clip ($clip) and $bench" | tee -a "$out/machine.txt"
  exit 77
fi

dmon=""
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi dmon -s u -o T >"$out/dmon.txt" 2>&1 &
  dmon=$!
fi

start=$(date +%s)
skipped=""
# run LABEL PROCESSES [VAR=VALUE ...] -- bench_streams options
run() {
  label=$1 procs=$2
  shift 2
  envs=""
  while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
  shift
  if [ $(($(date +%s) - start)) -ge "$budget" ]; then
    skipped="$skipped $label/$procs"
    return
  fi
  limit=45
  [ "$procs" -gt 1 ] && limit=75
  echo "== $(date +%T) $label ($procs) $envs $*" >>"$log"
  # shellcheck disable=SC2086
  env $envs timeout -k 5 $limit "$bench" --source=decoder --clip="$clip" --streams="$n" \
    --processes="$procs" --seconds="$window" --label="$label" --json="$results" "$@" \
    >>"$log" 2>&1 || echo "   failed ($?): $label $envs $*" | tee -a "$log"
}

rgb="--chain=efconvert-gl --output=rgb --depth=1"
rgba="--chain=efconvert-gl --output=glrgba"
# The settings before this change, all at once: the GL context found at
# caps time, EGL fences, GL_ALL_BARRIER_BITS, one scratch target, timers.
old="EF_GL_EARLY=none EF_GL_FENCES=egl EF_GL_BARRIER=all EF_GL_SCRATCH=1"

one_process_pass() {
  run decode 1 -- --chain=none
  # shellcheck disable=SC2086
  run rgb 1 -- $rgb
  # shellcheck disable=SC2086
  run rgba 1 -- $rgba
  run stock-rgb 1 -- --chain=stock --output=rgb
  # shellcheck disable=SC2086
  run rgb-before 1 $old -- $rgb --gpu-timing=1
  # shellcheck disable=SC2086
  run rgb-one-context 1 EF_GL_EARLY=context -- $rgb
  # shellcheck disable=SC2086
  run rgba-one-context 1 EF_GL_EARLY=context -- $rgba
  # shellcheck disable=SC2086
  run rgb-display-late 1 EF_GL_EARLY=none -- $rgb
  # shellcheck disable=SC2086
  run rgb-egl-fences 1 EF_GL_FENCES=egl -- $rgb
  # shellcheck disable=SC2086
  run rgb-all-barriers 1 EF_GL_BARRIER=all -- $rgb
  # shellcheck disable=SC2086
  run rgb-one-scratch 1 EF_GL_SCRATCH=1 -- $rgb
  # shellcheck disable=SC2086
  run rgb-fragment 1 -- $rgb --shader=fragment
}

processes_pass() {
  run decode "$n" -- --chain=none
  # shellcheck disable=SC2086
  run rgb "$n" -- $rgb
}

# MODE=compare: instead of the variants, each chain (decode alone, → RGB,
# → GL RGBA, the stock chain) without and with SETTING (environment
# assignments, e.g. __GL_YIELD=USLEEP) and OPTIONS (bench_streams options,
# e.g. --display=app: one GstGLDisplay given by the application), three
# times each, interleaved, and then nothing else.
compare_pass() {
  for with in base set; do
    envs="" opts=""
    [ "$with" = set ] && envs="${SETTING:-}" opts="${OPTIONS:-}"
    # shellcheck disable=SC2086
    run "decode-$with" 1 $envs -- --chain=none $opts
    # shellcheck disable=SC2086
    run "rgb-$with" 1 $envs -- $rgb $opts
    # shellcheck disable=SC2086
    run "rgba-$with" 1 $envs -- $rgba $opts
    # shellcheck disable=SC2086
    run "stock-rgb-$with" 1 $envs -- --chain=stock --output=rgb $opts
  done
}
# MODE=spread: the GL work of the streams over K GL contexts (efconvert's
# gl-contexts=K: the efconverts take K contexts in turn at READY -> PAUSED,
# each decoder takes its efconvert's; 0, the default, beside them), K from
# CONTEXTS (default "0 2 4 8"), decoding alone first, twice, interleaved.
# SPREAD_ENV=context runs the same through EF_GL_EARLY=context:K instead
# (the diagnostic the property replaced; K=0 then sets nothing).
spread_pass() {
  run decode 1 -- --chain=none
  for k in ${CONTEXTS:-0 2 4 8}; do
    envs="" opts="--gl-contexts=$k"
    if [ "${SPREAD_ENV:-}" = context ]; then
      opts=""
      [ "$k" = 0 ] || envs="EF_GL_EARLY=context:$k"
    fi
    # shellcheck disable=SC2086
    run "rgb-contexts-$k" 1 $envs -- $rgb $opts
    # shellcheck disable=SC2086
    run "rgba-contexts-$k" 1 $envs -- $rgba $opts
  done
}
if [ "${MODE:-variants}" = spread ]; then
  spread_pass
  spread_pass
elif [ "${MODE:-variants}" = compare ]; then
  compare_pass
  compare_pass
  compare_pass
  # shellcheck disable=SC2086
  for with in base set; do
    envs="" opts=""
    [ "$with" = set ] && envs="${SETTING:-}" opts="${OPTIONS:-}"
    run "decode-$with" "$n" $envs -- --chain=none $opts
    run "rgb-$with" "$n" $envs -- $rgb $opts
  done
else
  one_process_pass
  processes_pass
  one_process_pass
  processes_pass
  # Once each, as long as the budget lasts.
  # shellcheck disable=SC2086
  run rgba-fragment 1 -- $rgba --shader=fragment
  # shellcheck disable=SC2086
  run rgb-gpu-timing 1 -- $rgb --gpu-timing=1
  # shellcheck disable=SC2086
  run rgb-depth-3 1 -- --chain=efconvert-gl --output=rgb --depth=3
  # shellcheck disable=SC2086
  run rgba-no-flush 1 EF_GL_FLUSH=off -- $rgba
  run stock-rgb "$n" -- --chain=stock --output=rgb
  # shellcheck disable=SC2086
  run rgba "$n" -- $rgba
  # shellcheck disable=SC2086
  run rgb-before "$n" $old -- $rgb --gpu-timing=1
  run decode-app-display 1 -- --chain=none --display=app
fi

[ -z "$dmon" ] || kill "$dmon" 2>/dev/null || true
[ -z "$skipped" ] || echo "skipped (budget of $budget s spent):$skipped" | tee -a "$log"
echo "$(($(date +%s) - start)) s" >>"$log"
${PYTHON:-python3} "$root/tests/bench/variants_table.py" "$results" | tee "$out/variants.md"
[ -z "$skipped" ] || echo "skipped (budget of $budget s spent):$skipped" >>"$out/variants.md"
