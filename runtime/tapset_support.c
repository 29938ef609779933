/*
 * tapset_support.c - memory, symbol, stack and task helpers for embedded C
 * (runtime/TAPSET-API.md; declarations in tapset_support.h).
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

/* ---- memory ---- */

int tap_read_kernel(void *dst, const void *src, size_t n)
{
	return copy_from_kernel_nofault(dst, src, n) ? -EFAULT : 0;
}

/*
 * copy_to_kernel_nofault() is not exported; the per-byte store with an
 * exception-table fixup is what it does.  Only kernel addresses: a user
 * address is not what a guru function means to change here.
 */
int tap_write_kernel(void *dst, const void *src, size_t n)
{
	unsigned long a = (unsigned long)dst;
	size_t i;

	if (a < TASK_SIZE_MAX + PAGE_SIZE || a + n < a)
		return -EFAULT;
	pagefault_disable();
	for (i = 0; i < n; i++)
		__put_kernel_nofault((u8 *)dst + i, (const u8 *)src + i, u8,
				     err_fault);
	pagefault_enable();
	return 0;
err_fault:
	pagefault_enable();
	return -EFAULT;
}

/* A user address means the current task's, and a kernel thread has
 * none. */
static bool _tap_user_access_ok(void)
{
	return current->mm && !(current->flags & PF_KTHREAD);
}

int tap_read_user(void *dst, const void __user *src, size_t n)
{
	if (!_tap_user_access_ok())
		return -EFAULT;
	return copy_from_user_nofault(dst, src, n) ? -EFAULT : 0;
}

int tap_write_user(void __user *dst, const void *src, size_t n)
{
	if (!_tap_user_access_ok())
		return -EFAULT;
	return copy_to_user_nofault(dst, src, n) ? -EFAULT : 0;
}

/*
 * Strings are copied a page at a time: a page is readable or not as a
 * whole, so reading past the NUL up to the page's end cannot fault where
 * the string itself did not.
 */
static long _tap_strncpy(char *dst, unsigned long src, size_t n, bool user)
{
	size_t done = 0;

	if (n == 0)
		return -EINVAL;
	while (done < n - 1) {
		size_t chunk = min_t(size_t, n - 1 - done,
				     PAGE_SIZE - offset_in_page(src + done));
		const char *nul;
		int r = user ? tap_read_user(dst + done,
					     (const void __user *)(src + done), chunk)
			     : tap_read_kernel(dst + done, (const void *)(src + done),
					       chunk);

		if (r) {
			dst[0] = '\0';
			return -EFAULT;
		}
		nul = memchr(dst + done, '\0', chunk);
		if (nul)
			return nul - dst;
		done += chunk;
	}
	dst[n - 1] = '\0';
	return n - 1;
}

long tap_strncpy_kernel(char *dst, const char *src, size_t n)
{
	return _tap_strncpy(dst, (unsigned long)src, n, false);
}

long tap_strncpy_user(char *dst, const char __user *src, size_t n)
{
	return _tap_strncpy(dst, (unsigned long)src, n, true);
}

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

/* ---- tasks, the module, the kernel log ---- */

struct task_struct *tap_pid2task(pid_t pid)
{
	struct task_struct *t;

	rcu_read_lock();
	t = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID);
	rcu_read_unlock();
	return t;
}

/* The root taprun sees (see tapset_support.h). */
void tap_loader_root(struct path *root)
{
	struct task_struct *t = NULL;
	pid_t pid = READ_ONCE(tap_loader_pid);

	if (pid > 0) {
		rcu_read_lock();
		t = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID);
		if (t)
			get_task_struct(t);
		rcu_read_unlock();
	}
	if (t) {
		bool ok = false;

		task_lock(t);
		if (t->fs) {
			get_fs_root(t->fs, root);
			ok = true;
		}
		task_unlock(t);
		put_task_struct(t);
		if (ok)
			return;
	}
	get_fs_root(current->fs, root);
}

/*
 * True when t is the target (-x PID, or the process of -c CMD: target())
 * or one of its descendants: a process probe under -c/-x runs only there.
 * False when there is no target.  The parent chain is followed under RCU;
 * a process whose parent exited was reparented to a subreaper or init and
 * is no longer in the tree.
 */
bool tap_in_target_tree(struct task_struct *t)
{
	pid_t target = READ_ONCE(tap_target_pid);
	bool in = false;

	if (target <= 0 || !t)
		return false;
	rcu_read_lock();
	for (;;) {
		if (task_tgid_nr(t) == target) {
			in = true;
			break;
		}
		if (task_pid_nr(t) <= 1 || t == rcu_dereference(t->real_parent))
			break;
		t = rcu_dereference(t->real_parent);
	}
	rcu_read_unlock();
	return in;
}

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
