/* resolve.c - pass 2, the driver: load the tapsets the script reaches,
 * expand probe aliases into concrete probes, bind every name, then let
 * optimize.c and types.c finish.  Also the -p2 printer and -l/-L.
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
static Vec func_pool, global_pool, alias_pool;
static Vec pending_probes;     /* Probe *: plain probes still to derive */
static Vec func_queue;         /* Func *: bodies still to resolve */
static Vec loaded_names;       /* names whose tapset files are loaded */
static int quiet_depth, quiet_errors;
static int hard_total, hard_pending;  /* errors '?' does not hide */

/* ---- small helpers ---- */

static bool vec_has(Vec *v, void *p)
{
	for (int i = 0; i < v->len; i++)
		if (vec_get(v, i) == p)
			return true;
	return false;
}

static bool name_loaded(const char *kind_name)
{
	if (vec_has(&loaded_names, (void *)kind_name))
		return true;
	vec_push(&loaded_names, (void *)kind_name);
	return false;
}

/* Errors while resolving an optional point ("?") are not errors: they
 * only mean the point resolves to nothing. */
static void quiet_begin(void)
{
	if (quiet_depth++ == 0) {
		quiet_errors = error_count;
		diag_set_quiet(true);
	}
}

static bool quiet_end(void)   /* true when errors happened inside */
{
	bool errs = error_count != quiet_errors;
	if (--quiet_depth == 0) {
		diag_set_quiet(false);
		error_count = quiet_errors + hard_pending;
		hard_pending = 0;
	}
	return errs;
}

/* Report an error even inside a '?' point: a broken alias definition is
 * wrong whether or not the point is optional. */
static void hard_error_at(Loc loc, const char *msg)
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

/* ---- walking and copying nodes ---- */

void for_each_child(Node *n, void (*fn)(Node **slot, void *ctx), void *ctx)
{
	if (!n)
		return;
	Node **single[] = { &n->fmt, &n->init, &n->cond, &n->lhs, &n->rhs,
			    &n->base, &n->value, &n->limit, &n->catch_var,
			    &n->then, &n->els, &n->incr, &n->body };
	/* call arguments and index keys are evaluated before the operands
	 * they belong to, except that foreach keys are bound by the loop */
	for (int i = 0; i < n->args.len; i++)
		if (n->args.data[i])
			fn((Node **)&n->args.data[i], ctx);
	for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
		if (*single[i])
			fn(single[i], ctx);
	for (int i = 0; i < n->stmts.len; i++)
		if (n->stmts.data[i])
			fn((Node **)&n->stmts.data[i], ctx);
	for (int i = 0; i < n->slice.len; i++)
		if (n->slice.data[i])
			fn((Node **)&n->slice.data[i], ctx);
	for (int i = 0; i < n->comps.len; i++) {
		Component *c = vec_get(&n->comps, i);
		if (c->index)
			fn(&c->index, ctx);
	}
}

static void copy_vec(Vec *v)
{
	if (!v->len) {
		*v = (Vec){ 0 };
		return;
	}
	void **d = xalloc(sizeof(void *) * v->len);
	memcpy(d, v->data, sizeof(void *) * v->len);
	v->data = d;
	v->cap = v->len;
}

static void copy_slot(Node **slot, void *ctx)
{
	(void)ctx;
	*slot = copy_node(*slot);
}

Node *copy_node(Node *n)
{
	if (!n)
		return NULL;
	Node *c = NEW(Node);
	*c = *n;
	copy_vec(&c->args);
	copy_vec(&c->stmts);
	copy_vec(&c->comps);
	copy_vec(&c->slice);
	for (int i = 0; i < c->comps.len; i++) {
		Component *k = NEW(Component);
		*k = *(Component *)vec_get(&c->comps, i);
		c->comps.data[i] = k;
	}
	for_each_child(c, copy_slot, NULL);
	return c;
}

static Node *block_of(Loc loc, Node *a, Node *b)
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

static void load_tapset_files(const Vec *paths)
{
	for (int i = 0; paths && i < paths->len; i++) {
		bool fresh;
		Stapfile *f = tapset_load(vec_get(paths, i), &fresh);
		if (f && fresh)
			add_file(f);
	}
}

/* ---- globals ---- */

static Var *find_global_loaded(const char *name, SrcFile *from)
{
	Var *pub = NULL;
	for (int i = 0; i < global_pool.len; i++) {
		Var *v = vec_get(&global_pool, i);
		if (v->name != name)
			continue;
		/* library code never sees the script's globals: a tapset's
		 * local "n" stays local whatever the script declares */
		if (from && from->is_tapset && !v->from_tapset)
			continue;
		if (v->is_private) {
			if (v->file == from)
				return v;
		} else if (!pub) {
			pub = v;
		}
	}
	return pub;
}

static Var *find_global(const char *name, SrcFile *from)
{
	Var *v = find_global_loaded(name, from);
	if (v)
		return v;
	if (!name_loaded(intern(xsprintf("g:%s", name)))) {
		load_tapset_files(tapset_files_for_global(name));
		v = find_global_loaded(name, from);
	}
	return v;
}

/* ---- functions ---- */

static bool func_visible(Func *f, SrcFile *from)
{
	return !f->is_private || f->file == from;
}

static int64_t func_rank(Func *f)
{
	/* no explicit priority: script functions before library ones */
	return f->priority ? f->priority : (f->from_tapset ? 1 : 0);
}

static int cmp_overload(const void *a, const void *b)
{
	Func *x = *(Func *const *)a, *y = *(Func *const *)b;
	int64_t rx = func_rank(x), ry = func_rank(y);
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->from_tapset != y->from_tapset)
		return x->from_tapset ? 1 : -1;
	return 0;
}

static void find_funcs(const char *name, int arity, SrcFile *from, Vec *out, bool *any_name)
{
	for (int i = 0; i < func_pool.len; i++) {
		Func *f = vec_get(&func_pool, i);
		if (f->name != name || !func_visible(f, from))
			continue;
		*any_name = true;
		if (f->params.len == arity)
			vec_push(out, f);
	}
}

/* Up to five near names from `names`, as ", a, b" text (or ""). */
static const char *similar_names(const char *name, Vec *names)
{
	StrBuf sb = { 0 };
	int found = 0, limit = strlen(name) / 3 + 1;
	if (limit > 3)
		limit = 3;
	for (int dist = 1; dist <= limit && found < 5; dist++)
		for (int i = 0; i < names->len && found < 5; i++) {
			const char *c = vec_get(names, i);
			if (c != name && edit_distance(name, c) == dist) {
				sb_printf(&sb, "%s%s", found ? ", " : "", c);
				found++;
			}
		}
	const char *r = found ? xsprintf(" (similar: %s)", sb_cstr(&sb)) : "";
	sb_free(&sb);
	return r;
}

static void queue_func(Func *f)
{
	if (f->used)
		return;
	f->used = true;
	vec_push(&func_queue, f);
}

static bool body_has_next(Node *n);

static void has_next_slot(Node **slot, void *ctx)
{
	if (body_has_next(*slot))
		*(bool *)ctx = true;
}

static bool body_has_next(Node *n)
{
	if (!n)
		return false;
	if (n->kind == N_NEXT)
		return true;
	if (n->kind == N_EMBEDDED || n->kind == N_EMBEDDED_EXPR)
		return n->str && strstr(n->str, "STAP_NEXT");
	bool r = false;
	for_each_child(n, has_next_slot, &r);
	return r;
}

