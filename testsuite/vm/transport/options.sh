# Option errors are clear and load nothing.
taprun -L tap_selftest.ko; echo "status $?"
taprun -q tap_selftest.ko; echo "status $?"
taprun tap_selftest.ko bad-param; echo "status $?"
taprun -T; echo "status $?"
taprun /nonexistent.ko; echo "status $?"
exit 0
