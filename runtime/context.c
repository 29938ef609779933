/*
 * context.c - per-CPU probe contexts, handler entry/exit, error reporting,
 * and the locks of globals.
 */
#include "tap.h"

#ifndef TAP_FRAME_SIZE
#define TAP_FRAME_SIZE 16	/* a module without locals */
#endif

/* Probes skipped while the script runs (re-entry, lock timeouts), for
 * MAXSKIPPED; the message about it is given once. */
atomic_t tap_skipped_running = ATOMIC_INIT(0);
static atomic_t tap_skipped_reported = ATOMIC_INIT(0);
atomic_t tap_error_count = ATOMIC_INIT(0);
bool tap_suppress_errors;
u32 tap_max_map_entries;

/* (read by the inline tap_context_enter(); tap_ncontexts is 0 while
 * there are none) */
struct tap_context **tap_contexts;
unsigned int tap_ncontexts;
#ifndef TAP_USER_TEST
DEFINE_PER_CPU(struct tap_context *, tap_context_of_cpu);
#endif

#ifdef TAP_OVERLOAD
/* The overload guard stopped the script (set once, by the first CPU). */
static atomic_t tap_overloaded = ATOMIC_INIT(0);
#endif

/*
 * After a stop caused by errors only the error probes run (stap's rule:
 * end probes are for a run that ended normally).  An overload is not such
 * a stop: the script itself did nothing wrong, so its end probes run and
 * print what it gathered (stap 4.8 runs its error probes instead, and a
 * summary kept for the end is lost).  It still counts as an error
 * (taprun's count, exit status 1), and it stops the script whatever
 * MAXERRORS and --suppress-handler-errors say.
 */
bool tap_stopped_by_error(void)
{
	return atomic_read(&tap_error_count) > MAXERRORS && !tap_suppress_errors;
}

static void tap_context_free(struct tap_context *c)
{
	if (!c)
		return;
	tap_free(c->frames);
	tap_free(c->iter_scratch);
	tap_free(c->re_scratch);
	tap_free(c);
}

static struct tap_context *tap_context_alloc(void)
{
	struct tap_context *c = tap_alloc(sizeof(*c));

	if (!c)
		return NULL;
	c->frames = tap_alloc((MAXNESTING + 1) * TAP_FRAME_STRIDE(TAP_FRAME_SIZE));
	c->iter_scratch_size = tap_max_map_entries * TAP_FOREACH_DEPTH;
	c->iter_scratch = tap_alloc((c->iter_scratch_size + 1) * sizeof(u64));
	c->re_scratch = tap_alloc(sizeof(struct tap_regex_scratch));
	if (!c->frames || !c->iter_scratch || !c->re_scratch) {
		tap_context_free(c);
		return NULL;
	}
	return c;
}

/* After the globals (maps) exist: the sort space depends on their size. */
int tap_contexts_init(void)
{
	unsigned int cpu;

	tap_contexts = tap_alloc(nr_cpu_ids * sizeof(*tap_contexts));
	if (!tap_contexts)
		return -ENOMEM;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		tap_contexts[cpu] = tap_context_alloc();
		if (!tap_contexts[cpu]) {
			tap_ncontexts = cpu;
			tap_contexts_free();
			return -ENOMEM;
		}
	}
	smp_wmb();	/* the contexts before their count */
	WRITE_ONCE(tap_ncontexts, nr_cpu_ids);
#ifndef TAP_USER_TEST
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu_possible(cpu))
			WRITE_ONCE(per_cpu(tap_context_of_cpu, cpu), tap_contexts[cpu]);
#endif
	return 0;
}

void tap_contexts_free(void)
{
	unsigned int cpu, n;

	if (!tap_contexts)
		return;
	n = tap_ncontexts;
	WRITE_ONCE(tap_ncontexts, 0);
#ifndef TAP_USER_TEST
	for (cpu = 0; cpu < n; cpu++)
		if (cpu_possible(cpu))
			WRITE_ONCE(per_cpu(tap_context_of_cpu, cpu), NULL);
#endif
	for (cpu = 0; cpu < n; cpu++)
		tap_context_free(tap_contexts[cpu]);
	tap_free(tap_contexts);
	tap_contexts = NULL;
}

/* tap_context_enter() found this CPU's context busy: an interrupt or NMI
 * hit a probe while a handler ran here. */
void tap_context_busy(int state)
{
	tap_count_skip(TAP_SKIP_REENTRANT);
	if (state == TAP_STATE_RUNNING)
		atomic_inc(&tap_skipped_running);
}

struct tap_context *tap_current_context(void)
{
	struct tap_context *c;

