. ./caselib
taprun -c "$B/udw 3" ./vars.ko
echo "status $?"
