d=$(cat outdir)
in-host ./taprun/taprun -c "$d/bin/udw 3" "$d/vars.ko"
echo "status $?"
