/*
 * uprobe.c - process("PATH").function, .statement, .plt and .mark probes
 * (and their .library forms): uprobes and uretprobes on a file's code.
 *
 * Pass 3 (translator/families/process.c) emits one table of struct
 * _tap_uprobe: the probe point's text, the file's path, the file offset
 * of the probed instruction, the file offset of an SDT marker's
 * semaphore (the uprobe reference counter: the kernel raises it in every
 * process while the probe is attached), whether it is a return probe,
 * the process(PID) filter and the generated callback that enters the
 * probe context and runs the body.
 *
 * A uprobe is attached to a file (inode and offset), not to a process:
 * it fires in every process that maps the file, including those started
 * later.  process(PID) and -c/-x narrow it: the consumer's filter keeps
 * the breakpoint out of other processes where the kernel asks it, and the
 * handler checks again (another consumer of the same address may have put
 * the breakpoint there).
 *
 * Paths are looked up in the root of the loader (taprun), which may run
 * in a chroot or container: the start work runs in a kernel worker whose
 * root is init's.  Overlayfs maps a file's code from the real (lower or
 * upper) inode, which is what uprobes match, hence d_real_inode().
 */
#ifndef TAP_FAMILIES_UPROBE_C
#define TAP_FAMILIES_UPROBE_C

#include "probe_common.h"

#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/dcache.h>
#include <linux/pid.h>
#include <linux/uprobes.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

struct _tap_uprobe;
/* The body's callback: pdata for the body (a return probe's @entry
 * values, else NULL). */
typedef void (*_tap_uprobe_fn)(const struct _tap_uprobe *u,
			       struct pt_regs *regs, unsigned long func,
			       void *pdata);
/* A return probe's @entry saver, at the entry: writes the values into
 * data; false when it could not (the return then runs no body). */
typedef bool (*_tap_uprobe_entry_fn)(const struct _tap_uprobe *u,
				     struct pt_regs *regs, void *data);

/*
 * The @entry values of the calls in flight, for one return probe: a slot
 * per call, keyed by the task and its stack pointer at the entry (at the
 * return it is 8 more: the return address was popped).  A call that
 * never returns (longjmp, exit) leaves its slot behind; a new entry in
 * the same task reclaims the slots of frames below its own stack
 * pointer, which are gone.  With every slot busy an entry is skipped
 * (counted), and so is its return.
 */
#define TAP_UPROBE_ENTRY_SLOTS 256

struct _tap_uentry_slot {
	struct task_struct *task;	/* NULL: free */
	unsigned long sp;
};

struct _tap_uentry {
	spinlock_t lock;
	size_t size;			/* of one slot with its data */
	char *slots;
};

struct _tap_uprobe {
	struct uprobe_consumer uc;
	const char *pp;
	const char *path;		/* the file, as the loader sees it */
	unsigned long offset;		/* of the probed instruction */
	unsigned long ref_ctr;		/* of the SDT semaphore, or 0 */
	pid_t pid;			/* process(PID), else 0 */
	const char *exe;		/* .library probes: the program, else
					 * NULL (any process) */
	bool is_return;
	int site;			/* an SDT marker's site (its operands) */
	unsigned int flags;		/* TAP_PROBE_* */
	_tap_uprobe_fn fn;
	_tap_uprobe_entry_fn entry_fn;	/* return probes using @entry */
	size_t entry_size;		/* sizeof its values */
	struct _tap_uentry *entry;	/* allocated while registered */
	struct inode *inode;		/* held while registered */
	struct inode *exe_inode, *exe_real;	/* exe's, held likewise */
	void *handle;			/* tap_uprobe_register()'s */
	bool registered;
};

/* Does mm run the program u->exe?  Its exe_file is the file exec opened:
 * on overlayfs the overlay's inode, elsewhere the real one. */
static bool _tap_mm_runs(const struct _tap_uprobe *u, struct mm_struct *mm)
{
	struct file *f;
	bool yes;

	if (!mm)
		return false;
	rcu_read_lock();
	f = rcu_dereference(mm->exe_file);
	yes = f && (file_inode(f) == u->exe_inode || file_inode(f) == u->exe_real);
	rcu_read_unlock();
	return yes;
}

/* Should a hit in task t run the probe?  process(PID) wants that
 * process's threads, process("P").library("L") the processes running P,
 * -c/-x the target's tree. */
static bool _tap_uprobe_wanted(const struct _tap_uprobe *u,
			       struct task_struct *t)
{
	if (u->pid && task_tgid_nr(t) != u->pid)
		return false;
	if (u->exe_inode && !_tap_mm_runs(u, t->mm))
		return false;
	if (READ_ONCE(tap_target_pid) > 0 && !tap_in_target_tree(t))
		return false;
	return true;
}

