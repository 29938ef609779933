# SIGINT stops the run: the end probe runs and its output arrives.
taprun tap_selftest.ko period_ms=50 > out 2> err &
pid=$!
sleep 1
kill -INT $pid
wait $pid
echo "status $?"
head -1 out
n=$(grep -c '^tick' out)
tail -1 out | grep -q "^end printed $n\$" && echo "end ok"
cat err
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
exit 0
