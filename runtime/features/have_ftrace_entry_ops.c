/* One ftrace_ops with many functions in its filter, set before it is
 * registered (ftrace_set_filter_ips(), 5.18) and called with the saved
 * pt_regs (FTRACE_OPS_FL_SAVE_REGS: DYNAMIC_FTRACE_WITH_REGS, which x86-64
 * has and arm64 had up to 6.4), where kprobes sit on ftrace sites
 * (KPROBES_ON_FTRACE: x86-64).  Function-entry probes are then armed with
 * one code update instead of one per probe.  The callback takes ftrace's
 * recursion lock itself, which keeps preemption off from 5.16 on (older
 * kernels lack ftrace_set_filter_ips() anyway), so the ops needs no
 * FTRACE_OPS_FL_RECURSION.
 * exports: ftrace_set_filter_ips register_ftrace_function unregister_ftrace_function ftrace_free_filter
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>

#if !defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) || !defined(CONFIG_KPROBES_ON_FTRACE)
#error "no ftrace ops with registers, or no kprobes on ftrace sites"
#endif

static void __maybe_unused tap_probe_call(unsigned long ip, unsigned long parent_ip,
					  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit >= 0)
		ftrace_test_recursion_unlock(bit);
	(void)regs;
}

static struct ftrace_ops tap_probe_ops __maybe_unused = {
	.func = tap_probe_call,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

static int __maybe_unused tap_probe(unsigned long *ips, unsigned int n, struct kprobe *kp)
{
	int rc = ftrace_set_filter_ips(&tap_probe_ops, ips, n, 0, 0);
	kp->flags |= KPROBE_FLAG_DISABLED;
	return rc ? rc : (kprobe_ftrace(kp) ? register_ftrace_function(&tap_probe_ops) : 0);
}
