/*
 * tap.h - the runtime API a generated module (pass 3) compiles against.
 *
 * The generated C file defines its limits, includes this header, defines
 * globals, frames, functions and probe handlers, then ends with
 * #include "runtime/tap_runtime.c" (the runtime's code, same translation
 * unit).  Everything below also builds in user space with -DTAP_USER_TEST
 * (see tap_shim_user.h) for the unit tests in testsuite/unit/runtime/.
 *
 * ===================== API summary for pass 3 =====================
 *
 * Conventions: script long = int64_t, script string = char[MAXSTRINGLEN]
 * (NUL-terminated).  Every helper that can raise a script error takes the
 * context `c` first and returns nonzero after setting c->last_error; the
 * caller then does `goto out` (or to its catch label).  tap_error() keeps
 * the first error only.  Before statements that can fail, generated code
 * may set c->last_stmt = "identifier 'x' at f.stp:3:5" (a static string);
 * the error report appends " near <last_stmt>".
 *
 * Handler skeleton:
 *	static void tapp_3(void) {
 *		struct tap_context *c = tap_context_enter("kprobe.function(\"x\")",
 *							 TAP_STATE_RUNNING);
 *		if (!c) return;                  // reentrant, or not running
 *		c->regs = regs; c->probe_name = ...; c->probe_type = "kprobe";
 *		if (tap_lock_globals(c, locks, nlocks)) goto out;  // skipped
 *		struct tap_frame_tapp_3 *l = TAP_FRAME(c, struct tap_frame_tapp_3);
 *		memset(l, 0, sizeof(*l));
 *		if (tap_action(c, 1)) goto out;  // per statement / loop iteration
 *		...
 *	out:	tap_unlock_globals(c, locks, nlocks);
 *		tap_context_exit(c);             // flushes output, reports error
 *	}
 *  begin probes pass TAP_STATE_STARTING, end/error probes TAP_STATE_STOPPING.
 *  Function call:  if (tap_call_enter(c)) goto out; tapf_f(c);
 *                  tap_call_exit(c); if (c->last_error) goto out;
 *  (frames: TAP_FRAME(c, T) is the frame at the current depth c->nesting;
 *  #define TAP_FRAME_SIZE sizeof(union of all frames) before including
 *  tap_runtime.c).  try/catch: on error jump to the catch label, copy
 *  c->last_error if the catch has a variable, then tap_error_clear(c).
 *  A TAP_ABORT sets c->aborted; catch blocks must not catch it.
 *
 * Arithmetic (context.h): tap_div(c,a,b,&r) tap_mod(c,a,b,&r) (division
 *  by zero error; INT64_MIN/-1 wraps), tap_shl(a,n) tap_shr(a,n) (count
 *  masked to 0..63), tap_add/sub/mul wrap (two's complement, no error).
 *
 * Strings (tap_string.h): tap_str_assign(dst,src), tap_str_concat(dst,a,b)
 *  (dst may alias a or b), tap_str_append(dst,src), strcmp() for == < ...,
 *  tap_long_to_str(buf,v), tap_str_to_long(c,s,base,&v), tap_substr(),
 *  tap_text_str(dst,src,quoted).  All bound to MAXSTRINGLEN, truncating.
 *
 * Maps (map.h): keys are `union tap_key k[] = {{.l=1},{.s=str}}`.
 *  at init:  m = tap_map_create(nkeys, key_types, val_type, &hist_spec or
 *            NULL, max_entries (0 = MAXMAPENTRIES), wrap);  tap_map_destroy(m)
 *  long:     tap_map_get_long(m,k)  tap_map_set_long(c,m,k,v)
 *            tap_map_add_long(c,m,k,delta,&new)  (for += ++ etc.)
 *  string:   tap_map_get_str(m,k) (const char *, "" if absent)
 *            tap_map_set_str(c,m,k,s)
 *  stats:    tap_map_stat_add(c,m,k,v) (a[k] <<< v, this CPU's map under
 *            this CPU's word of the global: context.h, tap_cpu_locks);
 *            tap_map_get_stat(m,k,&st) merges all CPUs (under the WRITE
 *            lock and every CPU's word), then tap_stat_extract(c,&st,op,..)
 *  other:    tap_map_exists(m,k)  tap_map_delete(m,k)  tap_map_clear(m)
 *            tap_map_size(m); slices: tap_map_exists_match(m,k,wild)
 *            tap_map_delete_match(m,k,wild), wild = bitmask of '*' keys.
 *  foreach:  struct tap_iter it;  (in the frame)
 *            if (tap_map_iter_begin(c,&it,m,k_or_NULL,wild,sort_col,dir,
 *                                   agg_op,limit)) goto out;
 *            while (tap_map_iter_next(&it)) {
 *                tap_iter_key_long(&it,i) / tap_iter_key_str(&it,i),
 *                tap_iter_long(&it) / tap_iter_str(&it) / tap_iter_stat(&it)
 *                ... } tap_map_iter_end(c,&it);
 *            sort_col: 0 = value, 1..9 = key column; dir: 0 unsorted
 *            (insertion order), 1 ascending, -1 descending; agg_op: for
 *            stats values the TAP_STAT_* aggregate to sort by; limit < 0 =
 *            none.  Deleting (any element) inside the loop is safe; the
 *            iterator skips deleted elements.
 * Scalar statistics (stat.h): s = tap_stat_create(&hist_spec or NULL);
 *  if (tap_stat_add(c, s, v)) goto out;  (this CPU's partial, under its
 *  own lock as a[k] <<< v);  tap_stat_get(s, &st) merges all CPUs; then
 *  tap_stat_extract(c,&st,TAP_STAT_COUNT|SUM|MIN|MAX|AVG|VARIANCE,shift,&v)
 *  ("empty aggregate" error for min/max/avg/variance of nothing);
 *  tap_stat_clear(s); histograms: tap_hist_print(c,&st) (print/println),
 *  tap_hist_sprint(buf,size,&st), tap_hist_nbuckets(&st),
 *  tap_hist_bucket(c,&st,i,&v) (@hist_xxx(v)[i], and foreach buckets).
 *
 * Output (tap_printf.h): tap_print(s), tap_print_n(c,data,len),
 *  tap_printf_spec(c, specs, nspecs, args, nargs)  (pre-parsed format:
 *  pass 3 emits a static const struct tap_fmt_spec[] table, see there),
 *  tap_format_spec(buf,size,specs,...) (sprintf); no script format is
 *  parsed at run time.  tap_printf(fmt, ...) is kernel-printf style (for
 *  embedded C and the generated code's own messages).
 *  Output goes into the transport's per-CPU print buffer; tap_context_exit
 *  commits it as one record (earlier when the buffer fills).
 *
 * Regex (regex.h): static struct tap_regex re; tap_regex_compile(&re,pat)
 *  at module init (returns <0 on a bad pattern);  tap_regex_match(c,&re,s)
 *  is `s =~ pat` and records captures for tap_regex_matched(c,n,buf)
 *  (matched(n)) in the context.
 *
 * From the transport (transport.h; the unit tests provide stand-ins):
 *	tap_session_state(), tap_reserve/unreserve/commit/write/print,
 *	tap_msg_error, tap_count_error, tap_count_skip, tap_exit.
 *	The generated module's tap_on_start() calls tap_contexts_init()
 *	after creating its maps/stats; tap_on_stop() frees them.
 * ===================================================================
 */
