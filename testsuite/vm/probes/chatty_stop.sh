# A translated script printing 10,000 records a second (chatty.stp) stops
# within a second of SIGINT, and of its -c command's exit, once 10,000
# lines are out: the end probe's line arrives last, after the lines of
# all the hits it counts, the status is 0 and the module is unloaded.
# (The rate must be well above 100 records a second, where taprun used to
# stop noticing signals; under TCG it is some thousands.)
now() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
lines() { n=$(grep -c '^hit [0-9]* \.*$' out 2>/dev/null); echo "${n:-0}"; }
# wait_lines PID: until the script runs (its begin line, at most 40 s),
# then sets t0 and waits until 10,000 lines are out (at most 40 s)
wait_lines() {
	i=0
	until grep -q '^begin$' out 2>/dev/null || [ $i -ge 400 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	t0=$(now)
	i=0
	while [ "$(lines)" -lt 10000 ] && [ $i -lt 400 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}
report() {	# WHAT STATUS T_START T_STOP T_END
	echo "$1: status $2"
	n=$(lines)
	rate=$((n * 100 / ($4 - $3 + 1)))
	echo "$1: $n records, $rate a second, stopped in $(($5 - $4))0 ms" >&2
	[ $(($5 - $4)) -le 100 ] || echo "took $(($5 - $4))0 ms to stop"
	[ "$rate" -ge 300 ] || echo "only $rate records a second"
	hits=$(sed -n 's/^end after \([0-9]*\) hits$/\1/p' out)
	[ -n "$hits" ] && [ "$n" -eq "$hits" ] || echo "$n lines for $hits hits"
	head -1 out
	tail -1 out | sed 's/[0-9][0-9]*/N/'
	cat err
	grep -q '^chatty ' /proc/modules && echo "still loaded" && taprun -d chatty
}
taprun chatty.ko >out 2>err &
pid=$!
( sleep 60; kill -KILL $pid 2>/dev/null ) &
dog=$!
wait_lines $pid
t1=$(now)
kill -INT $pid
wait $pid
status=$?
t2=$(now)
kill $dog 2>/dev/null
report SIGINT $status $t0 $t1 $t2

# The command ends once 10,000 lines are out.
rm -f cmd_end
taprun -c 'until [ "$(grep -c "^hit" out)" -ge 10000 ]; do sleep 0.1; done; awk "{ printf \"%d\n\", \$1 * 100 }" /proc/uptime >cmd_end' \
	chatty.ko >out 2>err &
pid=$!
( sleep 60; kill -KILL $pid 2>/dev/null ) &
dog=$!
wait_lines $pid
wait $pid
status=$?
t2=$(now)
t1=$(cat cmd_end)	# when the command exited
kill $dog 2>/dev/null
report "-c command" $status $t0 $t1 $t2
rm -f out cmd_end
exit 0