bool is_func_next_capable(Func *f)
{
	return body_has_next(f->body);
}

static Vec warned_overloads;

/* Link the overloads of one name and arity in the order calls try them. */
static Func *link_overloads(Vec *cands)
{
	if (cands->len > 1)
		vec_sort(cands, cmp_overload);
	for (int i = 0; i < cands->len; i++) {
		Func *f = vec_get(cands, i);
		f->next_overload = i + 1 < cands->len ? vec_get(cands, i + 1) : NULL;
		queue_func(f);
	}
	for (int i = 0; i + 1 < cands->len; i++) {
		Func *f = vec_get(cands, i);
		if (is_func_next_capable(f))
			continue;
		for (int j = i + 1; j < cands->len; j++) {
			Func *g = vec_get(cands, j);
			if (g->from_tapset || vec_has(&warned_overloads, g))
				continue;
			vec_push(&warned_overloads, g);
			warning_at(g->loc, _("unreachable overload of function '%s': the "
					     "one at %s:%d:%d never uses 'next'"),
				   g->name, f->loc.file ? f->loc.file->name : "?",
				   f->loc.line, f->loc.col);
		}
		break;
	}
	return vec_get(cands, 0);
}

static Func *resolve_call(Scope *sc, Node *call)
{
	const char *name = call->name;
	int arity = call->args.len;
	Vec cands = { 0 };
	bool any_name = false;
	find_funcs(name, arity, sc->file, &cands, &any_name);
	if (!cands.len && !name_loaded(intern(xsprintf("f:%s", name)))) {
		load_tapset_files(tapset_files_for_function(name));
		find_funcs(name, arity, sc->file, &cands, &any_name);
	}
	if (!cands.len) {
		if (any_name) {
			Vec other = { 0 };
			bool dummy;
			for (int a = 0; a <= 32; a++)
				if (a != arity)
					find_funcs(name, a, sc->file, &other, &dummy);
			Func *o = other.len ? vec_get(&other, 0) : NULL;
			error_at(call->loc, _("wrong number of arguments to function '%s': "
					      "%d given, it takes %d"),
				 name, arity, o ? o->params.len : 0);
		} else {
			Vec names = { 0 };
			for (int i = 0; i < func_pool.len; i++)
				vec_push(&names, (void *)((Func *)vec_get(&func_pool, i))->name);
			error_at(call->loc, _("unresolved function '%s'%s"), name,
				 similar_names(name, &names));
		}
		return NULL;
	}
	Func *f = link_overloads(&cands);
	return f;
}

/* ---- binding names in a body ---- */

typedef struct Binder {
	Scope *sc;
} Binder;

static Var *find_local(Scope *sc, const char *name)
{
	if (sc->func)
		for (int i = 0; i < sc->func->params.len; i++) {
			Var *v = vec_get(&sc->func->params, i);
			if (v->name == name)
				return v;
		}
	for (int i = 0; i < sc->locals->len; i++) {
		Var *v = vec_get(sc->locals, i);
		if (v->name == name)
			return v;
	}
	return NULL;
}

static Var *new_local(Scope *sc, Node *sym)
{
	Var *v = NEW(Var);
	v->name = sym->name;
	v->loc = sym->loc;
	v->scope = VS_LOCAL;
	v->file = sc->file;
	v->from_tapset = sc->from_tapset;
	vec_push(sc->locals, v);
	return v;
}

/* A plain name: a local, a parameter, a global, or a new local. */
static Var *bind_scalar(Scope *sc, Node *sym)
{
	Var *v = find_local(sc, sym->name);
	if (!v)
		v = find_global(sym->name, sc->file);
	if (!v)
		v = new_local(sc, sym);
	return v;
}

/* A name used as an array (indexed, iterated, tested with "in"). */
static Var *bind_array(Scope *sc, Node *sym, int arity)
{
	Var *l = find_local(sc, sym->name);
	Var *g = l ? NULL : find_global(sym->name, sc->file);
	if (!g) {
		error_at(sym->loc, _("unresolved arity-%d global array '%s', missing "
				     "global declaration?"), arity, sym->name);
		return NULL;
	}
	return g;
}

static void check_arity(Var *v, int arity, Loc loc)
{
	if (!v)
		return;
	if (v->arity < 0) {
		if (arity == 0 && v->maxsize > 0) {
			error_at(loc, _("array '%s' used as a scalar (declared at %d:%d)"),
				 v->name, v->loc.line, v->loc.col);
			v->arity = 0;
			return;
		}
		v->arity = arity;
		return;
	}
	if (v->arity == arity)
		return;
	if (arity == 0)
		error_at(loc, _("array '%s' used as a scalar"), v->name);
	else if (v->arity == 0)
		error_at(loc, _("scalar '%s' used as an array"), v->name);
	else
		error_at(loc, _("inconsistent arity for array '%s': %d index(es) here, "
				"%d elsewhere"), v->name, arity, v->arity);
}

static void bind_node(Node **slot, void *ctx);

static void bind_children(Node *n, Binder *b)
{
	for_each_child(n, bind_node, b);
}

/* pragma:read:NAME / pragma:write:NAME in embedded C name globals. */
static void bind_pragmas(Node *n, Binder *b)
{
	const char *s = n->str;
	while (s && (s = strstr(s, "pragma:"))) {
		s += 7;
		bool wr = !strncmp(s, "write:", 6);
		if (!wr && strncmp(s, "read:", 5))
			continue;
		s += wr ? 6 : 5;
		size_t len = 0;
		while (s[len] == '_' || (s[len] >= 'a' && s[len] <= 'z') ||
		       (s[len] >= 'A' && s[len] <= 'Z') || (s[len] >= '0' && s[len] <= '9'))
			len++;
		const char *name = intern_n(s, len);
		Var *g = find_global(name, b->sc->file);
		if (!g) {
			error_at(n->loc, _("embedded code names unknown global '%s'"), name);
			continue;
		}
		if (wr)
			g->written = true;
		else
			g->read = true;
		if (!n->aux) {
			Vec *v = NEW(Vec);
			n->aux = v;
		}
		vec_push((Vec *)n->aux, g);
	}
}

static void bind_loop_body(Node **slot, Binder *b)
{
	if (*slot)
		bind_node(slot, b);
}