/* Does some wanted task use mm?  The kernel asks when it registers the
 * probe (in every mm mapping the file), when a process maps the file and
 * when a handler asks for removal.  When in doubt, yes: the handler
 * checks again. */
static bool _tap_uprobe_filter(TAP_UPROBE_FILTER_ARGS)
{
	struct _tap_uprobe *u = container_of(self, struct _tap_uprobe, uc);
	struct task_struct *p;
	bool found = false;

	if (!u->pid && !u->exe_inode && READ_ONCE(tap_target_pid) <= 0)
		return true;
	if (current->mm == mm && _tap_uprobe_wanted(u, current))
		return true;
	/* another process may share mm (a vfork child runs in its
	 * parent's): any wanted one keeps the breakpoint */
	rcu_read_lock();
	for_each_process(p) {
		if (p->mm == mm && _tap_uprobe_wanted(u, p)) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static inline struct _tap_uentry_slot *_tap_uentry_at(struct _tap_uentry *e,
							int i)
{
	return (struct _tap_uentry_slot *)(e->slots + (size_t)i * e->size);
}

static void *_tap_uentry_data(struct _tap_uentry_slot *s)
{
	return (char *)s + ALIGN(sizeof(*s), 16);
}

/* A slot for an entry at sp in current, or NULL. */
static struct _tap_uentry_slot *_tap_uentry_get(struct _tap_uentry *e,
						unsigned long sp)
{
	struct _tap_uentry_slot *s, *got = NULL;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&e->lock, flags);
	for (i = 0; i < TAP_UPROBE_ENTRY_SLOTS; i++) {
		s = _tap_uentry_at(e, i);
		if (s->task == current && s->sp <= sp)
			s->task = NULL;         /* a frame that is gone */
		if (!s->task && !got)
			got = s;
	}
	if (got) {
		got->task = current;
		got->sp = sp;
	}
	spin_unlock_irqrestore(&e->lock, flags);
	return got;
}

/* The slot of the call returning now (sp after the return), or NULL. */
static struct _tap_uentry_slot *_tap_uentry_find(struct _tap_uentry *e,
						 unsigned long sp)
{
	struct _tap_uentry_slot *s, *found = NULL;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&e->lock, flags);
	for (i = 0; i < TAP_UPROBE_ENTRY_SLOTS && !found; i++) {
		s = _tap_uentry_at(e, i);
		if (s->task == current && tap_arch_sp_after_return(s->sp) == sp)
			found = s;
	}
	spin_unlock_irqrestore(&e->lock, flags);
	return found;
}

static void _tap_uentry_put(struct _tap_uentry *e, struct _tap_uentry_slot *s)
{
	unsigned long flags;

	spin_lock_irqsave(&e->lock, flags);
	s->task = NULL;
	spin_unlock_irqrestore(&e->lock, flags);
}

static int _tap_uprobe_handler(struct uprobe_consumer *self,
			       struct pt_regs *regs)
{
	struct _tap_uprobe *u = container_of(self, struct _tap_uprobe, uc);
	struct _tap_uentry_slot *s;

	/* not for this process: the kernel may take the breakpoint out of
	 * its memory (when every consumer's filter agrees) */
	if (!_tap_uprobe_wanted(u, current))
		return UPROBE_HANDLER_REMOVE;
	if (!u->is_return) {
		u->fn(u, regs, 0, NULL);
		return 0;
	}
	/* the entry of a return probe with @entry: save the values */
	s = _tap_uentry_get(u->entry, user_stack_pointer(regs));
	if (!s) {
		tap_count_skip(TAP_SKIP_KRETPROBE);
		return 0;
	}
	if (!u->entry_fn(u, regs, _tap_uentry_data(s)))
		_tap_uentry_put(u->entry, s);
	return 0;
}

static int _tap_uretprobe_handler(struct uprobe_consumer *self,
				  unsigned long func, struct pt_regs *regs)
{
	struct _tap_uprobe *u = container_of(self, struct _tap_uprobe, uc);
	struct _tap_uentry_slot *s;

	if (!_tap_uprobe_wanted(u, current))
		return 0;
	if (!u->entry_fn) {
		u->fn(u, regs, func, NULL);
		return 0;
	}
	s = _tap_uentry_find(u->entry, user_stack_pointer(regs));
	if (!s)
		return 0;       /* its entry was skipped or failed */
	u->fn(u, regs, func, _tap_uentry_data(s));
	_tap_uentry_put(u->entry, s);
	return 0;
}

static void _tap_uentry_free(struct _tap_uprobe *u)
{
	if (!u->entry)
		return;
	tap_free(u->entry->slots);
	tap_free(u->entry);
	u->entry = NULL;
}

