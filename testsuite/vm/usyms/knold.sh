# Symbols of objects the module does not carry (scripts/knold.stp); addresses
# (ASLR) and the output folder vary: masked.
out=$(cat outdir)
# the folder as a literal in sed's regular expressions (it may hold + or .)
out_re=$(printf '%s' "$out" | sed 's/[][\\.*^$+?(){}|#]/\\&/g')
in-host ./taprun/taprun -c "$out/files/deep" "$out/usyms_knold.ko" >res 2>&1
echo "status $?"
sed -E -e "s#$out_re#OUT#g" -e 's/0x[0-9a-f]{8,}/ADDR/g' \
	-e 's| : [^ ]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]| : (libc)|' res
