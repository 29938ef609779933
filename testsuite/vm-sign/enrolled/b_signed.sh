# Our key is trusted: the module signed with it loads and runs although
# the kernel enforces signatures, and the kernel is not tainted E (a
# module loaded without a trusted signature), only O (out of tree).
taprun signed.kos
echo "taprun: $?"
t=$(cat /proc/sys/kernel/tainted)
echo "taint E: $((t >> 13 & 1)), O: $((t >> 12 & 1))"
