# taprun -S SIZE[,N] -o FILE: numbered output files FILE.0, FILE.1, ...,
# the next one at each switch_file() and when a file would pass SIZE MiB,
# at most N kept (switch_file.stp).
# check_lines FILES...: the numbered lines 0..16999 in order, nothing else
check_lines() {
	cat "$@" | awk '$1 != n { print "line " NR ": " $0 " (want " n ")"; exit 1 }
		{ n++ } END { if (n != 17000) print n " numbered lines" }'
}
# size FILE: bytes (busybox: no stat -c on every build)
size() { wc -c <"$1" | tr -d ' '; }

mkdir s && cd s
taprun -S 1 -o out ../switch_file.ko
echo "taprun -S 1: $?"
ls
cat out.0 out.1 out.4
check_lines out.2 out.3
# out.2 is full up to the last whole record that fits in 1 MiB
s2=$(size out.2)
[ "$s2" -le 1048576 ] && [ "$s2" -gt $((1048576 - 8192)) ] ||
	echo "out.2 has $s2 bytes"
echo "out.2 + out.3: $(($(size out.2) + $(size out.3))) bytes"
rm -f out.*

# ,3: the oldest files are removed, three remain
taprun -S 1,3 -o out ../switch_file.ko
echo "taprun -S 1,3: $?"
ls
cat out.4
check_lines out.2 out.3
rm -f out.*

# without -S, switch_file() changes nothing: one file
taprun -o plain ../switch_file.ko
echo "taprun -o: $?"
ls
head -2 plain
tail -1 plain
sed -n '3,17002p' plain >lines
check_lines lines
cd .. && rm -rf s
