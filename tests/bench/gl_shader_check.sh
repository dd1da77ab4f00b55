#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# efconvert's GL pass as a compute shader against the fragment shader on
# this machine's GPU: the same frames (a zone plate and a colour pattern,
# odd sizes, letterbox edges inside texels, a fill of differing bytes)
# through gl-shader=fragment and gl-shader=compute must give the same
# bytes. Prints one line per case and MATCH / MISMATCH; exits 1 on a
# mismatch. The test suite checks the same on llvmpipe; this is for GPUs.
#
#   tests/bench/gl_shader_check.sh   (GST_PLUGIN_PATH_1_0 set to the build)
set -u
out=${OUT:-/tmp}/gl_shader_check
mkdir -p "$out"
export GST_GL_WINDOW=${GST_GL_WINDOW:-egl-device}
status=0
check() {
  name=$1 src=$2 caps=$3
  for shader in fragment compute; do
    gst-launch-1.0 -q $src ! glupload ! efconvert backend=gl gl-shader=$shader \
      fill-color=0xff1ec85a ! $caps ! filesink location="$out/$name-$shader.raw" \
      >"$out/$name-$shader.log" 2>&1 || echo "$name $shader: pipeline failed"
  done
  a=$(md5sum <"$out/$name-fragment.raw") b=$(md5sum <"$out/$name-compute.raw")
  size=$(stat -c %s "$out/$name-compute.raw")
  if [ "$a" = "$b" ] && [ "$size" -gt 0 ]; then
    echo "$name: MATCH ($size bytes)"
  else
    echo "$name: MISMATCH ($size bytes)"
    status=1
  fi
}
zone="videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=4"
bars="videotestsrc pattern=smpte num-buffers=4"
check nv12-rgb-640 "$zone ! video/x-raw,format=NV12,width=1920,height=1080" \
  "video/x-raw,format=RGB,width=640,height=640"
check nv12-rgb-300-letterbox "$bars ! video/x-raw,format=NV12,width=180,height=320" \
  "video/x-raw,format=RGB,width=300,height=300"
check i420-rgbp-odd "$zone ! video/x-raw,format=I420,width=1279,height=719" \
  "video/x-raw,format=RGBP,width=333,height=201"
check nv12-bgrx-up "$bars ! video/x-raw,format=NV12,width=160,height=90" \
  "video/x-raw,format=BGRx,width=641,height=359"
check rgba-gray8 "$zone ! video/x-raw,format=RGBA,width=640,height=480" \
  "video/x-raw,format=GRAY8,width=224,height=224"
check nv12-glrgba "$zone ! video/x-raw,format=NV12,width=1920,height=1080" \
  "video/x-raw(memory:GLMemory),format=RGBA,width=640,height=640 ! gldownload"
exit $status
