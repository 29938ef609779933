#!/usr/bin/env bash
# setup-and-demo.sh - on a fresh Debian 12 machine: install the packages
# (the build's and the test VM's), build tapc in this checkout, and run a
# real tracing script, scripts/demo.stp: system calls counted by process
# name while a small workload runs, as a sorted table, and a histogram of
# the sizes read() returned.
#
# When this machine's kernel can load modules (root, /proc/modules, and the
# headers in /lib/modules/$(uname -r)/build), tapc runs it here; otherwise
# scripts/run-in-vm builds the module for the test VM's kernel and runs it
# there (Debian's kernel under qemu, no root needed for that part).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/install-deps.sh --vm

echo "== building tapc"
autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
./configure -q
make -j"$(nproc)" -s
make -s taprun-static >/dev/null

# The workload: reads of different sizes, files, directories.
workload='ls -lR /sys/kernel/tracing/events/syscalls >/dev/null 2>&1;
cat /proc/kallsyms >/dev/null; find /sys/kernel/tracing/events/sched >/dev/null 2>&1;
dd if=/dev/zero of=/dev/null bs=4096 count=300 2>/dev/null;
dd if=/dev/zero of=/dev/null bs=100 count=300 2>/dev/null'

echo
./tapc --version | head -n1
echo
echo "== the script, scripts/demo.stp:"
sed 's/^/    /' scripts/demo.stp
echo
set +e
if [ "$(id -u)" -eq 0 ] && [ -e /proc/modules ] &&
   [ -d "/lib/modules/$(uname -r)/build" ]; then
	echo "== running it here, while a workload runs:"
	echo "\$ ./tapc -c \"\$workload\" scripts/demo.stp"
	echo "$workload" | sed 's/^/    /'
	./tapc -c "$workload" scripts/demo.stp
	rc=$?
else
	echo "== this kernel cannot load modules here; running it in the test VM ($(
		. scripts/vm-lib.sh; vm_release)) while a workload runs:"
	echo "\$ scripts/run-in-vm scripts/demo.stp -- \"\$workload\""
	echo "$workload" | sed 's/^/    /'
	t0=$(date +%s)
	scripts/run-in-vm scripts/demo.stp -- "$workload"
	rc=$?
	[ $rc -ne 0 ] || echo "(built, booted and run in $(($(date +%s) - t0)) s)"
fi
echo
if [ $rc -eq 0 ]; then
	echo "tapc is built: ./tapc (try ./tapc --help, man ./man/tapc.1;"
	echo "scripts/run-in-vm SCRIPT.stp runs any script in the test VM)"
else
	echo "tapc is built, but the demo script failed (exit $rc)"
fi
exit $rc
