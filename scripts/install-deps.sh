#!/usr/bin/env bash
# Installs every package ef needs to build, test and benchmark on Debian 12
# (bookworm), Debian 13 (trixie) and Debian testing (forky). Idempotent: when
# everything is present it changes nothing and prints nothing.
#
# On Debian 12, Mesa comes from the bookworm-backports suite: stock Mesa 22.3 has
# no EGL_EXT_image_dma_buf_import on llvmpipe and no VK_EXT_external_memory_dma_buf
# on lavapipe, so without it the zero-copy import paths could not run headless.
# Debian 13's own Mesa (25.0) and forky's (26) have both. On Debian 12 the host
# also gets mmdebstrap, which scripts/debian-root.sh uses to make the Debian 13
# and forky test roots.
#
# Names that differ between suites are not guessed: each group in `renamed`
# lists the names a package has had, and the one already installed, else the
# first that apt has a candidate for (apt-cache policy), is taken. The
# sanitizer runtimes (libasan*, libubsan*, libtsan*) are named nowhere: the
# suite's g++ depends on those of its own version (through libgcc-N-dev).
#
# A package apt cannot install (forky is a moving suite) is reported by name
# with apt's own reason, and the script exits 2.
set -euo pipefail

. /etc/os-release

packages=(
  # build (meson compiles through ccache when it is there: scripts/test.sh
  # keeps its cache beside the Debian roots, so a later run recompiles only
  # what changed)
  g++ meson ninja-build clang-format python3 ccache
  # core tests and benchmarks
  check libbenchmark-dev
  # GStreamer and the stock elements we compare against
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-gl
  # 10-bit decodes in the tests: avdec_h265 for x265enc's Main10 (plugins-bad)
  gstreamer1.0-libav
  # GL, EGL and Vulkan
  libegl-dev libgles-dev libvulkan-dev vulkan-validationlayers glslang-tools
  # CPU conversion and scaling
  libyuv-dev
  # DLPack's header (libgstef-1.0's tensor views hand tensors to models)
  libdlpack-dev
  # efconvert's CUDA kernel, compiled to PTX at build time (no CUDA toolkit:
  # Debian's is not in main; the NVIDIA driver is only needed at run time)
  clang
  # GObject introspection of libgstef-1.0 and the Python examples; numpy for
  # examples/python/tensor_numpy.py (a tensor into numpy, on every suite)
  gobject-introspection python3-gi gir1.2-gst-plugins-base-1.0 python3-numpy
  # the reference manual (meson option doc) and the Debian packages (debian/)
  gi-docgen debhelper dpkg-dev
  # plots
  python3-matplotlib
)
# One package under the names it has had, newest first.
renamed=(
  # pkg-config is pkgconf's transitional package since Debian 12
  "pkgconf pkg-config"
  # gobject-introspection-1.0.pc: libgirepository1.0-dev became a compatibility
  # package of libgirepository-1.0-dev in Debian 13
  "libgirepository-1.0-dev libgirepository1.0-dev"
)
mesa=(libegl-mesa0 libgl1-mesa-dri libglx-mesa0 libgbm1 mesa-vulkan-drivers)
backports=()
if [ "$VERSION_CODENAME" = bookworm ]; then
  # libglapi-mesa is its own package only up to Debian 12.
  backports=("${mesa[@]}" libglapi-mesa)
  packages+=(mmdebstrap)
else
  packages+=("${mesa[@]}")
fi

# Inference, Debian 13 and later only (GStreamer 1.26+; Debian 12 has none of
# it and the tests/inference suite skips there). onnxinference, the tensor
# decoders and objectdetectionoverlay already come with gstreamer1.0-plugins-bad.
#   python3-onnx, python3-onnxruntime: the tests build their model at test time
#     and check it against numpy before GStreamer runs it;
#   libgstreamer-plugins-bad1.0-dev: the only package with
#     gstreamer-analytics-1.0.pc (GstAnalyticsRelationMeta for libgstef-1.0's
#     gstefanalytics); it pulls OpenCV's headers in by a hard dependency;
#     and efconvert's GstTensorMeta;
#   gir1.2-gst-plugins-bad-1.0: GstAnalytics for the Python example.
if [ "$VERSION_CODENAME" != bookworm ]; then
  packages+=(python3-onnx python3-onnxruntime libgstreamer-plugins-bad1.0-dev
    gir1.2-gst-plugins-bad-1.0)
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
suite_name="Debian ${VERSION_CODENAME:-$VERSION_ID}"

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

has_candidate() {
  local candidate
  candidate=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

updated=0
update() {
  [ $updated -eq 0 ] || return 0
  $sudo apt-get update -qq
  updated=1
}

# The name of a renamed group to use, in $picked: one installed, else the
# first apt can install (asking after an update when the lists know none).
pick() {
  local name
  for name in "$@"; do
    if installed "$name"; then
      picked=$name
      return
    fi
  done
  for _ in 1 2; do
    for name in "$@"; do
      if has_candidate "$name"; then
        picked=$name
        return
      fi
    done
    [ $updated -eq 0 ] || break
    update
  done
  picked=$1 # none: install() reports it by this name
}

# Installs the packages, quiet unless apt fails; then names each package apt
# cannot install, with apt's reason, and exits 2. Extra apt-get options in
# $apt_options (a target release).
apt_options=()
install() {
  local log p why failed=()
  log=$(mktemp)
  if $sudo apt-get install -y -qq --no-install-recommends "${apt_options[@]}" "$@" >"$log" 2>&1; then
    rm -f "$log"
    return 0
  fi
  cat "$log" >&2
  rm -f "$log"
  for p in "$@"; do
    if ! has_candidate "$p"; then
      echo "install-deps.sh: $suite_name has no package $p (apt-cache policy: no candidate)" >&2
      failed+=("$p")
    elif ! why=$(apt-get install -s -qq --no-install-recommends "${apt_options[@]}" "$p" 2>&1); then
      echo "install-deps.sh: $suite_name cannot install $p; apt says:" >&2
      printf '%s\n' "$why" | grep -v '^\(Inst\|Conf\) ' | sed 's/^/    /' >&2
      failed+=("$p")
    fi
  done
  echo "install-deps.sh: FAILED: not installable on $suite_name: ${failed[*]:-(see apt above)}" >&2
  exit 2
}

for group in "${renamed[@]}"; do
  # shellcheck disable=SC2086 # a group is a list of names
  pick $group
  packages+=("$picked")
done

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
mesa_old=0
if [ ${#backports[@]} -gt 0 ]; then
  for p in libegl-mesa0 mesa-vulkan-drivers; do
    ver=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
    case "$ver" in 2[5-9].* | [3-9][0-9].*) ;; *) mesa_old=1 ;; esac
  done
fi

[ ${#missing[@]} -eq 0 ] && [ $mesa_old -eq 0 ] && exit 0

sources=/etc/apt/sources.list.d/debian.sources
enable_backports() {
  grep -q 'bookworm-backports' "$sources" 2>/dev/null && return 1
  # Add the suite to the Suites line of the stanza that carries bookworm itself.
  $sudo sed -i '0,/^Suites: bookworm\( \|$\)/s//Suites: bookworm bookworm-backports\1/' "$sources"
  grep -q 'bookworm-backports' "$sources"
}

if [ $mesa_old -eq 1 ]; then
  if enable_backports; then updated=0; fi
fi
update
if [ ${#missing[@]} -gt 0 ]; then
  install "${missing[@]}"
fi
if [ $mesa_old -eq 1 ]; then
  apt_options=(-t bookworm-backports)
  install "${backports[@]}"
fi
