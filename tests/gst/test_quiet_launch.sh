#!/bin/sh
# A working system-memory pipeline says nothing beyond gst-launch's own
# progress lines, as videoconvert's does: efconvert opens no GL display
# (whose opening on a headless machine prints libwayland's
# "XDG_RUNTIME_DIR is invalid", and whose announcement gst-launch prints as
# "Got context"), with XDG_RUNTIME_DIR unset and no GST_GL_WINDOW, as on a
# fresh server. On a machine with a GPU device backend=auto may open GL to
# look at it (gst/plugin/efconvert/gpu_device.hpp): the renderer is then
# said to be software, which stands for a machine without one.
set -u
launch=$1
if [ "${2:-none}" != none ]; then
  echo "SKIP: gst-launch-1.0 cannot load a plugin built with -Db_sanitize=$2 (not instrumented); the -Werror leg runs this test"
  exit 77
fi
unset XDG_RUNTIME_DIR GST_GL_WINDOW
if [ -d /dev/dri ] || [ -e /dev/nvidia0 ]; then
  export EF_GL_RENDERER_KIND=software
  echo "a GPU device is here: EF_GL_RENDERER_KIND=software"
fi
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
status=0
for props in "" "backend=cpu"; do
  for caps in "video/x-raw,format=RGB,width=32,height=32" \
    "other/tensors,types=float32,dimensions=32:32:3:1"; do
    # shellcheck disable=SC2086  # props: words of the pipeline
    "$launch" videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=64,height=48 ! \
      efconvert $props ! "$caps" ! fakesink >"$out" 2>"$err"
    rc=$?
    # gst-launch's own lines (stdout): progress, the clock, EOS, the time.
    others=$(grep -v -e '^Setting pipeline to ' -e '^Pipeline is ' -e '^Redistribute latency' \
      -e '^New clock: ' -e '^Got EOS from element ' -e '^Execution ended after ' \
      -e '^Freeing pipeline' "$out")
    if [ "$rc" -ne 0 ] || [ -s "$err" ] || [ -n "$others" ]; then
      echo "FAIL: efconvert $props ! $caps: rc $rc"
      echo "stderr:"; cat "$err"
      echo "other stdout lines:"; echo "$others"
      status=1
    else
      echo "ok: efconvert $props ! $caps"
    fi
  done
done
exit $status
