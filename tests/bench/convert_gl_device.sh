#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench_convert_gl on a machine with a GPU, desktop GL and GLES, and the
# decoder example of docs/BENCHMARKS.md ("efconvert on GL memory") where
# nvh264dec is there. Results go to $OUT (default BUILD_DIR/bench).
#
#   tests/bench/convert_gl_device.sh [BUILD_DIR]
# BENCH_ARGS adds Google Benchmark options (e.g. --benchmark_filter=RGB/);
# APIS the GST_GL_API values to run (default: opengl3 opengl gles2);
# DECODER=0 skips the decoder example. The run includes the tensor outputs
# (F32-NCHW, I8-NHWC, and GL-F32-NCHW, GL-I8-NHWC as GL buffers) beside RGB:
#   APIS=opengl3 DECODER=0 BENCH_ARGS='--benchmark_filter=/(RGB|F32-NCHW|I8-NHWC|GL-F32-NCHW|GL-I8-NHWC)/' \
#     tests/bench/convert_gl_device.sh build
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$build/bench}
mkdir -p "$out"
export GST_GL_WINDOW=${GST_GL_WINDOW:-egl-device}
export GST_PLUGIN_PATH_1_0="$build/gst/plugin"
export GST_REGISTRY_1_0="$out/registry.bin"
bench="$build/tests/bench/bench_convert_gl"
args="--benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json ${BENCH_ARGS:-}"

for api in ${APIS:-opengl3 opengl gles2}; do
  GST_GL_API=$api "$bench" $args --benchmark_out="$out/convert_gl-$api.json" \
    2>&1 | tee "$out/convert_gl-$api.txt"
  python3 "$root/tests/bench/plot_convert_gl.py" "$out/convert_gl-$api.json" \
    "$out/convert_gl-$api.png" | tee "$out/convert_gl-$api.md" || true
done

[ "${DECODER:-1}" = 0 ] && exit 0

# With a hardware decoder: whole pipelines, 300 frames of 1080p H.264
# decoded to GL memory; the time per frame of each, decode alone first.
if ! gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
  echo "nvh264dec not found: decoder example skipped" | tee "$out/decoder.txt"
  exit 0
fi
# CLIP names a 1080p H.264 byte-stream made elsewhere (a GPU machine
# without NVENC or a software encoder has none to make one).
clip=${CLIP:-$out/clip-1080p.h264}
for enc in nvh264enc x264enc openh264enc; do
  [ -s "$clip" ] && break
  if gst-inspect-1.0 $enc >/dev/null 2>&1; then
    gst-launch-1.0 -q videotestsrc pattern=smpte horizontal-speed=37 num-buffers=300 ! \
      video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! $enc ! h264parse ! \
      video/x-h264,stream-format=byte-stream ! filesink location="$clip" && break
  fi
done
[ -s "$clip" ] || { echo "no H.264 encoder: decoder example skipped" | tee "$out/decoder.txt"; exit 0; }
decode="filesrc location=$clip ! h264parse ! nvh264dec"
rgb="video/x-raw,format=RGB,width=640,height=640,pixel-aspect-ratio=1/1"
glrgba="video/x-raw(memory:GLMemory),format=RGBA,width=640,height=640,pixel-aspect-ratio=1/1"
: >"$out/decoder.txt"
run() {
  start=$(date +%s%N)
  gst-launch-1.0 -q -m $2 ! fakesink sync=false >"$out/decoder-$1.log" 2>&1
  end=$(date +%s%N)
  echo "$1: $(( (end - start) / 300000 )) us per frame (300 frames, start-up included)" |
    tee -a "$out/decoder.txt"
}
run decode "$decode"
run efconvert-rgb "$decode ! efconvert backend=gl letterbox=false readback-depth=1 ! $rgb"
run efconvert-rgb-fragment "$decode ! efconvert backend=gl gl-shader=fragment letterbox=false readback-depth=1 ! $rgb"
run efconvert-rgb-depth0 "$decode ! efconvert backend=gl letterbox=false ! $rgb"
run efconvert-glrgba "$decode ! efconvert backend=gl letterbox=false ! $glrgba"
run efconvert-glrgba-fragment "$decode ! efconvert backend=gl gl-shader=fragment letterbox=false ! $glrgba"
run glchain-rgb "$decode ! glcolorconvert ! glcolorscale ! $glrgba ! gldownload ! videoconvert ! $rgb"
run glchain-glrgba "$decode ! glcolorconvert ! glcolorscale ! $glrgba"
