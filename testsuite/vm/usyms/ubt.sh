# uprobes on deep's tail() (called back from libusy.so), on the library's
# usy_getppid() and at c's return (scripts/ubt.stp).  Masked: deep's build-id
# (build-modules saved it), addresses (ASLR),
# the output folder, and libc's frames (its symbols vary between builds).
out=$(cat outdir)
# the folder as a literal in sed's regular expressions (it may hold + or .)
out_re=$(printf '%s' "$out" | sed 's/[][\\.*^$+?(){}|#]/\\&/g')
in-host ./taprun/taprun -c "$out/files/deep" "$out/usyms_ubt.ko" >res 2>&1
echo "status $?"
bid=$(cat deep.buildid)
sed -E -e "s#$out_re#OUT#g" -e "s/umodbuildid ${bid:-none}\$/umodbuildid BUILDID/" \
	-e 's/0x[0-9a-f]{8,}/ADDR/g' \
	-e 's/^( ADDR : )?[^ ]+ \[(\/usr\/lib\/x86_64-linux-gnu\/)?libc\.so\.6\]$/\1(libc)/' res
