# uptest-stripped run by taprun -c: every call of square() seen at entry
# and at return.
d=$(cat outdir)
in-host ./taprun/taprun -c "$d/bin/uptest-stripped 3" "$d/fn_sym.ko"
echo "status $?"
