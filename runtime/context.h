/*
 * context.h - the per-CPU probe context, handler entry/exit, script errors,
 * limits (MAXACTION, MAXNESTING), global locks and checked arithmetic.
 */
#ifndef TAP_CONTEXT_H
#define TAP_CONTEXT_H

/*
 * The module's life cycle (enum tap_session_state, tap_session_state())
 * and the output/control calls come from transport.h; the user-space test
 * build declares the same here and its test harness implements them.
 * Handlers name the state they run in: TAP_STATE_STARTING for begin,
 * TAP_STATE_RUNNING for ordinary probes, TAP_STATE_STOPPING for end/error.
 */
#ifdef TAP_USER_TEST
enum tap_session_state {
	TAP_STATE_LOADED, TAP_STATE_STARTING, TAP_STATE_RUNNING,
	TAP_STATE_STOPPING, TAP_STATE_STOPPED,
};
enum tap_skip_reason {
	TAP_SKIP_REENTRANT, TAP_SKIP_LOCK, TAP_SKIP_STATE, TAP_SKIP_KRETPROBE,
	TAP_SKIP_UPROBE, TAP_SKIP_OTHER, TAP_SKIP_NR,
};
#ifndef TAP_PRINT_BUFSIZE
#define TAP_PRINT_BUFSIZE 8192
#endif
int tap_session_state(void);
char *tap_reserve(size_t len);
void tap_unreserve(size_t len);
void tap_commit(void);
bool tap_output_pending(void);
void tap_write(const char *buf, size_t len);
void tap_print(const char *s);
void tap_msg_error(const char *text);
void tap_exit(void);
void tap_count_error(void);
void tap_count_skip(enum tap_skip_reason why);
#else
#include "transport.h"
#endif

#define TAP_RE_NSUB 10		/* matched(0) .. matched(9) */

struct tap_regex_scratch;

struct tap_context {
	/* Public part: see runtime/TAPSET-API.md. */
	struct pt_regs *regs;
	struct pt_regs *user_regs;
	const char *probe_point;
	const char *probe_name;
	const char *probe_type;
	bool is_return;
	unsigned long entry_sp;

	/* Private to the runtime and the generated code. */
	atomic_t busy;			/* 1 while a handler runs here */
	int state;			/* the state the handler runs in */
	int nesting;			/* function call depth, 0 = probe body */
	bool aborted;			/* TAP_ABORT: not catchable, no message */
	long actions;
	long action_limit;
	const char *last_error;		/* NULL, or error_buf */
	const char *last_stmt;		/* "identifier 'x' at f.stp:1:2" */
	int locks_held;			/* tap_lock_globals succeeded */
#ifdef TAP_OVERLOAD
	/* The overload guard's per-CPU account (the context is per CPU):
	 * when this handler started, when the current interval started,
	 * and the handler time in it so far, all in tap_arch_cycles(). */
	u64 ovl_start;
	u64 ovl_window;
	u64 ovl_sum;
#endif
	char error_buf[MAXSTRINGLEN];
	char *frames;			/* MAXNESTING + 1 frames */
	u64 *iter_scratch;		/* foreach sort space, used as a stack */
	u32 iter_scratch_size;
	u32 iter_scratch_used;
	struct tap_regex_scratch *re_scratch;
	bool re_matched;		/* last =~ result, for matched() */
	int re_cap[2 * TAP_RE_NSUB];
	char re_subject[MAXSTRINGLEN];
	char report_buf[2 * MAXSTRINGLEN];
};

/* Counted here for MAXERRORS; the transport counts for DONE. */
extern atomic_t tap_error_count;
extern bool tap_suppress_errors;	/* --suppress-handler-errors */
extern u32 tap_max_map_entries;		/* largest map, sizes iter_scratch */

bool tap_stopped_by_error(void);
int tap_contexts_init(void);
void tap_contexts_free(void);
struct tap_context *tap_current_context(void);

/*
 * Handler entry and exit run on every hit, so their common case is inline
 * (the generated handler, these and the lock table's code become one
 * function without calls); what is rare (a skip, an error, the end of an
 * overload interval) is out of line in context.c.
 */
extern struct tap_context **tap_contexts;
extern unsigned int tap_ncontexts;

