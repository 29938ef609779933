# A module signed with tapc's key, which the kernel does not hold: the
# kernel read the signature (its notice names an unavailable key, not a
# missing signature) and refused it; taprun says to enroll the key.
echo 1 >/sys/module/module/parameters/sig_enforce
taprun signed.kos
echo "taprun: $?"
echo "still loaded: $(grep -c '^signed ' /proc/modules)"
dmesg | grep -o 'Loading of .* is rejected'
