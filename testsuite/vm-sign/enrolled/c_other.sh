# A second key of tapc's, not enrolled: still refused, with taprun's
# message, and the kernel's notice shows it lacked the key.
taprun other.kos
echo "taprun: $?"
echo "still loaded: $(grep -c '^other ' /proc/modules)"
dmesg | grep -o 'Loading of .* is rejected'
