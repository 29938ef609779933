# cargs run by taprun -c; the trace goes to a file shown after the
# program's own output, so the order is fixed.
. ./caselib
taprun -o /tmp/cargs.trace -c "$B/cargs" ./cargs.ko
echo "status $?"
cat /tmp/cargs.trace
