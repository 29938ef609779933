/* fprobe with an entry handler that returns int and is given the return
 * address (6.5 on; Debian 6.12 amd64 has CONFIG_FPROBE, 6.1 amd64 does
 * not), registered for many addresses at once (register_fprobe_ips), and
 * kprobes on ftrace sites, which tell the runtime which functions an
 * fprobe can take (kprobe_ftrace()).  Function-return probes on ftrace
 * sites are then armed with one fprobe per table instead of one
 * kretprobe each.  The handlers get pt_regs up to 6.13 (6.14 moved
 * fprobe onto fgraph and gives ftrace_regs: the probe fails there and
 * kretprobes are used).
 * exports: register_fprobe_ips unregister_fprobe
 */
#include <linux/fprobe.h>
#include <linux/kprobes.h>

#if !defined(CONFIG_FPROBE) || !defined(CONFIG_KPROBES_ON_FTRACE)
#error "no fprobe, or no kprobes on ftrace sites"
#endif

static int __maybe_unused tap_probe_entry(struct fprobe *fp, unsigned long ip,
					  unsigned long ret_ip, struct pt_regs *regs,
					  void *data)
{
	return regs == NULL;
}

static void __maybe_unused tap_probe_exit(struct fprobe *fp, unsigned long ip,
					  unsigned long ret_ip, struct pt_regs *regs,
					  void *data)
{
}

static int __maybe_unused tap_probe(unsigned long *ips, int n, struct kprobe *kp)
{
	static struct fprobe fp = {
		.entry_handler = tap_probe_entry,
		.exit_handler = tap_probe_exit,
	};
	int rc;

	fp.entry_data_size = 8;
	fp.nr_maxactive = n;
	rc = register_fprobe_ips(&fp, ips, n);
	if (rc == 0 && kprobe_ftrace(kp))
		rc = unregister_fprobe(&fp);
	return rc + (int)fp.nmissed;
}