/*
 * TAP_HOT: the code every hit runs (entry, exit, the lock table, <<<) is
 * inline in a module of a few probes.  In one of many (pass 3 defines
 * TAP_COMPACT_HANDLERS when the script has more than TAP_COMPACT_PROBES
 * handlers, translator/emit/module.c) each is one function the handlers
 * call, as before: a copy in each of hundreds of handlers doubled the
 * build of "probe syscall.* {}" and made its module 40% larger.
 */
#ifdef TAP_COMPACT_HANDLERS
#define TAP_HOT static noinline __maybe_unused
#else
#define TAP_HOT static __always_inline
#endif

#ifdef TAP_USER_TEST
static inline struct tap_context *tap_this_context(void)
{
	unsigned int cpu = smp_processor_id();

	return cpu < READ_ONCE(tap_ncontexts) ? tap_contexts[cpu] : NULL;
}
#else
/* this CPU's context, or NULL while there are none: one per-CPU load */
DECLARE_PER_CPU(struct tap_context *, tap_context_of_cpu);
static __always_inline struct tap_context *tap_this_context(void)
{
	return this_cpu_read(tap_context_of_cpu);
}
#endif
extern atomic_t tap_skipped_running;
void tap_context_busy(int state);
void tap_context_exit_slow(struct tap_context *c);
#ifdef TAP_OVERLOAD
void tap_overload_interval(struct tap_context *c, u64 now);
#endif

TAP_HOT struct tap_context *tap_context_enter(const char *probe_point, int state)
{
	struct tap_context *c;

	preempt_disable();
	/* A hit while the session starts or stops is not lost data: the
	 * script is not running yet (or any more), so it is not counted. */
	if (unlikely(tap_session_state() != state))
		goto skip;
	c = tap_this_context();
	if (unlikely(!c))
		goto skip;
	/*
	 * The context is this CPU's and preemption is off, so only an
	 * interrupt or NMI on this CPU can come in between the test and the
	 * store, and it has run to its end (busy back to 0) before this
	 * code goes on: a plain load and store do what a locked cmpxchg
	 * did, without its cost on every hit.  barrier(): the compiler
	 * keeps the store before the context is filled in.
	 */
	if (unlikely(atomic_read(&c->busy))) {
		tap_context_busy(state);
		goto skip;
	}
	atomic_set(&c->busy, 1);
	barrier();
	c->state = state;
	c->probe_point = probe_point;
	c->probe_name = probe_point;
	c->probe_type = "";
	c->regs = NULL;
	c->user_regs = NULL;
	c->is_return = false;
	c->entry_sp = 0;
	c->nesting = 0;
	c->aborted = false;
	c->actions = 0;
	/* begin/end run with interrupts on, as stap's larger limit assumes */
	c->action_limit = state == TAP_STATE_RUNNING ? MAXACTION : MAXACTION_INTERRUPTIBLE;
	c->last_error = NULL;
	c->last_stmt = NULL;
	c->locks_held = 0;
	c->iter_scratch_used = 0;
	c->re_matched = false;
#ifdef TAP_OVERLOAD
	c->ovl_start = tap_arch_cycles();	/* last: the handler starts now */
#endif
	return c;
skip:
	preempt_enable();
	return NULL;
}

TAP_HOT void tap_context_exit(struct tap_context *c)
{
	/* this handler's output as one record (if it printed) */
	if (tap_output_pending())
		tap_commit();
	/* an error to report, or more probes skipped (on any CPU) than
	 * MAXSKIPPED: context.c */
	if (unlikely(c->last_error ||
		     atomic_read(&tap_skipped_running) > MAXSKIPPED))
		tap_context_exit_slow(c);
#ifdef TAP_OVERLOAD
	/*
	 * The overload guard, at the end of each handler of the running
	 * script (begin, end and error probes run once and are not
	 * counted): the time since tap_context_enter() is added to this
	 * CPU's sum; once an interval has passed since this CPU's window
	 * opened, tap_overload_interval() judges the sum.  All per CPU (the
	 * context is this CPU's, preemption is off): two clock reads, an add
	 * and a compare, no lock and no shared cache line.
	 */
	if (c->state == TAP_STATE_RUNNING) {
		u64 now;
#ifdef TAP_BENCH_OVERLOAD_REPEAT
		/* bench/overload only: the guard's work (both clock reads and
		 * the account) done this many times a hit, so that its cost
		 * stands out of the noise of a run under TCG */
		for (int k = 1; k < TAP_BENCH_OVERLOAD_REPEAT; k++) {
			u64 start = tap_arch_cycles();

			now = tap_arch_cycles();
			c->ovl_sum += now - start;
			if (unlikely((s64)(now - c->ovl_window) > (s64)STP_OVERLOAD_INTERVAL))
				tap_overload_interval(c, now);
		}
#endif
		now = tap_arch_cycles();
		c->ovl_sum += now - c->ovl_start;
		if (unlikely((s64)(now - c->ovl_window) > (s64)STP_OVERLOAD_INTERVAL))
			tap_overload_interval(c, now);
	}
#endif
	barrier();	/* the handler's last use of the context comes first */
	atomic_set(&c->busy, 0);
	preempt_enable();
}

