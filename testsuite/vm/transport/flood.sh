# Every CPU prints 500 records of 200 bytes per 20 ms into 64 KiB
# buffers: records are dropped, counted, reported, and every record is
# either printed or counted as lost.
taprun -T 2 tap_selftest.ko flood=500 flood_len=200 period_ms=20 _tap_bufsize=64 > out 2> err
echo "status $?"
lines=$(grep -c '^[a-z]\{199\}$' out)
lost=$(sed -n 's/^WARNING: \([0-9]*\) output records lost (transport buffer full)$/\1/p' err)
printed=$(sed -n 's/^end printed //p' out)
[ -n "$lost" ] && [ "$lost" -gt 0 ] && echo "drops reported"
[ "$lines" -gt 0 ] && echo "some printed"
[ $((lines + lost)) -eq "$printed" ] && echo "accounted"
grep -v 'output records lost' err
exit 0
