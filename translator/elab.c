/* elab.c - pass 2, the driver and its state: load the tapsets the script
 * reaches, expand probe aliases into concrete probes (derive.c), bind
 * every name (resolve.c), check context variables (ctxvars.c), then let
 * optimize.c and types.c finish.
 *
 * Order matters and follows what scripts expect of stap: names are bound
 * first; then @defined is decided and, unless -u, code without effect is
 * dropped; only what is left is checked for context variables and types
 * (so a dropped "$nosuchvar" or a dead "b + 2" is no error).
 */
#include "elab.h"

#include <stdlib.h>
#include <string.h>

Elab elab;

/* Everything loaded so far, user files first. */
Vec func_pool, global_pool, alias_pool;
Vec pending_probes;     /* Probe *: plain probes still to derive */
Vec func_queue;         /* Func *: bodies still to resolve */
Vec loaded_names;       /* names whose tapset files are loaded */
int quiet_depth, quiet_errors;
int hard_total, hard_pending;  /* errors '?' does not hide */

/* ---- small helpers ---- */

bool vec_has(Vec *v, void *p)
{
	for (int i = 0; i < v->len; i++)
		if (vec_get(v, i) == p)
			return true;
	return false;
}

bool name_loaded(const char *kind_name)
{
	if (vec_has(&loaded_names, (void *)kind_name))
		return true;
	vec_push(&loaded_names, (void *)kind_name);
	return false;
}

/* Errors while resolving an optional point ("?") are not errors: they
 * only mean the point resolves to nothing.  Each level keeps its own
 * count, so an inner optional point's errors drop that point alone, not
 * every point of the optional points around it. */
#define QUIET_MAX 256
static int quiet_saved[QUIET_MAX];

void quiet_begin(void)
{
	if (quiet_depth < QUIET_MAX)
		quiet_saved[quiet_depth] = error_count;
	if (quiet_depth++ == 0) {
		quiet_errors = error_count;
		diag_set_quiet(true);
	}
}

bool quiet_end(void)   /* true when errors happened inside */
{
	--quiet_depth;
	int saved = quiet_depth < QUIET_MAX ? quiet_saved[quiet_depth] : quiet_errors;
	bool errs = error_count != saved;
	error_count = saved;
	if (quiet_depth == 0) {
		diag_set_quiet(false);
		error_count = quiet_errors + hard_pending;
		hard_pending = 0;
	}
	return errs;
}

/* Report an error even inside a '?' point: a broken alias definition is
 * wrong whether or not the point is optional. */
void hard_error_at(Loc loc, const char *msg)
{
	if (quiet_depth)
		diag_set_quiet(false);
	error_at(loc, "%s", msg);
	if (quiet_depth) {
		diag_set_quiet(true);
		hard_pending++;
	}
	hard_total++;
}

const char *var_kind_name(Var *v)
{
	switch (v->scope) {
	case VS_GLOBAL: return _("global");
	case VS_PARAM: return _("parameter");
	default: return _("local");
	}
}

Node *block_of(Loc loc, Node *a, Node *b)
{
	Node *blk = node_new(N_BLOCK, loc);
	blk->synthetic = true;
	if (a)
		vec_push(&blk->stmts, a);
	if (b)
		vec_push(&blk->stmts, b);
	return blk;
}

/* ---- loading files ---- */

static void add_file(Stapfile *f)
{
	vec_push(&elab.prog->files, f);
	for (int i = 0; i < f->funcs.len; i++) {
		Func *fn = vec_get(&f->funcs, i);
		fn->file = fn->file ? fn->file : f->src;
		fn->from_tapset = f->is_tapset;
		vec_push(&func_pool, fn);
	}
	for (int i = 0; i < f->globals.len; i++) {
		Var *v = vec_get(&f->globals, i);
		v->file = v->file ? v->file : f->src;
		v->from_tapset = f->is_tapset;
		v->scope = VS_GLOBAL;
		/* usage decides scalar or array; global a[N] is an array */
		v->arity = -1;
		for (int j = 0; j < global_pool.len; j++) {
			Var *o = vec_get(&global_pool, j);
			if (o->name == v->name && o->file == v->file)
				error_at(v->loc, _("duplicate global variable '%s' "
						   "(first declared at %d:%d)"),
					 v->name, o->loc.line, o->loc.col);
		}
		vec_push(&global_pool, v);
	}
	for (int i = 0; i < f->aliases.len; i++) {
		Probe *a = vec_get(&f->aliases, i);
		a->file = a->file ? a->file : f->src;
		a->from_tapset = f->is_tapset;
		vec_push(&alias_pool, a);
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *pp = vec_get(&a->alias_names, j);
			for (int k = 0; k < pp->comps.len; k++) {
				ProbePointComp *c = vec_get(&pp->comps, k);
				if (strchr(c->name, '*'))
					error_at(c->loc, _("probe alias name '%s' may not "
							   "contain wildcards"),
						 probe_point_text(pp));
			}
		}
	}
	for (int i = 0; i < f->probes.len; i++) {
		Probe *p = vec_get(&f->probes, i);
		p->file = p->file ? p->file : f->src;
		p->from_tapset = f->is_tapset;
		vec_push(&pending_probes, p);
	}
}

