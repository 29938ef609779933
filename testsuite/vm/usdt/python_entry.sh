# python3.11 running src/pyfuncs.py under taprun -c; the trace goes to a
# file shown after the script's own output, so the order is fixed.
d=$(cat outdir)
in-host ./taprun/taprun -o /tmp/python_entry.trace \
	-c "/usr/bin/python3.11 -S $d/bin/pyfuncs.py" "$d/python_entry.ko"
echo "status $?"
in-host cat /tmp/python_entry.trace
