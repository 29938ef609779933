d=$(cat outdir)
in-host ./taprun/taprun -c "$d/bin/udw-split 2" "$d/split.ko"
echo "status $?"
