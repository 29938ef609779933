# shellcheck shell=bash
# vm-lib.sh - sourced by scripts/run-in-vm, bench/runtime and
# testsuite/vm/run: boot the test VM (Debian's kernel under qemu TCG,
# testsuite/vm/init as /init) with a few cases and get their output back.
# The layout of a case and of the serial output is the one
# testsuite/vm/init documents.
#
# Needs $top (the checkout).  The architecture is $VM_ARCH (x86_64, the
# default, or arm64; vm_set_arch changes it): x86_64 boots the host's own
# kernels (/boot, /lib/modules) under qemu-system-x86_64, arm64 the ones
# scripts/fetch-arm64.sh unpacked under $TAPC_ARM64_DIR/root (default
# /var/cache/tapc/arm64/root: boot/, lib/modules/R/{kernel,build}, bin/busybox)
# under qemu-system-aarch64 -M virt.  Functions:
#   vm_set_arch ARCH       x86_64 (x86-64, amd64) or arm64 (aarch64); sets
#                          vm_arch, vm_root (the kernels' root: "" or the
#                          arm64 folder), vm_cross (the cross compiler's
#                          prefix), vm_default_release
#   vm_arch_of RELEASE     arm64 for a release named *-arm64, else x86_64
#   vm_release             the kernel to boot: $VM_RELEASE, else the
#                          default (6.1.0-56-amd64 or -arm64), else the
#                          newest one with boot/vmlinuz-R and headers
#   vm_kbuild C NAME RELEASE OUTDIR
#                          a hand-written module C built with kbuild against
#                          RELEASE's headers (cross for arm64) as OUTDIR/NAME.ko
#   vm_check RELEASE       say what is missing to boot RELEASE (status 1)
#   vm_taprun              path of the static taprun (builds it)
#   vm_workloads DIR [C..] compile testsuite/vm/workloads/*.c and the extra
#                          C files into DIR, static
#   vm_boot RELEASE STAGE OUT LIMIT
#                          boot once with the cases in STAGE/NAME/ (cmd,
#                          modules, timeout), workloads from OUT/workloads;
#                          leaves OUT/console.log and OUT/cases/NAME.{stdout,
#                          stderr,dmesg,end}; the gzipped cpio archives
#                          named in the array vm_extra_initrds (if set)
#                          are appended to the initramfs (the kernel
#                          unpacks each over the last: bench/ adds the
#                          programs bpftrace and staprun need this way)
#   vm_split_cases RAW DIR the case channel split into DIR/NAME.{stdout,
#                          stderr,dmesg,end} (vm_boot does it)
#   vm_field KEY ENDFILE   a field (status, problems, ...) of a case's END line
#   vm_is_static PROGRAM   true for an executable without an ELF interpreter
#   vm_kernel RELEASE      the image to boot (the extracted vmlinux)
#   vm_quote WORD          WORD quoted for the guest's sh

vm_set_arch() {
	case $1 in
	x86_64|x86-64|amd64)
		vm_arch=x86_64 vm_root= vm_cross=
		vm_default_release=6.1.0-56-amd64 ;;
	arm64|aarch64)
		vm_arch=arm64 vm_root=${TAPC_ARM64_DIR:-/var/cache/tapc/arm64}/root
		vm_cross=aarch64-linux-gnu-
		vm_default_release=6.1.0-56-arm64 ;;
	*)
		echo "unknown VM architecture '$1' (x86_64 or arm64)" >&2
		return 1 ;;
	esac
}
vm_set_arch "${VM_ARCH:-x86_64}" || vm_set_arch x86_64

vm_arch_of() {
	case $1 in *-arm64) echo arm64 ;; *) echo x86_64 ;; esac
}

# what to run to get what is missing
vm_fix_hint() {
	if [ "$vm_arch" = arm64 ]; then
		echo "bash scripts/fetch-arm64.sh"
	else
		echo "bash scripts/install-deps.sh --vm"
	fi
}

# qemu's accelerator.  TCG with one host thread for both vCPUs: under
# multi-threaded TCG, ftrace's live patching of a call site (a kprobe on
# a function's entry, taken off while another vCPU runs that function
# hot) let the other vCPU run a half-written instruction, and the guest
# jumped to address 0 (getppid in a loop, exit() from the probe: 6 of 6
# boots crashed; with thread=single, none).  Two vCPUs on one host thread
# still interleave, so the SMP cases keep their meaning.
vm_accel=${VM_ACCEL:-tcg,thread=single}

