# The user stack of deep at its getppid system call (scripts/kbt.stp).  Masked:
# addresses (ASLR), the output folder, and libc's frames (its symbols
# vary between libc builds): the lines naming libc.so.6, and the brief
# lines whose function is not one of deep's or libusy.so's.
out=$(cat outdir)
# the folder as a literal in sed's regular expressions (it may hold + or .)
out_re=$(printf '%s' "$out" | sed 's/[][\\.*^$+?(){}|#]/\\&/g')
in-host ./taprun/taprun -c "$out/files/deep" "$out/usyms_kbt.ko" >res 2>&1
echo "status $?"
sed -E -e "s#$out_re#OUT#g" -e 's/0x[0-9a-f]{8,}/ADDR/g' \
	-e 's/^( ADDR : )?[^ ]+ \[(\/usr\/lib\/x86_64-linux-gnu\/)?libc\.so\.6\]$/\1(libc)/' \
	-e '/^(usy_getppid|c|b|a|main|_start)\+0x[0-9a-f]+$/b' \
	-e 's/^[A-Za-z_][A-Za-z0-9_.@]*\+0x[0-9a-f]+$/(libc)/' res
