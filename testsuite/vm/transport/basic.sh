# begin, a timer on every CPU, end after -T; the module is gone after.
# Runs first, with debugfs not mounted: taprun mounts it.
umount /sys/kernel/debug 2>/dev/null
taprun -T 1 tap_selftest.ko period_ms=50 > out 2> err
echo "status $?"
grep -q ' /sys/kernel/debug debugfs ' /proc/mounts && echo "debugfs mounted"
head -1 out
ticks=$(grep -c '^tick cpu [0-9]* n [0-9]*$' out)
[ "$ticks" -gt 5 ] && echo "ticks ok"
tail -1 out | grep -q "^end printed $ticks\$" && echo "end ok"
# per CPU the tick numbers go up by one
awk '/^tick/ { if ($5 != last[$3] + 1) bad = 1; last[$3] = $5 }
     END { print bad ? "order bad" : "order ok" }' out
cat err
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
exit 0
