# Two copies of uptest-stripped, started before the module and let go
# together once it runs: with -x only the first one's calls count.
. ./caselib
rm -f /host/tmp/up-go
in-host env UPTEST_GO=/tmp/up-go "$B/uptest-stripped" 5 >a.out &
a=$!
in-host env UPTEST_GO=/tmp/up-go "$B/uptest-stripped" 7 >b.out &
b=$!
up_start target -x "$a" || exit 0
touch /host/tmp/up-go
wait "$a"
wait "$b"
up_stop
cat a.out b.out
