#!/usr/bin/env bash
# fetch-arm64.sh - install and fetch what building modules for arm64 and
# the arm64 test VM need, on this amd64 machine, from Debian's packages.
#
#   scripts/fetch-arm64.sh [--release R]... [--dbg] [--ssh] [--update]
#                          [--no-install]
#
# On the host (apt-get install, amd64): gcc-aarch64-linux-gnu and
# libc6-dev-arm64-cross (cross builds, the static arm64 taprun and
# workloads), qemu-system-arm (qemu-system-aarch64), the kbuild package of
# each release (its amd64 scripts/ and tools/ serve the arm64 headers),
# cpio, kmod, xz-utils, zstd.
#
# Into the arm64 folder ($TAPC_ARM64_DIR, default /var/cache/tapc/arm64),
# as arm64 packages fetched with "apt-get download" and unpacked with
# "dpkg-deb -x" (dpkg cannot install them beside the amd64 system: the
# headers pull gcc-12:arm64), under DIR/root/ with the system's layout:
#   boot/vmlinuz-R, boot/System.map-R, boot/config-R  linux-image-R
#   lib/modules/R/kernel/..., modules.dep             (depmod run here)
#   lib/modules/R/build -> ../../../usr/src/linux-headers-R
#   usr/src/linux-headers-R{,-common}                 linux-headers-R and
#                                                     the common package
#   bin/busybox                                       busybox-static:arm64
#   usr/lib/debug/...                                 linux-image-R-dbg
#                                                     (--dbg only: ~800 MB
#                                                     download, ~5 GB)
#   usr/sbin/dropbear, lib/aarch64-linux-gnu/...      dropbear-bin:arm64 and
#                                                     the libraries it links
#                                                     (--ssh only, ~4 MB: the
#                                                     arm64 VM as an ssh
#                                                     target, run-remote)
# The headers' scripts and tools links point at the host's
# /usr/lib/linux-kbuild-*, their Makefile includes the common folder
# here (not /usr/src), so a module builds with
#   make -C DIR/root/lib/modules/R/build M=$PWD ARCH=arm64 \
#        CROSS_COMPILE=aarch64-linux-gnu- modules
# The .deb files stay in DIR/debs/, a private apt state (arm64 package
# lists only; the system's apt and dpkg are not touched) in DIR/apt/.
#
# Releases: 6.1.0-56-arm64 and 6.12.107+deb12-arm64 unless --release is
# given.  Idempotent: a package already unpacked (DIR/stamps/PKG holds its
# version) is not fetched again, and with everything there the archive is
# not asked at all (~0.1 s); --update refreshes the package lists and
# fetches what has a newer version.  --no-install skips the host's apt-get
# install (the fetching needs no root when DIR is writable).
set -euo pipefail

dir=${TAPC_ARM64_DIR:-/var/cache/tapc/arm64}
releases=() dbg= ssh= update= install=1
while [ $# -gt 0 ]; do
	case $1 in
	--release) releases+=("$2"); shift 2 ;;
	--dbg) dbg=1; shift ;;
	--ssh) ssh=1; shift ;;
	--update) update=1; shift ;;
	--no-install) install=; shift ;;
	-h|--help) sed -n '2,47s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "fetch-arm64.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ ${#releases[@]} -gt 0 ] || releases=(6.1.0-56-arm64 6.12.107+deb12-arm64)

die() { echo "fetch-arm64.sh: $*" >&2; exit 1; }
as_root=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || die "run as root (or install sudo)"
	as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive

# The kbuild package of release R: linux-kbuild-6.1 for 6.1.0-N-arm64,
# linux-kbuild-6.12.107+deb12 for 6.12.107+deb12-arm64.
kbuild_pkg() {
	case $1 in
	*+deb*) echo "linux-kbuild-${1%-arm64}" ;;
	*) echo "linux-kbuild-$(echo "$1" | cut -d. -f1-2)" ;;
	esac
}

# ---- the host's packages ----
installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'install ok installed'
}
if [ -n "$install" ]; then
	host_pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
		   cpio kmod xz-utils zstd)
	for r in "${releases[@]}"; do host_pkgs+=("$(kbuild_pkg "$r")"); done
	missing=()
	for p in "${host_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "installing: ${missing[*]}"
		"${as_root[@]}" apt-get update -q
		"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
	fi
fi

# ---- the arm64 packages, with a private apt state ----
if [ ! -d "$dir" ]; then
	mkdir -p "$dir" 2>/dev/null || "${as_root[@]}" install -d -o "$(id -u)" -g "$(id -g)" "$dir"
fi
[ -w "$dir" ] || die "cannot write $dir (set TAPC_ARM64_DIR)"
root=$dir/root
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" \
	 "$dir/apt/state" "$dir/debs" "$dir/stamps" "$root"
[ -f "$dir/apt/state/status" ] || : >"$dir/apt/state/status"
apt_opts=(-o "Dir::State=$dir/apt/state" -o "Dir::State::status=$dir/apt/state/status"
	  -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache"
	  -o APT::Architecture=arm64 -o APT::Architectures=arm64 -q)

wanted=(busybox-static)
# dropbear and what it links (readelf -d NEEDED, and theirs): Debian's
# arm64 dropbear runs from the arm64 VM's initramfs as an ssh server
# (testsuite/vm/mkinitramfs --arch arm64 --ssh-server)
[ -z "$ssh" ] || wanted+=(dropbear-bin libc6 libcrypt1 libtomcrypt1 libtommath1
			  libgmp10 zlib1g)
