# The -c command's exit stops a run that floods output (over 10,000
# records a second) within a second of it, the end probe's line arrives
# last and the module is unloaded.
now() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
t0=$(now)
taprun -c 'sleeper 2000' tap_selftest.ko period_ms=1 flood=10 flood_len=40 \
	>out 2>err &
pid=$!
( sleep 14; kill -KILL $pid 2>/dev/null ) &
dog=$!
wait $pid
status=$?
t1=$(now)
kill $dog 2>/dev/null
echo "status $status"
[ $((t1 - t0)) -le 300 ] || echo "took $((t1 - t0))0 ms for a 2 s command"
n=$(grep -c "^[ab]\{39\}$" out)
[ "$n" -ge 10000 ] || echo "only $n records"
echo "$n records, taprun ran $((t1 - t0))0 ms" >&2
tail -1 out | sed 's/[0-9][0-9]*$/N/'
cat err
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
# A command that cannot run fails before the module is loaded.
taprun -c /no/such/cmd tap_selftest.ko >out 2>err
echo "status $?"
cat out err
grep -q '^tap_selftest ' /proc/modules && echo "loaded"
rm -f out
exit 0
