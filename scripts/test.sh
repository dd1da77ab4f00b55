#!/usr/bin/env bash
# The project's test command (README, .ci/run). On a fresh Debian 12 machine it
# installs what is missing, then configures, builds and runs every suite:
#   1. the normal build with -Werror: all tests (core, C ABI, gst-check element tests,
#      the stress suite: EF_STRESS_LONG=N runs its soaks and cycles N times longer);
#   2. ASan + UBSan: all tests but the stress suite (the C ABI fuzz, suite "fuzz", runs
#      here; leaks of system libraries: tests/sanitizers/lsan.supp);
#   3. TSan: the cache, gate and release-queue tests (suite "tsan").
# Exits non-zero on any failure; ends with one "N passed, N failed, N skipped" line.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bash scripts/install-deps.sh

export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d /tmp/ef-xdg.XXXXXX)}
chmod 700 "$XDG_RUNTIME_DIR"
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

setup() {  # dir, options...
  local dir=$1
  shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@" >/dev/null
  fi
  ninja -C "$dir" >/dev/null
}

status=0
run() {  # label, dir, meson test arguments...
  local label=$1 dir=$2
  shift 2
  echo "== $label"
  if ! "${runner[@]}" meson test -C "$dir" --no-rebuild --print-errorlogs "$@"; then
    status=1
  fi
}

runner=()
setup build-ci -Dwerror=true
run "tests" build-ci

setup build-ci-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
  -Dbenchmarks=disabled
run "tests under ASan+UBSan" build-ci-asan --no-suite stress

# TSan's shadow memory needs a fixed layout; newer kernels randomise mmap
# bases too widely for g++ 12's runtime, so run without address randomisation.
setup build-ci-tsan -Dwerror=true -Db_sanitize=thread -Db_lundef=false -Dbenchmarks=disabled
runner=(setarch "$(uname -m)" -R)
run "cache, gate and release-queue tests under TSan" build-ci-tsan --suite tsan
runner=()

python3 "$root/scripts/test_summary.py" build-ci build-ci-asan build-ci-tsan
exit $status
