# A signature the kernel cannot even parse: EBADMSG, refused whether
# enforcing or not; taprun says it is malformed.
echo 1 >/sys/module/module/parameters/sig_enforce
taprun badsig.kos
echo "taprun: $?"
echo "still loaded: $(grep -c '^signed ' /proc/modules)"