	/* (tap_this_context() written out: context.h calls into this file,
	 * not the other way) */
#ifdef TAP_USER_TEST
	if (smp_processor_id() >= (int)READ_ONCE(tap_ncontexts))
		return NULL;
	c = tap_contexts[smp_processor_id()];
#else
	c = this_cpu_read(tap_context_of_cpu);
	if (!c)
		return NULL;
#endif
	return atomic_read(&c->busy) ? c : NULL;
}

static void tap_report_error(struct tap_context *c)
{
	int n = atomic_inc_return(&tap_error_count);

	tap_count_error();
	if (tap_suppress_errors)
		return;
	if (c->last_stmt)
		snprintf(c->report_buf, sizeof(c->report_buf), "%s near %s",
			 c->last_error, c->last_stmt);
	else
		snprintf(c->report_buf, sizeof(c->report_buf), "%s", c->last_error);
	tap_msg_error(c->report_buf);
	if (n > MAXERRORS)
		tap_exit();
}

#ifdef TAP_OVERLOAD
/*
 * The overload guard's judgement (tap_context_exit() adds each handler's
 * time to its CPU's sum): an interval has passed since this CPU's window
 * opened, so a sum over the threshold stops the script, and the window
 * starts again from here with nothing in it.  Like stap, the window is
 * only looked at when a handler ends, so a CPU that stops running
 * handlers is not checked; the first hit opens the first window
 * (ovl_window is 0 until then).
 */
void tap_overload_interval(struct tap_context *c, u64 now)
{
	s64 sum = (s64)c->ovl_sum;

	c->ovl_window = now;
	c->ovl_sum = 0;
	if (likely(sum <= (s64)STP_OVERLOAD_THRESHOLD))
		return;
	if (atomic_cmpxchg(&tap_overloaded, 0, 1) != 0)
		return;		/* another CPU said it first */
	snprintf(c->report_buf, sizeof(c->report_buf),
		 "probe overhead (%lld cycles) exceeded threshold (%lld cycles) "
		 "in last %lld cycles", (long long)sum,
		 (long long)STP_OVERLOAD_THRESHOLD, (long long)STP_OVERLOAD_INTERVAL);
	tap_count_error();
	tap_msg_error(c->report_buf);
	tap_exit();
}
#endif

/* The rare part of tap_context_exit(): more probes skipped (on any CPU)
 * than MAXSKIPPED is an error that stops the script, reported by the
 * first handler to end after it; then this handler's error. */
void tap_context_exit_slow(struct tap_context *c)
{
	if (unlikely(atomic_read(&tap_skipped_running) > MAXSKIPPED) &&
	    c->state == TAP_STATE_RUNNING && !c->last_error && !tap_suppress_errors &&
	    atomic_cmpxchg(&tap_skipped_reported, 0, 1) == 0) {
		c->last_stmt = NULL;
		tap_error(c, "Skipped too many probes, check MAXSKIPPED (the skips by reason are counted at exit).");
	}
	if (c->last_error && !c->aborted)
		tap_report_error(c);
}

void tap_error(struct tap_context *c, const char *fmt, ...)
{
	va_list ap;

	if (c->last_error)
		return;		/* the first error is the one reported */
	va_start(ap, fmt);
	vsnprintf(c->error_buf, sizeof(c->error_buf), fmt, ap);
	va_end(ap);
	c->last_error = c->error_buf;
}

void tap_error_clear(struct tap_context *c)
{
	c->last_error = NULL;
	c->error_buf[0] = '\0';
}

static bool tap_trylock_one(const struct tap_lock_req *r)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		if (r->write ? write_trylock(r->lock) : read_trylock(r->lock))
			return true;
		ndelay(TRYLOCKDELAY);
	}
	return false;
}

static void tap_cpu_unlock_all(const struct tap_cpu_locks *pl, unsigned int n)
{
	while (n-- > 0)
		tap_cpu_release(tap_cpu_lock_of(pl, n));
}

/* Every CPU's word of a statistics global, for a handler that reads it. */
static bool tap_cpu_lock_all(const struct tap_cpu_locks *pl)
{
	int mark = TAP_CPU_READER(smp_processor_id());
	unsigned int cpu;
	int i;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		atomic_t *l = tap_cpu_lock_of(pl, cpu);

		for (i = 0; i < MAXTRYLOCK; i++) {
			if (atomic_read(l) == 0 && atomic_cmpxchg(l, 0, mark) == 0)
				break;
			ndelay(TRYLOCKDELAY);
		}
		if (i == MAXTRYLOCK) {
			tap_cpu_unlock_all(pl, cpu);
			return false;
		}
	}
	return true;
}