__printf(2, 3) void tap_error(struct tap_context *c, const char *fmt, ...);
void tap_error_clear(struct tap_context *c);

/* Frames: TAP_FRAME_SIZE is defined by the generated code. */
#define TAP_FRAME_STRIDE(sz) (((sz) + 15) & ~(size_t)15)
#define TAP_FRAME(c, type) \
	((type *)((c)->frames + (size_t)(c)->nesting * TAP_FRAME_STRIDE(TAP_FRAME_SIZE)))

static inline int tap_action(struct tap_context *c, long n)
{
	c->actions += n;
	if (unlikely(c->actions > c->action_limit)) {
		tap_error(c, "MAXACTION exceeded");
		return -1;
	}
	return 0;
}

static inline int tap_call_enter(struct tap_context *c)
{
	if (unlikely(c->nesting >= MAXNESTING)) {
		tap_error(c, "MAXNESTING exceeded");
		return -1;
	}
	c->nesting++;
	return 0;
}

static inline void tap_call_exit(struct tap_context *c)
{
	c->nesting--;
}

/*
 * The per-CPU locks of a statistics global, one word per CPU: CPU i's is
 * at base + i * stride, on a cache line no other CPU's lock or data
 * shares.  A handler whose only use of the global is `<<<` takes none of
 * the global's rwlock: its lock table takes its own CPU's word, one
 * uncontended atomic on a line only its CPU writes.  A handler that reads
 * the global (@count, foreach, delete, print of a histogram ...) takes
 * the global's write lock and then every CPU's word, marked with its own
 * CPU (TAP_CPU_READER), as a big-reader lock's writer does: while it
 * runs no `<<<` adds anywhere, so `x = @count(c); delete c` loses no add,
 * as with one lock.  The words are taken with trylock, MAXTRYLOCK times,
 * like the global locks, at handler entry with them: a hit that cannot
 * have its word is skipped whole (a lock skip).  tap_cpu_trylock() at the
 * add is the safety net for an add outside any lock table.
 */
struct tap_cpu_locks {
	char *base;
	size_t stride;
	/* counters: move every CPU's part into the global, run by a reader
	 * once it holds every word (NULL for statistics, merged at each read) */
	void (*fold)(struct tap_cpu_locks *pl);
};

/* The values of a word: 0 free, 1 an add outside any lock table, or the
 * CPU of the handler whose lock table holds it: every CPU's word
 * (READER) or only its own (OWNER). */
#define TAP_CPU_READER(cpu) ((int)(cpu) + 2)
#define TAP_CPU_OWNER(cpu) (-(int)(cpu) - 2)

/* (macros: context.c uses them, and this header's inlines call context.c) */
#define tap_cpu_lock_of(pl, cpu) ((atomic_t *)((pl)->base + (size_t)(cpu) * (pl)->stride))
#define tap_cpu_release(l) atomic_set_release((l), 0)

/* 0: taken (release it); 1: this handler's lock table took this CPU's
 * word already, 2: and every other CPU's (do not release either);
 * < 0: skip the rest of the hit. */
int tap_cpu_trylock(struct tap_context *c, atomic_t *l);
int tap_cpu_lock_others(struct tap_context *c, struct tap_cpu_locks *pl, int own);
void tap_cpu_unlock_others(struct tap_cpu_locks *pl);

