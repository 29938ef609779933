/*
 * process_events.c - the life of user processes: process.begin, .end,
 * .thread.begin, .thread.end, and process.syscall(.return), for every
 * process, for process(PID) and for process("PATH").
 *
 * Everything hangs on five tracepoints of the kernel: sched_process_fork,
 * sched_process_exec and sched_process_exit (always), sys_enter and
 * sys_exit (when the script has syscall probes).
 *
 * Which processes are "attached" (their events fire probes) is kept in a
 * bitmap indexed by process ID (the tgid, in the initial namespace):
 *
 *   - with a target (-c CMD, -x PID): the target and its descendants
 *     found at the start, every process forked by an attached one, and
 *     nothing else (the -c child, which the loader holds before its exec,
 *     is attached when it executes the command, not before);
 *   - else: every user process when some probe names no process, plus
 *     the processes process(PID) names, plus those running a program
 *     process("PATH") names.
 *
 * A probe fires for an attached process that its point names: any, the
 * PID, or one whose program is PATH.  Which program a process runs is
 * kept in one more bitmap per PATH, set at fork, exec and the start walk
 * from the executable's inode (d_real_inode: through overlayfs, the file
 * underneath), so that it is still known at exit, when the process has no
 * memory map any more.  PATH is looked up in the root of the loader
 * (taprun, which may run in a chroot).
 *
 * When they fire (as stap does):
 *   begin         a process present at the start (once, in its own context,
 *                 after the begin probes), the child of a fork (in the
 *                 child, before it runs any user code), and after an exec;
 *   end           at the exit of the last thread, and before an exec (the
 *                 old program's end: an exec is end + begin);
 *   thread.begin  each thread but the main one: present at the start, or
 *                 new (in the new thread);
 *   thread.end    the exit of a thread that is not the process's end (the
 *                 last to exit, or the main thread when it is among the
 *                 last: see _tap_pe_on_exit);
 *   syscall       entry of a system call of an attached process (not the
 *                 loader's own: their output would feed itself);
 *   syscall.return its exit.
 * A process still running when the session stops gets no end.
 *
 * Begin handlers must run in the process concerned (pid(), execname(),
 * user memory), so for a fork and the processes found at the start they
 * run from a task_work queued on the task: TWA_RESUME for a new child
 * (it runs before the child's first user instruction), TWA_SIGNAL for a
 * running process (it interrupts a sleep; the system call restarts).
 * Every queued work is on a list; a task that execs or exits with one
 * pending runs it there first.  At the stop, works still pending (a
 * process stopped by a signal or a debugger) are taken off their task's
 * queue (_tap_pe_cancel), and the stop waits until no work of the module
 * runs.
 */
#ifndef TAP_FAMILIES_PROCESS_EVENTS_C
#define TAP_FAMILIES_PROCESS_EVENTS_C

#include "probe_common.h"

#include <linux/binfmts.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/kallsyms.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>

/* vfs_path_lookup(): declared by compat.h where <linux/namei.h> does
 * not (before 6.4). */

enum {
	TAP_PE_BEGIN, TAP_PE_END, TAP_PE_THREAD_BEGIN, TAP_PE_THREAD_END,
	TAP_PE_SYSCALL, TAP_PE_SYSCALL_RETURN, TAP_PE_NKINDS
};

/* What a syscall probe's $syscall, $argN and $return read (pdata). */
struct _tap_pe_sysargs {
	long nr;
	unsigned long arg[6];
	long ret;
};

struct _tap_pe_probe {
	/* from pass 3 */
	const char *pp;
	void (*fire)(void *pdata);
	int kind;			/* TAP_PE_* */
	pid_t pid;			/* process(PID), else 0 */
	int path;			/* process("PATH"): its index, else -1 */
	unsigned int flags;		/* TAP_PROBE_* */
};

struct _tap_pe_path {
	const char *name;		/* from pass 3 */
	struct path path;		/* held while running */
	struct inode *inode;		/* NULL: not found (optional probes) */
};