/*
 * For an adder that holds this CPU's word of a counter (`own`: the mark
 * it holds it with) and must see the whole global (an array near its
 * limit): every CPU's word, as a reader takes them, then the fold.  Its
 * own word is let go first and taken in its turn, in CPU order, so two
 * adders doing this at once wait for each other as two readers do, never
 * each holding what the other waits for; what this CPU added is in its
 * part already and a reader in between only folds it.  < 0: a lock
 * timeout, counted, the rest of the hit skipped (as tap_cpu_trylock's);
 * either way the own word is held again with `own` on return.
 */
int tap_cpu_lock_others(struct tap_context *c, struct tap_cpu_locks *pl, int own)
{
	unsigned int me = smp_processor_id();
	atomic_t *mine = tap_cpu_lock_of(pl, me);

	tap_cpu_release(mine);
	if (tap_cpu_lock_all(pl)) {
		atomic_set(mine, own);
		if (pl->fold)
			pl->fold(pl);
		return 0;
	}
	/* whoever took it meanwhile is a reader or another such adder: its
	 * own waits are MAXTRYLOCK tries at most, so it lets go */
	while (atomic_read(mine) != 0 || atomic_cmpxchg(mine, 0, own) != 0)
		ndelay(TRYLOCKDELAY);
	tap_count_skip(TAP_SKIP_LOCK);
	atomic_inc(&tap_skipped_running);
	c->aborted = true;
	return -EBUSY;
}

/* The other CPUs' words tap_cpu_lock_others took. */
void tap_cpu_unlock_others(struct tap_cpu_locks *pl)
{
	unsigned int me = smp_processor_id(), cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (cpu != me)
			tap_cpu_release(tap_cpu_lock_of(pl, cpu));
}

/* This CPU's word only, for a handler that adds to the global and takes
 * other globals' locks: with them, in their order (see tap_lock_req).
 * (tap_lock_globals() tried once already.) */
bool tap_cpu_lock_own(const struct tap_cpu_locks *pl)
{
	atomic_t *l = tap_cpu_lock_of(pl, smp_processor_id());
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		if (atomic_read(l) == 0 &&
		    atomic_cmpxchg(l, 0, TAP_CPU_OWNER(smp_processor_id())) == 0)
			return true;
		ndelay(TRYLOCKDELAY);
	}
	return false;
}

void tap_unlock_one(const struct tap_lock_req *r)
{
	if (!r->lock) {
		tap_cpu_release(tap_cpu_lock_of(*r->cpu, smp_processor_id()));
		return;
	}
	if (r->cpu)
		tap_cpu_unlock_all(*r->cpu, nr_cpu_ids);
	if (r->write)
		write_unlock(r->lock);
	else
		read_unlock(r->lock);
}

bool tap_lock_one(const struct tap_lock_req *r)
{
	if (!r->lock)
		return tap_cpu_lock_own(*r->cpu);
	if (!tap_trylock_one(r))
		return false;
	if (r->cpu && !tap_cpu_lock_all(*r->cpu)) {
		if (r->write)
			write_unlock(r->lock);
		else
			read_unlock(r->lock);
		return false;
	}
	/* a counter: from here to the handler's end the global alone holds
	 * its value, and the handler's own adds go straight to it */
	if (r->cpu && (*r->cpu)->fold)
		(*r->cpu)->fold(*r->cpu);
	return true;
}

/* tap_lock_globals() could not have req[i]: give back req[0..i-1] and
 * skip the hit (tap_context_exit() checks MAXSKIPPED). */
int tap_lock_failed(const struct tap_lock_req *req, int i)
{
	while (i-- > 0)
		tap_unlock_one(&req[i]);
	tap_count_skip(TAP_SKIP_LOCK);
	atomic_inc(&tap_skipped_running);
	return -EBUSY;
}

int tap_cpu_trylock(struct tap_context *c, atomic_t *l)
{
	int i, v;

	for (i = 0; i < MAXTRYLOCK; i++) {
		v = atomic_read(l);
		if (v == 0 && atomic_cmpxchg(l, 0, 1) == 0)
			return 0;
		/* handlers do not nest on a CPU: this CPU's mark is this very
		 * handler's, whose lock table took the word */
		if (v == TAP_CPU_OWNER(smp_processor_id()))
			return 1;
		if (v == TAP_CPU_READER(smp_processor_id()))
			return 2;
		ndelay(TRYLOCKDELAY);
	}
	/* a reader held it all that time: skip the rest of this hit, as a
	 * global lock not taken skips all of it */
	tap_count_skip(TAP_SKIP_LOCK);
	atomic_inc(&tap_skipped_running);
	c->aborted = true;
	return -EBUSY;
}
