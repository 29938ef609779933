. ./caselib
taprun -c "$B/udwo 50" ./opt.ko
echo "status $?"
