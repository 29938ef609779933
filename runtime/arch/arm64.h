/*
 * arm64.h - the runtime on arm64 (arch.h lists the helpers): struct
 * pt_regs as arm64 names it (regs[0..30], sp, pc, pstate), the call that
 * leaves the return address in the link register x30, and a walk of the
 * kernel's frame records (arm64 kernels are built with frame pointers,
 * and the kernel's own unwinder is not exported to modules).
 */
#ifndef TAP_ARCH_ARM64_H
#define TAP_ARCH_ARM64_H

#include <linux/errno.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

/*
 * A return address without its pointer-authentication code: kernels
 * built with CONFIG_ARM64_PTR_AUTH_KERNEL sign x30 before saving it in a
 * frame record.  XPACLRI is in the hint space, a no-op on CPUs without
 * pointer authentication, so this needs no feature test (the kernel's own
 * helper for it changed its name between 6.1 and 6.12).
 */
static inline unsigned long tap_arch_strip_pac(unsigned long addr)
{
	register unsigned long x30 asm("x30") = addr;

	asm("hint #7" : "+r"(x30));	/* xpaclri */
	return x30;
}

/* A frame record: [fp] the caller's fp, [fp + 8] the return address. */
static inline bool _tap_arm64_frame(unsigned long fp, unsigned long *next,
				    unsigned long *ra)
{
	unsigned long rec[2];

	if (!fp || (fp & 7) ||
	    copy_from_kernel_nofault(rec, (void *)fp, sizeof(rec)))
		return false;
	*next = rec[0];
	*ra = tap_arch_strip_pac(rec[1]);
	return true;
}

/*
 * Whether a and b are in the same kernel function (kallsyms'
 * "name+0xoff/0xsize": a's function is [a - off, a - off + size)).
 */
static inline bool _tap_arm64_same_function(unsigned long a, unsigned long b)
{
	char sym[KSYM_SYMBOL_LEN];
	char *plus, *slash;
	unsigned long off, size;

	sprint_symbol(sym, a);
	plus = strrchr(sym, '+');
	if (!plus)
		return false;
	slash = strchr(plus, '/');
	if (!slash)
		return false;
	*slash = '\0';
	if (kstrtoul(plus + 1, 16, &off))
		return false;
	plus = slash + 1;
	slash = strchr(plus, ' ');
	if (slash)
		*slash = '\0';
	if (kstrtoul(plus, 16, &size))
		return false;
	return b >= a - off && b < a - off + size;
}

/*
 * Whether the instruction before addr is a call (BL, BLR, or BLRAA,
 * BLRAAZ, BLRAB, BLRABZ): every return address follows one.  x30 at a
 * probe is not always one: at a kretprobe's handler it is the
 * trampoline the function returned to.
 */
static inline bool _tap_arm64_after_call(unsigned long addr)
{
	u32 insn;

	if ((addr & 3) || copy_from_kernel_nofault(&insn, (void *)(addr - 4),
						   sizeof(insn)))
		return false;
	insn = le32_to_cpu(insn);
	return (insn & 0xfc000000) == 0x94000000 ||	/* bl */
	       (insn & 0xfffffc1f) == 0xd63f0000 ||	/* blr */
	       (insn & 0xfefff800) == 0xd63f0800;	/* blraa(z), blrab(z) */
}

/*
 * Walk task t's kernel stack along the frame records, from regs, the
 * probed address first (or, with no regs, from here, leaving out the
 * frames of this module: the handler and its glue; or, for a task that
 * is not running, from where it switched out).
 *
 * With regs, the probed function's caller may be only in x30: at its
 * entry and in a leaf function x29 is still the caller's frame.  x30 is
 * taken as a frame when it follows a call and is not in the probed
 * function (where it points after that function made a call of its own),
 * and listed once when the first frame record holds it too.
 *
 * Frame records go up the stack, except where the walk leaves the IRQ or
 * overflow stack for the task's: a few steps down are let through, and
 * max bounds the walk in any case.  Return addresses through a kretprobe
 * or the function-graph tracer show as their trampolines.
 */