vm_release() {
	local r
	if [ -n "${VM_RELEASE:-}" ]; then
		echo "$VM_RELEASE"
		return
	fi
	if [ -r "$vm_root/boot/vmlinuz-$vm_default_release" ] &&
	   [ -d "$vm_root/lib/modules/$vm_default_release/build" ]; then
		echo "$vm_default_release"
		return
	fi
	# Another Debian kernel: the newest with both an image and headers.
	for r in $(ls "$vm_root"/boot/vmlinuz-* 2>/dev/null | sed 's,^.*/boot/vmlinuz-,,' | sort -rV); do
		[ "$(vm_arch_of "$r")" = "$vm_arch" ] || continue
		if [ -d "$vm_root/lib/modules/$r/build" ]; then
			echo "$r"
			return
		fi
	done
	echo "$vm_default_release"
}

vm_check() {
	local r=$1 t bad= hint
	hint=$(vm_fix_hint)
	if [ "$(vm_arch_of "$r")" != "$vm_arch" ]; then
		echo "kernel $r is not an $vm_arch one" >&2
		return 1
	fi
	if [ ! -r "$vm_root/boot/vmlinuz-$r" ] || [ ! -d "$vm_root/lib/modules/$r/build" ]; then
		echo "no kernel $vm_root/boot/vmlinuz-$r or no headers" \
		     "$vm_root/lib/modules/$r/build ($hint)" >&2
		bad=1
	fi
	for t in "$(vm_qemu_bin)" cpio gzip base64 readelf ${vm_cross:+${vm_cross}gcc ${vm_cross}strip}; do
		command -v "$t" >/dev/null 2>&1 ||
			{ echo "no $t ($hint)" >&2; bad=1; }
	done
	[ -x "$(vm_busybox)" ] ||
		{ echo "no $(vm_busybox) (install busybox-static; $hint)" >&2; bad=1; }
	[ -z "$bad" ]
}

vm_qemu_bin() {
	if [ "$vm_arch" = arm64 ]; then
		echo qemu-system-aarch64
	else
		echo qemu-system-x86_64
	fi
}

# the static busybox of the VM's architecture
vm_busybox() {
	if [ "$vm_arch" = arm64 ]; then
		echo "$vm_root/bin/busybox"
	else
		echo "${BUSYBOX:-/bin/busybox}"
	fi
}

# A program the VM can run: static, and for the VM's architecture.
vm_is_static() {
	local m
	[ -x "$1" ] && [ "$(readelf -l "$1" 2>/dev/null | grep -c INTERP)" = 0 ] || return 1
	m=$(readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p')
	case $vm_arch:$m in
	x86_64:*X86-64*|arm64:AArch64) return 0 ;;
	esac
	return 1
}

# The static taprun: $TAPRUN (for x86_64; $TAPRUN_ARM64 for arm64), else
# make's taprun/taprun-static or taprun/taprun-static-arm64.
vm_taprun() {
	local given=${TAPRUN:-} target=taprun-static
	if [ "$vm_arch" = arm64 ]; then
		given=${TAPRUN_ARM64:-} target=taprun-static-arm64
	fi
	if [ -n "$given" ]; then
		vm_is_static "$given" && echo "$given" && return 0
		echo "$given is not a static $vm_arch program" >&2
		return 1
	fi
	if ! make -C "$top" -s "$target" >/dev/null 2>&1 ||
	   ! vm_is_static "$top/taprun/$target"; then
		echo "cannot build the static taprun (make $target)" >&2
		return 1
	fi
	echo "$top/taprun/$target"
}

