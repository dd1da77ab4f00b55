#!/usr/bin/env bash
# The Debian 13 ("trixie": GStreamer 1.26, g++ 14) root: scripts/debian-root.sh
# for the trixie suite, kept under this name for the commands that use it.
#
#   bash scripts/debian13.sh prepare | run CMD [ARG...] | path
#
# EF_DEB13_ROOT, where set, is the root's folder (as EF_TRIXIE_ROOT).
set -euo pipefail
export EF_TRIXIE_ROOT=${EF_TRIXIE_ROOT:-${EF_DEB13_ROOT:-/var/cache/ef-ci/trixie}}
exec bash "$(dirname "$0")/debian-root.sh" trixie "$@"
