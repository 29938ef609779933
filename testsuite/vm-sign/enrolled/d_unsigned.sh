# An unsigned module: refused, enforcement is on.
taprun hi.ko
echo "taprun: $?"
echo "still loaded: $(grep -c '^hi ' /proc/modules)"
dmesg | grep -o 'Loading of .* is rejected'