/*
 * One global's lock as a handler needs it; pass 3 sorts by global index.
 * `cpu` (statistics globals) points to the global's struct tap_cpu_locks *,
 * set when the global is created: with `lock`, the handler reads the
 * global and takes every CPU's word after the write lock; without (NULL),
 * it only adds to the global and takes this CPU's word, in the global's
 * order among its other locks.  All or none, in one order: two handlers
 * that read and add to each other's globals cannot wait for each other
 * mid-handler, and a skipped hit runs none of its statements.
 */
struct tap_lock_req {
	rwlock_t *lock;
	bool write;
	struct tap_cpu_locks *const *cpu;
};

/* context.c: a global's rwlock (and, for a reader of a statistics
 * global, every CPU's word), with retries; this CPU's word when its first
 * try failed; giving up after req[0..i-1] were taken; one release */
bool tap_lock_one(const struct tap_lock_req *r);
bool tap_cpu_lock_own(const struct tap_cpu_locks *pl);
int tap_lock_failed(const struct tap_lock_req *req, int i);
void tap_unlock_one(const struct tap_lock_req *r);

/*
 * All or nothing, in the order given (by global index): a handler never
 * waits while holding a lock, so there is no deadlock, only a skipped hit.
 * Inline: the table is a static const array of the handler, so the
 * compiler unrolls the loop and keeps, for a global the handler only
 * adds to, one try of this CPU's word (one uncontended cmpxchg) in line.
 */
TAP_HOT int tap_lock_globals(struct tap_context *c,
					    const struct tap_lock_req *req, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		bool ok;

		if (!req[i].lock) {
			unsigned int cpu = smp_processor_id();
			atomic_t *l = tap_cpu_lock_of(*req[i].cpu, cpu);

			ok = (atomic_read(l) == 0 &&
			      atomic_cmpxchg(l, 0, TAP_CPU_OWNER(cpu)) == 0) ||
			     tap_cpu_lock_own(*req[i].cpu);
		} else {
			ok = tap_lock_one(&req[i]);
		}
		if (unlikely(!ok))
			return tap_lock_failed(req, i);
	}
	c->locks_held = 1;
	return 0;
}

TAP_HOT void tap_unlock_globals(struct tap_context *c,
					       const struct tap_lock_req *req, int n)
{
	if (!c->locks_held)
		return;
	while (n-- > 0) {
		if (!req[n].lock)
			tap_cpu_release(tap_cpu_lock_of(*req[n].cpu, smp_processor_id()));
		else
			tap_unlock_one(&req[n]);
	}
	c->locks_held = 0;
}

/*
 * Arithmetic with stap semantics.  + - * wrap in two's complement (stap
 * does not trap them).  Division and modulo by zero are errors; the one
 * overflowing quotient, INT64_MIN / -1, wraps to INT64_MIN (remainder 0)
 * instead of trapping the CPU.  Shift counts are masked to 0..63, which is
 * what the generated C of stap does on x86-64 (assumption, see report).
 */
static inline int64_t tap_add(int64_t a, int64_t b) { return (int64_t)((u64)a + (u64)b); }
static inline int64_t tap_sub(int64_t a, int64_t b) { return (int64_t)((u64)a - (u64)b); }
static inline int64_t tap_mul(int64_t a, int64_t b) { return (int64_t)((u64)a * (u64)b); }
static inline int64_t tap_neg(int64_t a) { return (int64_t)(0 - (u64)a); }
static inline int64_t tap_shl(int64_t a, int64_t n) { return (int64_t)((u64)a << (n & 63)); }
static inline int64_t tap_shr(int64_t a, int64_t n) { return a >> (n & 63); }

static inline int tap_div(struct tap_context *c, int64_t a, int64_t b, int64_t *r)
{
	if (unlikely(b == 0)) {
		tap_error(c, "division by 0");
		return -1;
	}
	if (unlikely(b == -1)) {
		*r = tap_neg(a);
		return 0;
	}
	*r = div64_s64(a, b);
	return 0;
}

static inline int tap_mod(struct tap_context *c, int64_t a, int64_t b, int64_t *r)
{
	if (unlikely(b == 0)) {
		tap_error(c, "division by 0");
		return -1;
	}
	if (unlikely(b == -1)) {
		*r = 0;
		return 0;
	}
	*r = a - div64_s64(a, b) * b;
	return 0;
}

#endif /* TAP_CONTEXT_H */
