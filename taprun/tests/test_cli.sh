#!/bin/sh
# test_cli.sh - taprun's command line and the checks it makes before
# loading anything: exit statuses and messages.  Runs on any machine (no
# module is loaded): the modules here are ELF objects with a hand-made
# .modinfo section, plus, when a kernel tree other than the running one
# is installed, a real module built by tapc for it.
# Exit 0 when every case passes, 1 otherwise ("make check" runs it).
top=$(cd "$(dirname "$0")/../.." && pwd)
TAPRUN=${TAPRUN:-$(pwd)/taprun/taprun}
TAPC=${TAPC:-$(pwd)/tapc}
[ -x "$TAPRUN" ] || TAPRUN=$top/taprun/taprun
[ -x "$TAPC" ] || TAPC=$top/tapc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
checks=0

# check WANT_STATUS 'EXACT STDERR' ARGS...: stdout is ignored unless
# $want_out is set.
check() {
	want=$1 err=$2
	shift 2
	checks=$((checks + 1))
	(cd "$tmp" && "$TAPRUN" "$@" </dev/null >out 2>err)
	rc=$?
	if [ $rc -ne "$want" ] || [ "$(cat "$tmp/err")" != "$err" ] ||
	   { [ -n "${want_out:-}" ] && ! grep -q -- "$want_out" "$tmp/out"; }; then
		failures=$((failures + 1))
		echo "FAIL: taprun $*: exit $rc (want $want)"
		echo "  stderr: $(cat "$tmp/err")"
		echo "  want:   $err"
		[ -z "${want_out:-}" ] || echo "  stdout should have: $want_out"
	fi
}

# fake NAME RELEASE PARAM... : an object with just a .modinfo section.
fake() {
	name=$1 rel=$2
	shift 2
	printf 'int x;\n' >"$tmp/e.c"
	gcc -c "$tmp/e.c" -o "$tmp/e.o" || exit 1
	{
		printf 'name=%s\0' "$name"
		printf 'vermagic=%s SMP preempt mod_unload modversions \0' "$rel"
		for p in "$@"; do printf 'parmtype=%s\0' "$p"; done
	} >"$tmp/modinfo"
	objcopy --add-section .modinfo="$tmp/modinfo" "$tmp/e.o" "$tmp/$name.ko" ||
		exit 1
}

running=$(uname -r)
fake other 1.2.3-other limit:long who:charp _tap_bufsize:uint

want_out='^Usage: taprun' check 0 '' --help
want_out='^Usage: taprun' check 0 '' -h
want_out='^taprun (tapc) ' check 0 '' --version
check 1 'ERROR: unknown option --bogus (taprun -h lists the options)' --bogus
check 1 'ERROR: unknown option -Z (taprun -h lists the options)' -Z x.ko

# -c: a command that cannot run stops taprun before the module loads
check 1 "ERROR: command '/no/such/cmd': cannot run '/no/such/cmd': No such file or directory" \
	-c /no/such/cmd other.ko
check 1 "ERROR: command 'no-such-command-x -v': cannot run 'no-such-command-x': No such file or directory" \
	-c 'no-such-command-x -v' other.ko
check 1 "ERROR: command '/': cannot run '/': Is a directory" -c / other.ko
check 1 "ERROR: option -c: the command is empty" -c ' ' other.ko

# -S SIZE[,N]: numbered output files; needs -o, sizes and counts checked
# before anything is loaded
check 1 'ERROR: -S needs -o FILE: the output files are FILE.0, FILE.1, ...' \
	-S 1 other.ko
check 1 'ERROR: -S needs -o FILE: the output files are FILE.0, FILE.1, ...' \
	-S 2,3 -b other.ko
check 1 "ERROR: option -S: the size '0' is not a number of megabytes from 1 to 1048576" \
	-S 0 -o out other.ko
check 1 "ERROR: option -S: the size 'big' is not a number of megabytes from 1 to 1048576" \
	-S big,2 -o out other.ko
check 1 "ERROR: option -S: the size '1048577' is not a number of megabytes from 1 to 1048576" \
	-S 1048577 -o out other.ko
check 1 "ERROR: option -S: the number of files '0' is not a number from 1 to 1048576" \
	-S 1,0 -o out other.ko
check 1 "ERROR: option -S: the number of files '2x' is not a number from 1 to 1048576" \
	-S 1,2x -o out other.ko
check 1 "ERROR: option -S: expected SIZE[,N] (megabytes per file, files to keep), not '1,'" \
	-S 1, -o out other.ko
check 1 "ERROR: option -S: expected SIZE[,N] (megabytes per file, files to keep), not ',2'" \
	-S ,2 -o out other.ko
check 1 'ERROR: option -S needs an argument' -S
# a good -S goes on to the checks of the module (no file made)
msg="ERROR: module 'other' was built for kernel 1.2.3-other, but this kernel is $(uname -r) (build it again with \"tapc -r $(uname -r)\")"
check 1 "$msg" -S 1,3 -o rot other.ko
[ ! -e "$tmp/rot" ] && [ ! -e "$tmp/rot.0" ] || {
	failures=$((failures + 1))
	echo "FAIL: taprun -S 1,3 -o rot made an output file before loading"
}

# NAME=VALUE must name a parameter of the module (not the runtime's own
# in the list)
check 1 "ERROR: module 'other' has no parameter 'limt' (it has: limit, who)" \
	other.ko limt=3
check 1 "ERROR: module parameter 'oops': expected NAME=VALUE" other.ko oops

# a module for another kernel: both releases named, nothing loaded
msg="ERROR: module 'other' was built for kernel 1.2.3-other, but this kernel is $running (build it again with \"tapc -r $running\")"
check 1 "$msg" other.ko
check 1 "$msg" other.ko limit=3 who=me
check 1 "$msg" -c true other.ko _tap_bufsize=64

# not a module at all
printf 'hello\n' >"$tmp/text.ko"
check 1 "ERROR: 'text.ko' is not a kernel module (no 64-bit ELF)" text.ko

# The release check on a real module: tapc builds one for a kernel tree
# that is installed but not running.
for rel in 6.1.0-56-amd64 6.12.107+deb12-amd64; do
	[ "$rel" != "$running" ] && [ -d "/lib/modules/$rel/build" ] || continue
	# the runtime of this source tree, also in a VPATH build
	if (cd "$tmp" && SYSTEMTAP_RUNTIME=$top/runtime SYSTEMTAP_TAPSET=$top/tapsets \
		"$TAPC" -p4 -r "$rel" -m cli_release \
		-e 'global n = 1; probe begin { println(n); exit() }' \
		>/dev/null 2>"$tmp/p4.err"); then
		check 1 "ERROR: module 'cli_release' was built for kernel $rel, but this kernel is $running (build it again with \"tapc -r $running\")" \
			cli_release.ko n=2
		check 1 "ERROR: module 'cli_release' has no parameter 'm' (it has: n)" \
			cli_release.ko m=2
	else
		failures=$((failures + 1))
		echo "FAIL: tapc -p4 -r $rel did not build the module:"
		sed 's/^/  /' "$tmp/p4.err"
	fi
	break
done

echo "$checks checks, $failures failures"
[ $failures -eq 0 ]
