# From here on the kernel enforces signatures, as booted with
# module.sig_enforce=1 (the same switch; it cannot be turned off again,
# so the cases without it come first).  Enforcement is checked before
# lockdown: an unsigned module is refused with EKEYREJECTED.
echo 1 >/sys/module/module/parameters/sig_enforce
echo "sig_enforce: $(cat /sys/module/module/parameters/sig_enforce)"
taprun hi.ko
echo "taprun: $?"
echo "still loaded: $(grep -c '^hi ' /proc/modules)"
dmesg | grep -o 'Loading of .* is rejected'
