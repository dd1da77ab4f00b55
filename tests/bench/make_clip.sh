#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The decoder benchmarks' clip: 1200 frames (40 s) of 1080p30 H.264 at about
# 3 Mb/s, a byte-stream of a scrolling videotestsrc pattern, keyframes every
# 60 frames, encoded with x264enc (ultrafast), else openh264enc. A GPU
# machine without an encoder (the lent H200: no NVENC, no software encoder
# carried) decodes a clip made here and carried there.
#
#   tests/bench/make_clip.sh [OUT.h264] [FRAMES]
set -eu
clip=${1:-.clips/clip-1080p-1200.h264}
frames=${2:-1200}
mkdir -p "$(dirname "$clip")"
if gst-inspect-1.0 x264enc >/dev/null 2>&1; then
  enc="x264enc speed-preset=ultrafast bitrate=3000 key-int-max=60"
elif gst-inspect-1.0 openh264enc >/dev/null 2>&1; then
  enc="openh264enc bitrate=3000000 gop-size=60 complexity=low"
else
  echo "make_clip.sh: neither x264enc nor openh264enc here" >&2
  exit 1
fi
# shellcheck disable=SC2086
gst-launch-1.0 -q videotestsrc pattern=smpte horizontal-speed=37 num-buffers="$frames" ! \
  video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! $enc ! h264parse ! \
  video/x-h264,stream-format=byte-stream ! filesink location="$clip"
echo "$clip: $(wc -c <"$clip") bytes, $frames frames"
