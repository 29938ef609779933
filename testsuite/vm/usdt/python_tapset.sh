# The python tapset's aliases on Debian's python3.11 running src/pyfuncs.py
# under taprun -c (the calls python_entry sees), named by the aliases.
d=$(cat outdir)
in-host ./taprun/taprun -o /tmp/python_tapset.trace \
	-c "/usr/bin/python3.11 -S $d/bin/pyfuncs.py" "$d/python_tapset.ko"
echo "status $?"
in-host cat /tmp/python_tapset.trace