static void bind_node(Node **slot, void *ctx)
{
	Binder *b = ctx;
	Scope *sc = b->sc;
	Node *n = *slot;
	if (!n)
		return;
	switch (n->kind) {
	case N_SYMBOL:
		n->var = bind_scalar(sc, n);
		if (n->var && n->var->scope == VS_GLOBAL)
			check_arity(n->var, 0, n->loc);
		return;
	case N_INDEX:
	case N_IN:
		for (int i = 0; i < n->args.len; i++)
			if (n->args.data[i])
				bind_node((Node **)&n->args.data[i], b);
		if (n->base && n->base->kind == N_SYMBOL) {
			n->base->var = bind_array(sc, n->base, n->args.len);
			n->var = n->base->var;
			check_arity(n->var, n->args.len, n->base->loc);
		} else if (n->base) {
			bind_node(&n->base, b);
		}
		return;
	case N_FOREACH:
		for (int i = 0; i < n->slice.len; i++)
			if (n->slice.data[i])
				bind_node((Node **)&n->slice.data[i], b);
		if (n->base && n->base->kind == N_SYMBOL) {
			n->base->var = bind_array(sc, n->base, n->args.len);
			n->var = n->base->var;
			check_arity(n->var, n->args.len, n->loc);
			if (n->slice.len && n->slice.len != n->args.len)
				error_at(n->loc, _("the slice of '%s' has %d index(es) but "
						   "the loop has %d key(s)"), n->base->name,
					 n->slice.len, n->args.len);
		} else if (n->base) {
			bind_node(&n->base, b);
		}
		for (int i = 0; i < n->args.len; i++) {
			Node *k = vec_get(&n->args, i);
			if (k && k->kind == N_SYMBOL)
				k->var = bind_scalar(sc, k);
		}
		if (n->value)
			n->value->var = bind_scalar(sc, n->value);
		if (n->limit)
			bind_node(&n->limit, b);
		bind_loop_body(&n->body, b);
		return;
	case N_WHILE:
		bind_node(&n->cond, b);
		bind_loop_body(&n->body, b);
		return;
	case N_FOR:
		if (n->init)
			bind_node(&n->init, b);
		if (n->cond)
			bind_node(&n->cond, b);
		if (n->incr)
			bind_node(&n->incr, b);
		bind_loop_body(&n->body, b);
		return;
	case N_BREAK:
	case N_CONTINUE:
		/* Outside a loop they are a translation error (pass 3), as in
		 * stap: a -p2 run accepts them. */
		return;
	case N_CALL:
		bind_children(n, b);
		n->func = resolve_call(sc, n);
		return;
	case N_DELETE:
		/* "delete x" empties an array or clears a scalar */
		if (n->lhs && n->lhs->kind == N_SYMBOL) {
			n->lhs->var = bind_scalar(sc, n->lhs);
			return;
		}
		break;
	case N_TRY:
		if (n->catch_var && n->catch_var->kind == N_SYMBOL)
			n->catch_var->var = bind_scalar(sc, n->catch_var);
		if (n->body)
			bind_node(&n->body, b);
		if (n->els)
			bind_node(&n->els, b);
		return;
	case N_EMBEDDED:
	case N_EMBEDDED_EXPR:
		bind_pragmas(n, b);
		return;
	default:
		break;
	}
	bind_children(n, b);
}

static void bind_scope(Scope *sc, Node *body)
{
	Binder b = { sc };
	if (body)
		bind_node(&body, &b);
}

/* Probe conditions may read globals only, without side effects. */
static void check_condition_node(Node **slot, void *ctx)
{
	Node *n = *slot;
	Scope *sc = ctx;
	switch (n->kind) {
	case N_SYMBOL:
		n->var = find_global(n->name, sc->file);
		if (!n->var) {
			error_at(n->loc, _("probe condition may only use global variables, "
					   "not '%s'"), n->name);
			n->var = new_local(sc, n);
		}
		return;
	case N_CALL:
	case N_PRINT:
		error_at(n->loc, _("probe condition may not call functions"));
		return;
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
		error_at(n->loc, _("probe condition may not have side effects"));
		return;
	case N_TARGET:
	case N_TARGET_VARS:
	case N_CAST:
	case N_ATVAR:
	case N_AUTOCAST:
	case N_ENTRY:
	case N_DEFINED:
	case N_PERF:
	case N_REGISTER:
	case N_DEREF:
	case N_EMBEDDED_EXPR:
		error_at(n->loc, _("probe condition may only use global variables "
				   "and constants"));
		return;
	case N_INDEX:
	case N_IN:
		if (n->base && n->base->kind == N_SYMBOL) {
			n->base->var = find_global(n->base->name, sc->file);
			n->var = n->base->var;
			if (!n->var)
				error_at(n->base->loc, _("probe condition may only use global "
							 "variables, not '%s'"), n->base->name);
			else
				check_arity(n->var, n->args.len, n->loc);
		}
		for (int i = 0; i < n->args.len; i++)
			if (n->args.data[i])
				check_condition_node((Node **)&n->args.data[i], ctx);
		return;
	default:
		for_each_child(n, check_condition_node, ctx);
	}
}

/* ---- probe points: aliases first, then the families ---- */

/* The point alone, without '?', '!' and its condition. */
static const char *plain_point(ProbePoint *pp)
{
	ProbePoint c = *pp;
	c.optional = c.sufficient = false;
	c.condition = NULL;
	return probe_point_text(&c);
}