/* A begin handler waiting to run in its task. */
struct _tap_pe_work {
	struct callback_head cb;
	struct list_head node;		/* on _tap_pe.works while not claimed */
	struct task_struct *task;	/* held */
	refcount_t ref;			/* the task's queue, and the list */
	int kind;
	bool claimed;			/* run (or cancelled): off the list */
};

#define TAP_PE_NPIDS PID_MAX_LIMIT

/* The workers the kernel runs in a process (io_uring, vhost) are made
 * without the fork tracepoint: they have no thread.begin or .end, but
 * the last one to exit still ends the process. */
#define TAP_PE_WORKER TAP_PF_WORKERS
#define TAP_PE_NOT_USER (PF_KTHREAD | TAP_PE_WORKER)

enum { TAP_TP_FORK, TAP_TP_EXEC, TAP_TP_EXIT, TAP_TP_SYS_ENTER,
       TAP_TP_SYS_EXIT, TAP_TP_N };

static struct {
	struct _tap_pe_probe *probes;
	int n;
	struct _tap_pe_path *paths;
	int npaths;
	bool any[TAP_PE_NKINDS];	/* some probe of that kind */
	bool all;			/* some probe names no process */
	unsigned long *attached;	/* bitmap by tgid */
	unsigned long *leader_gone;	/* by tgid: its main thread exited */
	unsigned long *ended;		/* by tgid: its end ran (the bits
					 * of a tgid are set again at fork) */
	unsigned long **image;		/* per path: bitmap by tgid */
	spinlock_t lock;		/* works, stopping */
	struct list_head works;
	atomic_t nworks;		/* allocated, not yet freed */
	bool stopping;
	struct tracepoint *tp[TAP_TP_N];
	bool tp_on[TAP_TP_N];
} _tap_pe;

static const char *const _tap_pe_tp_names[TAP_TP_N] = {
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
	"sys_enter", "sys_exit",
};

static bool _tap_pe_has(unsigned long *map, pid_t tgid)
{
	return tgid > 0 && tgid < TAP_PE_NPIDS && test_bit(tgid, map);
}

static void _tap_pe_assign(unsigned long *map, pid_t tgid, bool on)
{
	if (tgid > 0 && tgid < TAP_PE_NPIDS)
		assign_bit(tgid, map, on);
}

/* Note which of the PATHs file is (NULL: none), for process tgid. */
static void _tap_pe_set_image(pid_t tgid, struct file *file)
{
	struct inode *inode = file ? d_real_inode(file->f_path.dentry) : NULL;
	int i;

	for (i = 0; i < _tap_pe.npaths; i++)
		_tap_pe_assign(_tap_pe.image[i], tgid,
			       inode && inode == _tap_pe.paths[i].inode);
}

/* Without a target: is process tgid (its image noted) one some probe
 * names? */
static bool _tap_pe_named(pid_t tgid)
{
	int i;

	if (_tap_pe.all)
		return true;
	for (i = 0; i < _tap_pe.n; i++)
		if (_tap_pe.probes[i].pid == tgid)
			return true;
	for (i = 0; i < _tap_pe.npaths; i++)
		if (_tap_pe_has(_tap_pe.image[i], tgid))
			return true;
	return false;
}

/* Run the probes of this kind that name the current process. */
static void _tap_pe_fire(int kind, void *pdata)
{
	pid_t tgid = task_tgid_nr(current);
	int i;

	for (i = 0; i < _tap_pe.n; i++) {
		struct _tap_pe_probe *p = &_tap_pe.probes[i];

		if (p->kind != kind)
			continue;
		if (p->pid && p->pid != tgid)
			continue;
		if (p->path >= 0 && !_tap_pe_has(_tap_pe.image[p->path], tgid))
			continue;
		p->fire(pdata);
	}
}

/* ---- begin handlers in the task's own context ---- */

