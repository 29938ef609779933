/* The x86 stack unwinder (ORC or frame pointers, asm/unwind.h) usable by
 * modules: backtrace() walks the kernel stack from a probe's registers
 * with it (stack_trace_save_regs() is not exported).  x86 since 4.14.
 * exports: __unwind_start unwind_next_frame unwind_get_return_address
 */
#include <linux/sched.h>
#include <asm/unwind.h>

static unsigned long __maybe_unused tap_probe(struct pt_regs *regs)
{
	struct unwind_state state;

	unwind_start(&state, current, regs, NULL);
	if (unwind_done(&state))
		return 0;
	unwind_next_frame(&state);
	return unwind_get_return_address(&state);
}
