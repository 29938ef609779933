# -c runs a shell that starts two copies of uptest-stripped, one after
# the other (the target's tree: both count), while another copy started
# outside the target runs meanwhile (it does not count): the shell waits
# for that one to finish before it exits.
. ./caselib
rm -f /host/tmp/up-go /host/tmp/other.out /host/tmp/tree.out
in-host sh -c "UPTEST_GO=/tmp/up-go $B/uptest-stripped 7 >/tmp/other.out" &
o=$!
in-host ./taprun/taprun -c "sh -c '(touch /tmp/up-go; $B/uptest-stripped 2; $B/uptest-stripped 3) >/tmp/tree.out; while [ ! -s /tmp/other.out ]; do sleep 0.1; done'" "$d/target.ko"
echo "taprun status $?"
wait "$o"
cat /host/tmp/tree.out /host/tmp/other.out
