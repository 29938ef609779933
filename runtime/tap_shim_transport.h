/*
 * tap_shim_transport.h - the kernel facilities transport.c and
 * transport_ring.c use, mapped to user space for
 * testsuite/unit/runtime/test_transport.c (with tap_shim_user.h; only
 * compiled with -DTAP_USER_TEST).
 *
 * Single-threaded: work items run when queued, irq_work when queued,
 * nothing ever sleeps (a wait that would sleep returns -ERESTARTSYS, and
 * msleep() calls the test's tap_test_sleep_hook instead, so a test can
 * play taprun reading while the module waits).  Every object the kernel
 * would allocate (workqueues, debugfs and procfs entries, relay channels)
 * is counted in tap_test_alloc_live and can fail through
 * tap_test_fail_now(), like the runtime's own allocations, so a test
 * walks every unwind path of the setup.  Files are kept in a table the
 * test opens them from (tap_test_find_file()).
 */
#ifndef TAP_SHIM_TRANSPORT_H
#define TAP_SHIM_TRANSPORT_H

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <linux/types.h>	/* __poll_t */
#include "alloc.h"

/* ---- basics ---- */
#define NAME_MAX 255
#define PAGE_SIZE 4096UL
#define PAGE_ALIGN(x) (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define __aligned(n) __attribute__((aligned(n)))
#define ____cacheline_aligned __attribute__((aligned(64)))
#define __maybe_unused __attribute__((unused))
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#ifndef container_of	/* tap_shim_user.h has it too */
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)
#define IS_ERR_OR_NULL(p) (!(p) || (unsigned long)(p) >= (unsigned long)-4095)
#define PTR_ERR(p) ((long)(p))
#define ERR_PTR(e) ((void *)(long)(e))
#define ERESTARTSYS 512
#define pr_err(...) (tap_test_kernel_log++, (void)0)
#define module_param_named(name, var, type, perm)
#define MODULE_PARM_DESC(name, text)
#define THIS_MODULE NULL
#define try_module_get(m) 1
#define module_put(m) do { } while (0)
#define in_task() 1
#define interrupt_context_level() 0
#define cpu_to_node(cpu) 0
#define EPOLLIN POLLIN
#define EPOLLRDNORM POLLRDNORM
#define EPOLLOUT POLLOUT
#define EPOLLWRNORM POLLWRNORM
typedef unsigned short umode_t;

