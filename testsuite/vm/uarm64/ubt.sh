# print_ubacktrace masked: addresses (ASLR) and libc's frames (its
# symbols vary between builds).
. ./caselib
taprun -c "$B/ubt" ./ubt.ko >res 2>&1
echo "status $?"
sed -E -e 's/0x[0-9a-f]{8,}/ADDR/g' -e "s#$d/files#OUT#g" \
	-e 's/^( ADDR : )?[^ ]+ \[[^]]*libc\.so\.6\]$/\1(libc)/' res