static inline int tap_unwind(struct task_struct *t, struct pt_regs *regs,
			     unsigned long *pcs, int max)
{
	unsigned long fp, next, ra;
	bool skipping = false;
	int downs = 0, n = 0;

	if (max <= 0)
		return 0;
	if (regs) {
		unsigned long lr = tap_arch_strip_pac(procedure_link_pointer(regs));

		pcs[n++] = instruction_pointer(regs);
		fp = frame_pointer(regs);
		if (n < max && _tap_arm64_after_call(lr) &&
		    !_tap_arm64_same_function(pcs[0], lr)) {
			pcs[n++] = lr;
			if (_tap_arm64_frame(fp, &next, &ra) && ra == lr)
				fp = next;
		}
	} else if (t == current) {
		fp = (unsigned long)__builtin_frame_address(0);
		skipping = true;
	} else {
		fp = thread_saved_fp(t);
		pcs[n++] = thread_saved_pc(t);
	}
	while (n < max && _tap_arm64_frame(fp, &next, &ra) && ra) {
		if (next <= fp && ++downs > 4)
			break;
		fp = next;
		if (skipping && within_module(ra, THIS_MODULE))
			continue;
		skipping = false;
		pcs[n++] = ra;
	}
	return n;
}

/* At a function's entry the call has just set the link register. */
static inline __maybe_unused unsigned long tap_arch_entry_return_address(struct pt_regs *regs)
{
	return procedure_link_pointer(regs);
}

/* The call and the return leave sp as it was. */
static inline unsigned long tap_arch_sp_after_return(unsigned long entry_sp)
{
	return entry_sp;
}

static inline __maybe_unused unsigned long tap_arch_entry_sp_at_return(unsigned long sp)
{
	return sp;
}

static inline void tap_arch_user_frame(struct pt_regs *regs, unsigned long *pc,
				       unsigned long *sp, unsigned long *fp)
{
	*pc = regs->pc;
	*sp = regs->sp;
	*fp = regs->regs[29];
}

/* AArch64 code: a 32-bit (compat) task's frames are laid out otherwise. */
static inline bool tap_arch_user_native(struct pt_regs *regs)
{
	return !compat_user_mode(regs);
}

/* A kernel.data watchpoint's perf handler has run (hwbreak.c): the
 * access has not happened yet (arm64 reports a watchpoint before it).
 * The debug exception steps over it, with the watchpoint off, only for
 * a perf event whose handler is perf's default, else the access hits it
 * again forever.  Where the kernel also asks the handler a BPF program
 * displaced (orig_overflow_handler, features/
 * have_perf_orig_overflow_handler.c: before 6.10), naming the default
 * there makes it step.  Later kernels have no such member: there the
 * event keeps perf's default handler and the hit comes through a hook
 * (tap_arch_wp_hook_new() below); false here.  dflt:
 * perf_event_output_forward, looked up by hwbreak.c (not exported); bp
 * NULL asks only whether it can. */
static inline bool tap_arch_watchpoint_step(struct perf_event *bp, void *dflt)
{
#ifdef TAP_HAVE_PERF_ORIG_OVERFLOW_HANDLER
	if (!dflt)
		return false;
	if (bp)         /* NULL: only whether it can */
		bp->orig_overflow_handler = (perf_overflow_handler_t)dflt;
	return true;
#else
	return false;
#endif
}

/*
 * Whether this watchpoint hit on this CPU repeats the last one (*last,
 * this CPU's, updated): the same registers, so the same access, not done
 * yet.  The kernel steps over the access with the watchpoints off, but
 * an interrupt taken before the stepped instruction runs (el1's
 * interrupt entry unmasks debug exceptions) takes the step exception in
 * the handler, which turns the watchpoints back on: back from it the
 * access hits again (seen in the VM: one write reported 2 to 4 times).
 * A loop that stores again with every register unchanged is counted
 * once; a kernel does not spin on a store alone.
 */
static inline bool tap_arch_wp_repeat(u64 __percpu *last, struct pt_regs *regs)
{
	u64 h = regs->pc ^ ((u64)(unsigned long)current << 1);
	u64 *l = this_cpu_ptr(last);
	int i;

	for (i = 0; i < 31; i++)
		h = (h ^ regs->regs[i]) * 0x100000001b3ULL;
	h = (h ^ regs->sp) * 0x100000001b3ULL;
	h = (h ^ regs->pstate) * 0x100000001b3ULL;
	if (h == *l)
		return true;
	*l = h;
	return false;
}

#if !defined(TAP_HAVE_PERF_ORIG_OVERFLOW_HANDLER) && defined(TAP_HAVE_PERF_EVENT_PROG)
#include <linux/bpf.h>
#include <linux/filter.h>

/*
 * 6.10 and later (features/have_perf_event_prog.c): the event is
 * registered with perf's default overflow handler, so that the kernel
 * steps over the access, and the hit reaches tapc through the event's
 * prog, which __perf_event_overflow() runs before that handler: a
 * struct bpf_prog of tapc's own whose bpf_func is a C function (what the
 * kernel does with a prog there is call bpf_func through
 * bpf_prog_run(), and a NULL stats is allowed).  It returns 0, which
 * ends the overflow there (the default handler would only look for a
 * ring buffer a kernel event has not got).  Its instructions, never
 * run, hold the hook's fire function and data, which is how bpf_func
 * finds them.  The prog is never handed to the BPF core: it is taken
 * off each event (tap_arch_wp_hook_detach()) before the event is
 * released, which would otherwise bpf_prog_put() it.  A hit while a BPF
 * program runs on the same CPU (bpf_prog_active) is not reported; the
 * access is still stepped over.
 */
