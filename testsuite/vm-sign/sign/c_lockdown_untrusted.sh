# Under lockdown a module signed with a key the kernel does not hold is
# refused with EPERM as well: taprun says to enroll the key.
taprun signed.kos
echo "taprun: $?"
echo "still loaded: $(grep -c '^signed ' /proc/modules)"
