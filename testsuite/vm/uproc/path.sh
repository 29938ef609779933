# process("/bin/busybox").begin/.end: tapc resolved the path on the host,
# where /bin is /usr/bin, so the VM gets that path too.
mkdir -p /usr/bin && ln -sf /bin/busybox /usr/bin/busybox
taprun -c 'forkexec 3 true' path.ko
echo "taprun: $?"
