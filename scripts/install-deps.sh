#!/usr/bin/env bash
# install-deps.sh - install what building (and, with --test, testing) tapc
# needs, from Debian packages.  Does nothing when all are installed already.
#
#   scripts/install-deps.sh [--test] [--bench]
set -eu

pkgs=(build-essential autoconf automake autopoint gettext pkg-config
      libdw-dev libelf-dev)
for a in "$@"; do
	case "$a" in
	--test) pkgs+=(clang libclang-rt-14-dev) ;;
	--bench) pkgs+=(time hyperfine) ;;
	*) echo "install-deps.sh: unknown option $a" >&2; exit 2 ;;
	esac
done

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
