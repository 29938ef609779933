# The io tapset on a real block device: the VM's virtio disk (16 MiB of
# zeros, testsuite/vm/run's "disk" suites).  Direct reads and writes of
# the raw device carry no file's pages (file=""); an ext2 file written
# with fsync and read back after the page cache is dropped names its path
# at start and completion, and its reader waits for the pages.
while read -r m; do
	# (crc32c-intel finds no SSE4.2 in qemu's TCG CPU: ext4 takes the generic one)
	insmod "kmod/$m" 2>/tmp/insmod.err || grep -q 'exists\|No such device' /tmp/insmod.err ||
		cat /tmp/insmod.err
done <kmod/order
i=0
while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda ] || { echo "no /dev/vda"; exit 1; }
echo "raw"
taprun -c 'sh -c "dd if=/dev/vda of=/dev/null bs=64k count=1 iflag=direct 2>/dev/null; dd if=/dev/zero of=/dev/vda bs=4096 count=2 seek=8 oflag=direct 2>/dev/null"' io_disk.ko
echo "status $?"
mke2fs -b 4096 /dev/vda >/dev/null 2>&1 || echo "mke2fs failed"
mkdir -p /mnt/io
mount -t ext2 /dev/vda /mnt/io || exit 1
echo "file"
taprun -c 'sh -c "dd if=/dev/zero of=/mnt/io/f bs=4096 count=4 conv=fsync 2>/dev/null; echo 3 >/proc/sys/vm/drop_caches; cat /mnt/io/f >/dev/null"' io_disk.ko files_only=1
echo "status $?"
umount /mnt/io
# Leave the kernel as the case found it: the modules out again, newest
# first (later cases count on ext4 not being loaded: run-probes_regfail_trace).
awk '{ m[NR] = $0 } END { for (i = NR; i > 0; i--) print m[i] }' kmod/order |
while read -r m; do
	m=${m%.ko}
	rmmod "$(echo "$m" | tr - _)" 2>/dev/null
done
grep -q '^ext4 ' /proc/modules && echo "ext4 is still loaded"
exit 0
