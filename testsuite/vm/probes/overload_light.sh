# A light handler on a busy loop's every system call is far from the
# default threshold: the run is not stopped, its timer ends it after 3 s.
getppid_loop 2000000000 &
w=$!
taprun -T 60 overload_light.ko >out 2>err
echo "status $?"
kill $w
wait $w 2>/dev/null
cat out err
rm -f out err
exit 0