static void _tap_pe_work_put(struct _tap_pe_work *w)
{
	if (refcount_dec_and_test(&w->ref)) {
		put_task_struct(w->task);
		tap_free(w);
		atomic_dec(&_tap_pe.nworks);
	}
}

/* Take w off the list: true when the caller is the one to run it. */
static bool _tap_pe_claim(struct _tap_pe_work *w)
{
	unsigned long flags;
	bool mine;

	spin_lock_irqsave(&_tap_pe.lock, flags);
	mine = !w->claimed;
	if (mine) {
		w->claimed = true;
		list_del(&w->node);
	}
	spin_unlock_irqrestore(&_tap_pe.lock, flags);
	return mine;
}

static void _tap_pe_work_fn(struct callback_head *cb)
{
	struct _tap_pe_work *w = container_of(cb, struct _tap_pe_work, cb);

	if (_tap_pe_claim(w)) {
		/* Found at the start: the begin probes may still be running
		 * (a few milliseconds); this is the task's own time. */
		int waited = 0;

		while (tap_session_state() == TAP_STATE_STARTING &&
		       waited++ < 10000)
			msleep(1);
		_tap_pe_fire(w->kind, NULL);
		_tap_pe_work_put(w);	/* the list's reference */
	}
	_tap_pe_work_put(w);		/* the queue's */
}

/* Queue the begin handlers of this kind for task t (any context). */
static void _tap_pe_queue(struct task_struct *t, int kind,
			  enum task_work_notify_mode mode)
{
	struct _tap_pe_work *w = tap_alloc_atomic(sizeof(*w));
	unsigned long flags;

	if (!w) {
		tap_count_skip(TAP_SKIP_OTHER);
		return;
	}
	memset(w, 0, sizeof(*w));
	init_task_work(&w->cb, _tap_pe_work_fn);
	get_task_struct(t);
	w->task = t;
	w->kind = kind;
	refcount_set(&w->ref, 2);
	atomic_inc(&_tap_pe.nworks);
	spin_lock_irqsave(&_tap_pe.lock, flags);
	if (_tap_pe.stopping) {
		spin_unlock_irqrestore(&_tap_pe.lock, flags);
		refcount_set(&w->ref, 1);
		_tap_pe_work_put(w);
		return;
	}
	list_add_tail(&w->node, &_tap_pe.works);
	spin_unlock_irqrestore(&_tap_pe.lock, flags);
	if (task_work_add(t, &w->cb, mode)) {
		/* the task is past its last chance to run works */
		if (_tap_pe_claim(w))
			_tap_pe_work_put(w);
		_tap_pe_work_put(w);
	}
}

/* The current task execs or exits: its pending begin handlers run now,
 * before what comes next (their work, when it runs, does nothing). */
static void _tap_pe_run_pending(void)
{
	struct _tap_pe_work *w, *mine[4];
	unsigned long flags;
	int n, i;

	if (list_empty(&_tap_pe.works))
		return;
	do {
		n = 0;
		spin_lock_irqsave(&_tap_pe.lock, flags);
		list_for_each_entry(w, &_tap_pe.works, node) {
			if (w->task != current)
				continue;
			mine[n++] = w;
			if (n == ARRAY_SIZE(mine))
				break;
		}
		for (i = 0; i < n; i++) {
			mine[i]->claimed = true;
			list_del(&mine[i]->node);
		}
		spin_unlock_irqrestore(&_tap_pe.lock, flags);
		for (i = 0; i < n; i++) {
			_tap_pe_fire(mine[i]->kind, NULL);
			_tap_pe_work_put(mine[i]);
		}
	} while (n == ARRAY_SIZE(mine));
}

/* ---- the tracepoints ---- */

static void _tap_pe_on_fork(void *data, struct task_struct *parent,
			    struct task_struct *child)
{
	pid_t tgid = task_tgid_nr(child);
	bool attached;
	struct file *exe = NULL;

