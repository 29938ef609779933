# procfs files go with the module: after a start that fails
# (procfs_cleanup.stp), and after a normal run (procfs_parallel.stp, whose
# file the guest reads and writes from 20 processes at once).
taprun procfs_cleanup.ko >/dev/null 2>err
echo "failed start: $?"
grep -c 'perf' err >/dev/null && echo "the error names the perf probe"
ls /proc/systemtap 2>/dev/null
d=/proc/systemtap/procfs_parallel
taprun -c "i=0; while [ \$i -lt 10 ]; do cat $d/status >/dev/null & echo x >$d/status & i=\$((i + 1)); done; wait" procfs_parallel.ko
echo "taprun: $?"
ls /proc/systemtap 2>/dev/null
# the same name again: nothing was left to collide with
taprun -c "cat $d/status" procfs_parallel.ko
echo "taprun: $?"
