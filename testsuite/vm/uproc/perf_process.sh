# perf counters bound to a program (perf_process.stp); tapc resolved the
# path on the host, where /bin is /usr/bin, so the VM gets that path too.
mkdir -p /usr/bin && ln -sf /bin/busybox /usr/bin/busybox
taprun -c 'i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done' perf_process.ko
echo "taprun: $?"