static const char *point_names(ProbePoint *pp, int upto)
{
	StrBuf sb = { 0 };
	for (int i = 0; i < upto && i < pp->comps.len; i++) {
		ProbePointComp *c = vec_get(&pp->comps, i);
		sb_printf(&sb, "%s%s", i ? "." : "", c->name);
	}
	const char *r = intern(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

static bool same_literal(Node *a, Node *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	if (a->kind == N_NUMBER)
		return a->num == b->num;
	return a->str && b->str && !strcmp(a->str, b->str);
}

static const char *alias_comp_name(void *ctx, int i)
{
	return ((ProbePointComp *)vec_get(&((ProbePoint *)ctx)->comps, i))->name;
}

static bool alias_comp_fits(void *ctx, int i, const ProbePointComp *c)
{
	ProbePointComp *a = vec_get(&((ProbePoint *)ctx)->comps, i);
	return same_literal(c->arg, a->arg);
}

static bool alias_comp_takes_arg(void *ctx, int i)
{
	return ((ProbePointComp *)vec_get(&((ProbePoint *)ctx)->comps, i))->arg != NULL;
}

/* How many leading components of the user's point the alias name
 * matches (the rest is a suffix), or -1.  Wildcards, "**" included, work
 * as in the probe families (point_match). */
static int alias_match(ProbePoint *user, ProbePoint *name)
{
	PointMatcher m = { name->comps.len, alias_comp_name, alias_comp_fits,
			   alias_comp_takes_arg, name };
	return point_match(user, &m, true, NULL);
}

/* An alias name of the tapset index: dotted names without arguments, so
 * any argument may fit (loading one file too many is harmless). */
typedef struct IndexName {
	const char *parts[64];
	int n;
} IndexName;

static const char *index_comp_name(void *ctx, int i)
{
	return ((IndexName *)ctx)->parts[i];
}

static bool index_comp_fits(void *ctx, int i, const ProbePointComp *c)
{
	(void)ctx, (void)i, (void)c;
	return true;
}

static bool index_comp_takes_arg(void *ctx, int i)
{
	(void)ctx, (void)i;
	return false;
}

static bool index_name_matches(ProbePoint *pp, const char *an)
{
	IndexName in = { .n = 0 };
	for (const char *s = an; *s && in.n < 64;) {
		const char *dot = strchr(s, '.');
		size_t len = dot ? (size_t)(dot - s) : strlen(s);
		in.parts[in.n++] = intern_n(s, len);
		if (!dot)
			break;
		s = dot + 1;
	}
	PointMatcher m = { in.n, index_comp_name, index_comp_fits,
			   index_comp_takes_arg, &in };
	return point_match(pp, &m, true, NULL) >= 0;
}

/* Whether some tapset alias name starts with this component. */
static bool alias_first_known(const char *first)
{
	static Vec firsts;
	static bool ready;
	if (!ready) {
		ready = true;
		int n = tapset_alias_count();
		for (int i = 0; i < n; i++) {
			const char *an = tapset_alias_name(i);
			const char *dot = strchr(an, '.');
			const char *f = dot ? intern_n(an, dot - an) : intern(an);
			if (!firsts.len || vec_last(&firsts) != f)
				vec_push(&firsts, (void *)f);
		}
	}
	const char *in = intern(first);
	for (int i = 0; i < firsts.len; i++)
		if (vec_get(&firsts, i) == in)
			return true;
	return false;
}

/* Load the tapset files whose aliases could match this point. */
static void load_aliases_for(ProbePoint *pp)
{
	const char *first = ((ProbePointComp *)vec_get(&pp->comps, 0))->name;
	if (!has_wildcard(first) && !alias_first_known(first))
		return;
	int n = tapset_alias_count();
	for (int i = 0; i < n; i++) {
		const char *an = tapset_alias_name(i);
		if (!index_name_matches(pp, an))
			continue;
		const char *key = intern(xsprintf("a:%s", an));
		if (!name_loaded(key))
			load_tapset_files(tapset_alias_files(i));
	}
}

static ProbePoint *point_with_suffix(ProbePoint *target, ProbePoint *user, int from)
{
	ProbePoint *np = NEW(ProbePoint);
	*np = *target;
	np->comps = (Vec){ 0 };
	for (int i = 0; i < target->comps.len; i++)
		vec_push(&np->comps, vec_get(&target->comps, i));
	for (int i = from; i < user->comps.len; i++)
		vec_push(&np->comps, vec_get(&user->comps, i));
	return np;
}

static Node *and_condition(Node *a, Node *b)
{
	if (!a)
		return b ? copy_node(b) : NULL;
	if (!b)
		return a;
	Node *n = node_new(N_LOGICAL, b->loc);
	n->op = intern("&&");
	n->lhs = a;
	n->rhs = copy_node(b);
	n->synthetic = true;
	return n;
}

/* One derived probe under construction. */
typedef struct Deriv {
	Probe *user;            /* the probe as written */
	ProbePoint *user_pp;    /* the point as written */
	const char *list_name;  /* the first alias level's name, for -l */
	Vec chain;              /* Probe *: aliases being expanded */
} Deriv;

typedef struct Derived {
	Probe *probe;
	const char *list_name;
} Derived;

static Vec derived;   /* Derived * */

/* The blocks an alias expansion stacks up are one body: a probe's locals
 * are shared by all of them anyway. */
static void flatten_blocks(Node *blk)
{
	Vec out = { 0 };
	for (int i = 0; i < blk->stmts.len; i++) {
		Node *s = vec_get(&blk->stmts, i);
		if (s && s->kind == N_BLOCK) {
			if (s->synthetic)
				flatten_blocks(s);
			for (int j = 0; j < s->stmts.len; j++)
				vec_push(&out, vec_get(&s->stmts, j));
		} else {
			vec_push(&out, s);
		}
	}
	blk->stmts = out;
}

static void emit_probe(Deriv *d, ResolvedPoint *rp, Node *body, Node *cond)
{
	Probe *p = NEW(Probe);
	ProbePoint *cp = NEW(ProbePoint);
	*cp = *rp->point;
	cp->from = d->user_pp;
	cp->condition = copy_node(cond);
	rp->point = cp;
	vec_push(&p->points, cp);
	p->body = copy_node(body);
	if (p->body && p->body->kind != N_BLOCK)
		p->body = block_of(p->body->loc, p->body, NULL);
	if (!p->body)
		p->body = block_of(d->user->loc, NULL, NULL);
	if (p->body->synthetic)
		flatten_blocks(p->body);
	p->loc = d->user->loc;
	p->file = d->user->file;
	p->from_tapset = d->user->from_tapset;
	p->is_private = d->user->is_private;
	p->from_alias = d->chain.len ? vec_get(&d->chain, 0) : NULL;
	p->aux = rp;
	Derived *dv = NEW(Derived);
	dv->probe = p;
	dv->list_name = d->list_name ? d->list_name : plain_point(rp->point);
	vec_push(&derived, dv);
}

static int derive_point(Deriv *d, ProbePoint *pp, Node *body, Node *cond,
			bool optional);

static int derive_optional(Deriv *d, ProbePoint *pp, Node *body, Node *cond,
			   bool optional)
{
	if (!optional)
		return derive_point(d, pp, body, cond, false);
	int mark = derived.len, hard = hard_total;
	quiet_begin();
	int r = derive_point(d, pp, body, cond, true);
	bool errs = quiet_end();
	if (hard != hard_total)
		return -1;
	if (errs || r < 0) {
		derived.len = mark;   /* errors under '?' mean "nothing" */
		return 0;
	}
	return r;
}

static int expand_alias(Deriv *d, ProbePoint *pp, Probe *alias, ProbePoint *aname,
			int matched, Node *body, Node *cond, bool optional)
{
	if (vec_has(&d->chain, alias)) {
		hard_error_at(pp->loc, xsprintf(_("recursive probe alias: '%s' expands "
						  "to itself (alias defined at %s:%d:%d)"),
				plain_point(pp),
				alias->loc.file ? alias->loc.file->name : "?",
				alias->loc.line, alias->loc.col));
		return -1;
	}
	if (d->chain.len > 64) {
		hard_error_at(pp->loc, _("probe alias expansion nested too deeply"));
		return -1;
	}
	bool has_suffix = matched < pp->comps.len;
	const char *saved_name = d->list_name;
	if (!d->list_name) {
		ProbePoint *shown = point_with_suffix(aname, pp, matched);
		shown->optional = shown->sufficient = false;
		shown->condition = NULL;
		d->list_name = probe_point_text(shown);
	}
	Node *nbody = alias->epilogue ? block_of(alias->loc, body, alias->body)
				      : block_of(alias->loc, alias->body, body);
	vec_push(&d->chain, alias);
	int total = 0;
	for (int i = 0; i < alias->points.len; i++) {
		ProbePoint *t = vec_get(&alias->points, i);
		ProbePoint *tp = point_with_suffix(t, pp, matched);
		bool opt = optional || t->optional || t->sufficient;
		int r = derive_optional(d, tp, nbody, cond, opt);
		if (r < 0) {
			if (has_suffix)
				note_at(pp->loc, _("the suffix of '%s' was applied to '%s' "
						   "of alias '%s'"), plain_point(pp),
					plain_point(t), plain_point(aname));
			total = -1;
			break;
		}
		if (r == 0 && has_suffix && !opt) {
			error_at(pp->loc, _("invalid suffix for probe '%s': '%s' does not "
					    "accept it"), plain_point(pp),
				 plain_point(tp));
			total = -1;
			break;
		}
		total += r;
		if (r > 0 && t->sufficient)
			break;
	}
	d->chain.len--;
	d->list_name = saved_name;
	return total;
}

static void suggest_points(ProbePoint *pp)
{
	ProbePointComp *c0 = vec_get(&pp->comps, 0);
	Vec names = { 0 };
	for (int i = 0; i < alias_pool.len; i++) {
		Probe *a = vec_get(&alias_pool, i);
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *an = vec_get(&a->alias_names, j);
			vec_push(&names, (void *)point_names(an, an->comps.len));
		}
	}
	int n = tapset_alias_count();
	for (int i = 0; i < n; i++)
		vec_push(&names, (void *)tapset_alias_name(i));
	const char *want = point_names(pp, pp->comps.len);
	const char *sim = similar_names(want, &names);
	if (!*sim && !probe_family_known_prefix(c0->name)) {
		Vec firsts = { 0 };
		static const char *fam[] = { "begin", "end", "error", "never", "timer",
			"kernel", "module", "process", "kprobe", "procfs", "perf",
			"netfilter", "java", "oneshot", "init", NULL };
		for (int i = 0; fam[i]; i++)
			vec_push(&firsts, (void *)intern(fam[i]));
		sim = similar_names(intern(c0->name), &firsts);
	}
	if (*sim)
		note_at(pp->loc, _("did you mean one of these?%s"), sim);
}

typedef struct AliasHit {
	Probe *alias;
	ProbePoint *name;
	int matched;
} AliasHit;

/* syscall.read.return names its own alias: the alias syscall.read with a
 * ".return" suffix is not used for it as well.  A hit is shadowed by one
 * that uses more of the user's point (through literal components) and
 * whose name extends the hit's name. */
static bool shadowed(AliasHit *h, Vec *hits, ProbePoint *user)
{
	for (int i = 0; i < hits->len; i++) {
		AliasHit *o = vec_get(hits, i);
		if (o->matched <= h->matched)
			continue;
		/* foo.* means foo.bar and foo with suffix '*' both */
		bool literal = true;
		for (int k = h->matched; k < o->matched && k < user->comps.len; k++)
			if (has_wildcard(((ProbePointComp *)vec_get(&user->comps, k))->name))
				literal = false;
		if (!literal)
			continue;
		int hn = h->name->comps.len;
		if (o->name->comps.len < hn)
			continue;
		bool same = true;
		for (int k = 0; k < hn && same; k++) {
			ProbePointComp *a = vec_get(&h->name->comps, k);
			ProbePointComp *b = vec_get(&o->name->comps, k);
			same = a->name == b->name || !strcmp(a->name, b->name);
			same = same && same_literal(a->arg, b->arg);
		}
		if (same)
			return true;
	}
	return false;
}

/* timer.profile.tick names the timer family's probe, not the alias
 * timer.profile with a ".tick" suffix: a hit whose (literal) suffix
 * continues the point along a family's shape gives way to the family,
 * which then also reports a bad rest ("timer.profile.tick.x"). */
static bool family_suffix(AliasHit *h, ProbePoint *user)
{
	if (h->matched >= user->comps.len)
		return false;
	for (int k = h->matched; k < user->comps.len; k++)
		if (has_wildcard(((ProbePointComp *)vec_get(&user->comps, k))->name))
			return false;
	return probe_family_has_prefix(user, h->matched + 1);
}

static int derive_point(Deriv *d, ProbePoint *pp, Node *body, Node *cond,
			bool optional)
{
	if (!pp->comps.len)
		return 0;
	cond = and_condition(cond, pp->condition);
	load_aliases_for(pp);
	int total = 0, alias_hits = 0;
	bool wild = false;
	for (int i = 0; i < pp->comps.len; i++)
		if (strchr(((ProbePointComp *)vec_get(&pp->comps, i))->name, '*'))
			wild = true;
	Vec hits = { 0 };
	for (int i = 0; i < alias_pool.len; i++) {
		Probe *a = vec_get(&alias_pool, i);
		if (a->is_private && a->file != d->user->file)
			continue;
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *an = vec_get(&a->alias_names, j);
			int m = alias_match(pp, an);
			if (m < 0)
				continue;
			AliasHit *h = NEW(AliasHit);
			h->alias = a;
			h->name = an;
			h->matched = m;
			vec_push(&hits, h);
		}
	}
	for (int i = 0; i < hits.len; i++) {
		AliasHit *h = vec_get(&hits, i);
		if (shadowed(h, &hits, pp) || family_suffix(h, pp))
			continue;
		alias_hits++;
		/* each wildcard match may fail alone; only none at all is wrong */
		int r = wild ? 0 : expand_alias(d, pp, h->alias, h->name, h->matched,
						body, cond, optional);
		if (wild) {
			int mark = derived.len, hard = hard_total;
			quiet_begin();
			r = expand_alias(d, pp, h->alias, h->name, h->matched, body, cond,
					 true);
			bool errs = quiet_end();
			if (hard != hard_total)
				return -1;
			if (errs || r < 0) {
				derived.len = mark;
				r = 0;
			}
		}
		if (r < 0)
			return -1;
		total += r;
	}
	if (!alias_hits || wild) {
		Vec rps = { 0 };
		int r = probe_family_resolve(pp, &rps);
		if (r < 0)
			return -1;
		for (int i = 0; i < rps.len; i++)
			emit_probe(d, vec_get(&rps, i), body, cond);
		total += rps.len;
	}
	if (!total && !optional && !alias_hits) {
		error_at(pp->loc, _("no match for probe point '%s'"), plain_point(pp));
		suggest_points(pp);
		return -1;
	}
	if (!total && !optional) {
		error_at(pp->loc, _("probe point '%s' resolved to no probes (its "
				    "aliases matched nothing)"), plain_point(pp));
		return -1;
	}
	return total;
}

