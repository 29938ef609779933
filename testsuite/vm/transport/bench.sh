# Throughput (relative only, TCG): one thread per CPU prints 64-byte
# records for 3 s into each transport; output to /dev/null.  The rates
# go to stderr; stdout only says the runs worked.
for mode in relay ring procfs; do
	taprun -v -o /dev/null tap_selftest.ko bench_ms=3000 _tap_transport=$mode 2> err
	echo "$mode status $?"
	sed -n "s/^taprun: module 'tap_selftest': \(.*records\/s.*\)/$mode: \1/p" err >&2
	grep 'lost' err | sed "s/^/$mode: /" >&2
done
exit 0
