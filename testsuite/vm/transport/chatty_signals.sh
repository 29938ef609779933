# A flood of output (every CPU prints 10 records of 40 bytes each 1 ms:
# over 10,000 records a second) does not keep taprun from seeing a stop
# signal: SIGINT, SIGTERM and SIGHUP each stop the run within a second,
# the end probe's line arrives last, the status is 0 and the module is
# unloaded.  (taprun used to act on a signal only when ppoll() returned
# EINTR, which it never does while a trace file is always readable.)
now() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
for sig in INT TERM HUP; do
	taprun tap_selftest.ko period_ms=1 flood=10 flood_len=40 >out 2>err &
	pid=$!
	( sleep 12; kill -KILL $pid 2>/dev/null ) &
	dog=$!
	sleep 2
	before=$(wc -l <out)
	t0=$(now)
	kill -$sig $pid
	wait $pid
	status=$?
	t1=$(now)
	kill $dog 2>/dev/null
	echo "SIG$sig: status $status"
	echo "SIG$sig: $before records in 2 s, stopped in $((t1 - t0))0 ms" >&2
	[ "$before" -ge 10000 ] || echo "only $before records in 2 s"
	[ $((t1 - t0)) -le 100 ] || echo "took $((t1 - t0))0 ms to stop"
	tail -1 out | sed 's/[0-9][0-9]*$/N/'
	cat err
	grep -q '^tap_selftest ' /proc/modules && echo "still loaded" && taprun -d tap_selftest
done
rm -f out
exit 0
