/* transport.c - kernel side of the module <-> taprun transport.
 *
 * The runtime is compiled into the generated module's translation unit,
 * so this file is #included, not linked; see transport.h for the wire
 * format and the API.
 *
 * Where output goes.  Each CPU has a trace file, traceN, in
 * /sys/kernel/debug/tapc_<module>/, or in /proc/tapc_<module>/ when debugfs
 * is missing (or "_tap_transport=procfs" is given).  By default the files
 * are fed by the transport's own lock-free per-CPU rings
 * (transport_ring.c), which work the same in both file systems.
 * "_tap_transport=relay" uses relay channels instead (debugfs only: relay
 * needs a parent dentry, procfs has none).  The rings are the default
 * because relay, in its no-overwrite mode, lets a reader that runs while
 * the buffer is full skip a whole sub-buffer (tap_relay_put() avoids the
 * known case), lets a reader on another CPU see a switch half done, and
 * wakes pollers only when a sub-buffer fills.  The rings have none of
 * that, at a cost per record within the VM's measuring noise of relay's
 * (testsuite/vm/transport/bench.sh).  Both feeds write the same byte
 * stream of records, so taprun reads them the same way.
 *
 * Sequence numbers.  A record gets its seq only once it is certain to fit
 * (relay: after relay_switch_subbuf() succeeded; ring: after the room
 * check), inside the interrupts-off section that writes it.  So a dropped
 * record leaves no hole, and the records of one CPU are in seq order:
 * taprun can merge the CPUs' streams exactly, without timeouts.
 *
 * Print buffers.  A probe's output gathers in a per-CPU buffer, one per
 * interrupt level (task, softirq, hardirq), so a probe in an interrupt
 * cannot scribble over the buffer of the probe it interrupted.  The
 * buffer becomes one record at tap_commit().  Begin and end probes (run
 * by the session worker) are the exception to "full means dropped": their
 * output waits in memory until taprun has made room (tap_worker_emit()).
 *
 * Errors and warnings are marks in the output stream (tap_post_text()),
 * so taprun prints them in their place among the output.
 *
 * Control.  Other messages from probes (system(), and errors or warnings
 * whose mark did not fit) go into a small per-CPU ring each, which ctl's
 * read() drains; START and STOP run the module's hooks on an ordered
 * workqueue, so taprun keeps reading the output that begin and end probes
 * produce while they run.
 */
#ifdef TAP_USER_TEST
/* testsuite/unit/runtime/test_transport.c: user space, see the shim */
#include "tap_shim_user.h"
#include "tap_shim_transport.h"
#else
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#endif

#include "alloc.h"
#include "transport.h"
#include "transport_ring.c"

static unsigned int tap_param_bufsize_kb;
module_param_named(_tap_bufsize, tap_param_bufsize_kb, uint, 0444);
MODULE_PARM_DESC(_tap_bufsize, "trace buffer per CPU, KiB (default 1024)");

static char *tap_param_transport = "auto";
module_param_named(_tap_transport, tap_param_transport, charp, 0444);
MODULE_PARM_DESC(_tap_transport,
		 "auto (ring in debugfs, else procfs), ring, relay or procfs");

#define TAP_DEFAULT_BUFSIZE	(1024 * 1024)
#define TAP_MAX_BUFSIZE		(1024UL * 1024 * 1024)
#define TAP_CTL_RING_SIZE	(16 * 1024)
#define TAP_NR_LEVELS		4	/* task, softirq, hardirq, NMI (x86 runs a
				 * kprobe's int3 handler as an NMI) */
#define TAP_REC_MAX		(sizeof(struct tap_rec_hdr) + TAP_PRINT_BUFSIZE)
#define TAP_OVERFLOW_MAX	(32UL * 1024 * 1024) /* begin/end output held back */
#define TAP_OVERFLOW_STALL_MS	10000

/* Values START delivers (TAPSET-API.md, "Runtime globals"). */
pid_t tap_target_pid;
pid_t tap_loader_pid;
kuid_t tap_loader_uid;
int tap_remote_id = -1;
long tap_tz_gmtoff;
static char tap_remote_uri_buf[128];
static char tap_tz_name_buf[16];
const char *tap_remote_uri = tap_remote_uri_buf;
const char *tap_tz_name = tap_tz_name_buf;

struct tap_print_buf {
	unsigned int used;		/* payload bytes */
	char rec[TAP_REC_MAX] __aligned(8); /* header + payload */
};

struct tap_cpu {
	/* first (transport.h's tap_output_pending() reads it there): set by
	 * tap_reserve(), cleared by tap_commit(), so a handler that printed
	 * nothing does not call tap_commit() at its exit */
	unsigned int pending;
	struct tap_print_buf pbuf[TAP_NR_LEVELS];
	char msgbuf[TAP_MSG_TEXT_MAX];	/* tap_warn(), interrupts off */
	struct tap_ring trace;		/* ring mode only */
	struct tap_waiter trace_waiter;
	struct tap_ring ctl;		/* messages from probes */
	int emitting;			/* in tap_emit_now(): an NMI-level
					 * handler on this CPU writes nothing */
};

/* A record of a begin or end probe waiting for room. */
struct tap_overflow_rec {
	struct list_head list;
	size_t total;
	char rec[] __aligned(8);
};

/* Per-CPU counters, summed into DONE. */
struct tap_counters {
	u64 records;
	u64 bytes;
	u64 records_dropped;
	u64 msgs_dropped;
	u64 errors;
	u64 warnings;
	u64 skipped[TAP_SKIP_NR];
};