static void derive_probe(Probe *p)
{
	Deriv d = { p, NULL, NULL, { 0 } };
	for (int i = 0; i < p->points.len; i++) {
		ProbePoint *pp = vec_get(&p->points, i);
		d.user_pp = pp;
		int r = derive_optional(&d, pp, p->body, NULL,
					pp->optional || pp->sufficient);
		if (r > 0 && pp->sufficient)
			break;
	}
}

/* ---- the resolution loop ---- */

static int bound_probes;

static Scope *new_scope(Probe *p, Func *f)
{
	Scope *sc = NEW(Scope);
	sc->probe = p;
	sc->func = f;
	sc->locals = p ? &p->locals : &f->locals;
	sc->file = p ? p->file : f->file;
	sc->rp = p ? p->aux : NULL;
	sc->from_tapset = p ? p->from_tapset : f->from_tapset;
	return sc;
}

static void bind_pending(void)
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

/* ---- context variables, @entry, guru-only things ---- */

typedef struct Checker {
	Scope *sc;
	Node *assigned;         /* the node being written, if any */
} Checker;

static CtxVar *find_ctx(ResolvedPoint *rp, const char *name)
{
	if (!rp)
		return NULL;
	for (int i = 0; i < rp->ctx_vars.len; i++) {
		CtxVar *cv = vec_get(&rp->ctx_vars, i);
		if (!strcmp(cv->name, name))
			return cv;
	}
	return NULL;
}

static const char *probe_text(Scope *sc)
{
	return sc->rp ? plain_point(sc->rp->point) : "?";
}

static void check_target(Checker *ck, Node *n, bool written)
{
	Scope *sc = ck->sc;
	const char *name = n->name && n->name[0] == '$' ? n->name + 1 : n->name;
	if (!name)
		return;
	if (sc->func) {
		error_at(n->loc, _("context variable '$%s' cannot be used in a function "
				   "(only in probe handlers)"), name);
		return;
	}
	ResolvedPoint *rp = sc->rp;
	bool is_ret = !strcmp(name, "return");
	CtxVar *cv = find_ctx(rp, name);
	if (is_ret && rp && !rp->is_return) {
		error_at(n->loc, _("'$return' is only available in .return probes, "
				   "not in '%s'"), probe_text(sc));
		return;
	}
	if (!cv && !(rp && rp->needs_debuginfo)) {
		if (sess.skip_badvars) {
			warning_at(n->loc, _("context variable '$%s' not available in "
					     "'%s'; --skip-badvars makes it 0"),
				   name, probe_text(sc));
			n->kind = N_NUMBER;
			n->num = 0;
			n->type = TY_LONG;
			return;
		}
		error_at(n->loc, _("context variable '$%s' is not available in probe "
				   "'%s'"), name, probe_text(sc));
		return;
	}
	if (cv) {
		n->type = cv->type;
		if ((n->comps.len || n->addressof) && cv->scalar) {
			error_at(n->loc, _("'$%s' is a plain %s: it cannot be dereferenced, "
					   "indexed or have its address taken"), name,
				 type_name(cv->type));
			return;
		}
		if (cv->write_only && !written) {
			error_at(n->loc, _("'$%s' can only be written in probe '%s'"), name,
				 probe_text(sc));
			return;
		}
		if (cv->guru_only && !sess.guru) {
			error_at(n->loc, _("'$%s' needs guru mode (-g)"), name);
			return;
		}
	} else {
		n->type = TY_LONG;
	}
	if (!written)
		return;
	if (n->deref)
		error_at(n->loc, _("cannot assign to a pretty-printed value"));
	else if (cv && cv->writable)
		return;
	else if (cv && (cv->scalar || !rp->needs_debuginfo))
		error_at(n->loc, _("'$%s' is read-only in probe '%s'"), name, probe_text(sc));
	else if (rp && rp->is_return && !is_ret)
		error_at(n->loc, _("cannot write to context variable '$%s' in a "
				   ".return probe"), name);
	else if (!sess.guru)
		error_at(n->loc, _("writing to context variable '$%s' needs guru "
				   "mode (-g)"), name);
}

