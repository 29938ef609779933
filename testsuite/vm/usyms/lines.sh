# symfile/symline/symfileline and their user twins (scripts/lines.stp):
# lines of a -g program's function and of its caller, hex for an object
# without DWARF and for unknown addresses, and vfs_read's line as
# binutils' addr2line reads the kernel's DWARF (build-modules saved it).
# Masked: addresses (ASLR, KASLR), the output folder, the probe's offset
# in vfs_read (6.12 probes past its endbr64) and vfs_read's size.
out=$(cat outdir)
# the folder as a literal in sed's regular expressions (it may hold + or .)
out_re=$(printf '%s' "$out" | sed 's/[][\\.*^$+?(){}|#]/\\&/g')
in-host ./taprun/taprun -c "$out/files/lines" "$out/usyms_lines.ko" >res 2>&1
echo "status $?"
want=$(cat vfs_read.line)
sed -E -e "s#$out_re#OUT#g" -e 's/0x[0-9a-f]{8,}/ADDR/g' \
	-e "s|^(symfileline) ${want:-none}\$|\\1 VFS_READ_LINE|" \
	-e "s|^(symline) ${want##*:}\$|\\1 VFS_READ_LINE|" \
	-e 's|^(symdata vfs_read)\+0x[0-9a-f]+/0x[0-9a-f]+ |\1+OFF/SIZE |' res
