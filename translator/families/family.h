/* family.h - what a probe family is, and the helper library the family
 * files share.
 *
 * A family is one ProbeFamily value, defined in its own file
 * (families/NAME.c) and listed in table.c: its name, the shapes of the
 * points it accepts (in the small spec language described in shapes.c),
 * its resolve function (pass 2) and its code generator (pass 3).
 * registry.c matches a point against every shape; the family's resolve
 * function only ever sees a point whose component names are concrete and
 * whose arguments have the kinds its shapes ask for, so it is left with
 * checking values, finding the candidates and leaving in
 * ResolvedPoint.data what its generator needs (a type private to the
 * family file).
 *
 * The helpers declared below (helpers.c, near.c, wildcard.h) are all a
 * family calls of families/ outside its own files, besides dipoints.h and
 * emit_glue.h: never the table, the shapes or registry.c, which are above
 * the families.
 *
 * Pass 2 code sees this header only, not pass 3's: the generator hooks
 * name pass 3's types through the declarations below, and a family file
 * that writes code includes emit_glue.h (pass 3's API) itself.
 */
#ifndef TAPC_PROBES_FAMILY_H
#define TAPC_PROBES_FAMILY_H

#include "probes.h"
#include "debuginfo/debuginfo.h"

/* pass 3's types (emit.h) */
typedef struct Emitter Emitter;
typedef struct EmitProbe EmitProbe;
typedef struct FamilyCode FamilyCode;

/* The families whose probes pass 3 runs itself at a moment of the
 * session (begin_end.c) instead of through family glue. */
typedef enum SessionEvent {
	SESSION_NONE,           /* an ordinary family: its generator's glue */
	SESSION_BEGIN, SESSION_END, SESSION_ERROR,
	SESSION_NEVER,          /* never runs: no code at all */
} SessionEvent;

/* Where a point's handler runs, as debug information sees it: what the
 * debug_point hook below gives pass 2's general files. */
typedef struct DebugPoint {
	const DiFunction *func; /* the function or inlined instance it is in */
	uint64_t pc;            /* its address in module's file */
	bool at_entry;          /* the probe is on the function's entry */
	const char *module;     /* NULL: the kernel; a module's name; a
				 * user-space object's path (DI_USER) */
} DebugPoint;

struct ProbeFamily {
	const char *name;                 /* for messages: "timer", "kprobe" */
	const char *const *shapes;        /* spec lines, NULL-terminated */
	/* More spec lines, of points pass 2 accepts but pass 3 cannot
	 * translate yet (--dump-probe-types marks them), or NULL. */
	const char *const *untranslatable_shapes;
	/* Resolve one point that fits a shape; same contract as
	 * probe_family_resolve (count, 0, or -1 after an error). */
	int (*resolve)(const ProbeFamily *fam, ProbePoint *pp, Vec *out);

	/* ---- pass 3 (the contract is in emit.h) ---- */
	SessionEvent session;
	/* The code of the family's probes (all of them, in module order),
	 * before the probe bodies (includes, argument structs: anything the
	 * ctx_expr expressions name) and after them (callbacks, tables,
	 * start/stop functions named in *out).  False after reporting an
	 * error.  Both NULL (and session SESSION_NONE): the family cannot be
	 * translated yet, and --dump-probe-types says so. */
	bool (*emit_decls)(Emitter *e, EmitProbe **probes, int n);
	bool (*emit_code)(Emitter *e, EmitProbe **probes, int n,
			  FamilyCode *out);
	/* The C expression for context variable v (emit.h:
	 * family_ctx_expr), or NULL; NULL hook: none. */
	const char *(*ctx_expr)(const EmitProbe *ep, const CtxVar *v, bool write);
	/* True when the family runs an @entry saver for this return probe;
	 * NULL hook: never. */
	bool (*supports_entry)(const ResolvedPoint *rp);

