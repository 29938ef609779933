# The kernel runs at a non-zero offset from its file addresses (KASLR: the
# harness boots the compressed image, whose decompressor picks the load
# address), so the probes placed at DWARF addresses plus the load offset
# are tested with an offset that is not zero.  ffffffff81000000 is the
# x86-64 link address of _stext (__START_KERNEL_map + CONFIG_PHYSICAL_START
# 0x1000000; the System.map of both kernels' -dbg packages).  On arm64 the
# kernel moves itself with the seed qemu puts in the device tree;
# _stext's link address is KIMAGE_VADDR + 64 KiB: ffff800008010000 on
# 6.1, ffff800080010000 on 6.12 (modules' area 128 MiB then, 2 GiB since
# 6.6; both seen with nokaslr).  A random slot equal to the link address
# (one in several hundred) would print "no".
a=$(grep -w _stext /proc/kallsyms | cut -d' ' -f1)
case $a in
ffffffff81000000|ffff800008010000|ffff800080010000) echo "kaslr offset non-zero: no" ;;
ffffffff*|ffff*) echo "kaslr offset non-zero: yes" ;;
*) echo "no _stext in kallsyms: '$a'" ;;
esac
