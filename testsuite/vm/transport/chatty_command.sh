# The -c command's exit stops a run that floods output (20,000 records a
# second when the VM keeps up) within a second: the command ends once
# 10,000 records are out, the end probe's line arrives last and the module
# is unloaded.  Then a command that cannot run fails before the module is
# loaded.  Rates and times go to stderr.
now() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
records() { n=$(grep -c '^[ab]\{39\}$' out 2>/dev/null); echo "${n:-0}"; }
rm -f cmd_end
t0=$(now)
taprun -c 'until [ "$(grep -c "^[ab]" out)" -ge 10000 ]; do sleep 0.1; done; awk "{ printf \"%d\n\", \$1 * 100 }" /proc/uptime >cmd_end' \
	tap_selftest.ko period_ms=1 flood=10 flood_len=40 >out 2>err &
pid=$!
( sleep 60; kill -KILL $pid 2>/dev/null ) &
dog=$!
wait $pid
status=$?
t2=$(now)
kill $dog 2>/dev/null
t1=$(cat cmd_end)
n=$(records)
echo "status $status"
echo "$n records in $((t1 - t0))0 ms (with the load), stopped in $((t2 - t1))0 ms" >&2
[ "$n" -ge 10000 ] || echo "only $n records"
[ $((t2 - t1)) -le 100 ] || echo "took $((t2 - t1))0 ms to stop"
tail -1 out | sed 's/[0-9][0-9]*$/N/'
cat err
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
# A command that cannot run fails before the module is loaded.
taprun -c /no/such/cmd tap_selftest.ko >out 2>err
echo "status $?"
cat out err
grep -q '^tap_selftest ' /proc/modules && echo "loaded"
rm -f out cmd_end
exit 0