void load_tapset_files(const Vec *paths)
{
	for (int i = 0; paths && i < paths->len; i++) {
		bool fresh;
		Stapfile *f = tapset_load(vec_get(paths, i), &fresh);
		if (f && fresh)
			add_file(f);
	}
}

/* ---- the resolution loop ---- */

static int bound_probes;

Scope *new_scope(Probe *p, Func *f)
{
	Scope *sc = NEW(Scope);
	sc->probe = p;
	sc->func = f;
	sc->locals = p ? &p->locals : &f->locals;
	sc->file = p ? p->file : f->file;
	sc->rp = p ? p->rp : NULL;
	sc->from_tapset = p ? p->from_tapset : f->from_tapset;
	return sc;
}

void bind_pending(void)
{
	for (;;) {
		if (pending_probes.len) {
			Probe *p = vec_get(&pending_probes, 0);
			memmove(pending_probes.data, pending_probes.data + 1,
				sizeof(void *) * --pending_probes.len);
			derive_probe(p);
			continue;
		}
		if (bound_probes < derived.len) {
			Derived *dv = vec_get(&derived, bound_probes++);
			Scope *sc = new_scope(dv->probe, NULL);
			vec_push(&elab.scopes, sc);
			ProbePoint *cp = vec_get(&dv->probe->points, 0);
			if (cp->condition)
				check_condition_node(&cp->condition, sc);
			bind_scope(sc, dv->probe->body);
			continue;
		}
		if (func_queue.len) {
			Func *f = vec_get(&func_queue, 0);
			memmove(func_queue.data, func_queue.data + 1,
				sizeof(void *) * --func_queue.len);
			for (int i = 0; i < f->params.len; i++) {
				Var *v = vec_get(&f->params, i);
				v->scope = VS_PARAM;
				v->arity = 0;
				v->file = f->file;
			}
			Scope *sc = new_scope(NULL, f);
			vec_push(&elab.scopes, sc);
			bind_scope(sc, f->body);
			continue;
		}
		break;
	}
}

/* ---- the entry point ---- */

void init_program(Vec *user_files)
{
	memset(&elab, 0, sizeof elab);
	elab.prog = NEW(Program);
	for (int i = 0; i < user_files->len; i++)
		add_file(vec_get(user_files, i));
	if (sess.unoptimized)
		for (int i = 0; i < func_pool.len; i++)
			queue_func(vec_get(&func_pool, i));
}

static void collect_program(void)
{
	Program *prog = elab.prog;
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (sc->probe)
			vec_push(&prog->probes, sc->probe);
		else if (sc->func->used)
			vec_push(&prog->funcs, sc->func);
	}
	for (int i = 0; i < global_pool.len; i++) {
		Var *v = vec_get(&global_pool, i);
		if (v->read || v->written || (sess.unoptimized && !v->from_tapset))
			vec_push(&prog->globals, v);
	}
	for (int i = 0; i < prog->files.len; i++) {
		Stapfile *f = vec_get(&prog->files, i);
		for (int j = 0; j < f->embeds.len; j++)
			vec_push(&prog->embeds, vec_get(&f->embeds, j));
	}
}

Vec *elab_global_pool(void)
{
	return &global_pool;
}

Program *elaborate(Vec *user_files)
{
	init_program(user_files);
	bind_pending();
	if (error_count)
		return NULL;
	optimize_before_types();
	if (error_count)
		return NULL;
	check_contexts();
	check_foreach_all();
	if (error_count)
		return NULL;
	infer_types();
	if (error_count)
		return NULL;
	optimize_after_types();
	if (error_count)
		return NULL;
	collect_program();
	if (!elab.prog->probes.len && !elab.listing) {
		error_plain(_("no probes found"));
		return NULL;
	}
	return elab.prog;
}

