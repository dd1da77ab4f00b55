#!/usr/bin/env bash
# The project's test command (README, .ci/run). On a fresh Debian 12 machine it
# installs what is missing, then configures, builds and runs every suite, in legs:
#   1. the normal build with -Werror and GST_DISABLE_DEPRECATED (as every build
#      here): all tests (core, C ABI, gst-check element tests, the stress suite:
#      EF_STRESS_LONG=N runs its soaks and cycles N times longer);
#   2. ASan + UBSan: all tests but the stress suite and the GL converter's runs on
#      the non-default GL APIs (suite "gl-api": the same code; the default API's
#      fragment and compute runs stay); the C ABI fuzz, suite "fuzz", runs here;
#      leaks of system libraries: tests/sanitizers/lsan.supp; the widest pixel
#      sweeps take one case in n (tests/gst/sanitized.hpp);
#   3. TSan: the cache, gate, release-queue and CPU worker-pool tests (suite "tsan"),
#      only their programs built;
#   4. Debian 13 (trixie: GStreamer 1.26, g++ 14) and
#   5. Debian forky (testing: GStreamer 1.28, g++ 16): the -Werror build and all
#      tests, each in the root scripts/debian-root.sh makes and keeps for its suite
#      (sanitizers run on the host only; Debian 13 builds no benchmarks; the
#      widest CPU pixel sweeps take one case in n, as under the sanitizers);
#   6. the fenced sh blocks of README.md and docs/ as written (scripts/test_readme.py);
#   7. the Debian packages built in the Debian 13 root, installed and run in a clean
#      one (scripts/test_packages.sh).
# A leg that cannot run its tests (a build error, a root whose packages cannot be
# installed) says why and counts as a failure; the other legs still run. Each leg
# prints its wall time. Exits non-zero on any failure; ends with one
# "N passed, N failed, N skipped" line that counts every leg.
#   --root SUITE   what legs 4 and 5 execute inside their root: build 1 only, in
#                  the suite's build folder, and no summary (--debian13: --root trixie)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
inside=""
case "${1:-}" in
  --root) inside=${2:?--root needs a suite} ;;
  --debian13) inside=trixie ;;
esac

# The suites tested in roots beside a Debian 12 host, their build folders and names.
suites=(trixie forky)
build_of() {
  case $1 in
    trixie) echo build-ci-deb13 ;;
    *) echo "build-ci-$1" ;;
  esac
}
label_of() {
  case $1 in
    trixie) echo "Debian 13 (GStreamer 1.26)" ;;
    forky) echo "Debian forky (GStreamer 1.28)" ;;
    *) echo "Debian $1" ;;
  esac
}

bash scripts/install-deps.sh

# ccache's folder beside the roots (/var/cache/ef-ci), which later runs on this
# machine reuse: each build then recompiles only what changed. Inside a root
# the default, the root's own /root/.cache/ccache, persists with the root.
if [ -z "$inside" ]; then
  export CCACHE_DIR=${CCACHE_DIR:-/var/cache/ef-ci/ccache}
  mkdir -p "$CCACHE_DIR"
fi
# A clone elsewhere hits the same entries: paths under the checkout are taken
# relative to it, and the build folder's path, which ccache hashes into an
# object with debug information by default, is left out (only the debug
# information's compilation folder could differ).
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1

export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d /tmp/ef-xdg.XXXXXX)}
chmod 700 "$XDG_RUNTIME_DIR"
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

# The programs of one suite's tests, as ninja targets (paths in the build
# folder): a leg that runs one suite builds those alone.
suite_programs() {  # build folder, suite
  meson introspect --tests "$1" | python3 -c '
import json, os, sys
build, suite = os.path.realpath(sys.argv[1]), "ef:" + sys.argv[2]
for test in json.load(sys.stdin):
    program = os.path.realpath(test["cmd"][0])
    if suite in test["suite"] and program.startswith(build + os.sep):
        print(os.path.relpath(program, build))' "$1" "$2"
}

