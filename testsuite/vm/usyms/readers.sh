# The user_* readers in a uprobe on readers' take() (scripts/readers.stp); the
# warnings are taprun's stderr.
out=$(cat outdir)
# the folder as a literal in sed's regular expressions (it may hold + or .)
out_re=$(printf '%s' "$out" | sed 's/[][\\.*^$+?(){}|#]/\\&/g')
in-host ./taprun/taprun -c "$out/files/readers" "$out/usyms_readers.ko" >res 2>err
echo "status $?"
cat res
sed -E "s#$out_re#OUT#g" err
