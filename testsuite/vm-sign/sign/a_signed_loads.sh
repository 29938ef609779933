# Not enforcing (the boot's default): a module signed with a key the
# kernel does not hold loads (tainting the kernel E, as any module
# without a trusted signature), and runs.
echo "sig_enforce: $(cat /sys/module/module/parameters/sig_enforce)"
taprun signed.kos
echo "taprun: $?"
