#!/usr/bin/env bash
# A Debian root per suite to build and test ef in beside a Debian 12 host:
# trixie (Debian 13: GStreamer 1.26, g++ 14) and forky (testing: GStreamer 1.28,
# g++ 15). scripts/test.sh runs its Debian 13 and forky legs through it.
#
#   bash scripts/debian-root.sh SUITE prepare         make the root if it is missing
#                                                     and install the project's
#                                                     packages in it
#   bash scripts/debian-root.sh SUITE run CMD ARG...  prepare, then run CMD in the
#                                                     root, in the repository's folder
#   bash scripts/debian-root.sh SUITE path            print the root's folder
#
# The root is made once with `mmdebstrap --variant=apt` from the host's own Debian
# mirror (the first URIs: line of /etc/apt/sources.list.d/debian.sources) into
# EF_<SUITE>_ROOT (EF_TRIXIE_ROOT, EF_FORKY_ROOT; default /var/cache/ef-ci/SUITE),
# outside the repository, and reused by later runs; scripts/install-deps.sh runs in
# it on every prepare and changes nothing once everything is installed. Each
# command runs in a mount namespace of its own: /proc, /sys, /dev and the
# repository (at its host path, so build folders made inside stay valid across
# runs) are bind-mounted for it alone and unmounted when it ends, so runs side by
# side do not unmount each other's folders and a killed run leaves nothing mounted
# on the host.
#
# A suite's Release file may be past its Valid-Until date on the mirror (forky's
# is); apt refuses such a suite unless told Acquire::Check-Valid-Until "false".
# The root is made with that option for the suites that need it and for any the
# host itself checks that way, and mmdebstrap writes the options it was given into
# the root's /etc/apt/apt.conf.d/99mmdebstrap, so apt inside keeps judging the
# mirror the same way; prepare checks that it does.
#
# Needs root (mmdebstrap, mounts, chroot). Inside, commands run as root with a
# clean environment (PATH, HOME, LANG, TERM); pass more with `run env VAR=value CMD`.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

die() {
  echo "debian-root.sh: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || exec sudo bash "$0" "$@"

suite=${1:-}
case "$suite" in
  trixie | forky) ;;
  *) die "usage: $0 trixie|forky prepare | run CMD [ARG...] | path" ;;
esac
shift
root_var=EF_${suite^^}_ROOT
root=${!root_var:-/var/cache/ef-ci/$suite}
case "$root" in /?*) ;; *) die "$root_var must be an absolute path other than /" ;; esac
root=${root%/}

# Suites whose Release file on the mirror is past its Valid-Until date.
stale_release() {
  [ "$suite" = forky ]
}

mirror() {
  local uri
  uri=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources | head -n1)
  [ -n "$uri" ] || die "no URIs: line in /etc/apt/sources.list.d/debian.sources"
  echo "$uri"
}

# The apt options the root is made with and keeps: the host's own answer to
# whether Release files may be past their dates (a snapshot mirror needs
# "false"), and "false" for Valid-Until where the suite's Release is stale.
apt_options() {
  local key value
  for key in Acquire::Check-Valid-Until Acquire::Check-Date; do
    value=$(apt-config dump "$key" | sed -n "s/^$key \"\\(.*\\)\";$/\\1/p")
    [ "$key" != Acquire::Check-Valid-Until ] || ! stale_release || value=false
    [ -z "$value" ] || echo "--aptopt=$key \"$value\""
  done
}

make_root() {
  [ -e "$root/.ef-complete" ] && return 0
  command -v mmdebstrap >/dev/null || die "mmdebstrap is missing (bash scripts/install-deps.sh installs it)"
  local options start=$SECONDS
  mapfile -t options < <(apt_options)
  echo "debian-root.sh: making the Debian $suite root in $root"
  mkdir -p "$(dirname "$root")"
  # --one-file-system: never follow a mount left behind into the host's folders.
  rm -rf --one-file-system "$root.new" "$root"
  # force-unsafe-io: the root is rebuilt rather than repaired after a crash, so
  # dpkg need not fsync every file it unpacks.
  mmdebstrap --quiet --variant=apt --dpkgopt=force-unsafe-io "${options[@]}" \
    "$suite" "$root.new" "deb [signed-by=$keyring] $(mirror) $suite main" ||
    die "mmdebstrap could not make the $suite root (its messages are above)"
  touch "$root.new/.ef-complete"
  mv "$root.new" "$root"
  echo "debian-root.sh: the $suite root made in $((SECONDS - start)) s"
}

# apt inside must accept the suite's Release as the root was made to.
check_apt_options() {
  stale_release || return 0
  grep -qs 'Acquire::Check-Valid-Until "false"' "$root"/etc/apt/apt.conf.d/* ||
    die "$root: apt there does not have Acquire::Check-Valid-Until \"false\", which $suite needs (remove the root to make it again)"
}

unmount_all() {
  local dir
  for dir in "$root$repo" "$root/dev" "$root/sys" "$root/proc"; do
    if mountpoint -q "$dir"; then
      umount -R "$dir" || umount -R -l "$dir"
    fi
  done
}

# Runs in the private mount namespace: mounts, runs the command, unmounts.
inside() {
  trap unmount_all EXIT
  trap 'exit 130' INT TERM HUP
  local dir
  for dir in proc sys dev; do
    mount --rbind "/$dir" "$root/$dir"
    mount --make-rslave "$root/$dir"
  done
  mkdir -p "$root$repo"
  mount --bind "$repo" "$root$repo"
  # apt in the root resolves the mirror the way the host does.
  cp -L /etc/resolv.conf /etc/hosts "$root/etc/" 2>/dev/null || true
  local status=0
  chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$repo" "$@" || status=$?
  return $status
}

in_root() {
  unshare --mount --propagation private bash "$0" "$suite" __inside "$@"
}

prepare() {
  exec 9>"$root.lock"
  flock 9
  make_root
  check_apt_options
  in_root bash scripts/install-deps.sh
  flock -u 9
}

mkdir -p "$(dirname "$root")"
case "${1:-}" in
  prepare) prepare ;;
  run)
    shift
    [ $# -gt 0 ] || die "run needs a command"
    prepare
    in_root "$@"
    ;;
  path) echo "$root" ;;
  __inside)
    shift
    inside "$@"
    ;;
  *) die "usage: $0 $suite prepare | run CMD [ARG...] | path" ;;
esac
