# Every workload runs and exits 0; the file systems probes need are there.
for w in "getppid_loop 1000" "read_zero 100 4096" "forkexec 5" "sleeper 10 2" \
	 "open_close 50" "forkexec 2 getppid_loop 10"; do
	$w
	echo "$w: $?"
done
awk '$3 == "debugfs" || $3 == "tracefs" || $3 == "proc" { print $3 }' /proc/mounts | sort
test -r /proc/kallsyms && echo kallsyms
