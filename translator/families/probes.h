/* probes.h - probe-point families.
 *
 * A family is one kind of probe point (begin, timer.ms(N),
 * kernel.function("f").return, ...).  Pass 2 first expands aliases from the
 * tapsets; every point left must then match a family here.  A family checks
 * the point's syntax (component names, which take a number or a string),
 * expands wildcards where it can list the candidates (tracepoints, symbol
 * names), and says which context variables ($name) the probe can read.
 * Pass 3 later asks the family to emit its registration code.
 */
#ifndef TAPC_PROBES_H
#define TAPC_PROBES_H

#include "../ast.h"
#include "../wildcard.h"

typedef struct ProbeFamily ProbeFamily;

/* A context variable a probe handler can read as $name. */
typedef struct CtxVar {
	const char *name;       /* without the '$' */
	Type type;              /* TY_LONG or TY_STRING as a script sees it */
	const char *ctype;      /* C type text when known (for @cast/->), or NULL
				 * (always NULL for scalar ones) */
	bool writable;          /* may be assigned (procfs read $value, ...) */
	bool write_only;        /* may not be read (procfs read $value) */
	bool appendable;        /* TY_STRING, writable: its write buffer has
				 * MAXSTRINGLEN bytes of room past its text,
				 * so `.=` appends in place (procfs read
				 * $value, which holds .maxsize bytes) */
	bool scalar;            /* no ->member or [index] on it */
	bool guru_only;         /* usable only with -g (netfilter $verdict) */
	bool guru_write;        /* writable only with -g (a .return's $return
				 * placed by symbols: the return register) */
	const char *unreadable; /* why it cannot be read at this point (a use
				 * is an error saying so), or NULL */
	const char *parms_name; /* how $$parms/$$vars name it, when not
				 * "NAME" (SDT marks: "$arg1", as stap), or
				 * NULL */
} CtxVar;

/* One concrete probe a point resolved to. */
typedef struct ResolvedPoint {
	const ProbeFamily *family;
	ProbePoint *point;      /* concrete: wildcards expanded, arguments literal */
	Vec ctx_vars;           /* CtxVar * available in the handler */
	bool is_return;         /* .return probes: $return and @entry allowed */
	bool needs_debuginfo;   /* recognised, but full resolution is deferred:
				 * ctx_vars then lists only what is known
				 * without DWARF, and other $vars may exist */
	bool user_space;        /* the handler runs for a user process (its
				 * target expressions read user memory; it
				 * may read perf counters with @perf) */
	const char *program;    /* the program the probe is bound to (a
				 * process probe, a perf .process), or NULL
				 * for any */
	const char *user_object; /* the user-space file the probe's code is in
				  * (a process probe's program or library):
				  * the module carries its symbols and unwind
				  * rows (emit/usyms.c), or NULL */
	const char *perf_counter; /* .counter("NAME") of a perf probe: what
				   @perf("NAME") in user_space probes reads */
	void *data;             /* family-specific facts for pass 3 (see the
				 * family's file), or NULL */
	Vec list_vars;          /* with has_list_vars: the " $name:type" parts
				 * -L shows, when they are not those of
				 * ctx_vars (kernel.function: see
				 * add_ctx_vars()) */
	bool has_list_vars;
} ResolvedPoint;

/* Resolve a point that is not an alias against the families.
 * Appends ResolvedPoint * to out and returns how many were added; 0 means
 * no family or no candidate matched (nothing reported: the caller decides,
 * since '?' makes that fine); -1 means an error was reported (bad syntax
 * for a known family, bad argument). */
int probe_family_resolve(ProbePoint *pp, Vec *out);

/* The near misses the families offered while the last
 * probe_family_resolve(pp) found nothing: " (similar: P1, P2)" with up to
 * five probe points, or "" (also for any other pp). */
const char *probe_family_similar(ProbePoint *pp);

/* True when the first n components of the point begin some family's
 * shape (names and argument kinds), whether or not it would resolve. */
bool probe_family_has_prefix(ProbePoint *pp, int n);

/* True when the first component names a family (begin, kernel, timer...),
 * for "did you mean" help in pass 2's messages. */
bool probe_family_known_prefix(const char *first_component);

/* Append to out the first components the families' points start with
 * ("begin", "kernel", "timer" ...; interned, each once, in table order),
 * for "did you mean" help. */
void probe_family_first_names(Vec *out);

/* --dump-probe-types: one family pattern per line, sorted. */
void dump_probe_types(FILE *out);

/* A sequence of components a point is matched against: a family's shape
 * or an alias's name.  name(i) is component i's name; fits(i, c) says
 * whether the argument of the point's component c may stand at i;
 * takes_arg(i) whether component i has an argument. */
typedef struct PointMatcher {
	int n;
	const char *(*name)(void *ctx, int i);
	bool (*fits)(void *ctx, int i, const ProbePointComp *c);
	bool (*takes_arg)(void *ctx, int i);
	void *ctx;
} PointMatcher;

/* Match pp's components against all of m's, the same way for aliases and
 * families: a component without "**" stands for one of m's components; one
 * with "**" for one or more in a row, matched on their dotted names, with
 * its argument going to the last of them.  Returns how many of pp's
 * components were used, or -1.  Without prefix, all of them must be; with
 * prefix the rest is a suffix (alias names), and the match that uses the
 * most is taken.  src (only without prefix) gets, for each of m's
 * components, the point component that stands for it. */
int point_match(ProbePoint *pp, const PointMatcher *m, bool prefix,
		ProbePointComp **src);

/* The context variable $name of a resolved point, or NULL. */
const CtxVar *resolved_ctx_var(const ResolvedPoint *rp, const char *name);

#endif
