# The stopped process gets no begin; after the module is gone it goes on
# and exits normally.
sleeper 100 1 &
pid=$!
kill -STOP $pid
taprun -x $pid stopped.ko
echo "taprun: $?"
grep -c stopped /proc/modules
kill -CONT $pid
wait $pid
echo "sleeper: $?"
