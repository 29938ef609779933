# uptest-stripped run by taprun -c: every call of square() seen at entry
# and at return ($arg1 and $return from x0).
. ./caselib
taprun -c "$B/uptest-stripped 3" ./fn_sym.ko
echo "status $?"
