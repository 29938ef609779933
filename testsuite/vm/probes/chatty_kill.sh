# taprun killed outright while a kprobe script floods output: closing the
# control channel stops the module's probes (no kprobe stays registered)
# though the module stays loaded; the next taprun of the same module
# removes the orphan and runs normally.
taprun chatty_kprobe.ko >out 2>err &
pid=$!
sleep 1
getppid_loop 2000
kill -KILL $pid
wait $pid 2>/dev/null
grep -q '^chatty_kprobe ' /proc/modules && echo "left loaded"
cat /sys/kernel/debug/kprobes/list
taprun -c 'getppid_loop 5' chatty_kprobe.ko >out 2>err
echo "status $?"
grep -c getppid out
cat err
grep -q '^chatty_kprobe ' /proc/modules && echo "still loaded"
# -d names a module that is not loaded: an error
taprun -d chatty_kprobe 2>&1
echo "status $?"
rm -f out
exit 0
