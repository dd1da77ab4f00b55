#!/usr/bin/env bash
# The README's first command. On a fresh Debian 12 machine, GPU or not: installs
# what is missing (scripts/install-deps.sh), builds in build/, then runs a real
# pipeline in which a producer's ring of memfd-backed 1080p NV12 frames goes
# through efupload, and the same frames through stock glupload, and prints what
# each did: frames, zero-copy imports, cache hits and misses, copies, CPU time
# (examples/memfd-ring). Once the packages are installed it ends in well under
# two minutes: a build from scratch takes about 20 s on 2 cores, the runs 2 s.
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
# Quiet unless it fails: then all of it.
if ! log=$(ninja -C "$build" 2>&1); then
  echo "$log" >&2
  exit 1
fi
if [ ! -x "$demo" ]; then
  echo "$demo was not built: it needs GStreamer's GL library with EGL" \
    "(see 'meson configure $build' and meson-logs/meson-log.txt)" >&2
  exit 1
fi

echo "== running $demo $*"
exec "$demo" "$@"
