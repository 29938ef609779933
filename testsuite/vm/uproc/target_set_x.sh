# The target is a sleeper started by this shell (P2 in the report).
sleeper 2000 1 &
taprun -x $! target_set_x.ko >out.txt
echo "taprun: $?"
kill $!
awk '{
	line = ""
	while (match($0, /[0-9][0-9]+/)) {
		n = substr($0, RSTART, RLENGTH)
		if (!(n in name))
			name[n] = "P" (++count)
		line = line substr($0, 1, RSTART - 1) name[n]
		$0 = substr($0, RSTART + RLENGTH)
	}
	print line $0
}' out.txt
