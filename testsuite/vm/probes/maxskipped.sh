# More skipped probes than MAXSKIPPED=0: an error stops the run (-T is only
# a safety net), the error probe runs instead of the end probe.
taprun -T 20 maxskipped.ko >out 2>err
echo "status $?"
cat out
grep -c '^ERROR: Skipped too many probes, check MAXSKIPPED (the skips by reason are counted at exit)\.$' err
cat err >&2
grep -q 'timed out\|-T' err && echo "stopped by -T, not by the error"
exit 0
