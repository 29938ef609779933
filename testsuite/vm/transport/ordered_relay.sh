# Ticks on all CPUs numbered under one lock: the numbers are in the order
# of the records' sequence numbers, so taprun must print 1, 2, 3, ...
# exactly (relay transport).  ticks=300 ends the run with exit().
taprun -v tap_selftest.ko ordered=1 period_ms=2 ticks=300 _tap_transport=relay > out 2> err
echo "status $?"
grep -o 'taprun: module .tap_selftest.: [a-z]* transport' err
grep -o 'transport in /[a-z]*' err
head -1 out
awk '/^ordered/ { n++; if ($2 != n) bad++ }
     END { print bad ? "sequence bad" : "sequence ok"; print (n >= 300 ? "count ok" : "count " n) }' out
grep -q '^exit after 300 ticks$' out && echo "exit line"
n=$(grep -c '^ordered' out)
tail -1 out | grep -q "^end printed $n$" && echo "end ok"
grep -v '^taprun:' err
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
exit 0
