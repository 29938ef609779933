# throws (src/throws.cc) under taprun -c: libstdc++'s markers in a shared
# library, hit from the program.  The trace goes to a file shown after
# the program's own output, so the order is fixed.
d=$(cat outdir)
in-host ./taprun/taprun -o /tmp/cxx_throw.trace -c "$d/bin/throws" "$d/cxx_throw.ko"
echo "status $?"
in-host cat /tmp/cxx_throw.trace
