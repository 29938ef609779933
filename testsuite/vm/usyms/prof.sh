# Profile-timer samples of spin (scripts/prof.stp): user stacks walked in
# a hard interrupt; the kernel log must stay clean (the harness checks).
out=$(cat outdir)
in-host ./taprun/taprun -c "$out/files/spin" "$out/usyms_prof.ko" >res 2>&1
echo "status $?"
cat res
