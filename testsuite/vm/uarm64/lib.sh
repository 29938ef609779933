. ./caselib
taprun -c "$B/udwl 3" ./lib.ko
echo "status $?"
