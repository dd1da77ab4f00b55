#!/usr/bin/env bash
# Installs the build into a temporary DESTDIR and builds a program from the
# installed pkg-config files alone (no build-tree include or library path),
# then runs it against the installed libraries.
set -euo pipefail
build_root=$1 source=$2
shift 2
cc=("$@")  # the compiler command meson uses (may start with ccache)
[ ${#cc[@]} -gt 0 ] || cc=(cc)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

meson install -C "$build_root" --destdir "$stage" --no-rebuild --quiet >/dev/null
pc=$(find "$stage" -name gstreamer-ef-1.0.pc -print -quit)
[ -n "$pc" ] || { echo "gstreamer-ef-1.0.pc was not installed"; exit 1; }
pcdir=$(dirname "$pc")
[ -f "$pcdir/ef-core.pc" ] || { echo "ef-core.pc is not installed beside it"; exit 1; }

# The plugin is where the pc file's pluginsdir says (GStreamer's own plugin
# folder when the prefix is GStreamer's: gst/meson.build).
pluginsdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=pluginsdir gstreamer-ef-1.0)
[ -n "$pluginsdir" ] || { echo "gstreamer-ef-1.0.pc has no pluginsdir"; exit 1; }
[ -f "$stage$pluginsdir/libgstef.so" ] ||
  { echo "the plugin is not in pluginsdir $pluginsdir: $(find "$stage" -name libgstef.so)"; exit 1; }
prefix=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=prefix gstreamer-ef-1.0)
if [ "$prefix" = "$(pkg-config --variable=prefix gstreamer-1.0)" ] &&
  [ "$pluginsdir" != "$(pkg-config --variable=pluginsdir gstreamer-1.0)" ]; then
  echo "prefix $prefix is GStreamer's, but the plugin is not in GStreamer's plugin folder: $pluginsdir"
  exit 1
fi

# Relocate the staged pc files as a package build would: their prefix line
# moves under the staging folder; the system's own pc files are untouched.
sed -i "s|^prefix=|prefix=$stage|" "$pcdir"/gstreamer-ef-1.0.pc "$pcdir"/ef-core.pc
export PKG_CONFIG_PATH=$pcdir
flags=$(pkg-config --cflags --libs gstreamer-ef-1.0)
case "$flags" in *"$build_root"*) echo "pc files point into the build tree: $flags"; exit 1 ;; esac

# shellcheck disable=SC2086  # word splitting of the flags is meant
"${cc[@]}" -std=c11 -Wall -Werror ${EXTRA_CFLAGS:-} -o "$stage/installed_pc" "$source" $flags
libdir=$(pkg-config --variable=libdir gstreamer-ef-1.0)
LD_LIBRARY_PATH=$libdir "$stage/installed_pc"
