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
struct tap_context *tap_context_enter(const char *probe_point, int state);
void tap_context_exit(struct tap_context *c);
struct tap_context *tap_current_context(void);

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

int tap_lock_globals(struct tap_context *c, const struct tap_lock_req *req, int n);
void tap_unlock_globals(struct tap_context *c, const struct tap_lock_req *req, int n);

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