extern int tap_test_kernel_log;		/* pr_err() calls */
extern void (*tap_test_sleep_hook)(void);

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	unsigned long p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static inline ssize_t strscpy(char *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n);

	if (!n)
		return -E2BIG;
	if (len == n) {
		memcpy(dst, src, n - 1);
		dst[n - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

static inline int vscnprintf(char *buf, size_t size, const char *fmt,
			     va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)(size ? size - 1 : 0) : n;
}

static inline void msleep(unsigned int ms)
{
	(void)ms;
	if (tap_test_sleep_hook)
		tap_test_sleep_hook();
}

/* ---- per-CPU data: copies TAP_TEST_PCPU_STRIDE bytes apart ---- */
#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * TAP_TEST_PCPU_STRIDE))
#define this_cpu_ptr(p) per_cpu_ptr(p, smp_processor_id())
#define this_cpu_inc(lv) (*this_cpu_ptr(&(lv)) += 1)
#define this_cpu_add(lv, n) (*this_cpu_ptr(&(lv)) += (n))

/* ---- lists ---- */
struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l->prev = l;
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void list_del(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = NULL;
}

#define list_for_each_entry_safe(pos, tmp, head, member)                     \
	for (pos = container_of((head)->next, __typeof__(*pos), member),     \
	     tmp = container_of(pos->member.next, __typeof__(*pos), member); \
	     &pos->member != (head);                                         \
	     pos = tmp,                                                      \
	     tmp = container_of(tmp->member.next, __typeof__(*tmp), member))

/* ---- sleeping and waking: nobody sleeps ---- */
struct mutex {
	int held;
};
#define mutex_init(m) ((m)->held = 0)
#define mutex_lock(m) ((m)->held++)
#define mutex_unlock(m) ((m)->held--)
#define mutex_lock_interruptible(m) ((m)->held++, 0)

typedef struct {
	int wakeups;
} wait_queue_head_t;
#define init_waitqueue_head(q) ((q)->wakeups = 0)
#define wake_up_interruptible(q) ((q)->wakeups++)
#define wait_event_interruptible(q, cond) ((cond) ? 0 : -ERESTARTSYS)

struct irq_work {
	void (*fn)(struct irq_work *);
};
#define init_irq_work(w, f) ((w)->fn = (f))
static inline bool irq_work_queue(struct irq_work *w)
{
	w->fn(w);
	return true;
}
#define irq_work_sync(w) do { } while (0)

/* ---- tasks ---- */
struct task_struct {
	int pid;
};
extern struct task_struct tap_test_task;
#define current (&tap_test_task)
#define task_tgid_nr(t) ((t)->pid)
#define current_uid() ((kuid_t){ (unsigned int)getuid() })

/* ---- workqueues: a work item runs when it is queued ---- */
struct work_struct;
typedef void (*work_func_t)(struct work_struct *);
struct work_struct {
	work_func_t func;
};
struct workqueue_struct {
	int queued;
};
#define INIT_WORK(w, f) ((w)->func = (f))

static inline struct workqueue_struct *tap_test_alloc_wq(void)
{
	return tap_alloc(sizeof(struct workqueue_struct));
}
#define alloc_ordered_workqueue(fmt, flags, ...) tap_test_alloc_wq()
#define destroy_workqueue(wq) tap_free(wq)
#define flush_workqueue(wq) do { } while (0)

static inline bool queue_work(struct workqueue_struct *wq,
			      struct work_struct *w)
{
	wq->queued++;
	w->func(w);
	return true;
}

/* ---- files ---- */
struct inode {
	void *i_private;
};
struct file {
	unsigned int f_flags;
	void *private_data;
};
typedef struct {
	int unused;
} poll_table;
#define poll_wait(f, q, pt) do { (void)(q); } while (0)
#define stream_open(inode, file) 0
#define noop_llseek NULL
#define pde_data(inode) ((inode)->i_private)

struct file_operations {
	void *owner;
	int (*open)(struct inode *, struct file *);
	int (*release)(struct inode *, struct file *);
	ssize_t (*read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*write)(struct file *, const char __user *, size_t, loff_t *);
	__poll_t (*poll)(struct file *, poll_table *);
	void *llseek;
};

struct proc_ops {
	int (*proc_open)(struct inode *, struct file *);
	int (*proc_release)(struct inode *, struct file *);
	ssize_t (*proc_read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*proc_write)(struct file *, const char __user *, size_t,
			      loff_t *);
	__poll_t (*proc_poll)(struct file *, poll_table *);
	void *proc_lseek;
};

static inline unsigned long copy_to_user(void *dst, const void *src,
					 size_t n)
{
	memcpy(dst, src, n);
	return 0;
}

static inline unsigned long copy_from_user(void *dst, const void *src,
					   size_t n)
{
	memcpy(dst, src, n);
	return 0;
}

/* lockdown: the test sets tap_test_locked_down to lock debugfs */
enum lockdown_reason { LOCKDOWN_DEBUGFS };
extern bool tap_test_locked_down;
static inline int security_locked_down(enum lockdown_reason what)
{
	(void)what;
	return tap_test_locked_down ? -EPERM : 0;
}

/* debugfs and procfs entries: one table, a folder level deep, as the
 * transport makes them.  Each entry is counted as an allocation. */
struct tap_test_entry {
	bool used, is_dir, proc;
	char name[NAME_MAX + 1];
	struct tap_test_entry *parent;
	void *data;
	const struct file_operations *fops;
	const struct proc_ops *pops;
};
#define TAP_TEST_MAX_ENTRIES 64
extern struct tap_test_entry tap_test_entries[TAP_TEST_MAX_ENTRIES];

struct dentry {
	struct tap_test_entry e;
};
struct proc_dir_entry {
	struct tap_test_entry e;
};

static inline struct tap_test_entry *
tap_test_add_entry(const char *name, struct tap_test_entry *parent,
		   bool is_dir, bool proc)
{
	int i;

	if (tap_test_fail_now())
		return NULL;
	for (i = 0; i < TAP_TEST_MAX_ENTRIES; i++) {
		struct tap_test_entry *e = &tap_test_entries[i];

		if (e->used)
			continue;
		memset(e, 0, sizeof(*e));
		e->used = true;
		e->is_dir = is_dir;
		e->proc = proc;
		e->parent = parent;
		snprintf(e->name, sizeof(e->name), "%s", name);
		tap_test_alloc_live++;
		return e;
	}
	return NULL;
}

static inline void tap_test_remove_entry(struct tap_test_entry *e)
{
	int i;

	if (!e || !e->used)
		return;
	for (i = 0; i < TAP_TEST_MAX_ENTRIES; i++)
		if (tap_test_entries[i].used && tap_test_entries[i].parent == e)
			tap_test_remove_entry(&tap_test_entries[i]);
	e->used = false;
	tap_test_alloc_live--;
}

/* debugfs_create_dir() returns an ERR_PTR on failure, as since 4.x. */
static inline struct dentry *debugfs_create_dir(const char *name,
						struct dentry *parent)
{
	struct tap_test_entry *e =
		tap_test_add_entry(name, parent ? &parent->e : NULL, true, false);

	return e ? (struct dentry *)e : ERR_PTR(-ENOMEM);
}

static inline struct dentry *
debugfs_create_file(const char *name, umode_t mode, struct dentry *parent,
		    void *data, const struct file_operations *fops)
{
	struct tap_test_entry *e =
		tap_test_add_entry(name, parent ? &parent->e : NULL, false, false);

	(void)mode;
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->data = data;
	e->fops = fops;
	return (struct dentry *)e;
}

static inline void debugfs_remove(struct dentry *d)
{
	if (!IS_ERR_OR_NULL(d))
		tap_test_remove_entry(&d->e);
}

static inline struct proc_dir_entry *proc_mkdir(const char *name,
						struct proc_dir_entry *parent)
{
	return (struct proc_dir_entry *)tap_test_add_entry(
		name, parent ? &parent->e : NULL, true, true);
}

static inline struct proc_dir_entry *
proc_create_data(const char *name, umode_t mode, struct proc_dir_entry *parent,
		 const struct proc_ops *pops, void *data)
{
	struct tap_test_entry *e =
		tap_test_add_entry(name, parent ? &parent->e : NULL, false, true);

	(void)mode;
	if (!e)
		return NULL;
	e->data = data;
	e->pops = pops;
	return (struct proc_dir_entry *)e;
}

static inline void proc_remove(struct proc_dir_entry *p)
{
	if (p)
		tap_test_remove_entry(&p->e);
}

/* ---- relay: set up and torn down like the kernel's (per-CPU buffers),
 * but a test writes through the rings; a full sub-buffer stays full ---- */
struct rchan_buf {
	void *data;
	size_t offset;
	size_t subbufs_produced, subbufs_consumed;
};
struct rchan {
	size_t subbuf_size, n_subbufs;
	struct rchan_buf **buf;		/* per-CPU, see per_cpu_ptr() */
	struct rchan_buf bufs[];
};
struct rchan_callbacks {
	int (*subbuf_start)(struct rchan_buf *, void *, void *, size_t);
	struct dentry *(*create_buf_file)(const char *, struct dentry *,
					  umode_t, struct rchan_buf *, int *);
	int (*remove_buf_file)(struct dentry *);
};
extern const struct file_operations relay_file_operations;

static inline struct rchan *relay_open(const char *base, struct dentry *parent,
				       size_t subbuf_size, size_t n_subbufs,
				       const struct rchan_callbacks *cb,
				       void *private_data)
{
	struct rchan *chan;
	int cpu;

	(void)base;
	(void)parent;
	(void)cb;
	(void)private_data;
	chan = tap_alloc(sizeof(*chan) + nr_cpu_ids * sizeof(struct rchan_buf));
	if (!chan)
		return NULL;
	chan->buf = tap_alloc_percpu(sizeof(struct rchan_buf *),
				     sizeof(void *));
	if (!chan->buf) {
		tap_free(chan);
		return NULL;
	}
	chan->subbuf_size = subbuf_size;
	chan->n_subbufs = n_subbufs;
	for (cpu = 0; cpu < (int)nr_cpu_ids; cpu++)
		*per_cpu_ptr(chan->buf, cpu) = &chan->bufs[cpu];
	return chan;
}

static inline void relay_close(struct rchan *chan)
{
	tap_free_percpu(chan->buf);
	tap_free(chan);
}

#define relay_switch_subbuf(buf, len) ((void)(buf), (void)(len), (size_t)0)
#define relay_buf_full(buf) ((void)(buf), 1)

#endif /* TAP_SHIM_TRANSPORT_H */
