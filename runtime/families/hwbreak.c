/*
 * hwbreak.c - kernel.data(ADDRESS | "SYMBOL")[.length(N)].write / .rw:
 * hardware watchpoints through perf's breakpoint API.
 *
 * Pass 3 emits a table of struct _tap_hwbkpt, one per probe (the address
 * or the symbol, the length as HW_BREAKPOINT_LEN_*, the access type), and
 * calls _tap_hwbkpts_register() from tap_on_start() and
 * _tap_hwbkpts_unregister() from tap_on_stop().
 *
 * Each probe is one wide breakpoint (register_wide_hw_breakpoint: a perf
 * event pinned on every online CPU, in one debug register of each).  A
 * CPU has few debug registers, shared with ptrace and perf users:
 * when none is free the registration fails (-ENOSPC) and the point is
 * reported as any failed probe is.  The handler is perf's overflow
 * handler: it runs in the debug exception after the access (the
 * instruction has completed; regs are its registers).  Where the
 * architecture needs perf's default handler to go on past the access
 * (arm64 since 6.10), the event keeps it and the hit comes through the
 * architecture's hook (tap_arch_wp_hook_*()); a hit that only repeats
 * the CPU's last one (tap_arch_wp_repeat(): arm64 may report one access
 * twice) is dropped.
 *
 * A symbol's address is found when the probes are registered, through
 * kallsyms_lookup_name() (_tap_kallsyms_lookup(), probe_common.h).  Without
 * CONFIG_KALLSYMS_ALL (Debian's arm64 kernels) kallsyms knows no
 * variables: then the address pass 3 took from the DWARF (file_addr),
 * moved as far as jiffies_64 moved from its DWARF address (ref), as for
 * @var (KASLR).
 */
#ifndef TAP_PROBES_HWBREAK_C
#define TAP_PROBES_HWBREAK_C

#include "probe_common.h"

#include <linux/hw_breakpoint.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>

struct _tap_hwbkpt {
	/* from pass 3 */
	const char *pp;
	void (*fire)(struct pt_regs *regs);
	const char *symbol;		/* or NULL: address */
	unsigned long address;
	int len;			/* HW_BREAKPOINT_LEN_* */
	int type;			/* HW_BREAKPOINT_W or _RW */
	unsigned int flags;		/* TAP_PROBE_* */
	unsigned long file_addr, ref;	/* the symbol's and jiffies_64's
					 * DWARF addresses, or 0 */

	/* run time */
	struct perf_event * __percpu *bp;
	void *hook;			/* arch's hook, or NULL */
	u64 __percpu *last;		/* tap_arch_wp_repeat()'s record */
};

/* perf_event_output_forward, perf's default overflow handler (looked up:
 * not exported), for tap_arch_watchpoint_step() */
static void *_tap_perf_default_handler;

static void _tap_hwbkpt_handler(struct perf_event *bp,
				struct perf_sample_data *data,
				struct pt_regs *regs)
{
	struct _tap_hwbkpt *h = bp->overflow_handler_context;

	if (tap_session_state() == TAP_STATE_RUNNING &&
	    !tap_arch_wp_repeat(h->last, regs))
		h->fire(regs);
	/* arm64: let the kernel step over the access (arch/arm64.h; set
	 * at registration already, again here for a CPU that came up) */
	tap_arch_watchpoint_step(bp, _tap_perf_default_handler);
}

/* A hit through the architecture's hook (the event keeps perf's default
 * handler, which steps over the access: arm64 since 6.10). */
static void _tap_hwbkpt_hook_fire(void *data, struct pt_regs *regs)
{
	struct _tap_hwbkpt *h = data;

	if (tap_session_state() == TAP_STATE_RUNNING &&
	    !tap_arch_wp_repeat(h->last, regs))
		h->fire(regs);
}

static void _tap_hwbkpt_release(struct _tap_hwbkpt *h)
{
	int cpu;

	if (h->bp && h->hook) {
		for_each_possible_cpu(cpu) {
			struct perf_event *e = *per_cpu_ptr(h->bp, cpu);

			if (e)
				tap_arch_wp_hook_detach(e);
		}
	}
	if (h->bp)
		unregister_wide_hw_breakpoint(h->bp);
	h->bp = NULL;
	tap_arch_wp_hook_free(h->hook);
	h->hook = NULL;
	if (h->last)
		tap_free_percpu(h->last);
	h->last = NULL;
}

