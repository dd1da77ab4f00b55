#!/usr/bin/env bash
# Whether efconvert backend=auto runs the faster backend, in each of the
# configurations where the two were measured against each other (1080p NV12
# -> 640x640): system memory in and out (RGB), GL memory in -> GL memory out
# (RGBA), GL memory in -> system-memory RGB out. For each configuration it
# times backend=cpu, backend=gl and backend=auto and prints the wall-clock
# time per frame, the backend each one ran and why (efconvert's log), then
# MATCH when auto ran the faster of the two, else MISMATCH (exit status 1).
#
# A frame's time is (T(long) - T(short)) / (long - short frames), T the wall
# time of a whole gst-launch run: start-up (GL context, negotiation), the
# first imports and auto's trial frames happen in both runs and cancel. The
# source is one videotestsrc frame repeated by imagefreeze (system memory;
# glupload makes GL memory of it, the same for every backend); its cost is
# in every row alike; the last configuration's source is gltestsrc's frames
# converted to NV12 on the GPU (GL memory with no system-memory copy, as a
# hardware decoder makes). Each time is the median of REPS runs.
#
# Usage: tests/bench/auto_check.sh [BUILD_DIR]   (default: the repository's build/)
# FRAMES (default 600) frames between the two runs, REPS (default 3); with
# OUT set, the table is also written to $OUT/auto_check.txt.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
frames=${FRAMES:-600}
reps=${REPS:-3}
short=60
export GST_PLUGIN_PATH_1_0="$build/gst/plugin${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
export GST_REGISTRY_1_0="$build/auto-check-registry.bin"
export GST_GL_WINDOW=${GST_GL_WINDOW:-egl-device}
export GST_DEBUG_NO_COLOR=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT

source_of() {  # FRAMES MEMORY
  if [ "$2" = gpu ]; then
    # Frames the GPU draws, as a hardware decoder's are: GL memory with no
    # system-memory copy behind it (glupload's keeps its upload source, which
    # the CPU backend then reads without a download).
    echo "gltestsrc num-buffers=$1 pattern=smpte ! video/x-raw(memory:GLMemory),format=RGBA,width=1920,height=1080,framerate=30/1 ! glcolorconvert ! video/x-raw(memory:GLMemory),format=NV12"
    return
  fi
  local s="videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=NV12,width=1920,"
  s+="height=1080,framerate=30/1 ! imagefreeze num-buffers=$1"
  [ "$2" = gl ] && s+=" ! glupload"
  echo "$s"
}

# Wall time in ns of one run of SOURCE ! efconvert backend=B ! OUTCAPS ! fakesink.
run_ns() {  # FRAMES IN_MEMORY BACKEND OUTCAPS
  local start end
  start=$(date +%s%N)
  # shellcheck disable=SC2046
  GST_DEBUG=efconvert:4 gst-launch-1.0 -q $(source_of "$1" "$2") ! efconvert backend="$3" \
    ! "$4" ! fakesink sync=false >/dev/null 2>"$log" || { echo -1; return; }
  end=$(date +%s%N)
  echo $((end - start))
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# "TIME_US BACKEND REASON" of one backend in one configuration.
measure() {  # IN_MEMORY BACKEND OUTCAPS
  local diffs=() a b
  for _ in $(seq "$reps"); do
    a=$(run_ns "$short" "$1" "$2" "$3")
    b=$(run_ns $((short + frames)) "$1" "$2" "$3")
    if [ "$a" -lt 0 ] || [ "$b" -lt 0 ]; then
      echo "- failed $(grep -m1 -i 'error' "$log" | cut -c1-160)"
      return
    fi
    diffs+=($(((b - a) / frames)))
  done
  local ns
  ns=$(printf '%s\n' "${diffs[@]}" | median)
  local line
  line=$(grep -E 'backend (cpu|gl): ' "$log" | tail -1 | sed -E 's/.*backend (cpu|gl): /\1 /')
  printf '%d %s\n' $((ns / 1000)) "${line:-? (no log line)}"
}

configs=(
  "system-memory-in-out system video/x-raw,format=RGB,width=640,height=640"
  "gl-in-gl-out gl video/x-raw(memory:GLMemory),format=RGBA,width=640,height=640"
  "gl-in-system-rgb-out gl video/x-raw,format=RGB,width=640,height=640"
  "gpu-drawn-in-system-rgb-out gpu video/x-raw,format=RGB,width=640,height=640"
)

status=0
report=$(
  echo "efconvert backend=auto against cpu and gl, 1080p NV12 -> 640x640, $frames frames, median of $reps"
  echo "GL: $(GST_DEBUG=glcontext:4 gst-launch-1.0 -q videotestsrc num-buffers=1 ! glupload ! fakesink 2>&1 | grep -o 'GL_RENDERER: .*' | head -1)"
  echo "cores: $(nproc)"
  for entry in "${configs[@]}"; do
    read -r name memory caps <<<"$entry"
    echo "== $name"
    declare -A us=()
    for backend in cpu gl auto; do
      if [ "$backend" = cpu ] && [[ "$caps" == *GLMemory* ]]; then
        echo "  cpu   n/a (cannot make GL memory)"
        continue
      fi
      read -r t used reason <<<"$(measure "$memory" "$backend" "$caps")"
      printf '  %-5s %6s us/frame  in use: %-4s %s\n' "$backend" "$t" "$used" "$reason"
      us[$backend]=$t
      [ "$backend" = auto ] && auto_used=$used
    done
    faster=gl
    if [ -n "${us[cpu]:-}" ] && [ "${us[cpu]}" != - ] && [ "${us[gl]}" != - ] &&
      [ "${us[cpu]}" -lt "${us[gl]}" ]; then
      faster=cpu
    fi
    if [ "${auto_used:-}" = "$faster" ]; then
      echo "  MATCH: auto ran $auto_used, the faster"
    else
      echo "  MISMATCH: auto ran ${auto_used:-nothing}, the faster is $faster"
    fi
    unset us
  done
)
echo "$report"
grep -q MISMATCH <<<"$report" && status=1
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  echo "$report" >"$OUT/auto_check.txt"
fi
exit $status
