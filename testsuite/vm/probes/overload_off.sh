# With -DSTP_NO_OVERLOAD the handler of overload_heavy.stp is not stopped:
# its timer ends the run after 3 s, the end probe runs, status 0.
getppid_loop 2000000000 &
w=$!
taprun -T 60 overload_off.ko >out 2>err
echo "status $?"
kill $w
wait $w 2>/dev/null
cat out err
rm -f out err
exit 0