static void _tap_hwbkpts_unregister(struct _tap_hwbkpt *h, int n)
{
	struct kprobe *kp = _tap_kallsyms_kprobe_take();
	int i;

	for (i = n - 1; i >= 0; i--)
		_tap_hwbkpt_release(&h[i]);
	if (kp)
		unregister_kprobe(kp);
}

static int _tap_hwbkpts_register(struct _tap_hwbkpt *h, int n)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *bp;
	unsigned long addr;
	int i, cpu, ret;

	if (n) {
		_tap_kallsyms_lookup_fn lookup = _tap_kallsyms_lookup();

		_tap_perf_default_handler = lookup ?
			(void *)lookup("perf_event_output_forward") : NULL;
	}
	for (i = 0; i < n; i++) {
		void *hook = tap_arch_wp_hook_new(_tap_hwbkpt_hook_fire, &h[i]);

		if (IS_ERR(hook)) {
			ret = _tap_probe_failed(h[i].pp, h[i].flags, PTR_ERR(hook),
						"hardware breakpoint", NULL);
			if (ret)
				goto err;
			continue;
		}
		h[i].hook = hook;
		h[i].last = tap_alloc_percpu(sizeof(u64), sizeof(u64));
		if (!h[i].last) {
			ret = _tap_probe_failed(h[i].pp, h[i].flags, -ENOMEM,
						"hardware breakpoint", NULL);
			if (ret)
				goto err;
			continue;
		}
		if (!hook && !tap_arch_watchpoint_step(NULL, _tap_perf_default_handler)) {
			ret = _tap_probe_failed(h[i].pp, h[i].flags, -EOPNOTSUPP,
						"hardware breakpoint",
						"the kernel would not step over the access "
						"(arm64 without orig_overflow_handler or "
						"the event's BPF prog: CONFIG_BPF_SYSCALL)");
			if (ret)
				goto err;
			continue;
		}
		addr = h[i].address;
		if (h[i].symbol) {
			_tap_kallsyms_lookup_fn lookup = _tap_kallsyms_lookup();

			addr = lookup ? lookup(h[i].symbol) : 0;
			if (!addr && h[i].ref)
				addr = h[i].file_addr - h[i].ref +
				       (unsigned long)&jiffies_64;
			if (!addr) {
				ret = _tap_probe_failed(h[i].pp, h[i].flags, -ENOENT,
							"hardware breakpoint",
							lookup ? "no such symbol in the running kernel"
							       : "the kernel's symbols cannot be looked up");
				if (ret)
					goto err;
				continue;
			}
		}
		hw_breakpoint_init(&attr);
		attr.bp_addr = addr;
		attr.bp_len = h[i].len;
		attr.bp_type = h[i].type;
		/* with a hook, perf's default handler (NULL) */
		bp = register_wide_hw_breakpoint(&attr, hook ? NULL : _tap_hwbkpt_handler,
						 &h[i]);
		if (IS_ERR((void __force *)bp)) {
			ret = PTR_ERR((void __force *)bp);
			tap_arch_wp_hook_free(hook);
			h[i].hook = NULL;
			ret = _tap_probe_failed(h[i].pp, h[i].flags, ret,
						"hardware breakpoint",
						ret == -ENOSPC ? "no free debug register" : NULL);
			if (ret)
				goto err;
			continue;
		}
		/* arm64: before any hit, or the first one on each CPU is
		 * taken twice (not stepped over, the access runs again) */
		for_each_possible_cpu(cpu) {
			struct perf_event *e = *per_cpu_ptr(bp, cpu);

			if (e && hook)
				tap_arch_wp_hook_attach(e, hook);
			else if (e)
				tap_arch_watchpoint_step(e, _tap_perf_default_handler);
		}
		h[i].bp = bp;
	}
	return 0;

err:
	_tap_hwbkpts_unregister(h, i + 1);  /* h[i]'s hook too */
	return ret;
}

#endif /* TAP_PROBES_HWBREAK_C */