	if (child->flags & TAP_PE_NOT_USER)
		return;
	if (tgid == task_tgid_nr(parent)) {
		/* a new thread */
		if (_tap_pe.any[TAP_PE_THREAD_BEGIN] &&
		    _tap_pe_has(_tap_pe.attached, tgid))
			_tap_pe_queue(child, TAP_PE_THREAD_BEGIN, TWA_RESUME);
		return;
	}
	/* A process without memory (a user-mode helper) begins at its
	 * exec. */
	_tap_pe_assign(_tap_pe.leader_gone, tgid, false);
	_tap_pe_assign(_tap_pe.ended, tgid, false);
	if (!child->mm) {
		_tap_pe_assign(_tap_pe.attached, tgid, false);
		return;
	}
	rcu_read_lock();
	if (_tap_pe.npaths)
		exe = rcu_dereference(child->mm->exe_file);
	_tap_pe_set_image(tgid, exe);
	rcu_read_unlock();
	if (READ_ONCE(tap_target_pid) > 0)
		attached = _tap_pe_has(_tap_pe.attached, task_tgid_nr(parent));
	else
		attached = _tap_pe_named(tgid);
	_tap_pe_assign(_tap_pe.attached, tgid, attached);
	if (attached && _tap_pe.any[TAP_PE_BEGIN])
		_tap_pe_queue(child, TAP_PE_BEGIN, TWA_RESUME);
}

static void _tap_pe_on_exec(void *data, struct task_struct *p, pid_t old_pid,
			    struct linux_binprm *bprm)
{
	pid_t tgid = task_tgid_nr(p);
	pid_t target = READ_ONCE(tap_target_pid);
	bool was, now;

	if (p->flags & TAP_PE_NOT_USER)
		return;
	_tap_pe_run_pending();
	was = _tap_pe_has(_tap_pe.attached, tgid);
	if (was && _tap_pe.any[TAP_PE_END])
		_tap_pe_fire(TAP_PE_END, NULL);
	_tap_pe_set_image(tgid, bprm->file);
	/* the exec's thread is the main one now, the others are gone */
	_tap_pe_assign(_tap_pe.leader_gone, tgid, false);
	_tap_pe_assign(_tap_pe.ended, tgid, false);
	if (target > 0)
		now = was || tgid == target;
	else
		now = _tap_pe_named(tgid);
	_tap_pe_assign(_tap_pe.attached, tgid, now);
	if (now && _tap_pe.any[TAP_PE_BEGIN])
		_tap_pe_fire(TAP_PE_BEGIN, NULL);
}

/*
 * Which exit is the process's end: the kernel counts the threads out
 * (signal->live) before this tracepoint, so several exiting threads may
 * all see 0.  The main thread ends the process when it is among them;
 * when it went first (its thread.end), a later thread that sees 0 does.
 * Only one of them sets the ended bit: every other exit of an attached
 * process is a thread.end, so each exit is exactly one event.
 */
static void _tap_pe_on_exit(void *data, struct task_struct *p)
{
	pid_t tgid = task_tgid_nr(p);
	bool leader = task_pid_nr(p) == tgid;

	if (p->flags & PF_KTHREAD)
		return;
	_tap_pe_run_pending();
	if (tgid <= 0 || tgid >= TAP_PE_NPIDS || !test_bit(tgid, _tap_pe.attached))
		return;
	if (leader)
		set_bit(tgid, _tap_pe.leader_gone);
	smp_mb__after_atomic();
	if (atomic_read(&p->signal->live) == 0 &&
	    (leader || test_bit(tgid, _tap_pe.leader_gone)) &&
	    !test_and_set_bit(tgid, _tap_pe.ended)) {
		if (_tap_pe.any[TAP_PE_END])
			_tap_pe_fire(TAP_PE_END, NULL);
		return;
	}
	if (_tap_pe.any[TAP_PE_THREAD_END] && !(p->flags & TAP_PE_WORKER))
		_tap_pe_fire(TAP_PE_THREAD_END, NULL);
}

