/*
 * perf.c - perf.type(T).config(C) probes on the kernel's perf events
 * (perf_event_create_kernel_counter; the same API on 6.1 and 6.12):
 *
 *   system-wide (no .process)
 *	one counter per online CPU: those online at the start, and each
 *	one brought online during the run (a CPU hotplug state; a CPU
 *	taken offline loses its counters, and the counts so far).
 *   .process("PATH")
 *	one counter per process running PATH: those running it at the
 *	start, and each one that executes it later (seen on the
 *	sched_process_exec tracepoint; the counter is made from a work
 *	item right after, since making one may sleep).  The counters are
 *	inherited by the process's new threads and children and dropped
 *	at an exec (remove_on_exec), so a child that executes another
 *	program stops counting and one that executes PATH again gets a
 *	fresh counter.
 *   .process with no name
 *	the target of -c/-x: one counter on it, inherited by its threads
 *	and children, kept across its exec.
 *
 * A sampling probe (.sample(N), .hz(N), or the default period) runs its
 * handler from the overflow callback, with the interrupted registers (in
 * NMI for hardware events).  A .counter("NAME") probe has no handler: it
 * counts, and @perf("NAME") reads it (tap_perf_counter()).
 *
 * Pass 3 emits a table of struct _tap_perf, one per probe, and calls
 * _tap_perf_start() from tap_on_start() and _tap_perf_stop() from
 * tap_on_stop().
 */
#ifndef TAP_PROBES_PERF_C
#define TAP_PROBES_PERF_C

#include "probe_common.h"

#include <linux/perf_event.h>
#include <linux/namei.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <linux/binfmts.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>

/* How many per-process counters a probe keeps at most. */
#ifndef TAP_PERF_MAX_TASKS
#define TAP_PERF_MAX_TASKS 4096
#endif

struct _tap_perf_task {
	struct list_head node;
	pid_t tgid;
	struct perf_event *ev;
};

struct _tap_perf {
	/* from pass 3 */
	const char *pp;
	unsigned int flags;		/* TAP_PROBE_* */
	u32 type;
	u64 config;
	u64 period;			/* sampling period, or 0 */
	u64 hz;				/* sampling frequency, or 0 */
	void (*fire)(struct pt_regs *regs);	/* NULL: a .counter probe */
	const char *counter;		/* .counter("NAME"), or NULL */
	const char *path;		/* .process("PATH"), or NULL */
	bool target;			/* .process: the -c/-x target */

	/* run time */
	struct perf_event **cpu_ev;	/* system-wide: nr_cpu_ids of them */
	struct list_head tasks;		/* per process: struct _tap_perf_task */
	int ntasks;
	struct inode *inode;		/* PATH's, while running */
	struct path held;
	bool started;
};

/* The tables of the module (one, from pass 3). */
static struct _tap_perf *_tap_perf_tab;
static int _tap_perf_n;
static DEFINE_SPINLOCK(_tap_perf_lock);	/* the tasks lists */
static struct workqueue_struct *_tap_perf_wq;
static struct tracepoint *_tap_perf_exec_tp;
static bool _tap_perf_exec_on;
static atomic_t _tap_perf_full_warned;
static int _tap_perf_hp;			/* the CPU hotplug state, or 0 */

static void _tap_perf_overflow(struct perf_event *ev,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	struct _tap_perf *p = ev->overflow_handler_context;

	if (p && p->fire)
		p->fire(regs);
}

static void _tap_perf_attr(const struct _tap_perf *p, struct perf_event_attr *a,
			   bool per_task)
{
	memset(a, 0, sizeof(*a));
	a->type = p->type;
	a->size = sizeof(*a);
	a->config = p->config;
	if (p->fire) {
		if (p->hz) {
			a->freq = 1;
			a->sample_freq = p->hz;
		} else {
			a->sample_period = p->period;
		}
	}
	a->pinned = 1;
	if (per_task) {
		a->inherit = 1;
		a->remove_on_exec = p->path ? 1 : 0;
	}
}

static struct perf_event *_tap_perf_make(struct _tap_perf *p, int cpu,
					 struct task_struct *task)
{
	struct perf_event_attr a;

	_tap_perf_attr(p, &a, task != NULL);
	return perf_event_create_kernel_counter(&a, cpu, task,
						p->fire ? _tap_perf_overflow : NULL,
						p);
}

