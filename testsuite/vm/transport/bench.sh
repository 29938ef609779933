# Throughput (relative only, TCG): kernel threads print 64-byte records
# for 3 s into each transport, output to /dev/null: first one thread
# (taprun has the other CPU), then one per CPU.  The rates go to stderr;
# stdout only says the runs worked.
for threads in 1 2; do
	for mode in relay ring procfs; do
		taprun -v -o /dev/null tap_selftest.ko bench_ms=3000 \
			bench_threads=$threads _tap_transport=$mode 2> err
		echo "$mode status $?"
		sed -n "s/^taprun: module 'tap_selftest': \(.*records\/s.*\)/$threads x $mode: \1/p" err >&2
		grep -E 'lost|missing|ERROR' err | sed "s/^/$threads x $mode: /" >&2
	done
done
exit 0