static bool _tap_pe_syscall_wanted(void)
{
	pid_t tgid = task_tgid_nr(current);

	return tgid != READ_ONCE(tap_loader_pid) &&
	       _tap_pe_has(_tap_pe.attached, tgid);
}

static void _tap_pe_on_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct _tap_pe_sysargs a;

	if (!_tap_pe_syscall_wanted())
		return;
	a.nr = id;
	syscall_get_arguments(current, regs, a.arg);
	a.ret = 0;
	_tap_pe_fire(TAP_PE_SYSCALL, &a);
}

static void _tap_pe_on_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct _tap_pe_sysargs a;

	if (!_tap_pe_syscall_wanted())
		return;
	memset(&a, 0, sizeof(a));
	a.nr = syscall_get_nr(current, regs);
	a.ret = ret;
	_tap_pe_fire(TAP_PE_SYSCALL_RETURN, &a);
}

static void *const _tap_pe_tp_funcs[TAP_TP_N] = {
	_tap_pe_on_fork, _tap_pe_on_exec, _tap_pe_on_exit,
	_tap_pe_on_sys_enter, _tap_pe_on_sys_exit,
};

static void _tap_pe_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < TAP_TP_N; i++)
		if (!_tap_pe.tp[i] && !strcmp(tp->name, _tap_pe_tp_names[i]))
			_tap_pe.tp[i] = tp;
}

