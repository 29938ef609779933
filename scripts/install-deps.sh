#!/usr/bin/env bash
# install-deps.sh - install what building tapc needs, and with the options
# what running scripts in the test VM, testing and benchmarking need, from
# Debian packages.  Does nothing when all are installed already.
#
#   scripts/install-deps.sh [--vm] [--test] [--bench] [--arm64]
#
#   (none)   the build: compiler, autotools, gettext, libdw/libelf,
#            libbpf, liblzma, libzstd, zlib, capstone
#   --vm     the test VM: qemu, busybox-static, Debian's kernel and its
#            headers (6.1.0-56-amd64, the release the tests expect, when the
#            archive still has it; else the current linux-image-amd64),
#            cpio, kmod, xz-utils, zstd
#   --test   --vm, plus openssl (--sign-module's tests), ovmf and python3
#            (the vm-sign-efi group's UEFI boot and its variable store
#            editor, testsuite/vm-sign/uefi-vars), clang for the
#            fuzz target, the 6.12 kernel (image and headers) the vm-6.12
#            group runs every case in, the kernels'
#            debug packages (linux-image-RELEASE-dbg: the real System.map
#            and DWARF; the suite passes with and without them), and for
#            the usdt group and the SDT VM cases: bpftrace, SystemTap (stap
#            -L and its dtrace/sdt.h, systemtap-sdt-dev) and python3.11
#            (its markers); and --arm64 with the arm64 dropbear and its
#            libraries (fetch-arm64.sh --ssh: the remote group's arm64
#            target)
#   --bench  --vm, plus time and hyperfine
#   --arm64  then scripts/fetch-arm64.sh: the cross compiler, qemu for
#            arm64 and Debian's arm64 kernels (6.1 and 6.12), headers and
#            busybox for cross builds, the static arm64 taprun and the
#            arm64 test VM (~170 MB of packages)
#   --arm64-dbg  --arm64 with the arm64 kernels' debug packages as well
#            (DWARF for -L and $vars beyond BTF: ~800 MB, ~5 GB unpacked)
set -eu

pkgs=(build-essential autoconf automake autopoint gettext pkg-config
      libdw-dev libelf-dev libbpf-dev liblzma-dev libzstd-dev zlib1g-dev libcapstone-dev)
# Installed when the archive has them (exact kernel releases come and go).
optional=()
vm_pkgs=(qemu-system-x86 busybox-static linux-image-amd64 linux-headers-amd64
	 cpio kmod xz-utils zstd dropbear-bin openssh-client)
vm_optional=(linux-image-6.1.0-56-amd64 linux-headers-6.1.0-56-amd64)
vm= arm64= arm64_ssh=
for a in "$@"; do
	case "$a" in
	--vm) vm=1 ;;
	--arm64) arm64=1 ;;
	--arm64-dbg) arm64=--dbg ;;
	--test) vm=1; [ -n "$arm64" ] || arm64=1; arm64_ssh=1; pkgs+=(openssl ovmf python3-minimal clang libclang-rt-14-dev bpftrace systemtap
			     systemtap-sdt-dev python3.11-minimal)
		optional+=(linux-headers-6.12.107+deb12-amd64
			   linux-image-6.12.107+deb12-amd64
			   linux-image-6.1.0-56-amd64-dbg
			   linux-image-6.12.107+deb12-amd64-dbg) ;;
	--bench) vm=1; pkgs+=(time hyperfine) ;;
	-h|--help) sed -n '2,32s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "install-deps.sh: unknown option $a" >&2; exit 2 ;;
	esac
done
[ -z "$vm" ] || { pkgs+=("${vm_pkgs[@]}"); optional+=("${vm_optional[@]}"); }

installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'install ok installed'
}
missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
want=()
for p in "${optional[@]}"; do
	installed "$p" || want+=("$p")
done
# the arm64 part, after the rest (its own script; quick when done)
fetch_arm64() {
	[ -n "$arm64" ] || return 0
	local args=()
	[ "$arm64" != --dbg ] || args=(--dbg)
	[ -z "$arm64_ssh" ] || args+=(--ssh)
	# the archive may lack an arm64 release: the arm64 tests then skip
	bash "$(dirname "$0")/fetch-arm64.sh" "${args[@]}" ||
		echo "install-deps.sh: warning: fetching the arm64 packages failed;" \
		     "the arm64 tests will be skipped" >&2
}
[ ${#missing[@]} -eq 0 ] && [ ${#want[@]} -eq 0 ] && { fetch_arm64; exit 0; }

as_root=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null ||
		{ echo "install-deps.sh: run as root (or install sudo)" >&2; exit 1; }
	as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
for p in "${want[@]}"; do
	if apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then
		missing+=("$p")
	else
		echo "install-deps.sh: warning: the archive has no $p any more; tests" \
		     "that need that kernel release will be skipped" >&2
	fi
done
[ ${#missing[@]} -eq 0 ] && { fetch_arm64; exit 0; }
echo "installing: ${missing[*]}"
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fetch_arm64