#ifndef TAP_H
#define TAP_H

/* Limits: the generated file defines them first; these are stap's defaults. */
#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
#endif
#ifndef MAXNESTING
#define MAXNESTING 10
#endif
#ifndef MAXERRORS
#define MAXERRORS 0
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 1000
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10		/* ns between lock attempts */
#endif
#ifndef MAXTRACE
#define MAXTRACE 20
#endif
#ifndef MAPHASHBIAS
#define MAPHASHBIAS 0
#endif
#ifndef HIST_ELISION
#define HIST_ELISION 2		/* empty buckets kept beside data */
#endif
#ifndef TAP_FOREACH_DEPTH
#define TAP_FOREACH_DEPTH 4	/* nested foreach loops per handler */
#endif

/*
 * The overload guard (context.c): when the handlers on one CPU spend more
 * than STP_OVERLOAD_THRESHOLD cycles of an STP_OVERLOAD_INTERVAL, the
 * script stops with an error.  stap's names, defaults and switches:
 * -DSTP_NO_OVERLOAD (or STAP_NO_OVERLOAD) turns it off.
 */
#ifndef STP_OVERLOAD_INTERVAL
#define STP_OVERLOAD_INTERVAL 1000000000LL
#endif
#ifndef STP_OVERLOAD_THRESHOLD
#define STP_OVERLOAD_THRESHOLD 500000000LL
#endif
#if !defined(STP_NO_OVERLOAD) && !defined(STAP_NO_OVERLOAD)
#define TAP_OVERLOAD 1
#endif

#if MAXSTRINGLEN < 16
#error "MAXSTRINGLEN is too small"
#endif

#ifdef TAP_USER_TEST
#include "tap_shim_user.h"
#else
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/ctype.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/smp.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/spinlock.h>
#include <linux/rwlock.h>
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/delay.h>
#include <linux/uaccess.h>
#include <linux/hardirq.h>
#include <linux/sched/task_stack.h>
#include <asm/ptrace.h>
#include "compat.h"		/* the only reader of TAP_HAVE_* */
#include "arch/arch.h"		/* what differs by architecture */
#endif

#include "context.h"
#include "tap_string.h"
#include "stat.h"
#include "map.h"
#include "tap_printf.h"
#include "regex.h"
#ifndef TAP_USER_TEST
#include "tapset_support.h"
#endif

/* The runtime's one allocator: a test build can fail the n-th. */
#include "alloc.h"

/* Memory access (TAPSET-API); used by %m/%M. */
int tap_read_kernel(void *dst, const void *src, size_t n);
int tap_read_user(void *dst, const void __user *src, size_t n);

#endif /* TAP_H */
