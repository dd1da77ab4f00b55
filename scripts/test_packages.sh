#!/usr/bin/env bash
# ef's Debian packages as a user gets them: built, installed into a clean
# Debian 13 root, and run there with nothing set up. scripts/test.sh calls it.
#
#   bash scripts/test_packages.sh [DIR]     (DIR: default build-pkg-deb13)
#   bash scripts/test_packages.sh --bare-root   only make the bare root below
#
# 1. Build: the tree (git's tracked and untracked, not ignored files) is copied
#    to DIR/src and `dpkg-buildpackage -b -us -uc` builds the packages there,
#    inside the Debian 13 root of scripts/debian13.sh (whose install-deps.sh
#    brings the build dependencies); the .debs land in DIR.
# 2. A bare root: /var/cache/ef-ci/trixie-bare (EF_BARE_ROOT), made once with
#    mmdebstrap from the Debian 13 root's mirror and apt options, and reused.
#    It holds Debian 13's apt and what a user brings to try a plugin
#    (gstreamer1.0-tools, -plugins-base, python3-gi, gcc, pkgconf), nothing
#    of ef's build.
# 3. Each run mounts an overlay over the bare root in a private mount
#    namespace (writes go to a throwaway folder; the root stays as made),
#    installs the packages with `apt-get install --no-install-recommends`
#    (their Depends must bring in the rest; fetched .debs are kept in
#    EF_BARE_ROOT.archives for later runs) and runs there, with an empty
#    environment but PATH: gst-inspect-1.0 on the plugin and each element, a
#    pipeline through efconvert, a C program built with
#    `pkg-config gstreamer-ef-1.0` (tests/install/installed_pc.c), and
#    `from gi.repository import GstEf` in python3.
# 4. DIR/meson-logs/testlog.json gets one line per check in meson's format,
#    so scripts/test_summary.py counts them; exit status 0 only if all pass.
#
# Needs root (mounts, chroot) and mmdebstrap on the host.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bare=${EF_BARE_ROOT:-/var/cache/ef-ci/trixie-bare}
bare=${bare%/}
suite=trixie
# What a user has before installing ef; ef's packages must bring the rest.
user_tools=gstreamer1.0-tools,gstreamer1.0-plugins-base,python3-gi,gcc,libc6-dev,pkgconf

die() {
  echo "test_packages.sh: $*" >&2
  exit 1
}

