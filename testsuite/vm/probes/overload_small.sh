# -DSTP_OVERLOAD_THRESHOLD=1 -DSTP_OVERLOAD_INTERVAL=1000000 and a profile
# timer (overload_small.stp): stopped at its second tick on a CPU, with
# the -D values in the message.
taprun -T 30 overload_small.ko >out 2>err
echo "status $?"
cat out
n=$(sed -nE 's/^ERROR: probe overhead \(([0-9]+) cycles\) .*/\1/p' err)
[ -n "$n" ] && [ "$n" -gt 1 ] && echo "the overhead is over the threshold"
sed -E 's/^(ERROR: probe overhead \()[0-9]+ cycles/\1N cycles/' err
rm -f out err
exit 0
