/*
 * arch.h - the runtime's one place for what differs by architecture: it
 * picks the target's header, which gives the rest of the runtime the same
 * few helpers on each (registers, return addresses, the kernel and user
 * unwinders' pieces, breakpoint details).  No other runtime file names an
 * architecture's registers or tests CONFIG_<ARCH>.  tap.h includes it in
 * kernel builds, after compat.h (kernel-API differences, not
 * architecture).
 *
 * Adding an architecture: runtime/arch/NAME.h with the helpers below, and
 * its line here.
 */
#ifndef TAP_ARCH_H
#define TAP_ARCH_H

#if defined(CONFIG_X86_64) || (!defined(__KERNEL__) && defined(__x86_64__))
#include "x86_64.h"
#elif defined(CONFIG_ARM64) || (!defined(__KERNEL__) && defined(__aarch64__))
#include "arm64.h"
#else
#error "tapc's runtime does not support this architecture (runtime/arch/)"
#endif

/*
 * Each NAME.h defines:
 *
 *   tap_unwind(t, regs, pcs, max)     the kernel stack of task t from regs
 *                                     (or from here): the number of return
 *                                     addresses written, or -EOPNOTSUPP
 *   tap_arch_entry_return_address(regs)
 *                                     at a probe on a function's entry,
 *                                     where that function returns to
 *   tap_arch_sp_after_return(entry_sp)
 *                                     the user stack pointer once a
 *                                     function entered with entry_sp has
 *                                     returned
 *   tap_arch_entry_sp_at_return(sp)   its inverse: at a return, the stack
 *                                     pointer the function was entered with
 *   tap_arch_user_frame(regs, &pc, &sp, &fp)
 *                                     where a user stack walk starts
 *   tap_arch_user_native(regs)        whether the user code runs in the
 *                                     mode whose frames the walk knows
 *   tap_arch_plt_cfa(sp, pc)          the frame address at pc in a PLT
 *                                     stub (the CFA rule of its .eh_frame)
 *   tap_arch_user_link(regs, &ra)     the return address in the link
 *                                     register, where the architecture has
 *                                     one (false: it has none)
 *   tap_arch_uret_stack(cfa, slot)    what a uretprobe's return instance
 *                                     keeps as its stack for the frame whose
 *                                     CFA is cfa (return address at slot)
 *   tap_arch_ftrace_site(func)        where ftrace calls into the function
 *                                     starting at func, as a kprobe on its
 *                                     first byte is placed (0: not an
 *                                     ftrace call there; kprobe.c)
 *   tap_arch_kprobe_func(addr)        the function a kprobe on its first
 *                                     byte found at addr, 0 when this
 *                                     module may not call it through a
 *                                     pointer (probe_common.h)
 *   tap_arch_cycles()                 a cheap per-CPU clock in CPU cycles
 *                                     (or near enough) for the overload
 *                                     guard (context.c)
 *   tap_arch_watchpoint_step(bp, dflt)
 *                                     whether (and how) a watchpoint's own
 *                                     perf handler lets the kernel go on
 *                                     past the access (hwbreak.c)
 *   tap_arch_wp_hook_new(fire, data), tap_arch_wp_hook_attach(bp, hook),
 *   tap_arch_wp_hook_detach(bp), tap_arch_wp_hook_free(hook)
 *                                     where a watchpoint must keep perf's
 *                                     default handler, the way its hits
 *                                     reach fire(data, regs) instead
 *                                     (NULL from _new: not needed)
 *   tap_arch_wp_repeat(last, regs)    whether a watchpoint hit only repeats
 *                                     this CPU's last one (*last: the
 *                                     architecture's record of it)
 */

#endif