static struct tap_transport {
	char dirname[NAME_MAX];
	int mode;			/* enum tap_trace_mode */
	bool use_procfs;
	bool forced;			/* the mode was asked for, no fallback */
	size_t bufsize;			/* per CPU */
	size_t subbuf_size, n_subbufs;	/* relay geometry */
	struct dentry *debug_dir;
	struct proc_dir_entry *proc_dir;
	struct rchan *relay;
	struct tap_cpu **cpu;		/* [nr_cpu_ids], possible CPUs only */
	struct tap_counters __percpu *counters;
	bool ready;			/* output may be written */
	bool closing;			/* unloading: readers must not sleep */
	atomic_t seq;
	atomic_t exit_requested;
	unsigned int start_flags;

	/* ctl: one opener at a time */
	atomic_t ctl_open;
	struct tap_waiter ctl_waiter;
	struct mutex ctl_lock;		/* START/STOP/release */
	struct mutex ctl_read_lock;	/* readers, and the *_unread flags */
	char ctl_bounce[TAP_MSG_MAX];	/* under ctl_read_lock */
	bool hello_unread, exit_reported;
	bool start_queued, stop_queued, started_ok;
	bool started_unread, done_unread; /* set by the worker, release */
	int start_status;
	struct tap_msg_done done;
	struct workqueue_struct *wq;
	struct work_struct start_work, stop_work;
	bool reader_gone;		/* ctl is being released */

	/* begin/end output waiting for room (session worker only) */
	struct task_struct *worker;	/* runs the hooks, or NULL */
	struct list_head overflow;
	size_t overflow_bytes;
	bool overflowing;
} tap_tp;

static inline struct tap_cpu *tap_this_cpu(void)
{
	return tap_tp.cpu[smp_processor_id()];
}

/* ---- counters and state (any context but NMI) ---- */

void tap_count_error(void)
{
	if (likely(tap_tp.counters))
		this_cpu_inc(tap_tp.counters->errors);
}

void tap_count_skip(enum tap_skip_reason why)
{
	if (likely(tap_tp.counters) && (unsigned int)why < TAP_SKIP_NR)
		this_cpu_inc(tap_tp.counters->skipped[why]);
}

/* tap_tp.cpu once every CPU's state is there (transport.h) */
struct tap_cpu **tap_cpus;

/* enum tap_session_state; read by every hit (tap_session_state(), an
 * inline of transport.h) */
atomic_t tap_state = ATOMIC_INIT(TAP_STATE_LOADED);

static void tap_sum_counters(struct tap_msg_done *d)
{
	int cpu, i;

	memset(d, 0, sizeof(*d));
	d->hdr.size = sizeof(*d);
	d->hdr.type = TAP_MSG_DONE;
	d->nr_skip = TAP_SKIP_NR;
	for_each_possible_cpu(cpu) {
		struct tap_counters *c = per_cpu_ptr(tap_tp.counters, cpu);

		d->records += c->records;
		d->bytes += c->bytes;
		d->records_dropped += c->records_dropped;
		d->msgs_dropped += c->msgs_dropped;
		d->errors += c->errors;
		d->warnings += c->warnings;
		for (i = 0; i < TAP_SKIP_NR; i++)
			d->skipped[i] += c->skipped[i];
	}
}

/* ---- writing records ---- */

/* Interrupts off.  Mirrors relay_write(), but learns whether the record
 * fit before numbering it. */
static bool tap_relay_put(struct tap_rec_hdr *h, size_t total)
{
	struct rchan *chan = tap_tp.relay;
	struct rchan_buf *buf = *this_cpu_ptr(chan->buf);

	if (unlikely(!buf))
		return false;
	if (unlikely(buf->offset + total > chan->subbuf_size)) {
		/* Drop rather than let relay refuse the switch: while a
		 * refusing relay_switch_subbuf() runs, offset is briefly 0 on
		 * a full buffer, and a reader seeing that skips (loses) the
		 * oldest sub-buffer.  Full means: after the switch, every
		 * sub-buffer would be produced and unread. */
		if (buf->subbufs_produced + 1 - READ_ONCE(buf->subbufs_consumed) >=
		    chan->n_subbufs)
			return false;
		if (!relay_switch_subbuf(buf, total))
			return false;
	}
	h->seq = (u32)atomic_inc_return(&tap_tp.seq);
	memcpy(buf->data + buf->offset, h, total);
	/* A reader on another CPU reads up to offset: data first. */
	smp_wmb();
	buf->offset += total;
	return true;
}

/* Interrupts off. */
static bool tap_ring_put_rec(struct tap_ring *r, struct tap_rec_hdr *h,
			     size_t total)
{
	if (!tap_ring_has_room(r, total))
		return false;
	h->seq = (u32)atomic_inc_return(&tap_tp.seq);
	tap_ring_put(r, h, total, NULL, 0);
	return true;
}

/* Write one record to this CPU's trace buffer; false if it does not fit
 * (the caller counts the drop). */
static bool tap_emit_now(struct tap_rec_hdr *h, size_t total)
{
	unsigned long flags;
	bool ok;

	local_irq_save(flags);
	/* Interrupts off keep out everything but an NMI-level handler (a
	 * kprobe's int3), which must not write into a record being written
	 * on its CPU, nor switch a relay sub-buffer. */
	if (READ_ONCE(tap_this_cpu()->emitting) || (in_nmi() && tap_tp.relay)) {
		local_irq_restore(flags);
		return false;
	}
	WRITE_ONCE(tap_this_cpu()->emitting, 1);
	barrier();
	if (tap_tp.relay)
		ok = tap_relay_put(h, total);
	else
		ok = tap_ring_put_rec(&tap_this_cpu()->trace, h, total);
	if (ok && !(h->len & ~TAP_REC_LEN_MASK)) {	/* marks are not output */
		this_cpu_inc(tap_tp.counters->records);
		this_cpu_add(tap_tp.counters->bytes, h->len);
	}
	barrier();
	WRITE_ONCE(tap_this_cpu()->emitting, 0);
	local_irq_restore(flags);
	return ok;
}