static void check_node(Node **slot, void *ctx);

static bool is_target_like(Node *n)
{
	return n && (n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_AUTOCAST ||
		     n->kind == N_ATVAR);
}

static void check_write(Checker *ck, Node *lhs)
{
	if (!lhs)
		return;
	if (lhs->kind == N_TARGET) {
		check_target(ck, lhs, true);
		for_each_child(lhs, check_node, ck);
		return;
	}
	if (is_target_like(lhs)) {
		if (lhs->deref)
			error_at(lhs->loc, _("cannot assign to a pretty-printed value"));
		else if (!sess.guru)
			error_at(lhs->loc, _("writing to kernel memory needs guru mode (-g)"));
		for_each_child(lhs, check_node, ck);
		return;
	}
	if (lhs->kind != N_SYMBOL && lhs->kind != N_INDEX) {
		error_at(lhs->loc, _("only a variable, an array element or a context "
				     "variable can be assigned to"));
		return;
	}
	if (lhs->kind == N_INDEX && lhs->base && lhs->base->kind == N_HIST) {
		error_at(lhs->loc, _("a histogram bucket cannot be assigned to"));
		return;
	}
	check_node(&lhs, ck);
}

/* ---- autocast: "expr->member" needs expr to carry a C type ----
 * The type comes from @cast, @var or a context variable, and flows
 * through locals, ternaries, assignments and function returns when every
 * source agrees.  Globals and array elements do not carry it. */

typedef struct TypeFlow {
	Scope *sc;
	Vec visiting;           /* Var * and Func * being followed */
	const char *found;      /* the one type identity seen so far */
	bool conflict;
} TypeFlow;

static const char *c_type_of(TypeFlow *tf, Node *e);

typedef struct StoreScan {
	TypeFlow *tf;
	Var *v;
	Vec *out;               /* right-hand sides stored into v */
} StoreScan;

static void scan_stores(Node **slot, void *ctx)
{
	StoreScan *ss = ctx;
	Node *n = *slot;
	if (n->kind == N_ASSIGN && n->op && !strcmp(n->op, "=") && n->lhs &&
	    n->lhs->kind == N_SYMBOL && n->lhs->var == ss->v)
		vec_push(ss->out, n->rhs);
	if (n->kind == N_RETURN && !ss->v && n->lhs)
		vec_push(ss->out, n->lhs);
	for_each_child(n, scan_stores, ctx);
}

/* The common C type of several sources, or NULL. */
static const char *common_type(TypeFlow *tf, Vec *srcs)
{
	const char *t = NULL;
	for (int i = 0; i < srcs->len; i++) {
		const char *u = c_type_of(tf, vec_get(srcs, i));
		if (!u)
			return NULL;
		if (t && strcmp(t, u)) {
			tf->conflict = true;
			return NULL;
		}
		t = u;
	}
	return t;
}

static const char *path_text(Node *e, const char *base)
{
	StrBuf sb = { 0 };
	sb_puts(&sb, base);
	for (int i = 0; i < e->comps.len; i++) {
		Component *c = vec_get(&e->comps, i);
		if (c->kind == COMP_MEMBER)
			sb_printf(&sb, "->%s", c->name);
		else
			sb_puts(&sb, "[]");
	}
	if (e->addressof)
		sb_puts(&sb, "&");
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

static const char *c_type_of(TypeFlow *tf, Node *e)
{
	if (!e)
		return NULL;
	switch (e->kind) {
	case N_CAST:
		return path_text(e, xsprintf("@cast(%s|%s)", e->str ? e->str : "",
					     e->module ? e->module : ""));
	case N_ATVAR:
		return path_text(e, xsprintf("@var(%s|%s)", e->str ? e->str : "",
					     e->module ? e->module : ""));
	case N_TARGET: {
		if (tf->sc->func || !tf->sc->rp)
			return NULL;
		const char *name = e->name && e->name[0] == '$' ? e->name + 1 : e->name;
		CtxVar *cv = find_ctx(tf->sc->rp, name ? name : "");
		if (cv ? cv->scalar || !cv->ctype : !tf->sc->rp->needs_debuginfo)
			return NULL;
		return path_text(e, xsprintf("$%s", name));
	}
	case N_AUTOCAST: {
		const char *b = c_type_of(tf, e->lhs);
		return b ? path_text(e, b) : NULL;
	}
	case N_ASSIGN:
		return e->op && !strcmp(e->op, "=") ? c_type_of(tf, e->rhs) : NULL;
	case N_ENTRY:
		return c_type_of(tf, e->lhs);
	case N_TERNARY: {
		Vec two = { 0 };
		vec_push(&two, e->then);
		vec_push(&two, e->els);
		return common_type(tf, &two);
	}
	case N_SYMBOL: {
		Var *v = e->var;
		if (!v || v->scope != VS_LOCAL || vec_has(&tf->visiting, v))
			return NULL;
		vec_push(&tf->visiting, v);
		Vec stores = { 0 };
		StoreScan ss = { tf, v, &stores };
		Node *body = tf->sc->probe ? tf->sc->probe->body : tf->sc->func->body;
		if (body)
			scan_stores(&body, &ss);
		const char *t = stores.len ? common_type(tf, &stores) : NULL;
		tf->visiting.len--;
		return t;
	}
	case N_CALL: {
		Func *f = e->func;
		if (!f || !f->body || f->body->kind != N_BLOCK || vec_has(&tf->visiting, f))
			return NULL;
		vec_push(&tf->visiting, f);
		Vec rets = { 0 };
		StoreScan ss = { tf, NULL, &rets };
		Node *body = f->body;
		scan_stores(&body, &ss);
		Scope fsc = { NULL, f, &f->locals, f->file, NULL, f->from_tapset };
		Scope *save = tf->sc;
		tf->sc = &fsc;
		const char *t = rets.len ? common_type(tf, &rets) : NULL;
		tf->sc = save;
		tf->visiting.len--;
		return t;
	}
	default:
		return NULL;
	}
}

static void check_autocast(Checker *ck, Node *n)
{
	TypeFlow tf = { ck->sc, { 0 }, NULL, false };
	if (c_type_of(&tf, n->lhs))
		return;
	if (tf.conflict)
		error_at(n->loc, _("'->' on a value whose C type differs between the "
				   "places it comes from"));
	else
		error_at(n->loc, _("'->' needs a pointer with a known C type (from "
				   "@cast, @var or a context variable); this value has "
				   "none"));
}

/* @perf("NAME") reads the counter a perf probe defines with
 * .counter("NAME"), from a process probe in the program that counter is
 * bound to (any program, when it counts system-wide). */
static void check_perf(Checker *ck, Node *n)
{
	Scope *sc = ck->sc;
	const char *program = NULL;
	if (sc->func) {
		error_at(n->loc, _("@perf can only be used in the handler of a "
				   "process(...) probe, not in a function"));
		return;
	}
	if (!sc->rp || !sc->rp->user_space) {
		error_at(n->loc, _("@perf reads a perf counter in process(...) probes "
				   "only, not in '%s'"), probe_text(sc));
		return;
	}
	program = sc->rp->program;
	Scope *other = NULL;
	const char *other_prog = NULL;
	Vec names = { 0 };
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *ps = vec_get(&elab.scopes, i);
		if (!ps->probe || !ps->rp || !ps->rp->perf_counter)
			continue;
		const char *name = ps->rp->perf_counter, *prog = ps->rp->program;
		if (!vec_has(&names, (void *)intern(name)))
			vec_push(&names, (void *)intern(name));
		if (strcmp(name, n->str))
			continue;
		if (!prog || (program && !strcmp(prog, program)))
			return;
		other = ps;
		other_prog = prog;
	}
	if (other) {
		error_at(n->loc, _("perf counter '%s' counts program '%s', but probe "
				   "'%s' runs in %s"), n->str, other_prog,
			 probe_text(sc), program ? program : _("every process"));
		note_at(other->probe->loc, _("counter '%s' is defined here"), n->str);
		return;
	}
	error_at(n->loc, _("no perf counter named '%s' (a perf probe defines one "
			   "with .counter(\"%s\"))"), n->str, n->str);
	const char *sim = similar_names(intern(n->str), &names);
	if (*sim)
		note_at(n->loc, _("did you mean one of these?%s"), sim);
}

