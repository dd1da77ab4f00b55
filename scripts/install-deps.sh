#!/usr/bin/env bash
# Installs every Debian 12 package ef needs to build, test and benchmark.
# Idempotent: when everything is present it changes nothing and prints nothing.
#
# Mesa comes from Debian's bookworm-backports suite: stock Mesa 22.3 has no
# EGL_EXT_image_dma_buf_import on llvmpipe and no VK_EXT_external_memory_dma_buf
# on lavapipe, so without it the zero-copy import paths could not run headless.
set -euo pipefail

packages=(
  # build
  g++ meson ninja-build pkg-config clang-format python3
  # core tests and benchmarks
  check libbenchmark-dev
  # GStreamer 1.22 and the stock elements we compare against
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-gl
  # GL, EGL and Vulkan
  libegl-dev libgles-dev libvulkan-dev vulkan-validationlayers glslang-tools
  # CPU conversion and scaling
  libyuv-dev
  # GObject introspection of libgstef-1.0 and the Python example
  gobject-introspection libgirepository1.0-dev python3-gi gir1.2-gst-plugins-base-1.0
  # sanitizer runtimes and plots
  libasan8 libubsan1 libtsan2 python3-matplotlib
)
backports=(libegl-mesa0 libgl1-mesa-dri libglx-mesa0 libgbm1 libglapi-mesa mesa-vulkan-drivers)

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
ver=$(dpkg-query -W -f='${Version}' libegl-mesa0 2>/dev/null || true)
case "$ver" in 2[5-9].*|[3-9][0-9].*) ;; *) mesa_old=1 ;; esac
ver=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
case "$ver" in 2[5-9].*|[3-9][0-9].*) ;; *) mesa_old=1 ;; esac

[ ${#missing[@]} -eq 0 ] && [ $mesa_old -eq 0 ] && exit 0

export DEBIAN_FRONTEND=noninteractive
updated=0
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
