# SIGINT to taprun running a translated script (built on the host): the
# end probe's output arrives and the module is unloaded.
taprun count.ko >out 2>err &
pid=$!
i=0
while ! grep -q '^counting$' out 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 100 ] && kill -0 "$pid" 2>/dev/null || { echo "the script did not start"; break; }
	sleep 0.2
done
getppid_loop 100
kill -INT "$pid"
wait "$pid"
echo "status $?"
cat out
cat err
grep '^count ' /proc/modules
exit 0
