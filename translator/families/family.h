/* family.h - what the probe-family files share with registry.c.
 *
 * A family is a table entry: its name, the shapes of the points it accepts
 * (in the small spec language described in registry.c), and a resolve
 * function.  registry.c matches a point against every shape; the family's
 * resolve function only ever sees a point whose component names are
 * concrete and whose arguments have the kinds its shapes ask for, so it is
 * left with checking values and finding the candidates.
 */
#ifndef TAPC_PROBES_FAMILY_H
#define TAPC_PROBES_FAMILY_H

#include "probes.h"
#include "../emit/emit.h"

struct ProbeFamily {
	const char *name;                 /* for messages: "timer", "kprobe" */
	const char *const *shapes;        /* spec lines, NULL-terminated */
	/* Resolve one point that fits a shape; same contract as
	 * probe_family_resolve (count, 0, or -1 after an error). */
	int (*resolve)(const ProbeFamily *fam, ProbePoint *pp, Vec *out);
};

extern const ProbeFamily family_begin, family_end, family_error,
	family_never;                                        /* begin_end.c */
extern const ProbeFamily family_timer;                       /* timer.c */
extern const ProbeFamily family_kernel_dwarf;                /* kernel_function.c */
extern const ProbeFamily family_kernel_data;                 /* hwbreak.c */
extern const ProbeFamily family_kprobe;                      /* kprobe.c */
extern const ProbeFamily family_trace;                       /* tracepoint.c */
extern const ProbeFamily family_process;                     /* process.c */
extern const ProbeFamily family_procfs;                      /* procfs.c */
extern const ProbeFamily family_netfilter;                   /* netfilter.c */
extern const ProbeFamily family_perf;                        /* perf.c */
extern const ProbeFamily family_mark;                        /* mark.c */
extern const ProbeFamily family_java;                        /* java.c */
extern const ProbeFamily family_python;                      /* python.c */

/* ---- reading a matched point ---- */

/* The first component called `name` (interned or not), or NULL. */
ProbePointComp *pp_comp(ProbePoint *pp, const char *name);
bool pp_has(ProbePoint *pp, const char *name);
/* Argument values; the shape guarantees the kind. */
int64_t comp_num(const ProbePointComp *c);
const char *comp_str(const ProbePointComp *c);
bool comp_is_str(const ProbePointComp *c);
/* "timer.ms(10).randomize(2)" (arena) */
const char *pp_text(ProbePoint *pp);
/* The dotted names up to and including comp i: "timer.ms" */
const char *pp_names_upto(ProbePoint *pp, int i);

/* ---- building results ---- */

/* A copy of pp whose component `i` has a new string argument (a wildcard
 * expanded to one candidate). */
ProbePoint *pp_with_str(ProbePoint *pp, int i, const char *value);
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

/* Glob matching of a probe argument (function names, files, modules,
 * tracepoints): * ? [..] as in the shell. */
bool arg_glob_match(const char *pattern, const char *name);
bool arg_has_glob(const char *s);

/* ---- symbol sources (debuginfo/symbols.c) ---- */

/* A sorted, de-duplicated list of names. */
typedef struct NameList {
	const char **names;
	int len;
	const char *source;     /* where it came from, for messages */
} NameList;

bool namelist_has(const NameList *l, const char *name);
/* Fill l from names (sorted, duplicates dropped; names is taken over). */
void namelist_finish(NameList *l, Vec *names);

/* Function symbols of the target kernel proper (no modules), or NULL when
 * no real symbol table is available for it.  Read once, on first use. */
const NameList *kernel_function_symbols(void);
/* Function symbols of a loaded module of the running target, or NULL. */
const NameList *module_function_symbols(const char *module);
/* Module names of the target ('-' folded to '_'), or NULL when unknown. */
const NameList *kernel_module_names(void);
/* True when target_release() is the running kernel. */
bool target_is_running_kernel(void);

/* The path of the target's headers or build tree (for tracepoints), or
 * NULL.  Several folders may hold headers (Debian's -common split), so
 * this returns them in search order. */
const Vec *kernel_header_dirs(void);
/* The kernel tree's arch/ folder name for the target: "x86" for x86_64. */
const char *kernel_arch_dir(void);

/* ---- pass 3: the code generators (emit_*.c) ----
 *
 * A family that can be translated has a line in the table of
 * emit_glue.c naming its generator (the emit.h hooks family_emit,
 * family_ctx_expr and family_supports_entry dispatch through it), so
 * adding one does not touch the ProbeFamily values above.  A generator
 * reads what its resolve function left in ResolvedPoint.data
 * (pointdata.h) and writes the glue described in emit.h; its runtime
 * half is runtime/families/NAME.c.
 */

bool emit_timer_probes(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
		       EmitProbe **probes, int n, FamilyCode *out);
bool emit_kprobe_probes(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
			EmitProbe **probes, int n, FamilyCode *out);
bool kprobe_supports_entry(const ResolvedPoint *rp);
bool emit_kernel_function_probes(Emitter *e, EmitPhase phase,
				 const ProbeFamily *fam, EmitProbe **probes,
				 int n, FamilyCode *out);
const char *kernel_function_ctx_expr(const EmitProbe *ep, const CtxVar *v,
				     bool write);
bool emit_trace_probes(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
		       EmitProbe **probes, int n, FamilyCode *out);
const char *trace_ctx_expr(const EmitProbe *ep, const CtxVar *v, bool write);

/* Shared by the generators (emit_glue.c). */

/* True when a failure to register this probe must not fail the run: the
 * point (or one it was expanded from) was marked '?' or '!'. */
bool emit_point_optional(const ResolvedPoint *rp);
/* True when the point came from a wildcard: a failure to register it is a
 * warning, as one of many candidates may be off limits. */
bool emit_point_from_wildcard(const ResolvedPoint *rp);
/* The registration flags for the runtime tables: "0", "TAP_PROBE_OPTIONAL"
 * ... (see runtime/families/probe_common.h). */
const char *emit_point_flags(const ResolvedPoint *rp);
/* The C statements that fill the public context fields a family knows
 * (regs, user_regs, probe_type, is_return), indented one level. */
void emit_context_fill(Emitter *e, const char *regs, const char *type,
		       bool is_return);

/* ---- user-space programs (process.c) ---- */

/* The absolute path of a program as process("NAME") means it: NAME with
 * a '/' is relative to the working directory, else it is looked up in
 * $PATH; a script stands for its #! interpreter.  NULL NAME means the
 * program of -c CMD (or of the -x PID).  NULL when not found. */
const char *program_path(const char *name);

#endif
