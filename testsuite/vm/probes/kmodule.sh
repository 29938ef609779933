# A kprobe on a module's function: load the module, probe it while its
# /proc file is read three times, unload it.
insmod dummy.ko || exit 1
( sleep 1; for i in 1 2 3; do cat /proc/dummy >/dev/null; done ) &
taprun -T 3 kmodule.ko
echo "taprun: $?"
rmmod dummy
