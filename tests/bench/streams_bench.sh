#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Many streams at once (docs/BENCHMARKS.md, "Many streams"): bench_streams
# over N streams in one process, efconvert against the stock chains, then
# the plot and the Markdown table. Here (llvmpipe, 2 cores) and on a GPU
# machine (streams_device.sh runs this there).
#
#   tests/bench/streams_bench.sh [BUILD_DIR]
# Environment:
#   OUT      results folder (default BUILD_DIR/bench-streams): streams.jsonl,
#            streams.md, streams.png, streams.log
#   STREAMS  stream counts (default "1 2 4 8 16 32")
#   PARTS    any of: gl (GL-memory frames: an uploaded ring, as a decoder's),
#            sysmem (system-memory frames), decoder (nvh264dec, where present)
#            (default "gl sysmem decoder")
#   WINDOW   seconds measured a run, after every stream warmed up (default 3)
#   REPEAT   runs of each case (default 1)
#   CLIP     a 1080p H.264 byte-stream for the decoder part; without one it is
#            encoded (make_clip.sh) where the machine has x264enc or
#            openh264enc, else the part is skipped
#   DECODER_STREAMS  stream counts of the decoder part (default "1 16"): one
#            process of N branches, and N processes
#   PYTHON   the python3 that plots (matplotlib; without it, tables only)
#   EF_BENCH_DECODER  the decoder part's decoder to GL memory (default
#            nvh264dec; e.g. "avdec_h264 ! glupload" to try the part out)
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$build/bench-streams}
mkdir -p "$out"
export GST_GL_WINDOW=${GST_GL_WINDOW:-egl-device}
export GST_PLUGIN_PATH_1_0="$build/gst/plugin"
export GST_REGISTRY_1_0=${GST_REGISTRY_1_0:-/tmp/ef-streams-registry.bin}
bench="$build/tests/bench/bench_streams"
results="$out/streams.jsonl"
log="$out/streams.log"
window=${WINDOW:-3}
streams=${STREAMS:-1 2 4 8 16 32}
parts=${PARTS:-gl sysmem decoder}
repeat=${REPEAT:-1}
cpus=$(nproc)
# The largest stream count at most the CPUs: where the diagnostics run.
probe=1
for n in $streams; do [ "$n" -le "$cpus" ] && probe=$n; done

run() {  # [VAR=VALUE ...] -- bench_streams options
  envs=""
  while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
  shift
  i=0
  while [ $i -lt "$repeat" ]; do
    echo "== $(date +%T) $envs $*" >>"$log"
    # shellcheck disable=SC2086
    env $envs "$bench" --seconds="$window" --json="$results" "$@" >>"$log" 2>&1 ||
      echo "   failed: $envs $*" | tee -a "$log"
    i=$((i + 1))
  done
}

has() { part=$1; case " $parts " in *" $part "*) return 0 ;; esac; return 1; }

if has gl; then
  for n in $streams; do
    run -- --source=gl --chain=efconvert-gl --output=rgb --depth=1 --streams="$n"
    run -- --source=gl --chain=efconvert-gl --output=glrgba --streams="$n"
    run -- --source=gl --chain=stock --output=rgb --streams="$n"
    run -- --source=gl --chain=stock --output=glrgba --streams="$n"
  done
  # What each setting is worth at many streams on one context: either kind
  # of fence (the default is GL sync objects on a GPU, EGL's on a software
  # rasterizer), and GPU timer queries (gpu-timing, which also gives the
  # pass's GPU time).
  for fences in gl egl; do
    run EF_GL_FENCES=$fences -- --source=gl --chain=efconvert-gl --output=rgb --depth=1 \
      --streams="$probe"
  done
  run -- --source=gl --chain=efconvert-gl --output=rgb --depth=1 --gpu-timing=1 --streams="$probe"
  run -- --source=gl --chain=efconvert-gl --output=glrgba --gpu-timing=1 --streams="$probe"
fi

if has sysmem; then
  for n in $streams; do
    run -- --source=sysmem --chain=efconvert-cpu --output=rgb --streams="$n"
    run -- --source=sysmem --chain=efconvert-cpu --output=rgb --n-threads=1 --streams="$n"
    run -- --source=sysmem --chain=stock --output=rgb --streams="$n"
    run -- --source=sysmem --chain=none --streams="$n"
    # The memory's limit in the same run: the bytes moved, no arithmetic.
    run -- --source=sysmem --chain=bandwidth --streams="$n"
  done
  # The issue's setup: one videotestsrc pattern=black teed to every branch
  # (its one thread paints every frame), and that source alone.
  run -- --source=testsrc --chain=efconvert-cpu --output=rgb --streams="$probe"
  run -- --source=testsrc --chain=none --streams="$probe"
fi

if has decoder; then
  decoder=${EF_BENCH_DECODER:-nvh264dec}
  if ! gst-inspect-1.0 "${decoder%% *}" >/dev/null 2>&1; then
    echo "${decoder%% *} not found: decoder part skipped" | tee -a "$log"
  else
    clip=${CLIP:-$root/.clips/clip-1080p-1200.h264}
    [ -s "$clip" ] || sh "$root/tests/bench/make_clip.sh" "$clip" || true
    if [ ! -s "$clip" ]; then
      echo "no H.264 clip (CLIP) and no encoder: decoder part skipped" | tee -a "$log"
    else
      for n in ${DECODER_STREAMS:-1 16}; do
        procs=1
        [ "$n" -gt 1 ] && procs="1 $n"  # one process of n branches, n processes
        for p in $procs; do
          d="--source=decoder --clip=$clip --streams=$n --processes=$p"
          # shellcheck disable=SC2086
          run -- $d --chain=none
          # shellcheck disable=SC2086
          run -- $d --chain=efconvert-gl --output=glrgba
          # shellcheck disable=SC2086
          run -- $d --chain=efconvert-gl --output=rgb --depth=1
          # shellcheck disable=SC2086
          run -- $d --chain=stock --output=rgb
        done
      done
      # Decoders and converters starting at once may each make a GL display,
      # and so a GL context and thread, of their own (the runs above count
      # the contexts); one display set on the pipeline by the application
      # gives them one.
      for n in ${DECODER_STREAMS:-1 16}; do
        [ "$n" -gt 1 ] || continue
        d="--source=decoder --clip=$clip --streams=$n --display=app"
        # shellcheck disable=SC2086
        run -- $d --chain=none
        # shellcheck disable=SC2086
        run -- $d --chain=efconvert-gl --output=rgb --depth=1
      done
    fi
  fi
fi

# PYTHON: a python3 with matplotlib (the table needs none).
${PYTHON:-python3} "$root/tests/bench/plot_streams.py" "$results" "$out/streams.png" |
  tee "$out/streams.md"