static void _tap_pe_tp_off(void)
{
	bool any = false;
	int i;

	for (i = 0; i < TAP_TP_N; i++) {
		if (!_tap_pe.tp_on[i])
			continue;
		tracepoint_probe_unregister(_tap_pe.tp[i], _tap_pe_tp_funcs[i],
					    NULL);
		_tap_pe.tp_on[i] = false;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

static int _tap_pe_tp_on(void)
{
	bool sys = _tap_pe.any[TAP_PE_SYSCALL] ||
		   _tap_pe.any[TAP_PE_SYSCALL_RETURN];
	int i, ret;

	for_each_kernel_tracepoint(_tap_pe_find_tp, NULL);
	for (i = 0; i < TAP_TP_N; i++) {
		if (i == TAP_TP_SYS_ENTER && !_tap_pe.any[TAP_PE_SYSCALL])
			continue;
		if (i == TAP_TP_SYS_EXIT && !_tap_pe.any[TAP_PE_SYSCALL_RETURN])
			continue;
		ret = _tap_pe.tp[i] ? tracepoint_probe_register(_tap_pe.tp[i],
					_tap_pe_tp_funcs[i], NULL) : -ENOENT;
		if (ret) {
			char msg[160];

			snprintf(msg, sizeof(msg), "process probes: cannot use the "
				 "tracepoint %s (rc %d)%s", _tap_pe_tp_names[i], ret,
				 sys && i >= TAP_TP_SYS_ENTER ?
				 " for system call probes" : "");
			tap_msg_error(msg);
			_tap_pe_tp_off();
			return ret;
		}
		_tap_pe.tp_on[i] = true;
	}
	return 0;
}

/* ---- start and stop ---- */


/* Find each PATH; a probe whose program is missing fails the start
 * unless it is optional. */
static int _tap_pe_find_paths(void)
{
	struct path root;
	int i, j, ret = 0;

	tap_loader_root(&root);
	for (i = 0; i < _tap_pe.npaths && !ret; i++) {
		struct _tap_pe_path *p = &_tap_pe.paths[i];
		int err = vfs_path_lookup(root.dentry, root.mnt, p->name,
					  LOOKUP_FOLLOW, &p->path);

		if (!err) {
			p->inode = d_real_inode(p->path.dentry);
			continue;
		}
		for (j = 0; j < _tap_pe.n && !ret; j++)
			if (_tap_pe.probes[j].path == i)
				ret = _tap_probe_failed(_tap_pe.probes[j].pp,
					_tap_pe.probes[j].flags, err, "process",
					err == -ENOENT ? "no such file in the "
					"loader's root" : NULL);
	}
	path_put(&root);
	return ret;
}

static void _tap_pe_put_paths(void)
{
	int i;

	for (i = 0; i < _tap_pe.npaths; i++) {
		if (_tap_pe.paths[i].inode)
			path_put(&_tap_pe.paths[i].path);
		_tap_pe.paths[i].inode = NULL;
	}
}

/*
 * Take one work of ours off task's queue, or NULL.  The kernel's
 * task_work_cancel_func is not exported (and finding it by name would
 * not do: a function never called indirectly has its ENDBR sealed, and
 * an indirect call to it faults under IBT), so this does what it does,
 * with the same lock: task_work_run() takes the whole list with a
 * cmpxchg and then takes and drops pi_lock, so a work found here under
 * pi_lock is either still queued (and unlinked by our cmpxchg) or the
 * cmpxchg fails and the walk goes on from the same place.
 */
static struct callback_head *_tap_pe_cancel(struct task_struct *task)
{
	struct callback_head **pprev = &task->task_works;
	struct callback_head *work;
	unsigned long flags;

	if (!READ_ONCE(task->task_works))
		return NULL;
	raw_spin_lock_irqsave(&task->pi_lock, flags);
	work = READ_ONCE(*pprev);
	while (work) {
		if (work->func != _tap_pe_work_fn) {
			pprev = &work->next;
			work = READ_ONCE(*pprev);
		} else if (try_cmpxchg(pprev, &work, work->next)) {
			break;
		}
	}
	raw_spin_unlock_irqrestore(&task->pi_lock, flags);
	return work;
}

static void _tap_pe_free(void)
{
	int i;

	if (_tap_pe.image)
		for (i = 0; i < _tap_pe.npaths; i++)
			tap_free(_tap_pe.image[i]);
	tap_free(_tap_pe.image);
	_tap_pe.image = NULL;
	tap_free(_tap_pe.attached);
	_tap_pe.attached = NULL;
	tap_free(_tap_pe.leader_gone);
	_tap_pe.leader_gone = NULL;
	tap_free(_tap_pe.ended);
	_tap_pe.ended = NULL;
}

/* Is t (a process found at the start) the target or below it? */
static bool _tap_pe_in_tree(struct task_struct *t, pid_t target)
{
	for (;;) {
		struct task_struct *parent;

		if (task_tgid_nr(t) == target)
			return true;
		parent = rcu_dereference(t->real_parent);
		if (task_pid_nr(t) <= 1 || parent == t)
			return false;
		t = parent;
	}
}

/* The processes and threads already running: attach them, and queue
 * their begin handlers.  Those forked since `since` had the fork
 * tracepoint. */
static void _tap_pe_walk(u64 since)
{
	pid_t target = READ_ONCE(tap_target_pid);
	struct task_struct *g, *t;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		pid_t tgid = task_tgid_nr(g);
		bool attached;

		if (t->flags & (TAP_PE_NOT_USER | PF_EXITING))
			continue;
		if (t != g) {
			if (_tap_pe.any[TAP_PE_THREAD_BEGIN] &&
			    t->start_time < since &&
			    _tap_pe_has(_tap_pe.attached, tgid))
				_tap_pe_queue(t, TAP_PE_THREAD_BEGIN, TWA_SIGNAL);
			continue;
		}
		task_lock(g);
		if (!g->mm) {
			task_unlock(g);
			continue;
		}
		_tap_pe_set_image(tgid, _tap_pe.npaths ?
				  rcu_dereference(g->mm->exe_file) : NULL);
		task_unlock(g);
		if (target > 0) {
			/* the -c child, held before its exec by the loader:
			 * it begins when it runs the command */
			attached = !(tgid == target &&
				     task_tgid_nr(rcu_dereference(g->real_parent)) ==
				     READ_ONCE(tap_loader_pid)) &&
				   _tap_pe_in_tree(g, target);
		} else {
			attached = _tap_pe_named(tgid);
		}
		if (attached)
			_tap_pe_assign(_tap_pe.attached, tgid, true);
		if (attached && _tap_pe.any[TAP_PE_BEGIN] && g->start_time < since)
			_tap_pe_queue(g, TAP_PE_BEGIN, TWA_SIGNAL);
	}
	rcu_read_unlock();
}

static void _tap_pe_stop(void);

static int _tap_pe_start(struct _tap_pe_probe *probes, int n,
			 struct _tap_pe_path *paths, int npaths)
{
	int i, ret;
	u64 since;

	memset(&_tap_pe, 0, sizeof(_tap_pe));
	spin_lock_init(&_tap_pe.lock);
	INIT_LIST_HEAD(&_tap_pe.works);
	_tap_pe.probes = probes;
	_tap_pe.n = n;
	_tap_pe.paths = paths;
	_tap_pe.npaths = npaths;
	for (i = 0; i < n; i++) {
		_tap_pe.any[probes[i].kind] = true;
		if (!probes[i].pid && probes[i].path < 0)
			_tap_pe.all = true;
	}
	ret = -ENOMEM;
	_tap_pe.attached = tap_alloc(BITS_TO_LONGS(TAP_PE_NPIDS) * sizeof(long));
	_tap_pe.leader_gone = tap_alloc(BITS_TO_LONGS(TAP_PE_NPIDS) * sizeof(long));
	_tap_pe.ended = tap_alloc(BITS_TO_LONGS(TAP_PE_NPIDS) * sizeof(long));
	if (!_tap_pe.attached || !_tap_pe.leader_gone || !_tap_pe.ended)
		goto fail;
	if (npaths) {
		_tap_pe.image = tap_alloc(npaths * sizeof(*_tap_pe.image));
		if (!_tap_pe.image)
			goto fail;
		for (i = 0; i < npaths; i++) {
			_tap_pe.image[i] = tap_alloc(BITS_TO_LONGS(TAP_PE_NPIDS) *
						     sizeof(long));
			if (!_tap_pe.image[i])
				goto fail;
		}
	}
	ret = _tap_pe_find_paths();
	if (ret)
		goto fail;
	since = ktime_get_ns();
	ret = _tap_pe_tp_on();
	if (ret)
		goto fail;
	_tap_pe_walk(since);
	return 0;
fail:
	_tap_pe_put_paths();
	_tap_pe_free();
	return ret;
}

static void _tap_pe_stop(void)
{
	struct _tap_pe_work *w, *next;
	unsigned long flags;
	LIST_HEAD(left);
	int waited = 0;

	spin_lock_irqsave(&_tap_pe.lock, flags);
	_tap_pe.stopping = true;
	spin_unlock_irqrestore(&_tap_pe.lock, flags);
	_tap_pe_tp_off();
	/* No work is queued any more: take back those not run yet. */
	spin_lock_irqsave(&_tap_pe.lock, flags);
	list_for_each_entry(w, &_tap_pe.works, node)
		w->claimed = true;
	list_splice_init(&_tap_pe.works, &left);
	spin_unlock_irqrestore(&_tap_pe.lock, flags);
	list_for_each_entry(w, &left, node) {
		/* any work of ours on that task: each is on `left` */
		struct callback_head *cb = _tap_pe_cancel(w->task);

		if (cb)
			_tap_pe_work_put(container_of(cb, struct _tap_pe_work, cb));
	}
	list_for_each_entry_safe(w, next, &left, node) {
		list_del(&w->node);
		_tap_pe_work_put(w);
	}
	/* works that were running, or taken by their task just now */
	while (atomic_read(&_tap_pe.nworks) > 0) {
		if (++waited % 5000 == 0)
			printk(KERN_WARNING "%s: waiting for %d process begin "
			       "handlers to finish\n", THIS_MODULE->name,
			       atomic_read(&_tap_pe.nworks));
		msleep(1);
	}
	/* let the last one return from its function */
	synchronize_rcu();
	_tap_pe_put_paths();
	_tap_pe_free();
}

#endif /* TAP_FAMILIES_PROCESS_EVENTS_C */
