/* Kretprobes built on rethook (KRETPROBE_ON_RETHOOK: x86-64 from 5.19, so
 * Debian 6.1 and 6.12 amd64), where kprobes sit on ftrace sites.  A
 * kretprobe registered disabled then has its instances ready, its
 * kp.pre_handler (the kernel's) takes one and hooks the return through
 * rethook, and the return side does not look at the disabled flag: the
 * runtime calls the pre_handlers of many such kretprobes from one
 * ftrace_ops (runtime/families/kprobe.c) where the kernel has no fprobe.
 */
#include <linux/kprobes.h>

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK) || !defined(CONFIG_KPROBES_ON_FTRACE)
#error "kretprobes do not use rethook, or no kprobes on ftrace sites"
#endif

static int __maybe_unused tap_probe(struct kretprobe *rp, struct pt_regs *regs)
{
	rp->kp.flags |= KPROBE_FLAG_DISABLED;
	if (!rp->rh || !kprobe_ftrace(&rp->kp))
		return 0;
	return rp->kp.pre_handler(&rp->kp, regs);
}
