# Debian's dummy.ko (build-modules copies it here) makes dummy0; reading
# /proc/net/dev under taprun -c asks it for its statistics once.
insmod dummy.ko || exit 1
taprun -c 'exec cat /proc/net/dev >/dev/null' dummy_stmt.ko
echo "taprun: $?"
rmmod dummy