static bool tap_in_worker(void)
{
	return in_task() && current == READ_ONCE(tap_tp.worker);
}

/* Begin and end probes run in the session worker.  Their output is not
 * dropped because the buffer is full of earlier output (an end probe's
 * report is often the point of the script): what does not fit waits in
 * memory, up to TAP_OVERFLOW_MAX, and the worker writes it when taprun
 * has read enough (tap_flush_overflow()).  Once one record waits, the
 * next ones queue behind it, so the order holds.  True if taken. */
static bool tap_worker_emit(struct tap_rec_hdr *h, size_t total)
{
	struct tap_overflow_rec *o;

	if (!tap_tp.overflowing) {
		if (tap_emit_now(h, total))
			return true;
		tap_tp.overflowing = true;
	}
	if (tap_tp.overflow_bytes + total > TAP_OVERFLOW_MAX)
		return false;
	o = tap_alloc_atomic(sizeof(*o) + total);
	if (!o)
		return false;
	o->total = total;
	memcpy(o->rec, h, total);
	list_add_tail(&o->list, &tap_tp.overflow);
	tap_tp.overflow_bytes += total;
	return true;
}

/* The print buffer as one record; flags (TAP_REC_F_*) make it a mark.
 * False if it did not fit (not counted here). */
static bool tap_emit_rec(struct tap_print_buf *pb, u32 flags)
{
	struct tap_rec_hdr *h = (struct tap_rec_hdr *)pb->rec;
	size_t total = sizeof(*h) + pb->used;
	bool ok;

	h->len = pb->used | flags;
	if (unlikely(tap_in_worker()))
		ok = tap_worker_emit(h, total);
	else
		ok = tap_emit_now(h, total);
	pb->used = 0;
	return ok;
}

static void tap_emit_flags(struct tap_print_buf *pb, u32 flags)
{
	if (!tap_emit_rec(pb, flags))
		this_cpu_inc(tap_tp.counters->records_dropped);
}

static void tap_emit(struct tap_print_buf *pb)
{
	tap_emit_flags(pb, 0);
}

static bool tap_reader_gone(void)
{
	return !atomic_read(&tap_tp.ctl_open) || READ_ONCE(tap_tp.reader_gone);
}

/* The worker, after the hooks: write the waiting records as room comes.
 * Gives up (counting drops) when taprun is gone or reads nothing for
 * TAP_OVERFLOW_STALL_MS. */
static void tap_flush_overflow(void)
{
	struct tap_overflow_rec *o, *tmp;
	unsigned int stalled = 0;

	list_for_each_entry_safe(o, tmp, &tap_tp.overflow, list) {
		struct tap_rec_hdr *h = (struct tap_rec_hdr *)o->rec;

		while (!tap_emit_now(h, o->total)) {
			if (tap_reader_gone() || stalled >= TAP_OVERFLOW_STALL_MS) {
				this_cpu_inc(tap_tp.counters->records_dropped);
				break;
			}
			msleep(5);
			stalled += 5;
		}
		if (stalled < TAP_OVERFLOW_STALL_MS)
			stalled = 0;
		list_del(&o->list);
		tap_free(o);
	}
	tap_tp.overflow_bytes = 0;
	tap_tp.overflowing = false;
}

/* This CPU's print buffer for the current interrupt level; NULL in NMI
 * or when the transport is not up. */
static struct tap_print_buf *tap_pbuf(void)
{
	unsigned int level = interrupt_context_level();

	if (unlikely(level >= TAP_NR_LEVELS || !READ_ONCE(tap_tp.ready)))
		return NULL;
	return &tap_this_cpu()->pbuf[level];
}

char *tap_reserve(size_t len)
{
	struct tap_print_buf *pb = tap_pbuf();
	char *p;

	if (unlikely(!pb || len > TAP_PRINT_BUFSIZE))
		return NULL;
	if (pb->used + len > TAP_PRINT_BUFSIZE)
		tap_emit(pb);
	p = pb->rec + sizeof(struct tap_rec_hdr) + pb->used;
	pb->used += len;
	tap_this_cpu()->pending = 1;	/* see tap_output_pending() */
	return p;
}

void tap_unreserve(size_t len)
{
	struct tap_print_buf *pb = tap_pbuf();

	if (likely(pb))
		pb->used -= min_t(size_t, len, pb->used);
}

void tap_commit(void)
{
	struct tap_print_buf *pb = tap_pbuf();

	if (pb && pb->used)
		tap_emit(pb);
	/* (handlers do not nest on a CPU: no other level holds output) */
	if (pb)
		tap_this_cpu()->pending = 0;
}

void tap_write(const char *buf, size_t len)
{
	while (len) {
		size_t n = min_t(size_t, len, TAP_PRINT_BUFSIZE);
		char *p = tap_reserve(n);

		if (!p)
			return;
		memcpy(p, buf, n);
		buf += n;
		len -= n;
	}
}

void tap_print(const char *s)
{
	tap_write(s, strlen(s));
}

/* switch_file(): what this handler printed so far is committed, then a
 * mark follows it in the same stream (it takes the next seq), so taprun
 * switches files exactly there.  A mark that does not fit is dropped and
 * counted like any record. */
