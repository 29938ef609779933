/* transport_ring.c - per-CPU byte rings for the transport (included by
 * transport.c).
 *
 * A ring has one producer and one consumer and no lock between them.  The
 * producer is code running on the ring's own CPU with interrupts disabled,
 * so two producers never overlap (NMI handlers must not write).  The
 * consumer is a reader in process context holding ring->read_lock.
 *
 * head and tail count bytes ever written and consumed; the size is a power
 * of two, so "& mask" turns them into offsets and head - tail is the fill
 * level even after the counters wrap.  The producer publishes head with a
 * release store after copying the bytes, the consumer publishes tail with a
 * release store after copying them out; each side reads the other's
 * counter with an acquire load.  A reader therefore never sees bytes that
 * are still being written, and a writer never overwrites unread bytes.
 *
 * Readers sleep on a tap_waiter.  Waking a wait queue is not safe in every
 * context a probe runs in (a scheduler tracepoint holds the runqueue lock),
 * so a producer that finds a reader waiting queues an irq_work that does
 * the wake-up a moment later.  The waiting flag keeps that to one irq_work
 * per sleep, not one per record.
 */

struct tap_waiter {
	int waiting;			/* a reader is (about to be) asleep */
	struct irq_work work;		/* deferred wake-up */
	wait_queue_head_t wq;
};

struct tap_ring {
	char *data;
	unsigned long mask;		/* size - 1 */
	unsigned long head;		/* written by the producer only */
	unsigned long tail ____cacheline_aligned; /* by the consumer only */
	struct tap_waiter *waiter;	/* whom to wake (may be shared) */
	struct mutex read_lock;
};

static void tap_waiter_wake_work(struct irq_work *work)
{
	struct tap_waiter *w = container_of(work, struct tap_waiter, work);

	wake_up_interruptible(&w->wq);
}

static void tap_waiter_init(struct tap_waiter *w)
{
	w->waiting = 0;
	init_irq_work(&w->work, tap_waiter_wake_work);
	init_waitqueue_head(&w->wq);
}

/* Before checking for data, a reader announces that it may sleep.  The
 * full barrier pairs with the one in tap_waiter_kick(): either the reader
 * sees the new data or the writer sees the flag. */
static void tap_waiter_arm(struct tap_waiter *w)
{
	WRITE_ONCE(w->waiting, 1);
	smp_mb();
}

/* Any context (irq_work_queue() may be called from an NMI): wake a
 * waiting reader, later. */
static void tap_waiter_kick(struct tap_waiter *w)
{
	smp_mb();
	if (READ_ONCE(w->waiting)) {
		WRITE_ONCE(w->waiting, 0);
		irq_work_queue(&w->work);
	}
}

/* Process context: wake a waiting reader now. */
static void tap_waiter_wake_now(struct tap_waiter *w)
{
	smp_mb();
	WRITE_ONCE(w->waiting, 0);
	wake_up_interruptible(&w->wq);
}

static void tap_waiter_sync(struct tap_waiter *w)
{
	irq_work_sync(&w->work);
}

static int tap_ring_init(struct tap_ring *r, unsigned long size, int cpu,
			 struct tap_waiter *w)
{
	size = roundup_pow_of_two(size);
	r->data = tap_alloc_node(size, cpu_to_node(cpu));
	if (!r->data)
		return -ENOMEM;
	r->mask = size - 1;
	r->head = 0;
	r->tail = 0;
	r->waiter = w;
	mutex_init(&r->read_lock);
	return 0;
}

static void tap_ring_free(struct tap_ring *r)
{
	tap_free(r->data);
	r->data = NULL;
}

/* ---- producer side: this CPU, interrupts disabled ---- */

static bool tap_ring_has_room(struct tap_ring *r, size_t len)
{
	unsigned long used = r->head - smp_load_acquire(&r->tail);

	return r->mask + 1 - used >= len;
}

static void tap_ring_copy_in(struct tap_ring *r, unsigned long pos,
			     const void *src, size_t len)
{
	unsigned long off = pos & r->mask;
	size_t first = min_t(size_t, len, r->mask + 1 - off);

	memcpy(r->data + off, src, first);
	memcpy(r->data, (const char *)src + first, len - first);
}

/* Append a and then b (b may be empty) as one unit; the caller checked
 * tap_ring_has_room(r, alen + blen). */
static void tap_ring_put(struct tap_ring *r, const void *a, size_t alen,
			 const void *b, size_t blen)
{
	unsigned long head = r->head;

	tap_ring_copy_in(r, head, a, alen);
	if (blen)
		tap_ring_copy_in(r, head + alen, b, blen);
	smp_store_release(&r->head, head + alen + blen);
	tap_waiter_kick(r->waiter);
}

/* ---- consumer side: process context, read_lock held ---- */

static unsigned long tap_ring_avail(struct tap_ring *r)
{
	return smp_load_acquire(&r->head) - r->tail;
}

/* Copy len <= avail bytes from the front without consuming them. */
static void tap_ring_peek(struct tap_ring *r, void *dst, size_t len)
{
	unsigned long off = r->tail & r->mask;
	size_t first = min_t(size_t, len, r->mask + 1 - off);

	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, len - first);
}

static void tap_ring_consume(struct tap_ring *r, size_t len)
{
	smp_store_release(&r->tail, r->tail + len);
}

/* Copy up to count available bytes to user space and consume them. */
static ssize_t tap_ring_read_user(struct tap_ring *r, char __user *ubuf,
				  size_t count)
{
	unsigned long off = r->tail & r->mask;
	size_t len = min_t(size_t, count, tap_ring_avail(r));
	size_t first = min_t(size_t, len, r->mask + 1 - off);

	if (copy_to_user(ubuf, r->data + off, first) ||
	    copy_to_user(ubuf + first, r->data, len - first))
		return -EFAULT;
	tap_ring_consume(r, len);
	return len;
}
