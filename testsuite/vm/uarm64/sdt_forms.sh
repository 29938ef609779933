# sdtforms 2: the marker in forms() fires twice, every operand read (the
# trace in a file, shown after the program's output).
. ./caselib
taprun -o /tmp/sdt_forms.trace -c "$B/sdtforms 2" ./sdt_forms.ko
echo "status $?"
cat /tmp/sdt_forms.trace