static void check_node(Node **slot, void *ctx)
{
	Checker *ck = ctx;
	Scope *sc = ck->sc;
	Node *n = *slot;
	switch (n->kind) {
	case N_AUTOCAST:
		check_autocast(ck, n);
		break;
	case N_ATVAR:
		/* @var("name") without a CU or module is another way to write
		 * $name (stapprobes); it stays @var when it names a global of
		 * a compilation unit, which needs debug information. */
		if (n->str && !n->module && !strchr(n->str, '@')) {
			n->kind = N_TARGET;
			n->name = intern(xsprintf("$%s", n->str));
			check_target(ck, n, false);
		}
		break;
	case N_TARGET:
		check_target(ck, n, false);
		break;
	case N_TARGET_VARS:
		if (sc->func)
			error_at(n->loc, _("'%s' cannot be used in a function"), n->name);
		else if (sc->rp && !sc->rp->needs_debuginfo && !sc->rp->ctx_vars.len)
			error_at(n->loc, _("'%s' is not available in probe '%s'"), n->name,
				 probe_text(sc));
		else if (n->name && strstr(n->name, "return") && sc->rp && !sc->rp->is_return)
			error_at(n->loc, _("'%s' is only available in .return probes"),
				 n->name);
		n->type = TY_STRING;
		return;
	case N_ENTRY:
		if (sc->func || !sc->rp || !sc->rp->is_return) {
			error_at(n->loc, _("@entry is only available in .return probes"));
			return;
		}
		break;
	case N_ASSIGN:
		check_write(ck, n->lhs);
		if (n->rhs)
			check_node(&n->rhs, ck);
		return;
	case N_PREINC:
	case N_POSTINC:
		if (is_target_like(n->lhs)) {
			error_at(n->loc, _("context variables cannot be incremented or "
					   "decremented"));
			return;
		}
		check_write(ck, n->lhs);
		return;
	case N_DELETE:
		if (n->lhs && is_target_like(n->lhs)) {
			error_at(n->lhs->loc, _("context variables cannot be deleted"));
			return;
		}
		break;
	case N_CALL:
		if (n->func && n->func->guru && !sess.guru && !sc->from_tapset)
			error_at(n->loc, _("function '%s' needs guru mode (-g)"), n->name);
		break;
	case N_PERF:
		check_perf(ck, n);
		break;
	case N_NEXT:
		break;
	default:
		break;
	}
	for_each_child(n, check_node, ck);
}

static void check_contexts(void)
{
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		Node *body = sc->probe ? sc->probe->body : sc->func->body;
		if (sc->func && !sc->func->used)
			continue;
		Checker ck = { sc, NULL };
		if (body)
			check_node(&body, &ck);
	}
}

/* ---- no changing an array while a foreach walks it ---- */

typedef struct Writes {
	Var *target;
	Node *found;            /* the first write to target */
	Func *via;
	Vec visiting;
	Func *cur_func;
} Writes;

static void find_writes(Node **slot, void *ctx);

static void note_write(Writes *w, Node *lhs, Node *at)
{
	if (!lhs || w->found)
		return;
	Var *v = lhs->var;
	if ((lhs->kind == N_INDEX || lhs->kind == N_SYMBOL) && v == w->target) {
		w->found = at;
		w->via = w->cur_func;
	}
}

static void find_writes(Node **slot, void *ctx)
{
	Writes *w = ctx;
	Node *n = *slot;
	if (w->found)
		return;
	switch (n->kind) {
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
	case N_DELETE:
		note_write(w, n->lhs, n);
		break;
	case N_CALL:
		for (Func *f = n->func; f; f = f->next_overload) {
			if (vec_has(&w->visiting, f))
				continue;
			vec_push(&w->visiting, f);
			Func *save = w->cur_func;
			if (!save)
				w->cur_func = f;
			if (f->body)
				find_writes(&f->body, w);
			w->cur_func = save;
		}
		break;
	default:
		break;
	}
	for_each_child(n, find_writes, w);
}

static void check_foreach(Node **slot, void *ctx)
{
	Node *n = *slot;
	(void)ctx;
	if (n->kind == N_FOREACH && n->var && n->var->scope == VS_GLOBAL && n->body) {
		Writes w = { n->var, NULL, NULL, { 0 }, NULL };
		find_writes(&n->body, &w);
		if (w.found) {
			if (w.via)
				error_at(w.found->loc, _("array '%s' is modified (in function "
							 "'%s') inside a foreach loop over it "
							 "at %d:%d"), n->var->name, w.via->name,
					 n->loc.line, n->loc.col);
			else
				error_at(w.found->loc, _("array '%s' is modified inside a "
							 "foreach loop over it at %d:%d"),
					 n->var->name, n->loc.line, n->loc.col);
		}
	}
	for_each_child(n, check_foreach, ctx);
}

static void check_foreach_all(void)
{
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		Node *body = sc->probe ? sc->probe->body : sc->func->body;
		if (body)
			check_foreach(&body, NULL);
	}
}

/* ---- the entry point ---- */

static void init_program(Vec *user_files)
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

/* ---- -p2 output ---- */

static void print_var_type(FILE *out, Var *v)
{
	fprintf(out, "%s:%s", v->name, type_name(v->type));
	if (v->arity > 0) {
		fputs(" [", out);
		for (int i = 0; i < v->arity && i < 9; i++)
			fprintf(out, "%s%s", i ? ", " : "", type_name(v->key_types[i]));
		fputc(']', out);
	}
}

