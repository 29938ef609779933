# Ctrl-C on "tapc script.stp": SIGINT to tapc's process group, as a
# terminal sends it.  taprun stops the script, the end probe runs and its
# output arrives, the module is unloaded and tapc exits 0.  (The module
# comes from tapc's cache when run.sh ran first; alone, this builds it.)
setsid in-host ./tapc testsuite/vm/tapc/count.stp >out 2>err </dev/null &
pid=$!
i=0
while ! grep -q '^counting$' out 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 800 ] && kill -0 "$pid" 2>/dev/null || { echo "the script did not start"; break; }
	sleep 1
done
getppid_loop 100
kill -INT -"$pid"
wait "$pid"
echo "status $?"
cat out
cat err
grep '^tap_' /proc/modules
exit 0