struct _tap_arm64_wp_hook {
	void (*fire)(void *data, struct pt_regs *regs);
	void *data;
};

static unsigned int _tap_arm64_wp_prog(const void *ctx, const struct bpf_insn *insn)
{
	const struct bpf_perf_event_data_kern *k = ctx;
	const struct _tap_arm64_wp_hook *hk = (const void *)insn;

	/* bpf_user_pt_regs_t is struct pt_regs's first member on arm64 */
	hk->fire(hk->data, container_of((struct user_pt_regs *)k->regs,
					struct pt_regs, user_regs));
	return 0;
}

/* The hook for one watchpoint: NULL when none is needed (never here),
 * else an ERR_PTR or what tap_arch_wp_hook_attach() takes. */
static inline void *tap_arch_wp_hook_new(void (*fire)(void *data, struct pt_regs *regs),
					 void *data)
{
	struct bpf_prog *p = kzalloc(sizeof(*p) + sizeof(struct _tap_arm64_wp_hook),
				     GFP_KERNEL);
	struct _tap_arm64_wp_hook *hk;

	if (!p)
		return ERR_PTR(-ENOMEM);
	p->type = BPF_PROG_TYPE_PERF_EVENT;
	p->bpf_func = _tap_arm64_wp_prog;
	hk = (void *)p->insnsi;
	hk->fire = fire;
	hk->data = data;
	return p;
}

static inline void tap_arch_wp_hook_attach(struct perf_event *bp, void *hook)
{
	WRITE_ONCE(bp->prog, (struct bpf_prog *)hook);
}

/* Off the event before it is released.  The event is disabled first: a
 * per-CPU event is disabled by a call on its CPU, which runs only once a
 * debug exception there has returned, so no hit is still reading prog
 * (__perf_event_overflow() reads it more than once). */
static inline void tap_arch_wp_hook_detach(struct perf_event *bp)
{
	perf_event_disable(bp);
	WRITE_ONCE(bp->prog, NULL);
}

static inline void tap_arch_wp_hook_free(void *hook)
{
	kfree(hook);
}
#else
static inline void *tap_arch_wp_hook_new(void (*fire)(void *data, struct pt_regs *regs),
					 void *data)
{
	return NULL;
}

static inline void tap_arch_wp_hook_attach(struct perf_event *bp, void *hook)
{
}

static inline void tap_arch_wp_hook_detach(struct perf_event *bp)
{
}

static inline void tap_arch_wp_hook_free(void *hook)
{
}
#endif

/* An AArch64 PLT stub (adrp, ldr, add, br) does not touch sp, and the
 * return address stays in x30. */
static inline unsigned long tap_arch_plt_cfa(unsigned long sp, unsigned long pc)
{
	return sp;
}

/* The call leaves the return address in x30 (signed where the program
 * was built with -mbranch-protection=pac-ret: stripped). */
static inline bool tap_arch_user_link(struct pt_regs *regs, unsigned long *ra)
{
	*ra = tap_arch_strip_pac(regs->regs[30]);
	return true;
}

/* A uretprobe keeps sp at the entry (the CFA: the call pushes nothing),
 * not where the function saves x30 later. */
static inline unsigned long tap_arch_uret_stack(unsigned long cfa, unsigned long slot)
{
	return cfa;
}

/* The overload guard's clock.  arm64's get_cycles() is the generic
 * timer's counter, which ticks at a fixed, board-chosen rate (often
 * 24-100 MHz), so stap's 10^9 "cycles" would be many seconds there;
 * local_clock() reads the same counter scaled to nanoseconds, about one
 * CPU cycle each at the clock rates of today's cores. */
static inline u64 tap_arch_cycles(void)
{
	return local_clock();
}

/* Function entries are never armed through ftrace ops here (no kprobes on
 * ftrace sites: compat.h's TAP_FTRACE_ENTRY is 0). */
static inline __maybe_unused unsigned long tap_arch_ftrace_site(unsigned long func)
{
	return 0;
}

/* A kprobe on a function's first byte is on the function's start (BTI's
 * landing pads are not skipped by the kprobe layer). */
static inline __maybe_unused unsigned long tap_arch_kprobe_func(unsigned long kprobe_addr)
{
	return kprobe_addr;
}

#endif
