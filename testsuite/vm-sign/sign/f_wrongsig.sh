# Signed by Debian's key, which the kernel trusts, but the signature is
# another module's: the kernel checks it and refuses it, logging no
# notice; taprun says the signature does not match.
echo 1 >/sys/module/module/parameters/sig_enforce
taprun wrongsig.kos
echo "taprun: $?"
echo "still loaded: $(grep -c '^hi ' /proc/modules)"
