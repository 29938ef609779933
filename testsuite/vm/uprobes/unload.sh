# Nothing is left behind: uptest-stripped runs (30 calls, 100 ms apart)
# while the module is loaded and after it is unloaded.  Its code in
# memory has the breakpoint at square() while the probe is on and the
# file's byte again after; it finishes with the right sums.
. ./caselib
rm -f /host/tmp/up-go
in-host env UPTEST_GO=/tmp/up-go "$B/uptest-stripped" 30 100 >prog.out &
p=$!
# the first byte of square() in p's memory, in hex
code_byte() {
	off=$(cat square.off)
	addr=
	while read -r range perms moff _ _ path; do
		case $path in */uptest-stripped) ;; *) continue ;; esac
		case $perms in *x*) ;; *) continue ;; esac
		start=$((0x${range%-*}))
		end=$((0x${range#*-}))
		base=$((0x$moff))
		if [ "$off" -ge "$base" ] && [ "$off" -lt $((base + end - start)) ]; then
			addr=$((start + off - base))
		fi
	done <"/proc/$p/maps"
	[ -n "$addr" ] || { echo "no mapping"; return; }
	dd if="/proc/$p/mem" bs=1 skip="$addr" count=1 2>/dev/null | od -An -tx1 | tr -d ' '
}
what() {
	b=$(code_byte)
	if [ "$b" = cc ]; then
		echo "int3"
	elif [ "$b" = "$(cat square.byte)" ]; then
		echo "the file's byte"
	else
		echo "$b?"
	fi
}
# wait until p runs the program (it waits for up-go there)
i=0
while ! grep -q 'uptest-stripped$' "/proc/$p/maps" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "before: $(what)"
up_start unload || exit 0
echo "while loaded: $(what)"
touch /host/tmp/up-go
sleep 1
up_stop
echo "after unload: $(what)"
wait "$p"
echo "uptest status $?"
cat prog.out
