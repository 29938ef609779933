/* elab.h - what the files of pass 2 (resolve.c, types.c, optimize.c,
 * tapsets.c) share.  Not for other passes: they see the Program only. */
#ifndef TAPC_ELAB_H
#define TAPC_ELAB_H

#include "passes.h"
#include "families/probes.h"

/* ---- tapsets.c: the tapset index and lazy loading ---- */

/* Tapset files that define a function / global / alias NAME.  The
 * returned vector holds path strings (interned); NULL when none. */
const Vec *tapset_files_for_function(const char *name);
const Vec *tapset_files_for_global(const char *name);
/* Every alias name (dotted text) the tapsets define, with its files. */
int tapset_alias_count(void);
const char *tapset_alias_name(int i);
const Vec *tapset_alias_files(int i);
/* Parse a tapset file once (NULL when it has errors: reported as a
 * warning naming the file).  The second call returns NULL too, but with
 * *fresh false. */
Stapfile *tapset_load(const char *path, bool *fresh);
/* Every tapset file on the search path, in precedence order. */
const Vec *tapset_all_files(void);

/* ---- resolve.c: the driver and helpers for the others ---- */

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

/* Call fn on every child slot of n (slots may hold NULL: skip those). */
void for_each_child(Node *n, void (*fn)(Node **slot, void *ctx), void *ctx);
Node *copy_node(Node *n);
Vec *elab_global_pool(void);   /* every global loaded, in load order */
bool is_func_next_capable(Func *f);
const char *var_kind_name(Var *v);

/* ---- optimize.c ---- */

/* Fold @defined, constant conditions; with optimisation, drop
 * side-effect-free statements and dead stores.  Runs before types. */
void optimize_before_types(void);
/* Drop unused functions, globals, locals; warn about them. */
void optimize_after_types(void);
bool has_side_effects(Node *n);

/* ---- types.c ---- */

void infer_types(void);

#endif
