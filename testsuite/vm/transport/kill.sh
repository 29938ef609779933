# taprun killed: closing ctl ends the session in the module, which can
# then be removed with taprun -d.  A second SIGINT while the end probe
# runs stops the wait, and the module is still unloaded.
taprun tap_selftest.ko period_ms=50 > out 2>&1 &
pid=$!
sleep 1
kill -9 $pid
wait $pid 2>/dev/null
grep -q '^tap_selftest ' /proc/modules && echo "left loaded"
taprun -d tap_selftest && echo "removed"
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
taprun tap_selftest.ko period_ms=50 end_delay_ms=3000 > out 2> err &
pid=$!
sleep 1
kill -INT $pid
sleep 0.5
kill -INT $pid
wait $pid
echo "status $?"
cat err
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
exit 0
