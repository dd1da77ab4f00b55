#!/usr/bin/env bash
# Installs every Debian 12 or Debian 13 package ef needs to build, test and
# benchmark. Idempotent: when everything is present it changes nothing and
# prints nothing.
#
# On Debian 12, Mesa comes from the bookworm-backports suite: stock Mesa 22.3 has
# no EGL_EXT_image_dma_buf_import on llvmpipe and no VK_EXT_external_memory_dma_buf
# on lavapipe, so without it the zero-copy import paths could not run headless.
# Debian 13's own Mesa (25.0) has both. On Debian 12 the host also gets
# mmdebstrap, which scripts/debian13.sh uses to make the Debian 13 test root.
set -euo pipefail

. /etc/os-release

packages=(
  # build
  g++ meson ninja-build pkg-config clang-format python3
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
  # GObject introspection of libgstef-1.0 and the Python example
  gobject-introspection libgirepository1.0-dev python3-gi gir1.2-gst-plugins-base-1.0
  # the reference manual (meson option doc) and the Debian packages (debian/)
  gi-docgen debhelper dpkg-dev
  # sanitizer runtimes and plots
  libasan8 libubsan1 libtsan2 python3-matplotlib
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
#   gir1.2-gst-plugins-bad-1.0: GstAnalytics for the Python example;
#   python3-numpy: examples/python/tensor_onnx.py checks efconvert's tensors
#     against numpy's normalisation of the same frames.
if [ "$VERSION_CODENAME" != bookworm ]; then
  packages+=(python3-onnx python3-onnxruntime libgstreamer-plugins-bad1.0-dev
    gir1.2-gst-plugins-bad-1.0 python3-numpy)
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

sources=/etc/apt/sources.list.d/debian.sources
enable_backports() {
  grep -q 'bookworm-backports' "$sources" 2>/dev/null && return 1
  # Add the suite to the Suites line of the stanza that carries bookworm itself.
  $sudo sed -i '0,/^Suites: bookworm\( \|$\)/s//Suites: bookworm bookworm-backports\1/' "$sources"
  grep -q 'bookworm-backports' "$sources"
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
mesa_old=0
if [ ${#backports[@]} -gt 0 ]; then
  for p in libegl-mesa0 mesa-vulkan-drivers; do
    ver=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
    case "$ver" in 2[5-9].*|[3-9][0-9].*) ;; *) mesa_old=1 ;; esac
  done
fi

[ ${#missing[@]} -eq 0 ] && [ $mesa_old -eq 0 ] && exit 0

export DEBIAN_FRONTEND=noninteractive
if [ $mesa_old -eq 1 ]; then
  enable_backports || true
fi
$sudo apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ $mesa_old -eq 1 ]; then
  $sudo apt-get install -y -qq --no-install-recommends -t bookworm-backports "${backports[@]}" >/dev/null
fi
