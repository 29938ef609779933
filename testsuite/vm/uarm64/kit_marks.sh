# kitprog run by taprun -c: every marker with its arguments (arm64's
# operand forms), the guarded code run while probed; run again once the
# module is gone, it is not.  The trace goes to a file shown after the
# program's own output, so the order is fixed.
. ./caselib
taprun -o /tmp/kit_marks.trace -c "$B/kitprog 3" ./kit_marks.ko
echo "status $?"
cat /tmp/kit_marks.trace
"$B/kitprog" 1
