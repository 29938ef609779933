/* elab_state.c - pass 2's shared state and the small helpers every file
 * of it uses: the program being built and its bodies (Elab, Scope), the
 * pools of everything loaded so far and the queues still to work on,
 * loading tapset files into those pools, the levels of '?' points whose
 * errors are only counted, and "did you mean" text.
 *
 * It sits below every other file of pass 2 and calls none of them: the
 * driver (elab.c) and the passes it runs read and fill this state.
 */
#include "elab.h"

#include <string.h>

Elab elab;

/* Everything loaded so far, user files first. */
Vec func_pool, global_pool, alias_pool;
Vec pending_probes;     /* Probe *: plain probes still to derive */
Vec func_queue;         /* Func *: bodies still to resolve */
static Vec loaded_names;        /* names whose tapset files are loaded */
static int quiet_depth, quiet_errors;
int hard_total;                 /* errors '?' does not hide */
static int hard_pending;        /* ... of those, inside the '?' level */

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

/* Up to five near names from `names`, as ", a, b" text (or ""). */
const char *similar_names(const char *name, Vec *names)
{
	StrBuf sb = { 0 };
	/* a near miss, not any short name: one edit in up to 6 bytes, two
	 * in up to 12, three beyond (d_name is not a misspelt tz_name) */
	size_t len = strlen(name);
	int found = 0, limit = len <= 6 ? 1 : len <= 12 ? 2 : 3;
	for (int dist = 1; dist <= limit && found < 5; dist++)
		for (int i = 0; i < names->len && found < 5; i++) {
			const char *c = vec_get(names, i);
			if (c != name && edit_distance_swaps(name, c) == dist) {
				sb_printf(&sb, "%s%s", found ? ", " : "", c);
				found++;
			}
		}
	const char *r = found ? xsprintf(" (similar: %s)", sb_cstr(&sb)) : "";
	sb_free(&sb);
	return r;
}

/* ---- errors inside '?' points ---- */

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

/* A new program made of the user's files. */
void elab_state_init(Vec *user_files)
{
	memset(&elab, 0, sizeof elab);
	elab.prog = NEW(Program);
	for (int i = 0; i < user_files->len; i++)
		add_file(vec_get(user_files, i));
}

/* ---- bodies ---- */

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

Vec *elab_global_pool(void)
{
	return &global_pool;
}
