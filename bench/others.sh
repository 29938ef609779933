# shellcheck shell=bash
# others.sh - sourced by bench/runtime, bench/arming and bench/overload:
# bpftrace and SystemTap measured beside tapc in the same boot of the
# test VM.
#
# The test VM's initramfs holds static programs only.  bpftrace and
# SystemTap's staprun (with its stapio) are the host's own dynamic
# programs: others_cpio packs them, with the shared libraries ldd names
# and the loader, at the paths they were linked for, into one gzipped cpio
# archive that vm_boot appends to the initramfs (vm_extra_initrds).
# bpftrace brings LLVM and clang (~200 MB unpacked), so the archive is
# built once and kept in testsuite/out/bench-others/, named by a hash of
# the files in it: a new bpftrace or library builds a new one.
#
# stap 4.8 builds its modules here, with "stap -p4 -r TREE -R RUNTIME":
#   - TREE (testsuite/out/bench-others/tree-RELEASE/) is the kernel's
#     headers (and their "source" link) with the debug package's
#     System.map and vmlinux beside them: for a release other than the running kernel, stap reads the
#     kernel's symbols from the build tree's System.map, and Debian's
#     /boot one is a stub;
#   - RUNTIME is a copy of stap's runtime, changed in one place where the
#     kernel needs it: 6.1.y's stable updates made task_work_cancel()
#     take a callback_head and return bool, and moved the old call to
#     task_work_cancel_func(), which stap 4.8's runtime does not know
#     (its module then fails to compile).  The copy's calls are renamed.
#     The copy is in testsuite/out only; nothing of SystemTap is kept in
#     this repository.
#
# BENCH_STAP=0 and BENCH_BPFTRACE=0 leave a tool out (stap's modules
# take minutes to build on a loaded machine).
#
# Functions (each sets a *_why with the reason when a tool cannot be
# used; the bench prints "-" and the reason in that column):
#   others_cpio DIR      others_cpio=the archive (built if missing) or "";
#                        sets others_bt (bpftrace's path, or ""),
#                        others_staprun (staprun's, or ""), others_bt_why,
#                        others_stap_why; others_cpio_note says its size
#                        and how long building it took
#   others_stap_setup RELEASE
#                        prepares TREE and RUNTIME; others_stap="" and
#                        others_stap_why when stap cannot build for RELEASE
#   others_stap_build NAME STP DIR [STAP-ARGS...]
#                        DIR/NAME.ko from STP by stap -p4 (its messages in
#                        DIR/NAME.err); status 1 when it fails

others_dir=$top/testsuite/out/bench-others

# the files a dynamic PROGRAM needs: itself, its libraries, the loader
others_libs() {
	echo "$1"
	ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'
}

