# The overload guard stops a handler that eats its CPU (overload_heavy.stp)
# with stap's message and status 1, and the end probe runs; -T is only
# a safety net.  The overhead in the message varies: its number is
# checked, then replaced by N.
now() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
getppid_loop 2000000000 &
w=$!
t0=$(now)
taprun -T 30 overload_heavy.ko >out 2>err
echo "status $?"
echo "stopped after $(($(now) - t0))0 ms" >&2
kill $w
wait $w 2>/dev/null
cat out
n=$(sed -nE 's/^ERROR: probe overhead \(([0-9]+) cycles\) .*/\1/p' err)
[ -n "$n" ] && [ "$n" -gt 500000000 ] && echo "the overhead is over the threshold"
sed -E 's/^(ERROR: probe overhead \()[0-9]+ cycles/\1N cycles/' err
rm -f out err
exit 0