only_suite=""  # set: setup builds that suite's programs alone
setup() {  # dir, options...
  local dir=$1 targets=()
  shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null || return 1
  else
    meson setup "$dir" "$@" >/dev/null || return 1
  fi
  if [ -n "$only_suite" ]; then
    mapfile -t targets < <(suite_programs "$dir" "$only_suite")
    [ ${#targets[@]} -gt 0 ] || { echo "no tests in suite $only_suite" >&2; return 1; }
  fi
  # Quiet when it builds; the compiler's messages when it does not.
  ninja -C "$dir" "${targets[@]}" >"$dir/ninja.log" || { cat "$dir/ninja.log"; return 1; }
}

status=0
times=()
# A leg that could not run its tests: why, kept for the summary
# (scripts/test_summary.py counts it as a failure).
leg_failed() {  # build folder, reason
  mkdir -p "$1"
  echo "$2" >"$1/leg-failed"
  echo "== FAILED: $2" >&2
  status=1
}

# A log or a failure left by an earlier run must not stand in for this one.
fresh() {  # build folder
  rm -f "$1/leg-failed" "$1/meson-logs/testlog.json"
}

leg() {  # label, build folder, setup options..., --, meson test arguments...
  local label=$1 dir=$2 start=$SECONDS options=()
  shift 2
  while [ "$1" != -- ]; do
    options+=("$1")
    shift
  done
  shift
  echo "== $label"
  fresh "$dir"
  if setup "$dir" "${options[@]}"; then
    "${runner[@]}" meson test -C "$dir" --no-rebuild --print-errorlogs "$@" || status=1
  else
    leg_failed "$dir" "$label: the build failed (the compiler's messages are above)"
  fi
  times+=("$label: $((SECONDS - start)) s")
  echo "== $label: $((SECONDS - start)) s"
}

# Legs 4 and 5: the root of `suite` made or brought up to date, then this
# script inside it with --root.
root_leg() {  # suite
  local suite=$1 dir label start=$SECONDS
  dir=$(build_of "$suite")
  label=$(label_of "$suite")
  echo "== $label: its root"
  fresh "$dir"
  if ! bash scripts/debian-root.sh "$suite" prepare; then
    leg_failed "$dir" "$label: its root could not be made or its packages installed (the messages above say which and why)"
    times+=("$label: $((SECONDS - start)) s, root not ready")
    return
  fi
  local ready=$SECONDS
  bash scripts/debian-root.sh "$suite" run bash scripts/test.sh --root "$suite" || status=1
  times+=("$label: $((SECONDS - start)) s ($((ready - start)) s the root, $((SECONDS - ready)) s build and tests)")
}

# Every build: -Werror, and GStreamer's deprecated API hidden, so that a call
# to it fails the build on the GStreamer that deprecates it (the forky leg
# sees 1.28's deprecations) and ef carries the new name under GST_CHECK_VERSION.
# -g1 after meson's -g: line tables only (a sanitizer's or a crash's stack
# still names file and line), no variable information, which was a third to
# nearly half of compiling the larger files (ASan+UBSan at -O2 measured on
# this project: gstefconvert.cpp 17 -> 10 s, cpu_tensor.cpp 22 -> 17 s).
strict=(-Dwerror=true "-Dc_args=-DGST_DISABLE_DEPRECATED -g1"
  "-Dcpp_args=-DGST_DISABLE_DEPRECATED -g1")

runner=()
if [ -n "$inside" ]; then
  # The benchmarks are built on the host and in forky (the newest compiler's
  # warnings); Debian 13's leg leaves them out, for time.
  extra=()
  [ "$inside" != trixie ] || extra=(-Dbenchmarks=disabled)
  # The widest CPU pixel sweeps sampled (tests/gst/sanitized.hpp): these legs
  # are for GStreamer 1.26 / 1.28 and their compilers; the host runs them whole.
  export EF_TEST_SWEEPS=sample
  leg "tests ($(label_of "$inside"))" "$(build_of "$inside")" "${strict[@]}" "${extra[@]}" --
  exit $status
fi

leg "tests" build-ci "${strict[@]}" --
leg "tests under ASan+UBSan" build-ci-asan "${strict[@]}" -Db_sanitize=address,undefined \
  -Db_lundef=false -Dbenchmarks=disabled -- --no-suite stress --no-suite gl-api

# TSan's shadow memory needs a fixed layout; newer kernels randomise mmap
# bases too widely for g++ 12's runtime, so run without address randomisation.
# Only the suite's programs are built: the rest never runs here.
runner=(setarch "$(uname -m)" -R)
only_suite=tsan
leg "cache, gate, release-queue and CPU pool tests under TSan" build-ci-tsan "${strict[@]}" \
  -Db_sanitize=thread -Db_lundef=false -Dbenchmarks=disabled -- --suite tsan
runner=()
only_suite=""

builds=(build-ci build-ci-asan build-ci-tsan)
if [ "$(. /etc/os-release && echo "$VERSION_CODENAME")" = bookworm ]; then
  for suite in "${suites[@]}"; do
    root_leg "$suite"
    builds+=("$(build_of "$suite")")
  done
fi

# The documentation's commands as written (scripts/test_readme.py), and the
# Debian packages installed and run in a clean Debian 13 root
# (scripts/test_packages.sh); each step's checks count in the summary.
start=$SECONDS
echo "== commands of README.md and docs/"
/usr/bin/python3 scripts/test_readme.py build-readme || status=1
times+=("documentation commands: $((SECONDS - start)) s")
builds+=(build-readme)
if [ "$(. /etc/os-release && echo "$VERSION_CODENAME")" = bookworm ]; then
  start=$SECONDS
  echo "== Debian packages in a clean Debian 13 root"
  bash scripts/test_packages.sh build-pkg-deb13 || status=1
  times+=("Debian packages: $((SECONDS - start)) s")
  builds+=(build-pkg-deb13)
fi

echo "== wall time"
printf '%s\n' "${times[@]}" "all legs: $SECONDS s"
python3 "$root/scripts/test_summary.py" "${builds[@]}"
exit $status