	/* ---- for pass 3's kernel line tables (emit/lines.c), so that it
	 * names no family ---- */
	/* The out-of-line kernel function debug information placed rp's
	 * code in, and its module (NULL: the kernel itself); false when
	 * there is none.  NULL hook: the family's points have none. */
	bool (*kernel_function_of)(const ResolvedPoint *rp, const char **module,
				   const DiFunction **func);

	/* ---- what pass 2's general files (dvars.c, ctxvars.c,
	 * optimize.c) ask of a family's points, so that they name no
	 * family; NULL or false: the family has none of it ---- */
	/* Fill *out with what the family knows of where rp's handler runs
	 * (module, pc) and return true when debug information placed it in
	 * a function (out->func, and at_entry): its $variables are then
	 * that function's at pc. */
	bool (*debug_point)(const ResolvedPoint *rp, DebugPoint *out);
	/* A point debug_point does not place has no $variables but its
	 * ctx_vars and $return (read from the registers): the family asked
	 * its DWARF and BTF while resolving it. */
	bool debug_vars_only;
	/* A needs_debuginfo point's $$vars are its ctx_vars, as far as they
	 * are known (a tracepoint whose prototype is not known), not
	 * variables debug information would give. */
	bool deferred_vars_are_ctx;
};

/* ---- reading a matched point ---- */

/* The first component called `name` (interned or not), or NULL. */
ProbePointComp *pp_comp(ProbePoint *pp, const char *name);
bool pp_has(ProbePoint *pp, const char *name);
/* Argument values; the shape guarantees the kind. */
int64_t comp_num(const ProbePointComp *c);
const char *comp_str(const ProbePointComp *c);
bool comp_is_str(const ProbePointComp *c);
/* The index of the first component called `name`, or -1. */
int pp_comp_index(ProbePoint *pp, const char *name);
/* "timer.ms(10).randomize(2)" (arena) */
const char *pp_text(ProbePoint *pp);
/* The dotted names up to and including comp i: "timer.ms" */
const char *pp_names_upto(ProbePoint *pp, int i);

/* ---- building results ---- */

/* A copy of pp whose component `i` has a new string argument (a wildcard
 * expanded to one candidate). */
ProbePoint *pp_with_str(ProbePoint *pp, int i, const char *value);
/* The same with a number argument. */
ProbePoint *pp_with_num(ProbePoint *pp, int i, int64_t value);
/* Append a resolved point and return it for the family to fill. */
ResolvedPoint *rp_push(Vec *out, const ProbeFamily *fam, ProbePoint *pp);
CtxVar *rp_var(ResolvedPoint *rp, const char *name, Type type,
	       const char *ctype);

/* True when the point may resolve to nothing without an error. */
static inline bool pp_is_optional(const ProbePoint *pp)
{
	return pp->optional || pp->sufficient;
}

/* "Did you mean": while resolving a point whose plain name matched no
 * candidate, a family offers each candidate name it knows; the close ones
 * (by edit distance, as for alias names) are kept, as pp with component
 * comp's argument replaced by arg.  probe_family_similar() gives them to
 * pass 2's "no match" message. */
void family_near_miss(ProbePoint *pp, int comp, const char *want,
		      const char *name, const char *arg);
/* Whether anyone will read pp's suggestions: not for an optional point
 * (matching nothing is no error there) nor while messages are only
 * counted (a point a wildcard made up, a '?' point's inside).  A family
 * checks it before a scan of many names. */
bool family_near_wanted(const ProbePoint *pp);
/* The length test family_near_miss() starts with: whether name can be
 * near want at all (cheap; for a filter before a costlier one). */
bool family_near_length(const char *want, const char *name);

/* -l resolves its points as optional, which hides errors; a family that
 * cannot list the candidates of a wildcard (what: the argument) says why
 * with this warning, once per reason. */
void family_cannot_list(Loc loc, const char *what, const char *why);

#endif
