/*
 * compat.h - the runtime's one place for differences between kernels.
 *
 * Pass 4 compiles the feature probes of runtime/features/ against the
 * target's headers and writes the answers to tap_features.h
 * (TAP_HAVE_NAME); this header is the only one that reads them, and it
 * hides each difference behind a helper the rest of the runtime calls.
 * No other runtime file tests TAP_HAVE_* or a kernel version (but an
 * architecture's header in runtime/arch/, for its own features): a new API
 * difference gets a feature probe (runtime/features/README.md) and a
 * helper here.  tap.h includes it in kernel builds (not with
 * TAP_USER_TEST).  What differs by architecture is runtime/arch/'s.
 */
#ifndef TAP_COMPAT_H
#define TAP_COMPAT_H

#include "tap_features.h"

#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/uprobes.h>

/* Kernel-made workers that live in a user process: io_uring's, and
 * vhost's (PF_USER_WORKER, 6.4). */
#ifdef PF_USER_WORKER
#define TAP_PF_WORKERS (PF_IO_WORKER | PF_USER_WORKER)
#else
#define TAP_PF_WORKERS PF_IO_WORKER
#endif

/* hrtimer_setup() (6.13) replaced hrtimer_init() plus a ->function store
 * (gone in 6.15). */
static inline void tap_hrtimer_setup(struct hrtimer *t,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef TAP_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

/* The sizes of a module's text and of its data (mem[] since 6.4, before
 * that core_layout). */
static inline void tap_module_sizes(const struct module *m,
				    unsigned long *text, unsigned long *data)
{
#ifdef TAP_HAVE_MODULE_MEMORY
	*text = m->mem[MOD_TEXT].size;
	*data = m->mem[MOD_DATA].size + m->mem[MOD_RODATA].size +
		m->mem[MOD_RO_AFTER_INIT].size;
#else
	*text = m->core_layout.text_size;
	*data = m->core_layout.size - m->core_layout.text_size;
#endif
}

/*
 * Function-entry probes armed through one ftrace_ops (runtime/families/
 * kprobe.c): where the kernel puts kprobes on ftrace sites and gives
 * ftrace callbacks the saved pt_regs, and a module can set many
 * functions in an ops' filter before registering it
 * (have_ftrace_entry_ops.c).  TAP_FTRACE_ENTRY is 1 there, else 0 and the
 * kprobes are armed one by one.
 */
#ifdef TAP_HAVE_FTRACE_ENTRY_OPS
#include <linux/ftrace.h>
#define TAP_FTRACE_ENTRY 1
#else
#define TAP_FTRACE_ENTRY 0
#endif

/*
 * Function-return probes armed through one fprobe per table (runtime/
 * families/kprobe.c): where the kernel has fprobe with pt_regs handlers
 * and register_fprobe_ips(), and puts kprobes on ftrace sites, which
 * tells which functions the fprobe can take (have_fprobe_ips.c: 6.12
 * amd64, not 6.1).  TAP_FPROBE_RETURN is 1 there, else 0 and every
 * return probe is a kretprobe.
 */
#ifdef TAP_HAVE_FPROBE_IPS
#include <linux/fprobe.h>
#define TAP_FPROBE_RETURN 1
#else
#define TAP_FPROBE_RETURN 0
#endif

/*
 * Where there is no fprobe but function entries go through one ftrace_ops
 * and kretprobes are built on rethook (have_kretprobe_rethook.c: 6.1
 * amd64), the return probes on ftrace sites are armed through one
 * ftrace_ops per table too: its callback calls the pre_handlers of their
 * disabled kretprobes, which hook the returns (runtime/families/
 * kprobe.c).  TAP_FTRACE_RETURN is 1 there, else 0.
 */
#if TAP_FTRACE_ENTRY && !TAP_FPROBE_RETURN && defined(TAP_HAVE_KRETPROBE_RETHOOK)
#define TAP_FTRACE_RETURN 1
#else
#define TAP_FTRACE_RETURN 0
#endif

/*
 * Uprobes.  Up to 6.11 uprobe_register_refctr() returns 0 or -errno and
 * uprobe_unregister(inode, offset, consumer) waits for the handlers; 6.12
 * has uprobe_register() return the struct uprobe * (or an ERR_PTR), and
 * unregistering is uprobe_unregister_nosync() per probe, then one
 * uprobe_unregister_sync() for all.  *handle keeps what unregistering
 * needs.  The consumer's filter lost its ctx argument in 6.10:
 * TAP_UPROBE_FILTER_ARGS is its parameter list.
 */
#ifndef TAP_HAVE_VFS_PATH_LOOKUP_DECL
/* exported since 2.6, declared for modules since 6.4 */
struct vfsmount;
struct path;
int vfs_path_lookup(struct dentry *dentry, struct vfsmount *mnt,
		    const char *name, unsigned int flags, struct path *path);
#endif

static inline int tap_uprobe_register(struct inode *inode, loff_t offset,
				      loff_t ref_ctr_offset,
				      struct uprobe_consumer *uc, void **handle)
{
#ifdef TAP_HAVE_UPROBE_REGISTER_STRUCT
	struct uprobe *u = uprobe_register(inode, offset, ref_ctr_offset, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	*handle = u;
	return 0;
#else
	*handle = NULL;
	return uprobe_register_refctr(inode, offset, ref_ctr_offset, uc);
#endif
}

static inline void tap_uprobe_unregister(struct inode *inode, loff_t offset,
					 struct uprobe_consumer *uc, void *handle)
{
#ifdef TAP_HAVE_UPROBE_REGISTER_STRUCT
	uprobe_unregister_nosync(handle, uc);
#else
	uprobe_unregister(inode, offset, uc);
#endif
}

/* After tap_uprobe_unregister() of a batch: no handler of theirs runs. */
static inline void tap_uprobe_unregister_sync(void)
{
#ifdef TAP_HAVE_UPROBE_REGISTER_STRUCT
	uprobe_unregister_sync();
#endif
}

#ifdef TAP_HAVE_UPROBE_FILTER_CTX
#define TAP_UPROBE_FILTER_ARGS \
	struct uprobe_consumer *self, enum uprobe_filter_ctx ctx, struct mm_struct *mm
#else
#define TAP_UPROBE_FILTER_ARGS struct uprobe_consumer *self, struct mm_struct *mm
#endif

#endif /* TAP_COMPAT_H */
