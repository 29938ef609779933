# Load the self-test module, read its /proc file twice, unload it, and
# show its printk lines (the harness empties the kernel log before a case).
insmod tapc_selftest.ko greeting=vm || exit 1
cat /proc/tapc_selftest
cat /proc/tapc_selftest
rmmod tapc_selftest || exit 1
dmesg | grep -oE 'tapc_selftest: (loaded|unloaded).*'
