/*
 * tapset_support.c - symbol and stack helpers for embedded C, the module's
 * size and the kernel log (runtime/TAPSET-API.md; declarations in
 * tapset_support.h, which also declares memory.c's and task.c's).
 *
 * Kernel only: the user-space unit tests of the runtime bring their own
 * stand-ins.  All of it is safe in any probe context: reads go through
 * the kernel's *_nofault copies, symbol lookups through sprint_symbol()
 * (kallsyms_lookup_name() and friends are not exported), and stacks
 * through the architecture's unwinder (arch/) when the kernel exports it.
 */
#include "tap.h"
#include "tapset_support.h"
#include "compat.h"

#include <linux/fs_struct.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>

/* ---- kernel symbols ---- */

/*
 * sprint_symbol() writes "name+0xoff/0xsize [module]" (no module part for
 * vmlinux), or just "0x<address>" when kallsyms knows nothing there.  Its
 * buffer is as big as %pS uses on the stack.
 */
static bool _tap_sym_unknown(const char *s)
{
	return s[0] == '0' && s[1] == 'x';
}

/* The " [module]" part of a sprint_symbol() text, or NULL for vmlinux. */
static char *_tap_sym_module(char *s)
{
	return strstr(s, " [");
}

int tap_symname(unsigned long addr, char *buf, size_t len)
{
	char sym[KSYM_SYMBOL_LEN];
	char *mod;

	sprint_symbol_no_offset(sym, addr);
	if (_tap_sym_unknown(sym)) {
		snprintf(buf, len, "0x%lx", addr);
		return -ENOENT;
	}
	mod = _tap_sym_module(sym);
	if (mod)
		*mod = '\0';
	strscpy(buf, sym, len);
	return 0;
}

int tap_symdata(unsigned long addr, char *buf, size_t len)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	if (_tap_sym_unknown(sym)) {
		snprintf(buf, len, "0x%lx", addr);
		return -ENOENT;
	}
	if (_tap_sym_module(sym))
		strscpy(buf, sym, len);
	else
		snprintf(buf, len, "%s [kernel]", sym);
	return 0;
}

int tap_modname(unsigned long addr, char *buf, size_t len)
{
	char sym[KSYM_SYMBOL_LEN];
	char *mod, *end;

	sprint_symbol_no_offset(sym, addr);
	if (_tap_sym_unknown(sym)) {
		strscpy(buf, "<unknown>", len);
		return -ENOENT;
	}
	mod = _tap_sym_module(sym);
	if (!mod) {
		strscpy(buf, "kernel", len);
		return 0;
	}
	mod += 2;
	end = strpbrk(mod, " ]");
	if (end)
		*end = '\0';
	strscpy(buf, mod, len);
	return 0;
}

/* user symbols and the user unwinder: the tables pass 3 embedded */
#include "usyms.c"

/* symfile/symline and their user twins: the line tables pass 3 embedded */
#include "lines.c"

/* ---- stacks ---- */

/* Probes that run outside any interesting stack: nothing to show. */
static bool _tap_no_stack(const struct tap_context *c)
{
	const char *t = c->probe_type;

	return !t || !strcmp(t, "begin") || !strcmp(t, "end") ||
	       !strcmp(t, "error") || !strcmp(t, "procfs");
}

static int _tap_kernel_backtrace(struct tap_context *c, unsigned long *pcs,
				 int max)
{
	struct pt_regs *regs = c->regs;
	int n;

	if (regs && user_mode(regs))
		return 0;		/* a sample that hit user space */
	n = tap_unwind(current, regs, pcs, max);
	if (n >= 0)
		return n;
	/* without the unwinder: the stack from here, minus our own frames;
	 * the probed address first when known */
	{
		unsigned long tmp[MAXTRACE + 16];
		int i, nr;

		n = 0;
		if (regs)
			pcs[n++] = instruction_pointer(regs);
		nr = stack_trace_save(tmp, ARRAY_SIZE(tmp), 0);
		for (i = 0; i < nr && within_module(tmp[i], THIS_MODULE); i++)
			;
		for (; i < nr && n < max; i++)
			pcs[n++] = tmp[i];
		return n;
	}
}

/* User stacks: the CFI rows of the objects the module carries, else the
 * frame-pointer chain (usyms.c). */
static int _tap_user_backtrace(struct tap_context *c, unsigned long *pcs,
			       int max)
{
	return tap_uunwind(c->user_regs, pcs, max);
}

int tap_backtrace(bool user, unsigned long *pcs, int max)
{
	struct tap_context *c = tap_current_context();

	if (!c || max <= 0 || _tap_no_stack(c))
		return 0;
	return user ? _tap_user_backtrace(c, pcs, max)
		    : _tap_kernel_backtrace(c, pcs, max);
}

/*
 * A sleeping task's stack.  Modules cannot pin a task's stack
 * (put_task_stack() is not exported); the kernel frees stacks after an
 * RCU grace period, so reading one under rcu_read_lock() cannot fault.  A
 * running or exiting task is refused.
 */
int tap_task_backtrace(struct task_struct *t, unsigned long *pcs, int max)
{
	int n = 0;

	if (!t || t == current)
		return -EINVAL;
	rcu_read_lock();
	if (READ_ONCE(t->on_cpu) || READ_ONCE(t->exit_state) ||
	    task_is_running(t) || !task_stack_page(t)) {
		rcu_read_unlock();
		return -EINVAL;
	}
	n = tap_unwind(t, NULL, pcs, max);
	rcu_read_unlock();
	return n < 0 ? 0 : n;
}

/* ---- the module, the kernel log ---- */

void tap_module_size(char *buf, size_t len)
{
	const struct module *m = THIS_MODULE;
	unsigned long text, data;

	tap_module_sizes(m, &text, &data);
	snprintf(buf, len, "%lu text/%lu data", text, data);
}

void tap_printk(int level, const char *msg)
{
	size_t n = strlen(msg);
	const char *nl = n && msg[n - 1] == '\n' ? "" : "\n";

	switch (level) {
	case 0:
		printk(KERN_EMERG "%s%s", msg, nl);
		break;
	case 1:
		printk(KERN_ALERT "%s%s", msg, nl);
		break;
	case 2:
		printk(KERN_CRIT "%s%s", msg, nl);
		break;
	case 3:
		printk(KERN_ERR "%s%s", msg, nl);
		break;
	case 4:
		printk(KERN_WARNING "%s%s", msg, nl);
		break;
	case 5:
		printk(KERN_NOTICE "%s%s", msg, nl);
		break;
	case 6:
		printk(KERN_INFO "%s%s", msg, nl);
		break;
	default:
		printk(KERN_DEBUG "%s%s", msg, nl);
		break;
	}
}
