# -b: one output file per CPU, records not merged.
taprun -b -o bulk -T 0.5 tap_selftest.ko period_ms=50 > out 2> err
echo "status $?"
ls bulk_* | wc -l
cat bulk_* | grep -c '^begin target 0$'
[ "$(cat bulk_* | grep -c '^tick')" -gt 2 ] && echo "ticks ok"
cat out err
rm -f bulk_*
exit 0
