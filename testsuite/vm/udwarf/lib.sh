d=$(cat outdir)
in-host ./taprun/taprun -c "$d/bin/udwl 3" "$d/lib.ko"
echo "status $?"
