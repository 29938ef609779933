# While taprun runs, its open files pin the module: rmmod fails and the
# run goes on (debugfs and procfs alike).
for mode in ring procfs; do
	taprun tap_selftest.ko period_ms=50 _tap_transport=$mode > out 2> err &
	pid=$!
	sleep 1
	rmmod tap_selftest 2> /dev/null && echo "$mode: rmmod succeeded"
	kill -INT $pid
	wait $pid
	echo "$mode status $?"
	tail -1 out | sed 's/[0-9][0-9]*$/N/'
	cat err
done
exit 0