void tap_switch_file(void)
{
	struct tap_print_buf *pb = tap_pbuf();

	if (unlikely(!pb))
		return;
	if (pb->used)
		tap_emit(pb);
	tap_emit_flags(pb, TAP_REC_F_SWITCH);
}

/* Process context (workers): commit what the hooks left behind. */
static void tap_commit_task(void)
{
	preempt_disable();
	tap_commit();
	preempt_enable();
}

/* ---- control messages from probes (any context but NMI) ---- */

static bool tap_ctl_post(u32 type, const char *text, size_t len)
{
	struct tap_msg_hdr h;
	struct tap_ring *r;
	unsigned long flags;
	bool ok = false;

	if (unlikely(in_nmi() || !READ_ONCE(tap_tp.ready)))
		return false;
	len = min_t(size_t, len, TAP_MSG_TEXT_MAX);
	h.size = sizeof(h) + len;
	h.type = type;
	local_irq_save(flags);
	r = &tap_this_cpu()->ctl;
	if (tap_ring_has_room(r, h.size)) {
		tap_ring_put(r, &h, sizeof(h), text, len);
		ok = true;
	} else {
		this_cpu_inc(tap_tp.counters->msgs_dropped);
	}
	local_irq_restore(flags);
	return ok;
}

/* An error or warning goes in the output stream, as a mark after what
 * this handler printed so far (committed first): it takes the next seq,
 * so taprun prints it after every CPU's earlier output and before the
 * later, as stap's output and messages interleave on a terminal.  A mark
 * that does not fit (the trace buffer full, relay in NMI) goes as a
 * control message instead, late rather than lost. */
static void tap_post_text(u32 flag, u32 type, const char *text, size_t len)
{
	struct tap_print_buf *pb;
	bool ok = false;

	len = min_t(size_t, len, TAP_MSG_TEXT_MAX);
	preempt_disable();
	pb = tap_pbuf();
	if (pb && len <= TAP_PRINT_BUFSIZE) {
		if (pb->used)
			tap_emit_flags(pb, 0);
		memcpy(pb->rec + sizeof(struct tap_rec_hdr), text, len);
		pb->used = len;
		ok = tap_emit_rec(pb, flag);
	}
	preempt_enable();
	if (!ok)
		tap_ctl_post(type, text, len);
}

void tap_msg_error(const char *text)
{
	tap_post_text(TAP_REC_F_ERROR, TAP_MSG_ERROR, text, strlen(text));
}

void tap_msg_warning(const char *text)
{
	if (!(tap_tp.start_flags & TAP_START_F_SUPPRESS_WARNINGS))
		tap_post_text(TAP_REC_F_WARNING, TAP_MSG_WARNING, text,
			      strlen(text));
}

void tap_warn(const char *fmt, ...)
{
	unsigned long flags;
	va_list ap;
	char *buf;
	int n;

	if (unlikely(in_nmi() || !READ_ONCE(tap_tp.ready)))
		return;
	this_cpu_inc(tap_tp.counters->warnings);
	if (tap_tp.start_flags & TAP_START_F_SUPPRESS_WARNINGS)
		return;
	/* Interrupts off: nothing else on this CPU uses msgbuf meanwhile. */
	local_irq_save(flags);
	buf = tap_this_cpu()->msgbuf;
	va_start(ap, fmt);
	n = vscnprintf(buf, TAP_MSG_TEXT_MAX, fmt, ap);
	va_end(ap);
	tap_post_text(TAP_REC_F_WARNING, TAP_MSG_WARNING, buf, n);
	local_irq_restore(flags);
}

int tap_system(const char *cmd)
{
	return tap_ctl_post(TAP_MSG_SYSTEM, cmd, strlen(cmd)) ? 0 : -E2BIG;
}

void tap_exit(void)
{
	atomic_cmpxchg(&tap_state, TAP_STATE_RUNNING, TAP_STATE_STOPPING);
	atomic_cmpxchg(&tap_state, TAP_STATE_STARTING, TAP_STATE_STOPPING);
	if (atomic_cmpxchg(&tap_tp.exit_requested, 0, 1) == 0)
		tap_waiter_kick(&tap_tp.ctl_waiter);
}

/* ---- the session: START and STOP run here, in order ---- */

static void tap_start_work(struct work_struct *work)
{
	int ret;

	WRITE_ONCE(tap_tp.worker, current);
	ret = tap_on_start();
	tap_commit_task();
	/* Still STARTING: begin output comes before any probe's. */
	tap_flush_overflow();
	WRITE_ONCE(tap_tp.worker, NULL);
	if (ret == 0) {
		tap_tp.started_ok = true;
		atomic_cmpxchg(&tap_state, TAP_STATE_STARTING,
			       TAP_STATE_RUNNING);
	} else {
		atomic_set(&tap_state, TAP_STATE_STOPPING);
	}
	tap_tp.start_status = ret;
	smp_store_release(&tap_tp.started_unread, true);
	tap_waiter_wake_now(&tap_tp.ctl_waiter);
}

static void tap_stop_work(struct work_struct *work)
{
	if (tap_tp.started_ok) {
		atomic_set(&tap_state, TAP_STATE_STOPPING);
		WRITE_ONCE(tap_tp.worker, current);
		tap_on_stop();
		tap_commit_task();
		tap_flush_overflow();
		WRITE_ONCE(tap_tp.worker, NULL);
	}
	atomic_set(&tap_state, TAP_STATE_STOPPED);
	tap_sum_counters(&tap_tp.done);
	smp_store_release(&tap_tp.done_unread, true);
	tap_waiter_wake_now(&tap_tp.ctl_waiter);
}

