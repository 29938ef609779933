/* elab.h - what the files of pass 2 (elab_state.c, elab.c, resolve.c,
 * derive.c, ctxvars.c, dvars.c, listing.c, types.c, optimize.c, format.c)
 * share.  Not for other passes: they see the Program only. */
#ifndef TAPC_ELAB_H
#define TAPC_ELAB_H

#include "passes.h"
#include "families/probes.h"
#include "debuginfo/debuginfo.h"
#include "tapsets.h"

/* ---- elab_state.c: the state and helpers every file of pass 2 shares ---- */

/* A probe or function body being elaborated. */
typedef struct Scope {
	Probe *probe;           /* NULL for a function */
	Func *func;             /* NULL for a probe */
	Vec *locals;
	SrcFile *file;
	ResolvedPoint *rp;      /* the probe's family data, or NULL */
	bool from_tapset;
} Scope;

typedef struct Elab {
	Program *prog;
	Vec scopes;             /* Scope *: every body to check */
	bool listing;           /* -l/-L: no optimisation, no "no probes" */
} Elab;

extern Elab elab;

Vec *elab_global_pool(void);   /* every global loaded, in load order */

/* Everything loaded so far, user files first. */
extern Vec func_pool, global_pool, alias_pool;
extern Vec pending_probes;     /* Probe *: plain probes still to derive */
extern Vec func_queue;         /* Func *: bodies still to resolve */
extern int hard_total;         /* errors '?' does not hide */

bool vec_has(Vec *v, void *p);
/* True when kind_name ("f:NAME", ...) was asked before; marks it asked. */
bool name_loaded(const char *kind_name);
const char *similar_names(const char *name, Vec *names);
void quiet_begin(void);
bool quiet_end(void);   /* true when errors happened inside */
void hard_error_at(Loc loc, const char *msg);
void load_tapset_files(const Vec *paths);
/* A fresh elab whose program holds the user's files (their names pooled). */
void elab_state_init(Vec *user_files);
Scope *new_scope(Probe *p, Func *f);

/* ---- elab.c: the driver ---- */

void init_program(Vec *user_files);
void bind_pending(void);

/* ---- resolve.c: name binding ---- */

void check_condition_node(Node **slot, void *ctx);
void bind_scope(Scope *sc, Node *body);
void queue_func(Func *f);
void check_foreach_all(void);

/* ---- derive.c: probe points to probes ---- */

typedef struct Derived {
	Probe *probe;
	const char *list_name;
} Derived;

extern Vec derived;   /* Derived * */

void derive_probe(Probe *p);

/* ---- ctxvars.c: context variables ---- */

/* ---- dvars.c: target expressions typed from DWARF/BTF (tpath.h) ---- */

struct TargetPath;
/* True when rp's variables come from debug information. */
bool rp_has_debug_vars(const ResolvedPoint *rp);
/* $name or $return of n at rp (entry: as at the function's entry); NULL
 * when rp has no debug information or after an error (reported when
 * `report`). */
struct TargetPath *debug_target(ResolvedPoint *rp, Node *n, bool entry, bool report);
struct TargetPath *debug_target_vars(ResolvedPoint *rp, Node *n, bool entry);
/* @cast(...) of n (NULL: no types for its module, or an error). */
struct TargetPath *cast_target(ResolvedPoint *rp, Node *n, bool report);
struct TargetPath *atvar_target(ResolvedPoint *rp, Node *n, bool entry, bool report);
struct TargetPath *typed_ctx_target(ResolvedPoint *rp, Node *n, const char *ctype,
				    bool report);
struct TargetPath *autocast_target(const DiType *t, Node *n, bool report);
/* Whether the debug information for n's module is there (so a NULL
 * cast_target/atvar_target means the type or member does not exist). */
bool cast_types_known(Node *n);
/* Is a TP_VAR path's variable in memory (its location an address)? */
bool location_in_memory(struct TargetPath *tp);
struct TargetPath *ctx_target_vars(ResolvedPoint *rp, Node *n);
bool atvar_types_known(ResolvedPoint *rp, Node *n);

void check_contexts(void);
/* The debug-information type of e's value (through locals, assignments
 * and function returns, as autocast follows it), or NULL. */
const DiType *value_ditype(Scope *sc, Node *e);

/* ---- optimize.c ---- */

/* Fold @defined, constant conditions; with optimisation, drop
 * side-effect-free statements and dead stores.  Runs before types. */
void optimize_before_types(void);
/* Drop unused functions, globals, locals; warn about them. */
void optimize_after_types(void);

/* ---- format.c ---- */

/* TEXT (a printf format) as directives; never NULL.  Errors are not
 * reported here but kept in the result's error field. */
PrintFormat *parse_format(const char *text);

/* ---- types.c ---- */

void infer_types(void);

#endif