others_cpio() {
	local dir=$1 files f key stage t0 raw
	others_cpio= others_cpio_note= others_bt= others_staprun=
	others_bt_why= others_stap_why=
	others_bt=$(command -v "${BPFTRACE:-bpftrace}" 2>/dev/null)
	[ -n "$others_bt" ] || others_bt_why="no bpftrace on this machine (apt-get install bpftrace)"
	others_staprun=$(command -v staprun 2>/dev/null)
	local stapio=
	if [ -z "$others_staprun" ]; then
		others_stap_why="no staprun on this machine (apt-get install systemtap)"
	else
		# staprun runs stapio from its own lib folder
		stapio=$(dirname "$(dirname "$(readlink -f "$others_staprun")")")/lib/systemtap/stapio
		if [ ! -x "$stapio" ]; then
			others_stap_why="no stapio at $stapio"
			others_staprun=
			stapio=
		fi
	fi
	if [ "${vm_arch:-x86_64}" != x86_64 ]; then
		# the host's programs are x86-64 ones
		[ -z "$others_bt" ] || others_bt_why="bpftrace: x86_64 VM only"
		[ -z "$others_staprun" ] || others_stap_why="stap: x86_64 VM only"
		others_bt= others_staprun=
	fi
	[ -n "$others_bt$others_staprun" ] || return 0
	files=$( { [ -z "$others_bt" ] || others_libs "$others_bt"
		  [ -z "$others_staprun" ] || { others_libs "$others_staprun"; others_libs "$stapio"; }
		} | sort -u)
	for f in $files; do
		[ -r "$f" ] || { others_bt_why="cannot read $f" others_stap_why="cannot read $f"; others_bt= others_staprun=; return 0; }
	done
	# the archive's name: the files, their sizes and times
	# shellcheck disable=SC2086
	key=$(ls -lL --time-style=+%s $files | awk '{ print $5, $6, $7 }' | md5sum | cut -c1-12)
	mkdir -p "$dir"
	others_cpio=$dir/tools-$key.cpio.gz
	if [ ! -s "$others_cpio" ]; then
		rm -f "$dir"/tools-*.cpio.gz "$dir"/tools-*.built
		t0=$(date +%s%N)
		stage=$(mktemp -d "${TMPDIR:-/tmp}/bench-others.XXXXXX")
		for f in $files; do
			mkdir -p "$stage$(dirname "$f")"
			cp -L "$f" "$stage$f"
		done
		(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
			cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$others_cpio.tmp"
		raw=$(du -sb "$stage" | cut -f1)
		rm -rf "$stage"
		mv "$others_cpio.tmp" "$others_cpio"
		echo "$raw $((($(date +%s%N) - t0) / 1000000))" >"$others_cpio.built"
	fi
	read -r raw t0 <"$others_cpio.built" 2>/dev/null
	# (a tool left out is still in the archive: it is built once)
	if [ "${BENCH_BPFTRACE:-1}" = 0 ] && [ -n "$others_bt" ]; then
		others_bt= others_bt_why="left out (BENCH_BPFTRACE=0)"
	fi
	if [ "${BENCH_STAP:-1}" = 0 ] && [ -n "$others_staprun" ]; then
		others_staprun= others_stap_why="left out (BENCH_STAP=0)"
	fi
	if [ -z "$others_bt$others_staprun" ]; then
		others_cpio=
		return 0
	fi
	others_cpio_note=$(awk -v z="$(stat -c %s "$others_cpio")" -v r="${raw:-0}" -v t="${t0:-0}" \
		'BEGIN { printf "%.1f MB gzipped (%.1f MB unpacked), built once in %.1f s", z / 1e6, r / 1e6, t / 1e3 }')
	return 0
}

others_stap_setup() {
	local r=$1 stap map vml rt f t
	others_stap= others_tree= others_rt=
	[ -z "$others_stap_why" ] || return 0
	stap=$(command -v stap 2>/dev/null)
	[ -n "$stap" ] || { others_stap_why="no stap on this machine (apt-get install systemtap)"; return 0; }
	map=/usr/lib/debug/boot/System.map-$r
	vml=/usr/lib/debug/boot/vmlinux-$r
	if [ ! -s "$map" ] || [ ! -s "$vml" ]; then
		others_stap_why="stap needs $map and $vml (linux-image-$r-dbg)"
		return 0
	fi
	# Made once, then only read: benches running side by side (each
	# holds its own lock) share them.
	others_tree=$others_dir/tree-$r
	if [ ! -e "$others_tree/.made" ]; then
		t=$others_tree.$$
		rm -rf "$t"
		mkdir -p "$t"
		for f in /lib/modules/"$r"/build/* /lib/modules/"$r"/build/.[!.]*; do
			[ -e "$f" ] && ln -s "$f" "$t/"
		done
		# (stap finds the tracepoints' headers through "source": Debian's
		# headers split between the release's folder and a common one)
		[ ! -e /lib/modules/"$r"/source ] || ln -sfn /lib/modules/"$r"/source "$t/source"
		ln -sfn "$map" "$t/System.map"
		ln -sfn "$vml" "$t/vmlinux"
		touch "$t/.made"
		rm -rf "$others_tree"
		mv "$t" "$others_tree"
	fi
	rt=$(dirname "$(dirname "$(readlink -f "$stap")")")/share/systemtap/runtime
	[ -d "$rt" ] || { others_stap_why="no stap runtime at $rt"; return 0; }
	others_rt=$others_dir/stap-runtime-$r
	if [ ! -e "$others_rt/.made" ] || [ "$rt" -nt "$others_rt/.made" ]; then
		t=$others_rt.$$
		rm -rf "$t"
		cp -r "$rt" "$t"
		if grep -qs 'bool task_work_cancel(' /lib/modules/"$r"/build/include/linux/task_work.h \
			/lib/modules/"$r"/source/include/linux/task_work.h; then
			sed -i 's/\btask_work_cancel\b/task_work_cancel_func/g' "$t/stp_task_work.c"
		fi
		touch "$t/.made"
		rm -rf "$others_rt"
		mv "$t" "$others_rt"
	fi
	others_stap=$stap
}

others_stap_build() {
	local name=$1 stp=$2 dir=$3
	shift 3
	[ -n "$others_stap" ] || return 1
	(cd "$dir" && "$others_stap" -p4 -r "$others_tree" -R "$others_rt" -m "$name" "$@" "$stp" \
		>"$name.out" 2>"$name.err" </dev/null) && [ -s "$dir/$name.ko" ]
}