/* ctl_lock held. */
static void tap_queue_stop(void)
{
	if (tap_tp.stop_queued)
		return;
	tap_tp.stop_queued = true;
	queue_work(tap_tp.wq, &tap_tp.stop_work);
}

static int tap_ctl_start(const struct tap_msg_start *m, size_t size)
{
	int ret = 0;

	if (size < sizeof(*m))
		return -EINVAL;
	if (m->version != TAP_TRANSPORT_VERSION)
		return -EPROTO;
	mutex_lock(&tap_tp.ctl_lock);
	if (tap_tp.start_queued || tap_tp.stop_queued) {
		ret = -EBUSY;
		goto out;
	}
	tap_target_pid = m->target_pid;
	tap_remote_id = m->remote_id;
	tap_tz_gmtoff = m->tz_gmtoff;
	strscpy(tap_tz_name_buf, m->tz_name, sizeof(tap_tz_name_buf));
	strscpy(tap_remote_uri_buf, m->remote_uri, sizeof(tap_remote_uri_buf));
	tap_loader_pid = task_tgid_nr(current);
	tap_loader_uid = current_uid();
	tap_tp.start_flags = m->flags;
	atomic_set(&tap_state, TAP_STATE_STARTING);
	tap_tp.start_queued = true;
	queue_work(tap_tp.wq, &tap_tp.start_work);
out:
	mutex_unlock(&tap_tp.ctl_lock);
	return ret;
}

static int tap_ctl_stop(void)
{
	mutex_lock(&tap_tp.ctl_lock);
	tap_queue_stop();
	mutex_unlock(&tap_tp.ctl_lock);
	return 0;
}

/* ---- the ctl file ---- */

static bool tap_ctl_pending(void)
{
	int cpu;

	if (tap_tp.hello_unread || READ_ONCE(tap_tp.closing) ||
	    smp_load_acquire(&tap_tp.started_unread) ||
	    smp_load_acquire(&tap_tp.done_unread) ||
	    (atomic_read(&tap_tp.exit_requested) && !tap_tp.exit_reported))
		return true;
	for_each_possible_cpu(cpu)
		if (tap_ring_avail(&tap_tp.cpu[cpu]->ctl))
			return true;
	return false;
}

static bool tap_ctl_ready(void)
{
	tap_waiter_arm(&tap_tp.ctl_waiter);
	return tap_ctl_pending();
}

/* Copy one message to the reader if it fits: 1 if copied, 0 if no room. */
static int tap_ctl_give(char __user *ubuf, size_t count, size_t *pos,
			const void *msg, size_t size)
{
	if (*pos + size > count)
		return 0;
	if (copy_to_user(ubuf + *pos, msg, size))
		return -EFAULT;
	*pos += size;
	return 1;
}

/* The messages probes posted on one CPU.  1 if the ring is now empty. */
static int tap_ctl_drain_ring(struct tap_ring *r, char __user *ubuf,
			      size_t count, size_t *pos)
{
	struct tap_msg_hdr h;
	int ret;

	while (tap_ring_avail(r) >= sizeof(h)) {
		tap_ring_peek(r, &h, sizeof(h));
		if (WARN_ON_ONCE(h.size < sizeof(h) || h.size > TAP_MSG_MAX ||
				 h.size > tap_ring_avail(r))) {
			tap_ring_consume(r, tap_ring_avail(r));
			break;
		}
		tap_ring_peek(r, tap_tp.ctl_bounce, h.size);
		ret = tap_ctl_give(ubuf, count, pos, tap_tp.ctl_bounce, h.size);
		if (ret <= 0)
			return ret;
		tap_ring_consume(r, h.size);
	}
	return 1;
}

/* ctl_read_lock held.  Bytes copied, 0 if nothing to read, or -EFAULT. */
static ssize_t tap_ctl_fill(char __user *ubuf, size_t count)
{
	bool drained = true;
	size_t pos = 0;
	int cpu, ret;

	if (tap_tp.hello_unread) {
		struct tap_msg_hello m = {
			.hdr = { .size = sizeof(m), .type = TAP_MSG_HELLO },
			.version = TAP_TRANSPORT_VERSION,
			.mode = tap_tp.mode,
			.nr_trace = nr_cpu_ids,
			.max_record = TAP_PRINT_BUFSIZE,
			.buf_size = tap_tp.bufsize,
		};

		ret = tap_ctl_give(ubuf, count, &pos, &m, sizeof(m));
		if (ret < 0)
			return ret;
		tap_tp.hello_unread = false;
	}
	for_each_possible_cpu(cpu) {
		ret = tap_ctl_drain_ring(&tap_tp.cpu[cpu]->ctl, ubuf, count,
					 &pos);
		if (ret < 0)
			return ret;
		if (ret == 0)
			drained = false;
	}
	if (smp_load_acquire(&tap_tp.started_unread)) {
		struct tap_msg_status m = {
			.hdr = { .size = sizeof(m), .type = TAP_MSG_STARTED },
			.status = tap_tp.start_status,
		};

		ret = tap_ctl_give(ubuf, count, &pos, &m, sizeof(m));
		if (ret < 0)
			return ret;
		if (ret)
			tap_tp.started_unread = false;
	}
	if (atomic_read(&tap_tp.exit_requested) && !tap_tp.exit_reported) {
		struct tap_msg_hdr m = { .size = sizeof(m), .type = TAP_MSG_EXIT };

		ret = tap_ctl_give(ubuf, count, &pos, &m, sizeof(m));
		if (ret < 0)
			return ret;
		if (ret)
			tap_tp.exit_reported = true;
	}
	/* DONE comes last: after it taprun reads nothing from ctl. */
	if (drained && smp_load_acquire(&tap_tp.done_unread)) {
		ret = tap_ctl_give(ubuf, count, &pos, &tap_tp.done,
				   sizeof(tap_tp.done));
		if (ret < 0)
			return ret;
		if (ret)
			tap_tp.done_unread = false;
	}
	return pos;
}

