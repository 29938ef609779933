# exit() from a probe: EXIT, then STOP from taprun, end probes, DONE.
taprun tap_selftest.ko ticks=5 period_ms=20 > out 2> err
echo "status $?"
head -1 out
grep '^exit after' out
tail -1 out | sed 's/[0-9][0-9]*$/N/'
cat err
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
exit 0
