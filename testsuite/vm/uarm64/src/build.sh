# src/build.sh: this suite's own programs (sourced by build-modules, with
# its $cc, $cross, $link and $b): sdtforms (hand-written SDT operands),
# cargs (no DWARF: arguments by the calling convention) and ubt (-O2
# -fomit-frame-pointer: a stack only CFI walks).
$cc -O2 $link -o "$b/sdtforms" "$here/src/sdtforms_main.c" "$here/src/sdtforms.S"
$cc -O2 $link -o "$b/cargs" "$here/src/cargs.c"
$cc -O2 -fomit-frame-pointer -fasynchronous-unwind-tables $link -o "$b/ubt" "$here/src/ubt.c"
