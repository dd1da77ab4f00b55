#!/usr/bin/env bash
# The project's test command (README, .ci/run). On a fresh Debian 12 machine it
# installs what is missing, then configures, builds and runs every suite:
#   1. the normal build with -Werror: all tests (core, C ABI, gst-check element tests,
#      the stress suite: EF_STRESS_LONG=N runs its soaks and cycles N times longer);
#   2. ASan + UBSan: all tests but the stress suite and the GL converter's runs on
#      the non-default GL APIs (suite "gl-api": the same code; the default API's
#      fragment and compute runs stay); the C ABI fuzz, suite "fuzz", runs here;
#      leaks of system libraries: tests/sanitizers/lsan.supp;
#   3. TSan: the cache, gate, release-queue and CPU worker-pool tests (suite "tsan");
#   4. Debian 13 (GStreamer 1.26, g++ 14): the -Werror build and all tests, in the
#      root scripts/debian13.sh makes and keeps (sanitizers run on the host only).
#   5. the fenced sh blocks of README.md and docs/ as written (scripts/test_readme.py);
#   6. the Debian packages built in the Debian 13 root, installed and run in a clean
#      one (scripts/test_packages.sh).
# Exits non-zero on any failure; ends with one "N passed, N failed, N skipped" line
# that counts every run.
#   --debian13   what the fourth run executes inside the root: build 1 only, in
#                build-ci-deb13, and no summary
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
leg=host
[ "${1:-}" != --debian13 ] || leg=debian13
normal=build-ci
[ $leg = host ] || normal=build-ci-deb13

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
  # Quiet when it builds; the compiler's messages when it does not.
  ninja -C "$dir" >"$dir/ninja.log" || { cat "$dir/ninja.log"; return 1; }
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
setup $normal -Dwerror=true
run "tests" $normal
[ $leg = host ] || exit $status

setup build-ci-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
  -Dbenchmarks=disabled
run "tests under ASan+UBSan" build-ci-asan --no-suite stress --no-suite gl-api

# TSan's shadow memory needs a fixed layout; newer kernels randomise mmap
# bases too widely for g++ 12's runtime, so run without address randomisation.
setup build-ci-tsan -Dwerror=true -Db_sanitize=thread -Db_lundef=false -Dbenchmarks=disabled
runner=(setarch "$(uname -m)" -R)
run "cache, gate, release-queue and CPU pool tests under TSan" build-ci-tsan --suite tsan
runner=()

builds=(build-ci build-ci-asan build-ci-tsan)
if [ "$(. /etc/os-release && echo "$VERSION_CODENAME")" = bookworm ]; then
  echo "== Debian 13: tests"
  # A log left by an earlier run must not stand in for a build that fails now.
  rm -f build-ci-deb13/meson-logs/testlog.json
  start=$SECONDS
  bash scripts/debian13.sh run bash scripts/test.sh --debian13 || status=1
  echo "Debian 13 run: $((SECONDS - start)) s"
  builds+=(build-ci-deb13)
fi

# The documentation's commands as written (scripts/test_readme.py), and the
# Debian packages installed and run in a clean Debian 13 root
# (scripts/test_packages.sh); each step's checks count in the summary.
start=$SECONDS
echo "== commands of README.md and docs/"
/usr/bin/python3 scripts/test_readme.py build-readme || status=1
echo "documentation commands: $((SECONDS - start)) s"
builds+=(build-readme)
if [ "$(. /etc/os-release && echo "$VERSION_CODENAME")" = bookworm ]; then
  start=$SECONDS
  echo "== Debian packages in a clean Debian 13 root"
  bash scripts/test_packages.sh build-pkg-deb13 || status=1
  echo "Debian packages: $((SECONDS - start)) s"
  builds+=(build-pkg-deb13)
fi

python3 "$root/scripts/test_summary.py" "${builds[@]}"
exit $status
