# A translated script printing 10,000 lines a second stops within a second
# of SIGINT, and of its -c command's exit: the end probe's line arrives
# last (after every line of the hits it counts), the status is 0 and the
# module is unloaded.
now() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
report() {
	echo "$1: status $2"
	[ $(($4 - $3)) -le 100 ] || echo "took $(($4 - $3))0 ms to stop"
	hits=$(sed -n 's/^end after \([0-9]*\) hits$/\1/p' out)
	lines=$(grep -c '^hit [0-9]* line [0-9]* \.*$' out)
	[ "$lines" -ge 10000 ] || echo "only $lines lines"
	echo "$1: $lines lines, stopped in $(($4 - $3))0 ms" >&2
	[ -n "$hits" ] && [ "$lines" -eq $((hits * 10)) ] || echo "$lines lines for $hits hits"
	head -1 out
	tail -1 out | sed 's/[0-9][0-9]*/N/'
	cat err
	grep -q '^chatty ' /proc/modules && echo "still loaded" && taprun -d chatty
}
taprun chatty.ko >out 2>err &
pid=$!
( sleep 12; kill -KILL $pid 2>/dev/null ) &
dog=$!
sleep 2
t0=$(now)
kill -INT $pid
wait $pid
status=$?
t1=$(now)
kill $dog 2>/dev/null
report SIGINT $status $t0 $t1

taprun -c 'sleeper 2000' chatty.ko >out 2>err &
pid=$!
( sleep 14; kill -KILL $pid 2>/dev/null ) &
dog=$!
sleep 1
while [ -n "$(pidof sleeper)" ]; do sleep 0.05; done
t0=$(now)
wait $pid
status=$?
t1=$(now)
kill $dog 2>/dev/null
report "-c command" $status $t0 $t1
rm -f out
exit 0
