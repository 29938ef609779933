/* pointdata.h - what a family's resolve function leaves in
 * ResolvedPoint.data for pass 3 (the emit_*.c files read it).
 *
 * Pass 2 (begin_end.c, timer.c, kernel_function.c, kprobe.c, hwbreak.c,
 * tracepoint.c) fills these; the code generators
 * (emit_timer.c, emit_kprobe.c, emit_trace.c) only read them, so a point is
 * never parsed twice.
 */
#ifndef TAPC_PROBES_POINTDATA_H
#define TAPC_PROBES_POINTDATA_H

#include "family.h"

/* begin/end/error: the sequence number (0 when not given). */
typedef struct SessionPointData {
	int64_t sequence;
} SessionPointData;

/* Timers.  Interval timers count in nanoseconds; jiffies timers in
 * jiffies; hz timers in events per second; profile timers run on every
 * tick (hz = 0) or at a frequency. */
typedef enum TimerKind {
	TIMER_INTERVAL, TIMER_JIFFIES, TIMER_HZ, TIMER_PROFILE_TICK,
	TIMER_PROFILE_FREQ
} TimerKind;

typedef struct TimerData {
	TimerKind kind;
	int64_t interval;       /* ns, jiffies, or hz */
	int64_t randomize;      /* same unit, 0 when none */
} TimerData;

/* The kernel families: kernel.function, module().function, kprobe.*,
 * kernel.statement, kernel.data. */
typedef struct KernelPointData {
	const char *module;     /* NULL for the kernel itself */
	const char *function;   /* function or symbol name, or NULL */
	int64_t address;        /* statement(N) / data(N) */
	int64_t maxactive;      /* -1 when not given */
	int64_t length;         /* kernel.data length, 0 when not given */
} KernelPointData;

/* Shared by kernel_function.c (which defines them) and kprobe.c. */
int comp_index(ProbePoint *pp, const char *name);
bool blocked_function(const char *name);
int check_maxactive(ProbePoint *pp, KernelPointData *d);
int need_guru(ProbePoint *pp, const char *what);
Vec expand_modules(ProbePointComp *mc, bool *unknown, int *err);

/* kernel.trace: one TP_PROTO argument. */
typedef struct TraceArg {
	const char *name, *ctype;
} TraceArg;

typedef struct TraceEvent {
	const char *system, *name;   /* interned; system may be NULL */
	Vec args;                    /* TraceArg *; valid when have_args */
	bool have_args;
	bool odd_args;               /* an argument was left out of args
				      * (unnamed, array or function pointer):
				      * the prototype is not known */
	const char *header;          /* the header that declares it, or NULL */
} TraceEvent;

#endif
