/*
 * x86_64.h - the runtime on x86-64 (arch.h lists the helpers): struct
 * pt_regs as x86 names it, the call that pushes the return address on
 * the stack, and the kernel's own unwinder (ORC or frame pointers).
 */
#ifndef TAP_ARCH_X86_64_H
#define TAP_ARCH_X86_64_H

#include <linux/errno.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#include <asm/cpufeature.h>
#ifdef TAP_HAVE_X86_UNWIND	/* features/have_x86_unwind.c */
#include <asm/unwind.h>
#endif

/*
 * Walk task t's kernel stack with the x86 unwinder, from regs, the probed
 * address first (or, with no regs, from here, leaving out the frames of
 * this module: the handler and its glue).  Starting from a probe's regs,
 * the unwinder may begin with the probed address or with its caller;
 * either way it is listed once.  The number of addresses written to pcs,
 * or -EOPNOTSUPP when the kernel does not export the unwinder to modules
 * (the caller then falls back to stack_trace_save(), or gives up).
 */
static inline int tap_unwind(struct task_struct *t, struct pt_regs *regs,
			     unsigned long *pcs, int max)
{
#ifdef TAP_HAVE_X86_UNWIND
	struct unwind_state state;
	bool skipping = !regs && t == current;
	int n = 0;

	if (regs && max > 0)
		pcs[n++] = instruction_pointer(regs);
	for (unwind_start(&state, t, regs, NULL);
	     !unwind_done(&state) && n < max; unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		if (skipping && within_module(addr, THIS_MODULE))
			continue;
		skipping = false;
		if (n == 1 && regs && addr == pcs[0])
			continue;
		pcs[n++] = addr;
	}
	return n;
#else
	return -EOPNOTSUPP;
#endif
}

/* At a function's entry the call has just pushed the return address: it
 * is the word on top of the stack. */
static inline __maybe_unused unsigned long tap_arch_entry_return_address(struct pt_regs *regs)
{
	return *(unsigned long *)kernel_stack_pointer(regs);
}

/* The return pops the address the call pushed. */
static inline unsigned long tap_arch_sp_after_return(unsigned long entry_sp)
{
	return entry_sp + sizeof(long);
}

/* ... so at the return (a return probe's handler) the stack pointer at
 * the function's entry is one word below. */
static inline __maybe_unused unsigned long tap_arch_entry_sp_at_return(unsigned long sp)
{
	return sp - sizeof(long);
}

static inline void tap_arch_user_frame(struct pt_regs *regs, unsigned long *pc,
				       unsigned long *sp, unsigned long *fp)
{
	*pc = regs->ip;
	*sp = regs->sp;
	*fp = regs->bp;
}

/* 64-bit code: the frames of an ia32 task are laid out otherwise. */
static inline bool tap_arch_user_native(struct pt_regs *regs)
{
	return user_64bit_mode(regs);
}

/* A kernel.data watchpoint's perf handler has run: x86 reports it after
 * the access, nothing to step over. */
static inline bool tap_arch_watchpoint_step(struct perf_event *bp, void *dflt)
{
	return true;
}

/* x86 reports a watchpoint after the access: every hit is one. */
static inline bool tap_arch_wp_repeat(u64 __percpu *last, struct pt_regs *regs)
{
	return false;
}

/* x86's own handler runs after the access: no hook (hwbreak.c; see
 * arm64.h). */
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

/* A PLT stub's .eh_frame rule: the return address is at sp until its
 * push (the 11th byte of the 16-byte stub), one word further after it. */
static inline unsigned long tap_arch_plt_cfa(unsigned long sp, unsigned long pc)
{
	return sp + 8 + ((pc & 15) >= 11 ? 8 : 0);
}

/* The call pushes the return address: there is no link register. */
static inline bool tap_arch_user_link(struct pt_regs *regs, unsigned long *ra)
{
	return false;
}

/* A uretprobe keeps sp at the entry, where the return address is. */
static inline unsigned long tap_arch_uret_stack(unsigned long cfa, unsigned long slot)
{
	return slot;
}

/* The overload guard's clock: the time-stamp counter, one rdtsc, in
 * cycles as stap's STP_OVERLOAD_* figures are.  Only differences taken on
 * one CPU with preemption off are used, so TSCs out of step between CPUs
 * do no harm. */
static inline u64 tap_arch_cycles(void)
{
	return get_cycles();
}

/*
 * Indirect branch tracking (IBT, 6.2 on; Debian 6.12 amd64): a function
 * that may be called through a pointer starts with endbr64, and one never
 * called so has it sealed (made a 4-byte NOP the kernel knows) when the
 * CPU enforces it.  The kprobe layer puts a probe on a function's first
 * byte after either; ftrace's call (__fentry__) is there too.
 */
static inline bool tap_arch_endbr(unsigned long addr, bool sealed_too)
{
#ifdef CONFIG_X86_KERNEL_IBT
	u32 insn;

	if (copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)))
		return false;
	if (sealed_too && insn == 0x001f0f66)	/* osp nopl (%rax) */
		return true;
	return (insn & ~0x01000000U) == 0xfa1e0ff3;	/* endbr64 (or 32) */
#else
	return false;
#endif
}

/*
 * Where ftrace calls into the function that starts at func, as the kprobe
 * layer places a probe on its first byte: after the endbr64; 0 when the
 * instruction there is neither the 5-byte NOP ftrace leaves at an unused
 * site nor a call.  Whether it is a site only ftrace says (its filter
 * takes no other address); this keeps a probe from being placed where
 * ftrace's site would be elsewhere.
 */
static inline __maybe_unused unsigned long tap_arch_ftrace_site(unsigned long func)
{
	static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	unsigned long site = func + (tap_arch_endbr(func, true) ? 4 : 0);
	u8 insn[5];

	if (copy_from_kernel_nofault(insn, (void *)site, sizeof(insn)))
		return 0;
	return insn[0] == 0xe8 || !memcmp(insn, nop5, sizeof(nop5)) ? site : 0;
}

/*
 * The start of the function a kprobe placed on its first byte found at
 * kprobe_addr (past the endbr64), and whether this module may call it
 * through a pointer: not when the CPU enforces IBT and the function's
 * endbr64 was sealed.
 */
static inline __maybe_unused unsigned long tap_arch_kprobe_func(unsigned long kprobe_addr)
{
	unsigned long func = kprobe_addr;

	if (tap_arch_endbr(kprobe_addr - 4, true))
		func -= 4;
#ifdef X86_FEATURE_IBT
	if (cpu_feature_enabled(X86_FEATURE_IBT) && !tap_arch_endbr(func, false))
		return 0;
#endif
	return func;
}

#endif