static int _tap_uentry_alloc(struct _tap_uprobe *u)
{
	struct _tap_uentry *e;

	if (!u->entry_fn)
		return 0;
	e = tap_alloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	spin_lock_init(&e->lock);
	e->size = ALIGN(ALIGN(sizeof(struct _tap_uentry_slot), 16) + u->entry_size, 16);
	e->slots = tap_alloc(e->size * TAP_UPROBE_ENTRY_SLOTS);
	if (!e->slots) {
		tap_free(e);
		return -ENOMEM;
	}
	memset(e->slots, 0, e->size * TAP_UPROBE_ENTRY_SLOTS);
	u->entry = e;
	return 0;
}


/* The inode whose code processes map for path, held; or an ERR_PTR.
 * With path_inode, also the inode of the path itself (held). */
static struct inode *_tap_uprobe_inode(const struct path *root,
				       const char *path, const char **why,
				       struct inode **path_inode)
{
	struct path p;
	struct inode *inode;
	int ret;

	ret = vfs_path_lookup(root->dentry, root->mnt, path, LOOKUP_FOLLOW, &p);
	if (ret) {
		*why = ret == -ENOENT ? "no such file in the loader's root" : NULL;
		return ERR_PTR(ret);
	}
	inode = d_real_inode(p.dentry);
	if (!inode || !S_ISREG(inode->i_mode)) {
		path_put(&p);
		*why = "not a regular file";
		return ERR_PTR(-EINVAL);
	}
	inode = igrab(inode);
	if (inode && path_inode) {
		*path_inode = igrab(d_inode(p.dentry));
		if (!*path_inode) {
			iput(inode);
			inode = NULL;
		}
	}
	path_put(&p);
	if (!inode) {
		*why = "the file is being removed";
		return ERR_PTR(-ENOENT);
	}
	return inode;
}

static __maybe_unused void _tap_uprobes_unregister(struct _tap_uprobe *u, int n)
{
	int i;
	bool any = false;

	for (i = 0; i < n; i++) {
		if (!u[i].registered)
			continue;
		tap_uprobe_unregister(u[i].inode, u[i].offset, &u[i].uc,
				      u[i].handle);
		any = true;
	}
	if (any)
		tap_uprobe_unregister_sync();
	for (i = 0; i < n; i++) {
		if (!u[i].registered)
			continue;
		iput(u[i].inode);
		u[i].inode = NULL;
		_tap_uentry_free(&u[i]);
		if (u[i].exe_inode) {
			iput(u[i].exe_inode);
			iput(u[i].exe_real);
			u[i].exe_inode = u[i].exe_real = NULL;
		}
		u[i].handle = NULL;
		u[i].registered = false;
	}
}

static __maybe_unused int _tap_uprobes_register(struct _tap_uprobe *u, int n)
{
	struct path root;
	int i, ret = 0;

	tap_loader_root(&root);
	for (i = 0; i < n; i++) {
		const char *why = NULL;
		struct inode *inode;

		if (u[i].is_return)
			u[i].uc.ret_handler = _tap_uretprobe_handler;
		if (!u[i].is_return || u[i].entry_fn)
			u[i].uc.handler = _tap_uprobe_handler;
		ret = _tap_uentry_alloc(&u[i]);
		if (ret) {
			_tap_uprobes_unregister(u, i);
			break;
		}
		u[i].uc.filter = _tap_uprobe_filter;
		if (u[i].exe) {
			inode = _tap_uprobe_inode(&root, u[i].exe, &why,
						  &u[i].exe_inode);
			if (IS_ERR(inode)) {
				ret = _tap_probe_failed(u[i].pp, u[i].flags,
							PTR_ERR(inode), "uprobe",
							why);
				_tap_uentry_free(&u[i]);
				if (ret) {
					_tap_uprobes_unregister(u, i);
					break;
				}
				continue;
			}
			u[i].exe_real = inode;
		}
		inode = _tap_uprobe_inode(&root, u[i].path, &why, NULL);
		if (IS_ERR(inode)) {
			ret = PTR_ERR(inode);
		} else {
			ret = tap_uprobe_register(inode, u[i].offset, u[i].ref_ctr,
						  &u[i].uc, &u[i].handle);
			if (ret == 0) {
				u[i].inode = inode;
				u[i].registered = true;
				continue;
			}
			if (ret == -EINVAL && u[i].offset >= i_size_read(inode))
				why = "the offset is past the end of the file "
				      "(was it rebuilt since?)";
			iput(inode);
		}
		if (u[i].exe_inode) {
			iput(u[i].exe_inode);
			iput(u[i].exe_real);
			u[i].exe_inode = u[i].exe_real = NULL;
		}
		_tap_uentry_free(&u[i]);
		ret = _tap_probe_failed(u[i].pp, u[i].flags, ret,
					u[i].is_return ? "uretprobe" : "uprobe",
					why);
		if (ret) {
			_tap_uprobes_unregister(u, i);
			break;
		}
	}
	path_put(&root);
	return ret;
}

#endif /* TAP_FAMILIES_UPROBE_C */
