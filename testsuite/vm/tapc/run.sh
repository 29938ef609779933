# "tapc script.stp" on a kernel that loads modules: passes 1-5 in one go
# with an empty cache (kbuild runs in the VM), then the same script again,
# which takes the module from tapc's cache and skips passes 3 and 4.
# The cache starts with the feature answers for this tree that pass 4
# worked out on the host (build-modules): the same tree and compiler are
# there, so they are the same answers, and compiling the feature probes
# again under TCG took 60% of the cold run; the module itself is built here.
mkdir -p /host/run/tapc-vm/cache/tapc/features &&
	cp tapc-features/*.h /host/run/tapc-vm/cache/tapc/features/ ||
	echo "no feature answers from the host"
t0=$(cut -d' ' -f1 /proc/uptime)
in-host ./tapc -c 'getppid_loop 700' testsuite/vm/tapc/count.stp 2>&1
echo "status $?"
t1=$(cut -d' ' -f1 /proc/uptime)
in-host ./tapc -v -c 'getppid_loop 300' testsuite/vm/tapc/count.stp 2>err
echo "status $?"
t2=$(cut -d' ' -f1 /proc/uptime)
echo "cached: $(grep -c '^Pass 3 and 4: using cached ' err)"
grep -q '^Pass 4: ' err && echo "the second run built the module again"
grep '^tap_' /proc/modules
echo "cold run $(awk "BEGIN { print $t1 - $t0 }") s, cached run $(awk "BEGIN { print $t2 - $t1 }") s" >&2
exit 0
