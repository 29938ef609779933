d=$(cat outdir)
in-host ./taprun/taprun -c "$d/bin/udwo 50" "$d/opt.ko"
echo "status $?"
