# uprobes on deep's tail() (called back from libusy.so), on the library's
# usy_getppid() and at c's return (scripts/ubt.stp).  Masked: addresses (ASLR),
# the output folder, and libc's frames (its symbols vary between builds).
out=$(cat outdir)
in-host ./taprun/taprun -c "$out/files/deep" "$out/usyms_ubt.ko" >res 2>&1
echo "status $?"
sed -E -e "s|$out|OUT|g" -e 's/0x[0-9a-f]{8,}/ADDR/g' \
	-e 's/^( ADDR : )?[^ ]+ \[(\/usr\/lib\/x86_64-linux-gnu\/)?libc\.so\.6\]$/\1(libc)/' res