static int tap_ctl_open(struct inode *inode, struct file *file)
{
	if (atomic_cmpxchg(&tap_tp.ctl_open, 0, 1))
		return -EBUSY;
	mutex_lock(&tap_tp.ctl_read_lock);
	tap_tp.hello_unread = true;
	mutex_unlock(&tap_tp.ctl_read_lock);
	WRITE_ONCE(tap_tp.reader_gone, false);
	return stream_open(inode, file);
}

/* Also the way out when taprun dies: end the session so the module can
 * be unloaded. */
static int tap_ctl_release(struct inode *inode, struct file *file)
{
	WRITE_ONCE(tap_tp.reader_gone, true);
	mutex_lock(&tap_tp.ctl_lock);
	if (tap_tp.start_queued)
		tap_queue_stop();
	mutex_unlock(&tap_tp.ctl_lock);
	flush_workqueue(tap_tp.wq);
	atomic_set(&tap_tp.ctl_open, 0);
	return 0;
}

static ssize_t tap_ctl_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	ssize_t n;

	if (count < TAP_MSG_MAX)
		return -EINVAL;
	for (;;) {
		if (mutex_lock_interruptible(&tap_tp.ctl_read_lock))
			return -ERESTARTSYS;
		n = tap_ctl_fill(ubuf, count);
		mutex_unlock(&tap_tp.ctl_read_lock);
		if (n || READ_ONCE(tap_tp.closing))
			return n;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(tap_tp.ctl_waiter.wq,
					     tap_ctl_ready()))
			return -ERESTARTSYS;
	}
}

static ssize_t tap_ctl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct tap_msg_start m;	/* the longest message taprun sends */
	int ret;

	if (count < sizeof(struct tap_msg_hdr) || count > TAP_MSG_MAX)
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	if (copy_from_user(&m, ubuf, min(count, sizeof(m))))
		return -EFAULT;
	if (m.hdr.size != count)
		return -EINVAL;
	switch (m.hdr.type) {
	case TAP_MSG_START:
		ret = tap_ctl_start(&m, count);
		break;
	case TAP_MSG_STOP:
		ret = tap_ctl_stop();
		break;
	default:
		ret = -EINVAL;
		break;
	}
	return ret ? ret : count;
}

static __poll_t tap_ctl_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &tap_tp.ctl_waiter.wq, wait);
	return EPOLLOUT | EPOLLWRNORM |
	       (tap_ctl_ready() ? EPOLLIN | EPOLLRDNORM : 0);
}

/* ---- trace files of the ring mode ---- */

static bool tap_trace_ready(struct tap_ring *r)
{
	tap_waiter_arm(r->waiter);
	return tap_ring_avail(r) || READ_ONCE(tap_tp.closing);
}

static ssize_t tap_trace_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct tap_ring *r = file->private_data;
	ssize_t n;

	for (;;) {
		if (mutex_lock_interruptible(&r->read_lock))
			return -ERESTARTSYS;
		n = tap_ring_read_user(r, ubuf, count);
		mutex_unlock(&r->read_lock);
		if (n || !count || READ_ONCE(tap_tp.closing))
			return n;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(r->waiter->wq, tap_trace_ready(r)))
			return -ERESTARTSYS;
	}
}

