#!/usr/bin/env bash
# The README's first command. On a fresh Debian 12 machine, GPU or not: installs
# what is missing (scripts/install-deps.sh), builds in build/, then runs a real
# pipeline in which a producer's ring of memfd-backed 1080p NV12 frames goes
# through efupload, and the same frames through stock glupload, and prints what
# each did: frames, zero-copy imports, cache hits and misses, copies, CPU time
# (examples/memfd-ring). It builds only the demo, the plugin and the typelib the
# README's Python example needs (110 s of CPU time from a fresh clone: about a
# minute on 2 idle cores, 4.5 to 6 minutes while other builds load them; README
# says how it was measured); the runs take a second.
#
# Usage: scripts/demo.sh [--frames N] [--size WIDTHxHEIGHT]   (passed to the demo)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
demo=$build/examples/memfd-ring/memfd_ring

bash scripts/install-deps.sh

echo "== building in $build/"
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" >/dev/null
fi
# The demo and the plugin it loads (gst/plugin's library "gstef"), and the
# typelib the README's Python example needs where introspection is built;
# quiet unless it fails, then all of it.
targets=(memfd_ring gstef)
if meson introspect --targets "$build" | grep -q '"name": "GstEf-1.0.typelib"'; then
  targets+=(GstEf-1.0.typelib)
fi
if ! log=$(meson compile -C "$build" "${targets[@]}" 2>&1); then
  echo "$log" >&2
  echo "the demo was not built: it needs GStreamer's GL library with EGL" \
    "($build/meson-logs/meson-log.txt says what was found)" >&2
  exit 1
fi

echo "== running $demo $*"
exec "$demo" "$@"
