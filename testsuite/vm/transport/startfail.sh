# tap_on_start() fails: the error is shown and the module unloaded.
taprun tap_selftest.ko start_fail=1 > out 2> err
echo "status $?"
cat out err
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
exit 0