static void print_locals(FILE *out, Vec *locals)
{
	if (!locals->len)
		return;
	fputs("  # locals\n", out);
	for (int i = 0; i < locals->len; i++) {
		fputs("  ", out);
		print_var_type(out, vec_get(locals, i));
		fputc('\n', out);
	}
}

static void print_body(FILE *out, Node *body)
{
	if (!body) {
		fputs("{\n}\n", out);
		return;
	}
	print_node(out, body);
	fputc('\n', out);
}

static void print_signature(FILE *out, Func *f)
{
	fprintf(out, "%s:%s (", f->name, type_name(f->type));
	for (int i = 0; i < f->params.len; i++) {
		Var *v = vec_get(&f->params, i);
		fprintf(out, "%s%s:%s", i ? ", " : "", v->name, type_name(v->type));
	}
	fputc(')', out);
}

void print_program(FILE *out, Program *prog)
{
	if (prog->globals.len) {
		fputs("# global variables\n", out);
		for (int i = 0; i < prog->globals.len; i++) {
			print_var_type(out, vec_get(&prog->globals, i));
			fputc('\n', out);
		}
	}
	if (prog->funcs.len) {
		fputs("# functions\n", out);
		for (int i = 0; i < prog->funcs.len; i++) {
			Func *f = vec_get(&prog->funcs, i);
			print_signature(out, f);
			fputc('\n', out);
			print_locals(out, &f->locals);
			print_body(out, f->body);
		}
	}
	if (prog->probes.len) {
		fputs("# probes\n", out);
		for (int i = 0; i < prog->probes.len; i++) {
			Probe *p = vec_get(&prog->probes, i);
			ProbePoint *pp = vec_get(&p->points, 0);
			ProbePoint shown = *pp;
			shown.condition = NULL;
			shown.optional = shown.sufficient = false;
			fprintf(out, "%s", probe_point_text(&shown));
			if (pp->from) {
				ProbePoint from = *pp->from;
				from.condition = NULL;
				fprintf(out, " /* <- %s */", probe_point_text(&from));
			}
			fputc('\n', out);
			if (pp->condition) {
				fputs("  if (", out);
				print_node(out, pp->condition);
				fputs(")\n", out);
			}
			print_locals(out, &p->locals);
			print_body(out, p->body);
		}
	}
}

/* ---- -l / -L ---- */

static void print_sorted_unique(Vec *lines)
{
	if (lines->len)
		vec_sort(lines, cmp_cstr_ptr);
	for (int i = 0; i < lines->len; i++)
		if (!i || strcmp(vec_get(lines, i), vec_get(lines, i - 1)))
			printf("%s\n", (char *)vec_get(lines, i));
}

static const char *probe_vars_text(Probe *p)
{
	StrBuf sb = { 0 };
	for (int i = 0; i < p->locals.len; i++) {
		Var *v = vec_get(&p->locals, i);
		if (v->name[0] == '_')
			continue;
		sb_printf(&sb, " %s:%s", v->name, type_name(v->type));
	}
	/* an alias names its variables; a plain point shows the context */
	ResolvedPoint *rp = p->from_alias ? NULL : p->aux;
	for (int i = 0; rp && i < rp->ctx_vars.len; i++) {
		CtxVar *cv = vec_get(&rp->ctx_vars, i);
		sb_printf(&sb, " $%s:%s", cv->name, cv->ctype ? cv->ctype : type_name(cv->type));
	}
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

int list_probe_points(const char *pattern, bool with_vars)
{
	const char *text = xsprintf("probe %s {}\n", pattern);
	SrcFile *src = srcfile_new("<input>", text, strlen(text));
	Stapfile *f = parse_file(src, false);
	if (!f)
		return 1;
	for (int i = 0; i < f->probes.len; i++) {
		Probe *p = vec_get(&f->probes, i);
		for (int j = 0; j < p->points.len; j++)
			((ProbePoint *)vec_get(&p->points, j))->optional = true;
	}
	sess.unoptimized = true;
	Vec files = { 0 };
	vec_push(&files, f);
	init_program(&files);
	elab.listing = true;
	bind_pending();
	optimize_before_types();
	check_contexts();
	infer_types();
	Vec lines = { 0 };
	for (int i = 0; i < derived.len; i++) {
		Derived *dv = vec_get(&derived, i);
		if (dv->probe->from_tapset)
			continue;
		vec_push(&lines, (void *)(with_vars ? xsprintf("%s%s", dv->list_name,
							  probe_vars_text(dv->probe))
					   : dv->list_name));
	}
	print_sorted_unique(&lines);
	return error_count || !lines.len;
}

/* ---- --dump-functions and --dump-probe-aliases ---- */

static void load_every_tapset(void)
{
	memset(&elab, 0, sizeof elab);
	elab.prog = NEW(Program);
	elab.listing = true;
	sess.unoptimized = true;
	load_tapset_files(tapset_all_files());
	pending_probes.len = 0;   /* the library's own probes are not wanted */
}

void dump_functions(FILE *out)
{
	load_every_tapset();
	for (int i = 0; i < func_pool.len; i++) {
		Func *f = vec_get(&func_pool, i);
		if (!f->is_private)
			queue_func(f);
	}
	bind_pending();
	infer_types();
	Vec lines = { 0 };
	for (int i = 0; i < func_pool.len; i++) {
		Func *f = vec_get(&func_pool, i);
		if (f->is_private || f->name[0] == '_')
			continue;
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		print_signature(m, f);
		fclose(m);
		vec_push(&lines, xstrdup(buf));
		free(buf);
	}
	fflush(stdout);
	if (lines.len)
		vec_sort(&lines, cmp_cstr_ptr);
	for (int i = 0; i < lines.len; i++)
		if (!i || strcmp(vec_get(&lines, i), vec_get(&lines, i - 1)))
			fprintf(out, "%s\n", (char *)vec_get(&lines, i));
}

void dump_probe_aliases(FILE *out)
{
	load_every_tapset();
	/* each alias body on its own, with context variables left open */
	static ResolvedPoint open_rp = { .needs_debuginfo = true, .is_return = true };
	Vec probes = { 0 }, names = { 0 };
	for (int i = 0; i < alias_pool.len; i++) {
		Probe *a = vec_get(&alias_pool, i);
		if (a->is_private)
			continue;
		Probe *p = NEW(Probe);
		*p = *a;
		p->locals = (Vec){ 0 };
		p->body = copy_node(a->body);
		open_rp.point = vec_get(&a->alias_names, 0);
		p->aux = &open_rp;
		Scope *sc = new_scope(p, NULL);
		vec_push(&elab.scopes, sc);
		bind_scope(sc, p->body);
		vec_push(&probes, p);
	}
	bind_pending();
	infer_types();
	for (int i = 0; i < probes.len; i++) {
		Probe *p = vec_get(&probes, i);
		p->aux = NULL;
		for (int j = 0; j < p->alias_names.len; j++) {
			ProbePoint *an = vec_get(&p->alias_names, j);
			vec_push(&names, xsprintf("%s%s", probe_point_text(an),
						  probe_vars_text(p)));
		}
	}
	fflush(stdout);
	if (names.len)
		vec_sort(&names, cmp_cstr_ptr);
	for (int i = 0; i < names.len; i++)
		if (!i || strcmp(vec_get(&names, i), vec_get(&names, i - 1)))
			fprintf(out, "%s\n", (char *)vec_get(&names, i));
}
