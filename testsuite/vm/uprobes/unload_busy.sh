# The module is unloaded while uptest-stripped calls square() in a tight
# loop (40000 times, twice): the program goes on and ends with the right
# sums, with no warning in the kernel log.
. ./caselib
rm -f /host/tmp/up-go
in-host env UPTEST_GO=/tmp/up-go "$B/uptest-stripped" 40000 >prog.out &
p=$!
up_start unload_busy || exit 0
touch /host/tmp/up-go
sleep 1
up_stop
wait "$p"
echo "uptest status $?"
cat prog.out