static __poll_t tap_trace_poll(struct file *file, poll_table *wait)
{
	struct tap_ring *r = file->private_data;

	poll_wait(file, &r->waiter->wq, wait);
	return tap_trace_ready(r) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int tap_trace_debugfs_open(struct inode *inode, struct file *file)
{
	file->private_data = inode->i_private;
	return stream_open(inode, file);
}

/* procfs has no .owner: an open file pins the module by hand, as the
 * debugfs files do through .owner.  Otherwise rmmod could free a wait
 * queue a poller is still linked into. */
static int tap_trace_proc_open(struct inode *inode, struct file *file)
{
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	file->private_data = pde_data(inode);
	return stream_open(inode, file);
}

static int tap_trace_proc_release(struct inode *inode, struct file *file)
{
	module_put(THIS_MODULE);
	return 0;
}

static int tap_ctl_proc_open(struct inode *inode, struct file *file)
{
	int ret;

	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	ret = tap_ctl_open(inode, file);
	if (ret)
		module_put(THIS_MODULE);
	return ret;
}

static int tap_ctl_proc_release(struct inode *inode, struct file *file)
{
	tap_ctl_release(inode, file);
	module_put(THIS_MODULE);
	return 0;
}

static const struct file_operations tap_ctl_fops = {
	.owner = THIS_MODULE,
	.open = tap_ctl_open,
	.release = tap_ctl_release,
	.read = tap_ctl_read,
	.write = tap_ctl_write,
	.poll = tap_ctl_poll,
	.llseek = noop_llseek,
};

static const struct file_operations tap_trace_fops = {
	.owner = THIS_MODULE,
	.open = tap_trace_debugfs_open,
	.read = tap_trace_read,
	.poll = tap_trace_poll,
	.llseek = noop_llseek,
};

static const struct proc_ops tap_ctl_proc_ops = {
	.proc_open = tap_ctl_proc_open,
	.proc_release = tap_ctl_proc_release,
	.proc_read = tap_ctl_read,
	.proc_write = tap_ctl_write,
	.proc_poll = tap_ctl_poll,
	.proc_lseek = noop_llseek,
};

static const struct proc_ops tap_trace_proc_ops = {
	.proc_open = tap_trace_proc_open,
	.proc_release = tap_trace_proc_release,
	.proc_read = tap_trace_read,
	.proc_poll = tap_trace_poll,
	.proc_lseek = noop_llseek,
};

/* ---- relay callbacks ---- */

/* No overwriting: a full buffer refuses the switch, and the write that
 * needed it is dropped (and counted by tap_emit()). */
static int tap_relay_subbuf_start(struct rchan_buf *buf, void *subbuf,
				  void *prev_subbuf, size_t prev_padding)
{
	return !relay_buf_full(buf);
}

static struct dentry *tap_relay_create_file(const char *filename,
					    struct dentry *parent,
					    umode_t mode, struct rchan_buf *buf,
					    int *is_global)
{
	return debugfs_create_file(filename, 0400, parent, buf,
				   &relay_file_operations);
}

static int tap_relay_remove_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks tap_relay_callbacks = {
	.subbuf_start = tap_relay_subbuf_start,
	.create_buf_file = tap_relay_create_file,
	.remove_buf_file = tap_relay_remove_file,
};

/* ---- setup and teardown ---- */

static int tap_pick_mode(void)
{
	const char *t = tap_param_transport ? tap_param_transport : "auto";
	size_t kb = tap_param_bufsize_kb;

	tap_tp.forced = strcmp(t, "auto") != 0;
	if (!strcmp(t, "relay")) {
		tap_tp.mode = TAP_TRACE_RELAY;
	} else if (!strcmp(t, "auto") || !strcmp(t, "ring")) {
		tap_tp.mode = TAP_TRACE_RING;
	} else if (!strcmp(t, "procfs")) {
		tap_tp.mode = TAP_TRACE_RING;
		tap_tp.use_procfs = true;
	} else {
		pr_err("tapc: %s: _tap_transport=%s: expected auto, relay, ring or procfs\n",
		       tap_tp.dirname, t);
		return -EINVAL;
	}
	tap_tp.bufsize = kb ? kb * 1024 : TAP_DEFAULT_BUFSIZE;
	tap_tp.bufsize = clamp_t(size_t, tap_tp.bufsize, 4 * TAP_REC_MAX,
				 TAP_MAX_BUFSIZE);
	return 0;
}

/* Without debugfs, "auto" falls back to procfs (relay cannot).  So it
 * does under lockdown (what Secure Boot turns on): debugfs is there, but
 * its files open for writing, ctl among them, only with EPERM. */
static int tap_make_dir(void)
{
	if (!tap_tp.use_procfs && !tap_tp.forced &&
	    security_locked_down(LOCKDOWN_DEBUGFS)) {
		tap_tp.use_procfs = true;
		tap_tp.mode = TAP_TRACE_RING;
	}
	if (!tap_tp.use_procfs) {
		struct dentry *d = debugfs_create_dir(tap_tp.dirname, NULL);

		if (!IS_ERR_OR_NULL(d)) {
			tap_tp.debug_dir = d;
			return 0;
		}
		if (tap_tp.forced)
			return d ? PTR_ERR(d) : -ENODEV;
		tap_tp.use_procfs = true;
		tap_tp.mode = TAP_TRACE_RING;
	}
	tap_tp.proc_dir = proc_mkdir(tap_tp.dirname, NULL);
	return tap_tp.proc_dir ? 0 : -ENOMEM;
}

static void tap_remove_dir(void)
{
	if (tap_tp.relay) {
		relay_close(tap_tp.relay);
		tap_tp.relay = NULL;
	}
	debugfs_remove(tap_tp.debug_dir);
	tap_tp.debug_dir = NULL;
	proc_remove(tap_tp.proc_dir);
	tap_tp.proc_dir = NULL;
}

static void tap_free_cpus(void)
{
	int cpu;

	if (!tap_tp.cpu)
		return;
	WRITE_ONCE(tap_cpus, NULL);
	for_each_possible_cpu(cpu) {
		struct tap_cpu *c = tap_tp.cpu[cpu];

		if (!c)
			continue;
		tap_waiter_sync(&c->trace_waiter);
		tap_ring_free(&c->trace);
		tap_ring_free(&c->ctl);
		tap_free(c);
	}
	tap_free(tap_tp.cpu);
	tap_tp.cpu = NULL;
}

static int tap_alloc_cpus(void)
{
	size_t ring_size = roundup_pow_of_two(tap_tp.bufsize);
	int cpu, ret;

	tap_tp.cpu = tap_alloc(nr_cpu_ids * sizeof(*tap_tp.cpu));
	if (!tap_tp.cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct tap_cpu *c = tap_alloc_node(sizeof(*c), cpu_to_node(cpu));

		if (!c)
			goto err_nomem;
		tap_tp.cpu[cpu] = c;
		tap_waiter_init(&c->trace_waiter);
		ret = tap_ring_init(&c->ctl, TAP_CTL_RING_SIZE, cpu,
				    &tap_tp.ctl_waiter);
		if (ret)
			goto err_free;
		if (tap_tp.mode == TAP_TRACE_RING) {
			ret = tap_ring_init(&c->trace, ring_size, cpu,
					    &c->trace_waiter);
			if (ret)
				goto err_free;
		}
	}
	if (tap_tp.mode == TAP_TRACE_RING)
		tap_tp.bufsize = ring_size;
	smp_wmb();	/* every CPU's state before the pointer */
	WRITE_ONCE(tap_cpus, tap_tp.cpu);
	return 0;

err_nomem:
	ret = -ENOMEM;
err_free:
	tap_free_cpus();
	return ret;
}

static int tap_open_relay(void)
{
	size_t min_sub = PAGE_ALIGN(2 * TAP_REC_MAX);
	size_t sub = PAGE_ALIGN(max(tap_tp.bufsize / 8, min_sub));
	size_t n = max_t(size_t, tap_tp.bufsize / sub, 2);

	tap_tp.relay = relay_open("trace", tap_tp.debug_dir, sub, n,
				  &tap_relay_callbacks, NULL);
	if (!tap_tp.relay)
		return -ENOMEM;
	tap_tp.subbuf_size = sub;
	tap_tp.n_subbufs = n;
	tap_tp.bufsize = sub * n;
	return 0;
}

static int tap_debugfs_files(void)
{
	struct dentry *d;
	char name[24];
	int cpu;

	if (tap_tp.mode == TAP_TRACE_RELAY) {
		int ret = tap_open_relay();

		if (ret)
			return ret;
	} else {
		for_each_possible_cpu(cpu) {
			snprintf(name, sizeof(name), "trace%d", cpu);
			d = debugfs_create_file(name, 0400, tap_tp.debug_dir,
						&tap_tp.cpu[cpu]->trace,
						&tap_trace_fops);
			if (IS_ERR_OR_NULL(d))
				return d ? PTR_ERR(d) : -ENOMEM;
		}
	}
	d = debugfs_create_file("ctl", 0600, tap_tp.debug_dir, NULL,
				&tap_ctl_fops);
	if (IS_ERR_OR_NULL(d))
		return d ? PTR_ERR(d) : -ENOMEM;
	return 0;
}

static int tap_procfs_files(void)
{
	char name[24];
	int cpu;

	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "trace%d", cpu);
		if (!proc_create_data(name, 0400, tap_tp.proc_dir,
				      &tap_trace_proc_ops,
				      &tap_tp.cpu[cpu]->trace))
			return -ENOMEM;
	}
	if (!proc_create_data("ctl", 0600, tap_tp.proc_dir, &tap_ctl_proc_ops,
			      NULL))
		return -ENOMEM;
	return 0;
}

