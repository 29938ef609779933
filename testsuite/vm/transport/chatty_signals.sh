# A flood of output (every CPU prints 10 records of 40 bytes each 1 ms,
# 20,000 records a second when the VM keeps up) does not keep taprun from
# seeing a stop signal: once 10,000 records are out, SIGINT, SIGTERM and
# SIGHUP each stop the run within a second, the end probe's line arrives
# last, the status is 0 and the module is unloaded.  (taprun used to act
# on a signal only when ppoll() returned EINTR, which it never does while
# a trace file is always readable.)  Rates and times go to stderr.
now() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
records() { n=$(grep -c '^[ab]\{39\}$' out 2>/dev/null); echo "${n:-0}"; }
# wait_records PID: the begin line (sets t0), then 10,000 records (t1)
wait_records() {
	i=0
	until grep -q '^begin' out 2>/dev/null || [ $i -ge 400 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	t0=$(now)
	i=0
	while [ "$(records)" -lt 10000 ] && [ $i -lt 400 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	t1=$(now)
}
for sig in INT TERM HUP; do
	taprun tap_selftest.ko period_ms=1 flood=10 flood_len=40 >out 2>err &
	pid=$!
	( sleep 60; kill -KILL $pid 2>/dev/null ) &
	dog=$!
	wait_records $pid
	n=$(records)
	kill -$sig $pid
	wait $pid
	status=$?
	t2=$(now)
	kill $dog 2>/dev/null
	rate=$((n * 100 / (t1 - t0 + 1)))
	echo "SIG$sig: status $status"
	echo "SIG$sig: $n records, $rate a second, stopped in $((t2 - t1))0 ms" >&2
	[ "$n" -ge 10000 ] || echo "only $n records"
	[ "$rate" -ge 300 ] || echo "only $rate records a second"
	[ $((t2 - t1)) -le 100 ] || echo "took $((t2 - t1))0 ms to stop"
	tail -1 out | sed 's/[0-9][0-9]*$/N/'
	cat err
	grep -q '^tap_selftest ' /proc/modules && echo "still loaded" && taprun -d tap_selftest
done
rm -f out
exit 0