vm_workloads() {
	local dir=$1 c w h fresh
	shift
	mkdir -p "$dir"
	for c in "$top"/testsuite/vm/workloads/*.c "$@"; do
		[ -f "$c" ] || continue
		w=$dir/$(basename "$c" .c)
		# rebuilt only when the source or a header beside it is newer
		fresh=1
		for h in "$c" "$top"/testsuite/vm/workloads/*.h; do
			[ -f "$h" ] && ! [ "$w" -nt "$h" ] && fresh=
		done
		[ -z "$fresh" ] || continue
		if ! "${vm_cross}gcc" -static -O2 -s -Wall -o "$w" "$c" 2>"$w.err"; then
			# (arm64: sys_calls* use x86-64's older system calls)
			if [ "$vm_arch" = arm64 ]; then
				rm -f "$w.err"
				continue
			fi
			cat "$w.err" >&2
			echo "workload $c does not compile" >&2
			return 1
		fi
		rm -f "$w.err"
	done
}

# The kernel image qemu boots.  By default the compressed image itself:
# its decompressor is what picks the random load address (KASLR), so only
# this way does the kernel run at a non-zero offset from its file
# addresses, which is what the probes at DWARF addresses must be tested
# against (selftest/kaslr checks it); the decompression under TCG costs
# ~3 s a boot for 6.1's xz, ~0.5 s for 6.12's zstd.  With VM_KASLR=0, the
# uncompressed kernel (extracted once into testsuite/out/vm-kernel/; qemu
# enters it through its PVH note, which skips the decompressor and so
# KASLR: the kernel runs at its link address), falling back to the
# compressed image.
#
# arm64: boot/vmlinuz-R is Debian's uncompressed Image, which qemu loads
# as it is; the kernel picks its own random offset (KASLR) with the seed
# qemu's virt board puts in the device tree; VM_KASLR=0 turns it off
# (nokaslr, vm_qemu).
vm_kernel() {
	local r=$1 kernel=$vm_root/boot/vmlinuz-$1 vmlinux off
	if [ "$vm_arch" = arm64 ]; then
		echo "$kernel"
		return
	fi
	if [ "${VM_KASLR:-1}" != 0 ] && [ -s "$kernel" ]; then
		echo "$kernel"
		return
	fi
	vmlinux=$top/testsuite/out/vm-kernel/vmlinux-$r
	if [ ! -s "$vmlinux" ] || [ "$kernel" -nt "$vmlinux" ]; then
		mkdir -p "$(dirname "$vmlinux")"
		off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$kernel" | head -n1 | cut -d: -f1)
		if [ -n "$off" ]; then
			tail -c +$((off + 1)) "$kernel" | xz -dc --single-stream >"$vmlinux.$$" 2>/dev/null
		else
			off=$(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$kernel" | head -n1 | cut -d: -f1)
			[ -z "$off" ] || tail -c +$((off + 1)) "$kernel" | zstd -dcq >"$vmlinux.$$" 2>/dev/null
		fi
		if [ "$(readelf -n "$vmlinux.$$" 2>/dev/null | grep -c Xen)" != 0 ]; then
			mv "$vmlinux.$$" "$vmlinux"
		else
			rm -f "$vmlinux.$$"
		fi
	fi
	if [ -s "$vmlinux" ]; then
		echo "$vmlinux"
	else
		echo "$kernel"
	fi
}

# vm_qemu KERNEL INITRD CONSOLE CASES [KERNEL-ARGUMENTS]: the qemu command
# line of the test VM (2 vCPUs, 1 GiB, no devices but the two serial
# ports: ttyS0 the console into file CONSOLE, ttyS1 the case channel
# into file CASES) into the array vm_qemu_cmd.
#
# arm64: the virt board (-cpu max: every feature TCG has, pointer
# authentication with qemu's cheap "impdef" algorithm, as the standard
# QARMA one costs much time under TCG) has one serial port, the PL011
# (ttyAMA0), the console.  The case channel is a virtio console (hvc0) on
# virtio-mmio: tapc.chan=hvc0 tells /init, which loads virtio_mmio and
# virtio_console first (modules in Debian's kernel; mkinitramfs --early).
#
# With vm_uefi_vars set to a variable store image (x86-64 only), the VM
# boots under OVMF (vm_ovmf_code) with that store as its writable flash:
# the kernel (the compressed image, whose EFI stub OVMF starts) then has
# UEFI's runtime services and reads db and the other variables from it.
vm_qemu() {
	if [ "$vm_arch" = arm64 ]; then
		vm_qemu_cmd=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on
			-accel "$vm_accel" -m 1024 -smp 2
			-nodefaults -display none -no-reboot
			-kernel "$1" -initrd "$2"
			-append "console=ttyAMA0 quiet loglevel=3 panic=-1 tapc.chan=hvc0$([ "${VM_KASLR:-1}" != 0 ] || echo ' nokaslr')${5:+ $5}"
			-serial "file:$3"
			-chardev "file,id=cases,path=$4"
			-device virtio-serial-device -device virtconsole,chardev=cases)
		return
	fi
	vm_qemu_cmd=(qemu-system-x86_64 -accel "$vm_accel" -m 1024 -smp 2
		-nodefaults -display none -no-reboot
		-kernel "$1" -initrd "$2"
		-append "console=ttyS0 quiet loglevel=3 panic=-1${5:+ $5}"
		-serial "file:$3" -serial "file:$4")
	[ -z "${vm_uefi_vars:-}" ] || vm_qemu_cmd+=(
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$vm_ovmf_code"
		-drive "if=pflash,format=raw,unit=1,file=$vm_uefi_vars")
}

# OVMF's code for a UEFI boot of the x86-64 VM (package ovmf), matching
# the 4 MiB variable stores testsuite/vm-sign/uefi-vars edits; the plain
# build, without secure boot (no SMM, which TCG would pay for): the
# firmware only has to hand the kernel its variables.
vm_ovmf_code=${VM_OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
vm_ovmf_vars=${VM_OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}

# mkinitramfs's options for the VM's architecture and RELEASE: the
# busybox, and for arm64 the modules /init loads before anything else
# (the case channel's) and the tools that strip arm64 modules.
vm_initramfs_args() {
	vm_initramfs_args=(--busybox "$(vm_busybox)")
	[ "$vm_arch" = arm64 ] || return 0
	vm_initramfs_args+=(--arch arm64 --modules-root "$vm_root" --release "$1"
		--early "virtio_mmio virtio_console")
}

# vm_kbuild C NAME RELEASE OUTDIR: OUTDIR/NAME.ko from the one C file, by
# kbuild against RELEASE's headers (for arm64 with the cross compiler);
# kbuild's messages in OUTDIR/NAME.kbuild.log.
vm_kbuild() {
	local c=$1 n=$2 r=$3 o=$4 b
	b=$o/kbuild-$n
	rm -rf "$b"
	mkdir -p "$b"
	cp "$c" "$b/$n.c"
	echo "obj-m := $n.o" >"$b/Kbuild"
	if make -C "$vm_root/lib/modules/$r/build" M="$b" \
		${vm_cross:+ARCH=$vm_arch CROSS_COMPILE=$vm_cross} modules \
		>"$o/$n.kbuild.log" 2>&1 && [ -f "$b/$n.ko" ]; then
		cp "$b/$n.ko" "$o/$n.ko"
	else
		cat "$o/$n.kbuild.log" >&2
		return 1
	fi
}

vm_boot() {
	local r=$1 stage=$2 o=$3 limit=$4 taprun f
	taprun=$(vm_taprun) || return 1
	mkdir -p "$o/cases"
	vm_initramfs_args "$r"
	"$top/testsuite/vm/mkinitramfs" -o "$o/initrd.gz" --cases "$stage" \
		--workloads "$o/workloads" --taprun "$taprun" \
		"${vm_initramfs_args[@]}" || return 1
	# (a cpio archive may follow another in an initramfs: a large one
	# built once need not be packed again each boot)
	if [ -n "${vm_extra_initrds+set}" ] && [ ${#vm_extra_initrds[@]} -gt 0 ]; then
		cat "${vm_extra_initrds[@]}" >>"$o/initrd.gz" || return 1
	fi
	f=$(vm_kernel "$r") || return 1
	vm_qemu "$f" "$o/initrd.gz" "$o/console.log" "$o/cases.raw"
	timeout -k 5 "$limit" "${vm_qemu_cmd[@]}" </dev/null >"$o/qemu.log" 2>&1
	[ $? -ne 124 ] || echo "the VM did not power off within $limit s (killed)" >&2
	vm_split_cases "$o/cases.raw" "$o/cases"
}

# The case channel RAW (ttyS1, arm64: hvc0) into DIR/NAME.{stdout,stderr,dmesg,end},
# the other markers (BOOT, DONE) into DIR/vm.markers.
vm_split_cases() {
	local raw=$1 dir=$2 f
	tr -d '\r' <"$raw" | awk -v dir="$dir" '
		/^@@TAPC-VM BEGIN / { name = $3; file = ""; next }
		/^@@TAPC-VM SECTION / { file = dir "/" name "." $3 ".b64"; printf "" > file; next }
		/^@@TAPC-VM END / { print > (dir "/" name ".end"); file = ""; next }
		/^@@TAPC-VM / { print > (dir "/vm.markers"); next }
		file != "" { print >> file }
	'
	for f in "$dir"/*.b64; do
		[ -e "$f" ] || continue
		base64 -d <"$f" >"${f%.b64}" 2>/dev/null || echo "(output was cut off)" >>"${f%.b64}"
		rm -f "$f"
	done
}

vm_field() {
	sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" "$2"
}

# sh-quote one word for the guest's busybox sh
vm_quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}