/* A counter for process `task` (held by the caller); errors are
 * warnings: the process may be gone already. */
static void _tap_perf_add_task(struct _tap_perf *p, struct task_struct *task)
{
	struct _tap_perf_task *t;
	struct perf_event *ev;
	unsigned long flags;

	if (READ_ONCE(p->ntasks) >= TAP_PERF_MAX_TASKS) {
		if (atomic_xchg(&_tap_perf_full_warned, 1) == 0)
			tap_warn("probe %s: more than %d processes to count, "
				 "the others are not counted", p->pp,
				 TAP_PERF_MAX_TASKS);
		return;
	}
	t = tap_alloc(sizeof(*t));
	if (!t)
		return;
	ev = _tap_perf_make(p, -1, task);
	if (IS_ERR(ev)) {
		if (PTR_ERR(ev) != -ESRCH)
			tap_warn("probe %s: no counter for process %d (rc %ld)",
				 p->pp, task_tgid_nr(task), PTR_ERR(ev));
		tap_free(t);
		return;
	}
	t->tgid = task_tgid_nr(task);
	t->ev = ev;
	spin_lock_irqsave(&_tap_perf_lock, flags);
	list_add_tail(&t->node, &p->tasks);
	p->ntasks++;
	spin_unlock_irqrestore(&_tap_perf_lock, flags);
}

static bool _tap_perf_runs(struct task_struct *task, struct inode *inode)
{
	struct file *f;
	bool yes = false;

	rcu_read_lock();
	if (task->mm) {
		f = rcu_dereference(task->mm->exe_file);
		yes = f && d_real_inode(f->f_path.dentry) == inode;
	}
	rcu_read_unlock();
	return yes;
}

/* ---- processes that execute PATH after the start ---- */

struct _tap_perf_exec_work {
	struct work_struct work;
	struct task_struct *task;	/* held */
	int probe;			/* index in the table */
};

static void _tap_perf_exec_fn(struct work_struct *w)
{
	struct _tap_perf_exec_work *x =
		container_of(w, struct _tap_perf_exec_work, work);

	if (tap_session_state() <= TAP_STATE_RUNNING && !(x->task->flags & PF_EXITING))
		_tap_perf_add_task(&_tap_perf_tab[x->probe], x->task);
	put_task_struct(x->task);
	tap_free(x);
}

static void _tap_perf_on_exec(void *data, struct task_struct *task,
			      pid_t old_pid, struct linux_binprm *bprm)
{
	struct inode *inode = d_real_inode(bprm->file->f_path.dentry);
	int i;

	for (i = 0; i < _tap_perf_n; i++) {
		struct _tap_perf *p = &_tap_perf_tab[i];
		struct _tap_perf_exec_work *x;

		if (!p->started || !p->inode || p->inode != inode)
			continue;
		x = tap_alloc_atomic(sizeof(*x));
		if (!x)
			continue;
		INIT_WORK(&x->work, _tap_perf_exec_fn);
		get_task_struct(task);
		x->task = task;
		x->probe = i;
		queue_work(_tap_perf_wq, &x->work);
	}
}

static void _tap_perf_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exec"))
		_tap_perf_exec_tp = tp;
}

/* ---- CPUs coming and going (system-wide counters) ---- */

static int _tap_perf_cpu_online(unsigned int cpu)
{
	unsigned long flags;
	int i;

	for (i = 0; i < _tap_perf_n; i++) {
		struct _tap_perf *p = &_tap_perf_tab[i];
		struct perf_event *ev;

		if (!p->cpu_ev || p->cpu_ev[cpu])
			continue;
		ev = _tap_perf_make(p, cpu, NULL);
		if (IS_ERR(ev)) {
			tap_warn("probe %s: no counter on CPU %u, brought online "
				 "(rc %ld)", p->pp, cpu, PTR_ERR(ev));
			continue;
		}
		spin_lock_irqsave(&_tap_perf_lock, flags);
		p->cpu_ev[cpu] = ev;
		spin_unlock_irqrestore(&_tap_perf_lock, flags);
	}
	return 0;
}