int tap_transport_init(const char *modname)
{
	int ret;

	/* A fresh state (a loaded module has one anyway; the user-space
	 * tests set up many transports in one process). */
	memset(&tap_tp, 0, sizeof(tap_tp));
	snprintf(tap_tp.dirname, sizeof(tap_tp.dirname), "%s%s",
		 TAP_DIR_PREFIX, modname);
	atomic_set(&tap_tp.seq, 0);
	atomic_set(&tap_state, TAP_STATE_LOADED);
	atomic_set(&tap_tp.exit_requested, 0);
	atomic_set(&tap_tp.ctl_open, 0);
	mutex_init(&tap_tp.ctl_lock);
	mutex_init(&tap_tp.ctl_read_lock);
	tap_waiter_init(&tap_tp.ctl_waiter);
	INIT_WORK(&tap_tp.start_work, tap_start_work);
	INIT_WORK(&tap_tp.stop_work, tap_stop_work);
	INIT_LIST_HEAD(&tap_tp.overflow);

	ret = tap_pick_mode();
	if (ret)
		return ret;
	tap_tp.counters = tap_alloc_percpu(sizeof(struct tap_counters),
					   __alignof__(struct tap_counters));
	if (!tap_tp.counters)
		return -ENOMEM;
	tap_tp.wq = alloc_ordered_workqueue("%s", 0, tap_tp.dirname);
	if (!tap_tp.wq) {
		ret = -ENOMEM;
		goto err_free_counters;
	}
	ret = tap_make_dir();
	if (ret)
		goto err_destroy_wq;
	ret = tap_alloc_cpus();
	if (ret)
		goto err_remove_dir;
	ret = tap_tp.debug_dir ? tap_debugfs_files() : tap_procfs_files();
	if (ret)
		goto err_remove_files;
	WRITE_ONCE(tap_tp.ready, true);
	return 0;

err_remove_files:
	tap_remove_dir();
	tap_free_cpus();
	goto err_destroy_wq;
err_remove_dir:
	tap_remove_dir();
err_destroy_wq:
	destroy_workqueue(tap_tp.wq);
err_free_counters:
	tap_free_percpu(tap_tp.counters);
	tap_tp.counters = NULL;
	pr_err("tapc: %s: cannot set up the transport: error %d\n",
	       tap_tp.dirname, ret);
	return ret;
}

static void tap_wake_all_readers(void)
{
	int cpu;

	WRITE_ONCE(tap_tp.closing, true);
	tap_waiter_wake_now(&tap_tp.ctl_waiter);
	for_each_possible_cpu(cpu)
		tap_waiter_wake_now(&tap_tp.cpu[cpu]->trace_waiter);
}

/* Runs tap_on_stop() if the session is still live (rmmod without taprun,
 * or a procfs ctl still open), so module_exit may call this first. */
void tap_transport_exit(void)
{
	tap_wake_all_readers();
	mutex_lock(&tap_tp.ctl_lock);
	if (tap_tp.start_queued)
		tap_queue_stop();
	mutex_unlock(&tap_tp.ctl_lock);
	flush_workqueue(tap_tp.wq);
	/* The end probes ran: nothing prints any more. */
	WRITE_ONCE(tap_tp.ready, false);
	/* No file is open: an open file pins the module. */
	tap_remove_dir();
	destroy_workqueue(tap_tp.wq);
	tap_waiter_sync(&tap_tp.ctl_waiter);
	tap_free_cpus();
	tap_free_percpu(tap_tp.counters);
	tap_tp.counters = NULL;
}