for r in "${releases[@]}"; do
	wanted+=("linux-image-$r" "linux-headers-$r")
	[ -z "$dbg" ] || wanted+=("linux-image-$r-dbg")
done

lists_fetched=
apt_update() {
	[ -z "$lists_fetched" ] || return 0
	echo "fetch-arm64: reading the archive's arm64 package lists"
	apt-get "${apt_opts[@]}" update >"$dir/apt/update.log" 2>&1 ||
		{ cat "$dir/apt/update.log" >&2; die "apt-get update (arm64 lists) failed"; }
	lists_fetched=1
}
# the candidate version of PKG:arm64 (empty when the archive has none)
version_of() {
	apt-cache "${apt_opts[@]}" policy "$1" 2>/dev/null |
		sed -n 's/^ *Candidate: *//p' | grep -v '(none)' || true
}

# With every package's stamp there and no --update, nothing to ask.
need=()
for p in "${wanted[@]}"; do
	[ -z "$update" ] && [ -s "$dir/stamps/$p" ] && continue
	need+=("$p")
done
# a headers package unpacked, its common one (named in its Makefile) not
for r in "${releases[@]}"; do
	c=$(sed -n 's,^include .*/\(linux-headers-[^/]*-common\)/Makefile$,\1,p' \
		"$root/usr/src/linux-headers-$r/Makefile" 2>/dev/null || true)
	[ -z "$c" ] || [ -s "$dir/stamps/$c" ] || need+=("$c")
done
if [ ${#need[@]} -gt 0 ]; then
	if [ -n "$update" ] || ! ls "$dir/apt/lists/"*Packages* >/dev/null 2>&1; then
		apt_update
	fi
	# the headers' common package (architecture all) comes with them
	for p in "${need[@]}"; do
		case $p in linux-headers-*)
			c=$(apt-cache "${apt_opts[@]}" show --no-all-versions "$p" 2>/dev/null |
			    sed -n 's/^Depends:.*\(linux-headers-[^ ,]*-common\).*/\1/p')
			[ -z "$c" ] || need+=("$c") ;;
		esac
	done
fi
for p in "${need[@]}"; do
	v=$(version_of "$p")
	if [ -z "$v" ] && [ -z "$lists_fetched" ]; then
		apt_update
		v=$(version_of "$p")
	fi
	if [ -z "$v" ]; then
		case $p in
		busybox-static|linux-headers-6.1.*|linux-image-6.1.0-*-arm64|dropbear-bin|lib*|zlib1g)
			die "the archive has no $p:arm64" ;;
		esac
		echo "fetch-arm64: warning: the archive has no $p:arm64; skipped" >&2
		continue
	fi
	[ "$(cat "$dir/stamps/$p" 2>/dev/null)" != "$v" ] || continue
	echo "fetch-arm64: $p $v"
	rm -f "$dir/debs/${p}_"*.deb
	# apt downloads as its own user when it can write the folder
	(cd "$dir/debs" && apt-get "${apt_opts[@]}" download "$p:arm64=$v" 2>&1 |
		grep -v 'unsandboxed as root' >&2 || true)
	deb=$(ls "$dir/debs/${p}_"*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || die "apt-get download $p:arm64 failed"
	dpkg-deb -x "$deb" "$root" || die "cannot unpack $deb"
	# the big debug package is not kept twice
	case $p in *-dbg) rm -f "$deb" ;; esac
	echo "$v" >"$dir/stamps/$p"
done

# ---- fix-ups (cheap, done every time) ----
# The headers' scripts/ and tools/ links (relative, into the kbuild
# package, "../../lib/linux-kbuild-X/scripts") to the host's own kbuild,
# whose programs (fixdep, modpost, ...) are amd64 ones.
for l in "$root"/usr/src/linux-headers-*/scripts "$root"/usr/src/linux-headers-*/tools; do
	[ -L "$l" ] || continue
	t=$(readlink "$l")
	case $t in ../../lib/linux-kbuild-*) ln -sfn "/usr/${t#../../}" "$l" ;; esac
done
for r in "${releases[@]}"; do
	h=$root/usr/src/linux-headers-$r
	[ -d "$h" ] || continue
	# Its Makefile includes /usr/src/linux-headers-X-common/Makefile: the
	# common folder fetched here instead of the host's (which may be
	# missing or of another version).
	if [ -f "$h/Makefile" ] && grep -q '^include /usr/src/' "$h/Makefile"; then
		sed -i "s,^include /usr/src/,include $root/usr/src/," "$h/Makefile"
	fi
	[ -e "$h/scripts/basic/fixdep" ] ||
		echo "fetch-arm64: warning: $h/scripts does not lead to a kbuild (install $(kbuild_pkg "$r"))" >&2
	m=$root/lib/modules/$r
	if [ -d "$m" ]; then
		ln -sfn "../../../usr/src/linux-headers-$r" "$m/build"
		# modules.dep for modprobe -d (the VM's initramfs picks modules)
		if [ ! -s "$m/modules.dep" ] || [ "$dir/stamps/linux-image-$r" -nt "$m/modules.dep" ]; then
			/sbin/depmod -b "$root" "$r" || die "depmod -b $root $r failed"
		fi
	fi
done
echo "fetch-arm64: ready in $dir (releases: ${releases[*]})"