static int _tap_perf_cpu_offline(unsigned int cpu)
{
	unsigned long flags;
	int i;

	for (i = 0; i < _tap_perf_n; i++) {
		struct _tap_perf *p = &_tap_perf_tab[i];
		struct perf_event *ev;

		if (!p->cpu_ev)
			continue;
		spin_lock_irqsave(&_tap_perf_lock, flags);
		ev = p->cpu_ev[cpu];
		p->cpu_ev[cpu] = NULL;
		spin_unlock_irqrestore(&_tap_perf_lock, flags);
		if (ev)
			perf_event_release_kernel(ev);
	}
	return 0;
}

/* ---- start and stop ---- */

static void _tap_perf_stop_one(struct _tap_perf *p)
{
	struct _tap_perf_task *t, *tmp;
	struct perf_event **cpu_ev;
	LIST_HEAD(gone);
	unsigned long flags;
	unsigned int cpu;

	spin_lock_irqsave(&_tap_perf_lock, flags);
	cpu_ev = p->cpu_ev;
	p->cpu_ev = NULL;
	spin_unlock_irqrestore(&_tap_perf_lock, flags);
	if (cpu_ev) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (cpu_ev[cpu])
				perf_event_release_kernel(cpu_ev[cpu]);
		tap_free(cpu_ev);
	}
	/* the work items are done: nothing adds to the list any more;
	 * an @perf still running may be reading it */
	spin_lock_irqsave(&_tap_perf_lock, flags);
	list_splice_init(&p->tasks, &gone);
	p->ntasks = 0;
	spin_unlock_irqrestore(&_tap_perf_lock, flags);
	list_for_each_entry_safe(t, tmp, &gone, node) {
		list_del(&t->node);
		perf_event_release_kernel(t->ev);
		tap_free(t);
	}
	if (p->inode) {
		path_put(&p->held);
		p->inode = NULL;
	}
	p->started = false;
}

static void _tap_perf_stop(struct _tap_perf *tab, int n)
{
	int i;

	if (_tap_perf_hp > 0) {
		cpuhp_remove_state_nocalls(_tap_perf_hp);
		_tap_perf_hp = 0;
	}
	if (_tap_perf_exec_on) {
		tracepoint_probe_unregister(_tap_perf_exec_tp, _tap_perf_on_exec, NULL);
		tracepoint_synchronize_unregister();
		_tap_perf_exec_on = false;
	}
	if (_tap_perf_wq) {
		destroy_workqueue(_tap_perf_wq);	/* runs what is queued */
		_tap_perf_wq = NULL;
	}
	for (i = n - 1; i >= 0; i--)
		_tap_perf_stop_one(&tab[i]);
}

static int _tap_perf_start_cpus(struct _tap_perf *p)
{
	unsigned int cpu;
	int ret = 0;

	/* filled before any @perf can run (the session is not running) */
	p->cpu_ev = tap_alloc(nr_cpu_ids * sizeof(*p->cpu_ev));
	if (!p->cpu_ev)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *ev = _tap_perf_make(p, cpu, NULL);

		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			break;
		}
		p->cpu_ev[cpu] = ev;
	}
	cpus_read_unlock();
	return ret;
}

/* The processes running PATH now. */
static int _tap_perf_start_path(struct _tap_perf *p)
{
	struct task_struct *g, **found;
	struct path root;
	int ret, n = 0, i;

	tap_loader_root(&root);
	ret = vfs_path_lookup(root.dentry, root.mnt, p->path, LOOKUP_FOLLOW, &p->held);
	path_put(&root);
	if (ret)
		return ret;
	p->inode = d_real_inode(p->held.dentry);
	found = tap_alloc(TAP_PERF_MAX_TASKS * sizeof(*found));
	if (!found)
		return -ENOMEM;
	rcu_read_lock();
	for_each_process(g) {
		if (n >= TAP_PERF_MAX_TASKS)
			break;
		if ((g->flags & PF_KTHREAD) || !_tap_perf_runs(g, p->inode))
			continue;
		get_task_struct(g);
		found[n++] = g;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		_tap_perf_add_task(p, found[i]);
		put_task_struct(found[i]);
	}
	tap_free(found);
	return 0;
}

static int _tap_perf_start_target(struct _tap_perf *p)
{
	struct task_struct *task;
	struct pid *pid;

	if (tap_target_pid <= 0)
		return -ESRCH;
	pid = find_get_pid(tap_target_pid);
	task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	put_pid(pid);
	if (!task)
		return -ESRCH;
	_tap_perf_add_task(p, task);
	put_task_struct(task);
	return p->ntasks ? 0 : -ESRCH;
}

