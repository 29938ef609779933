# The end probe prints a long report while the buffer is still full of a
# flood: the flood loses records, the report none, and it comes last.
taprun -T 1 tap_selftest.ko flood=500 flood_len=200 period_ms=20 \
	_tap_bufsize=64 end_lines=20000 > out 2> err
echo "status $?"
grep -c 'output records lost' err
awk '/^report line/ { n++; if ($3 != n) bad++; next }
     n && !/^end printed/ { late++ }
     END { print n, (bad ? "out of order" : "in order"), (late ? "mixed" : "last") }' out
tail -1 out | sed 's/[0-9][0-9]*$/N/'
rm -f out
exit 0
