# Throughput (relative only, TCG): kernel threads print 64-byte records
# for 3 s into each transport, output to /dev/null.  One thread with
# 64 MiB buffers measures the producer (little or nothing dropped); one
# thread per CPU with the default buffers measures what taprun keeps up
# with.  The figures go to stderr; stdout only says the runs worked.
run() {
	taprun -v -o /dev/null "$@" > /dev/null 2> err
	echo "$label status $?"
	sed -n "s/^taprun: module 'tap_selftest': \(.*records\/s.*\)/$label: \1/p" err >&2
	grep -E 'WARNING|ERROR' err | sed "s/^/$label: /" >&2
}
for mode in relay ring procfs; do
	label="1 thread $mode" run -s 64 tap_selftest.ko bench_ms=3000 \
		bench_threads=1 _tap_transport=$mode
done
for mode in relay ring procfs; do
	label="2 threads $mode" run tap_selftest.ko bench_ms=3000 \
		_tap_transport=$mode
done
exit 0
