# kitprog run by taprun -c: every marker seen with its arguments, the
# guarded code run (its semaphore raised); run again once the module is
# gone, it is not (the semaphore dropped).  The trace goes to a file shown
# after the program's own output, so the order is fixed.
d=$(cat outdir)
in-host ./taprun/taprun -o /tmp/kit_marks.trace -c "$d/bin/kitprog 3" "$d/kit_marks.ko"
echo "status $?"
in-host cat /tmp/kit_marks.trace
in-host "$d/bin/kitprog" 1
