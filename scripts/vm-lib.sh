# shellcheck shell=bash
# vm-lib.sh - sourced by scripts/run-in-vm, bench/runtime and
# testsuite/vm/run: boot the test VM (Debian's kernel under qemu TCG,
# testsuite/vm/init as /init) with a few cases and get their output back.
# The layout of a case and of the serial output is the one
# testsuite/vm/init documents.
#
# Needs $top (the checkout).  Functions:
#   vm_release             the kernel to boot: $VM_RELEASE, else 6.1.0-56-amd64,
#                          else the newest one with /boot/vmlinuz-R and headers
#   vm_check RELEASE       say what is missing to boot RELEASE (status 1)
#   vm_taprun              path of the static taprun (builds it)
#   vm_workloads DIR [C..] compile testsuite/vm/workloads/*.c and the extra
#                          C files into DIR, static
#   vm_boot RELEASE STAGE OUT LIMIT
#                          boot once with the cases in STAGE/NAME/ (cmd,
#                          modules, timeout), workloads from OUT/workloads;
#                          leaves OUT/console.log and OUT/cases/NAME.{stdout,
#                          stderr,dmesg,end}
#   vm_split_cases RAW DIR the case channel split into DIR/NAME.{stdout,
#                          stderr,dmesg,end} (vm_boot does it)
#   vm_field KEY ENDFILE   a field (status, problems, ...) of a case's END line
#   vm_is_static PROGRAM   true for an executable without an ELF interpreter
#   vm_kernel RELEASE      the image to boot (the extracted vmlinux)
#   vm_quote WORD          WORD quoted for the guest's sh

vm_default_release=6.1.0-56-amd64

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
	if [ -r "/boot/vmlinuz-$vm_default_release" ] &&
	   [ -d "/lib/modules/$vm_default_release/build" ]; then
		echo "$vm_default_release"
		return
	fi
	# Another Debian kernel: the newest with both an image and headers.
	for r in $(ls /boot/vmlinuz-* 2>/dev/null | sed 's,^/boot/vmlinuz-,,' | sort -rV); do
		if [ -d "/lib/modules/$r/build" ]; then
			echo "$r"
			return
		fi
	done
	echo "$vm_default_release"
}

vm_check() {
	local r=$1 t bad=
	if [ ! -r "/boot/vmlinuz-$r" ] || [ ! -d "/lib/modules/$r/build" ]; then
		echo "no kernel /boot/vmlinuz-$r or no headers /lib/modules/$r/build" \
		     "(bash scripts/install-deps.sh --vm)" >&2
		bad=1
	fi
	for t in qemu-system-x86_64 cpio gzip base64 readelf; do
		command -v "$t" >/dev/null 2>&1 ||
			{ echo "no $t (bash scripts/install-deps.sh --vm)" >&2; bad=1; }
	done
	[ -x /bin/busybox ] ||
		{ echo "no /bin/busybox (install busybox-static)" >&2; bad=1; }
	[ -z "$bad" ]
}

vm_is_static() {
	[ -x "$1" ] && [ "$(readelf -l "$1" 2>/dev/null | grep -c INTERP)" = 0 ]
}

vm_taprun() {
	if [ -n "${TAPRUN:-}" ]; then
		vm_is_static "$TAPRUN" && echo "$TAPRUN" && return 0
		echo "TAPRUN=$TAPRUN is not a static program" >&2
		return 1
	fi
	if ! make -C "$top" -s taprun-static >/dev/null 2>&1 ||
	   ! vm_is_static "$top/taprun/taprun-static"; then
		echo "cannot build the static taprun (make taprun-static)" >&2
		return 1
	fi
	echo "$top/taprun/taprun-static"
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
		gcc -static -O2 -s -Wall -o "$w" "$c" ||
			{ echo "workload $c does not compile" >&2; return 1; }
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
vm_kernel() {
	local r=$1 kernel=/boot/vmlinuz-$1 vmlinux off
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
vm_qemu() {
	vm_qemu_cmd=(qemu-system-x86_64 -accel "$vm_accel" -m 1024 -smp 2
		-nodefaults -display none -no-reboot
		-kernel "$1" -initrd "$2"
		-append "console=ttyS0 quiet loglevel=3 panic=-1${5:+ $5}"
		-serial "file:$3" -serial "file:$4")
}

vm_boot() {
	local r=$1 stage=$2 o=$3 limit=$4 taprun f
	taprun=$(vm_taprun) || return 1
	mkdir -p "$o/cases"
	"$top/testsuite/vm/mkinitramfs" -o "$o/initrd.gz" --cases "$stage" \
		--workloads "$o/workloads" --taprun "$taprun" || return 1
	f=$(vm_kernel "$r") || return 1
	vm_qemu "$f" "$o/initrd.gz" "$o/console.log" "$o/cases.raw"
	timeout -k 5 "$limit" "${vm_qemu_cmd[@]}" </dev/null >"$o/qemu.log" 2>&1
	[ $? -ne 124 ] || echo "the VM did not power off within $limit s (killed)" >&2
	vm_split_cases "$o/cases.raw" "$o/cases"
}

# The case channel RAW (ttyS1) into DIR/NAME.{stdout,stderr,dmesg,end},
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
