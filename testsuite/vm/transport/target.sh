# -c: the command is held until the probes run, target() is its pid, and
# the run ends when it exits.  -x passes a pid; a missing one is an error.
cat > tgt.sh <<'END'
echo "child $$"
sleep 0.3
END
taprun -c "/bin/busybox sh tgt.sh" tap_selftest.ko period_ms=1000 > out 2> err
echo "status $?"
child=$(sed -n 's/^child //p' out)
target=$(sed -n 's/^begin target //p' out)
[ -n "$child" ] && [ "$child" = "$target" ] && echo "target ok"
grep -c '^end printed' out
cat err
taprun -x 1 -T 0.2 tap_selftest.ko period_ms=1000 > out 2> err
echo "status $?"
head -1 out
taprun -x 99999 -T 0.2 tap_selftest.ko > out 2> err
echo "status $?"
cat err
grep -q '^tap_selftest ' /proc/modules && echo "still loaded"
exit 0
