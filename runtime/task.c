/*
 * task.c - finding tasks: a pid's task, the loader's root (the root
 * taprun sees) and the target's process tree, for embedded C, the
 * probe families and usyms.c (declarations in tapset_support.h).
 * Kernel only, like tapset_support.c.
 */
#include "tap.h"

#include <linux/fs_struct.h>
#include <linux/pid.h>

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
