# target_set_report() with -c 'forkexec 2 true': process IDs vary, so the
# output names them P1, P2 ... in the order they first appear.
taprun -c 'forkexec 2 true' target_set.ko >out.txt
echo "taprun: $?"
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
