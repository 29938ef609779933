# Lockdown (what Secure Boot turns on in Debian's kernel), not enforcing:
# an unsigned module is refused with EPERM, which taprun tells from a
# loader without root by the lockdown.  Lockdown cannot be lifted, so the
# cases from here on run under it too.
mount -t securityfs none /sys/kernel/security 2>/dev/null
echo integrity >/sys/kernel/security/lockdown
cat /sys/kernel/security/lockdown
taprun hi.ko
echo "taprun: $?"
echo "still loaded: $(grep -c '^hi ' /proc/modules)"
