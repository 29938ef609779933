# Three runs of true under -c (the shell itself is not true): matched by
# the file under the overlay, whichever path ran it.
d=$(cat outdir)
in-host ./taprun/taprun -c "sh -c '/usr/bin/true; /usr/bin/true; /bin/true'" "$d/path_overlay.ko"
echo "taprun: $?"