static int _tap_perf_start(struct _tap_perf *tab, int n)
{
	bool paths = false;
	int i, ret = 0;

	_tap_perf_tab = tab;
	_tap_perf_n = n;
	for (i = 0; i < n; i++) {
		INIT_LIST_HEAD(&tab[i].tasks);
		paths |= tab[i].path != NULL;
	}
	if (paths) {
		_tap_perf_wq = alloc_workqueue("tap_perf", 0, 0);
		if (!_tap_perf_wq)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct _tap_perf *p = &tab[i];

		if (p->path)
			ret = _tap_perf_start_path(p);
		else if (p->target)
			ret = _tap_perf_start_target(p);
		else
			ret = _tap_perf_start_cpus(p);
		p->started = true;
		if (ret) {
			const char *why = NULL;

			if (ret == -ENOENT && !p->path)
				why = "the kernel has no such perf event";
			else if (ret == -ENOENT)
				why = "no such file in the loader's root";
			else if (ret == -ESRCH)
				why = "no target process (-c or -x)";
			ret = _tap_probe_failed(p->pp, p->flags, ret, "perf", why);
			if (ret)
				goto fail;
			_tap_perf_stop_one(p);
		}
	}
	for (i = 0; i < n && !tab[i].cpu_ev; i++)
		;
	if (i < n) {
		/* CPUs that came online while the counters were made get
		 * theirs here, later ones from the hotplug state */
		unsigned int cpu;

		cpus_read_lock();
		for_each_online_cpu(cpu)
			_tap_perf_cpu_online(cpu);
		ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
				"tap/perf:online", _tap_perf_cpu_online,
				_tap_perf_cpu_offline);
		cpus_read_unlock();
		if (ret < 0) {
			tap_msg_error("perf probes: cannot follow CPUs coming online");
			goto fail;
		}
		_tap_perf_hp = ret;
		ret = 0;
	}
	if (paths) {
		for_each_kernel_tracepoint(_tap_perf_find_tp, NULL);
		ret = _tap_perf_exec_tp ?
			tracepoint_probe_register(_tap_perf_exec_tp, _tap_perf_on_exec, NULL) :
			-ENOENT;
		if (ret) {
			tap_msg_error("perf probes: cannot use the tracepoint "
				      "sched_process_exec for .process(\"PATH\")");
			goto fail;
		}
		_tap_perf_exec_on = true;
	}
	return 0;

fail:
	_tap_perf_stop(tab, n);
	return ret;
}

/* ---- @perf("NAME") ---- */

static u64 _tap_perf_value(struct perf_event *ev)
{
	unsigned long flags;
	u64 v;

	local_irq_save(flags);
	/* an event counting on this CPU right now: bring its count up to
	 * date first (what the kernel's perf_event_read_local does) */
	if (READ_ONCE(ev->oncpu) == smp_processor_id() &&
	    ev->state == PERF_EVENT_STATE_ACTIVE)
		ev->pmu->read(ev);
	v = local64_read(&ev->count) + atomic64_read(&ev->child_count);
	local_irq_restore(flags);
	return v;
}

/* The value of counter NAME: system-wide, the sum over the CPUs; per
 * process, the count of the current process (0 when it has none of
 * its own: an inherited one counts into its parent's). */
static __maybe_unused int64_t tap_perf_counter(struct tap_context *c, const char *name)
{
	unsigned long flags;
	u64 sum = 0;
	int i;

	spin_lock_irqsave(&_tap_perf_lock, flags);
	for (i = 0; i < _tap_perf_n; i++) {
		struct _tap_perf *p = &_tap_perf_tab[i];
		struct _tap_perf_task *t;
		unsigned int cpu;

		if (!p->counter || strcmp(p->counter, name))
			continue;
		if (p->cpu_ev) {
			for (cpu = 0; cpu < nr_cpu_ids; cpu++)
				if (p->cpu_ev[cpu])
					sum += _tap_perf_value(p->cpu_ev[cpu]);
		}
		list_for_each_entry(t, &p->tasks, node)
			if (t->tgid == task_tgid_nr(current))
				sum += _tap_perf_value(t->ev);
		break;
	}
	spin_unlock_irqrestore(&_tap_perf_lock, flags);
	return sum;
}

#endif /* TAP_PROBES_PERF_C */