# ---- inside the private mount namespace: overlay, install, checks ----------
if [ "${1:-}" = __inside ]; then
  dir=$2 log=$3
  work=$(mktemp -d "$dir/overlay.XXXXXX")
  merged=$work/merged
  mkdir -p "$work/upper" "$work/work" "$merged" "$bare.archives/partial"
  mount -t overlay overlay -o "lowerdir=$bare,upperdir=$work/upper,workdir=$work/work" "$merged"
  for d in proc sys dev; do mount --rbind "/$d" "$merged/$d"; done
  mount --bind "$bare.archives" "$merged/var/cache/apt/archives"
  cp -L /etc/resolv.conf "$merged/etc/" 2>/dev/null || true
  mkdir -p "$merged/tmp/ef"
  cp "$dir"/*.deb "$repo/tests/install/installed_pc.c" "$merged/tmp/ef/"

  in_root() {  # command... : as a user runs it, nothing set but PATH
    chroot "$merged" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin "$@"
  }
  result() {  # name, status, output file
    python3 - "$1" "$2" "$3" >>"$log" <<'EOF'
import json, sys
name, status, out = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], errors="replace").read()
print(json.dumps({"name": name, "result": "OK" if status == 0 else "FAIL",
                  "returncode": status, "stdout": out[-20000:]}))
EOF
    if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; cat "$3"; fi
  }
  check() {  # name, command...
    local name=$1 status=0
    shift
    "$@" >"$work/out" 2>&1 || status=$?
    result "packages: $name" $status "$work/out"
    [ $status -eq 0 ] || failed=1
  }
  failed=0

  # debian/rules makes dpkg-gensymbols fail on a symbol the symbols file
  # lacks or lists in vain; any other warning of it is a failure too.
  check "dpkg-gensymbols: no warnings" /bin/sh -c \
    '! grep -n "dpkg-gensymbols: warning" "$1"' sh "$dir/dpkg-buildpackage.log"
  start=$SECONDS
  check "apt-get install ./*.deb" in_root /bin/sh -c \
    'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /tmp/ef/*.deb'
  echo "install: $((SECONDS - start)) s"
  version=$(dpkg-deb -f "$(ls "$dir"/gstreamer1.0-ef_*.deb)" Version)
  check "gst-inspect-1.0 ef (version $version, three elements, origin)" in_root /bin/sh -c '
    out=$(gst-inspect-1.0 ef) || exit 1
    echo "$out"
    echo "$out" | grep -E "^ +Version +'"$version"'\$" >/dev/null || { echo "version is not '"$version"'"; exit 1; }
    for e in efconvert efupload efvkbridge; do
      echo "$out" | grep -q "$e:" || { echo "no $e in the plugin"; exit 1; }
    done
    echo "$out" | grep -E "^ +Origin URL +Unknown package origin\$" >/dev/null ||
      { echo "the origin is not Unknown package origin (GStreamer default without a URL)"; exit 1; }'
  check "gst-inspect-1.0 efconvert" in_root gst-inspect-1.0 efconvert
  check "pipeline videotestsrc ! efconvert ! fakesink" in_root gst-launch-1.0 -q \
    videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=1280,height=720 ! \
    efconvert ! video/x-raw,format=RGB,width=640,height=640 ! fakesink
  check "C program from pkg-config gstreamer-ef-1.0" in_root /bin/sh -c '
    cd /tmp/ef && cc -std=c11 -Wall -Werror -o installed_pc installed_pc.c \
      $(pkg-config --cflags --libs gstreamer-ef-1.0) && ./installed_pc'
  check "python3: from gi.repository import GstEf" in_root python3 -c '
import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstEf", "1.0")
from gi.repository import Gst, GstEf
Gst.init(None)
print("GstEf", GstEf._version, "from", GstEf.__path__, GstEf.IdentityKind.DMA_BUF)'
  exit $failed
fi

# ---- on the host ------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || die "needs root (mounts, chroot)"
dir=${1:-build-pkg-deb13}
cd "$repo"
fail_all() {  # message: every check fails, the reason in each
  local f
  f=$(mktemp)
  echo "$1" >"$f"
  python3 - "$1" "$f" >>"$log" <<'EOF'
import json, sys
print(json.dumps({"name": "packages: " + sys.argv[1], "result": "FAIL",
                  "stdout": open(sys.argv[2]).read()}))
EOF
  rm -f "$f"
  die "$1"
}

make_bare_root() {
  [ -e "$bare/.ef-complete" ] && return 0
  command -v mmdebstrap >/dev/null || die "mmdebstrap is missing (bash scripts/install-deps.sh installs it)"
  # The same mirror and apt options as the Debian 13 root of
  # scripts/debian13.sh (which took them from the host's), from its files.
  local deb13
  deb13=$(bash scripts/debian13.sh path)
  [ -f "$deb13/etc/apt/sources.list" ] || bash scripts/debian13.sh prepare
  echo "test_packages.sh: making the bare Debian 13 root in $bare"
  rm -rf --one-file-system "$bare.new"
  # The package lists stay: each run's apt-get install needs them.
  mmdebstrap --quiet --variant=apt --dpkgopt=force-unsafe-io --skip=cleanup/apt/lists \
    --include="$user_tools" --aptopt="$deb13/etc/apt/apt.conf.d/99mmdebstrap" \
    "$suite" "$bare.new" "$deb13/etc/apt/sources.list"
  touch "$bare.new/.ef-complete"
  rm -rf --one-file-system "$bare"
  mv "$bare.new" "$bare"
}

if [ "$dir" = --bare-root ]; then  # make the bare root only
  exec 9>"$bare.lock"
  flock 9
  make_bare_root
  exit 0
fi

mkdir -p "$dir/meson-logs"
dir=$(cd "$dir" && pwd)
log=$dir/meson-logs/testlog.json
rm -f "$log" "$dir"/*.deb "$dir"/*.buildinfo "$dir"/*.changes

echo "== build the Debian packages (Debian 13 root)"
start=$SECONDS
rm -rf "$dir/src"
mkdir -p "$dir/src"
git ls-files -z --cached --others --exclude-standard |
  (cd "$repo" && xargs -0 cp -p --parents -t "$dir/src" 2>/dev/null || true)
[ -f "$dir/src/debian/control" ] || fail_all "no debian/ in the copied tree"
rel=${dir#"$repo"/}
[ "$rel" != "$dir" ] || die "DIR must be inside the repository (it is mounted in the root)"
# nocheck: the tests run in scripts/test.sh's own builds; noddebs: no -dbgsym
# packages, which nothing here installs.
if ! bash scripts/debian13.sh run env DEB_BUILD_OPTIONS="nocheck noddebs" /bin/sh -c \
  "cd '$rel/src' && dpkg-buildpackage -b -us -uc >'../dpkg-buildpackage.log' 2>&1"; then
  tail -n 40 "$dir/dpkg-buildpackage.log" >&2 || true
  fail_all "dpkg-buildpackage -b -us -uc (Debian 13) failed: $rel/dpkg-buildpackage.log"
fi
ls "$dir"/*.deb
echo "build: $((SECONDS - start)) s"

start=$SECONDS
exec 9>"$bare.lock"
flock 9
make_bare_root
echo "bare root: $((SECONDS - start)) s"

echo "== install and run in a throwaway overlay of $bare"
start=$SECONDS
status=0
unshare --mount --propagation private bash "$0" __inside "$dir" "$log" || status=$?
rm -rf --one-file-system "$dir"/overlay.*
echo "install and checks: $((SECONDS - start)) s"
exit $status
