# A thread per CPU prints as fast as it can into small buffers: many
# records are dropped, and what arrives must still be whole records, in
# order per CPU, nothing twice (the ring transport, debugfs and procfs).
for mode in ring procfs; do
	taprun -o out tap_selftest.ko bench_ms=1500 _tap_bufsize=64 \
		_tap_transport=$mode 2> err
	echo "$mode status $?"
	awk '/^(begin|end) / { next }
	     length($0) != 63 { bad++; next }
	     { if ($2 <= last[$1] && seen[$1]) bad++; last[$1] = $2; seen[$1] = 1; n++ }
	     END { print (bad ? "bad " bad : "whole and in order"), (n > 1000 ? "many" : "few " n) }' out
	grep -c 'output records lost' err
	grep -v -e 'output records lost' -e 'bench cpu' err
done
rm -f out
exit 0
