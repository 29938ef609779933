# Warnings (printed once), errors (exit status 1, counted), system().
taprun -T 0.5 tap_selftest.ko warn=1 period_ms=1000 > out 2> err
echo "status $?"
cat err
grep 'system ran' out
taprun -w -T 0.5 tap_selftest.ko warn=1 period_ms=1000 > out 2> err
echo "status $?"
cat err
exit 0
