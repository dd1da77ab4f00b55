#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Many streams on a GPU machine (the lent H200), in one call: the machine
# described, then streams_bench.sh over 1-32 streams (GL-memory frames,
# system-memory frames, and nvh264dec decoding a 1080p H.264 clip in one
# process and in N processes) with nvidia-smi's utilisation sampled
# beside it. Results under $OUT (what comes back from the device is at most
# 8 files): streams.jsonl, streams.md (the tables), streams.log (every run,
# timestamped), machine.txt, dmon.txt (GPU SM/memory/decoder load a second,
# timestamped), streams.png where the machine has matplotlib (else plot the
# JSON lines here: plot_streams.py streams.jsonl streams.png).
#
# Carry the build folder and .gl/ (../../shared/tools/device-gst-prepare.sh),
# and a clip for the decoder part, then run from the repository root:
#   . .gl/env.sh && sh tests/bench/streams_device.sh build
# The clip: CLIP=PATH, or .clips/clip-1080p-1200.h264 where carried (made
# here by tests/bench/make_clip.sh, about 15 MB: name .clips in the carry
# list), else the decoder part is skipped.
# Some 6 minutes with the defaults; PARTS, STREAMS, WINDOW, REPEAT and
# DECODER_STREAMS as streams_bench.sh takes them split or shorten it.
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$build/bench-streams}
mkdir -p "$out"
export OUT="$out" GST_REGISTRY_1_0=/tmp/ef-streams-registry.bin
export WINDOW=${WINDOW:-2}
[ -n "${CLIP:-}" ] || [ ! -s "$root/.clips/clip-1080p-1200.h264" ] ||
  export CLIP="$root/.clips/clip-1080p-1200.h264"

{
  echo "date: $(date -u +%FT%TZ)"
  echo "cpus: $(nproc)"
  grep -m1 'model name' /proc/cpuinfo || true
  nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"
  nvidia-smi --query-gpu=driver_version,clocks.max.sm,memory.total --format=csv 2>/dev/null || true
  gst-launch-1.0 --version | head -1
  echo "nvh264dec: $(gst-inspect-1.0 nvh264dec >/dev/null 2>&1 && echo yes || echo no)"
  echo "clip: ${CLIP:-none}"
} >"$out/machine.txt" 2>&1

dmon=""
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi dmon -s u -o T >"$out/dmon.txt" 2>&1 &
  dmon=$!
fi
status=0
sh "$root/tests/bench/streams_bench.sh" "$build" || status=$?
[ -z "$dmon" ] || kill "$dmon" 2>/dev/null || true
exit $status
