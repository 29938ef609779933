# Still under lockdown, the transport forced into debugfs: the module
# loads but its control file cannot be opened; taprun says why and what
# to do, and nothing is left loaded.
taprun signed.kos _tap_transport=ring
echo "taprun: $?"
echo "still loaded: $(grep -c '^signed ' /proc/modules)"
