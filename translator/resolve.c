/* resolve.c - pass 2: name binding.  Functions (with overloads and
 * tapset lookup), globals and locals, probe conditions, and no changing
 * an array while a foreach walks it. */
#include "elab.h"

#include <stdlib.h>
#include <string.h>

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

/* A global that tapset code at LOC uses and no tapset declares: the
 * library is broken, the script is not to blame.  true when LOC is in a
 * tapset (and the error is given). */
static bool tapset_global_missing(Loc loc, const char *name)
{
	if (!loc.file || !loc.file->is_tapset)
		return false;
	error_at(loc, _("no tapset defines the global '%s' that this tapset uses "
			"(the tapset library is incomplete)"), name);
	return true;
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

void queue_func(Func *f)
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

static bool is_func_next_capable(Func *f)
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

static void add_name_once(Vec *names, const char *name)
{
	for (int i = 0; i < names->len; i++)
		if (vec_get(names, i) == name)
			return;
	vec_push(names, (void *)name);
}

/* Near names of an unknown function: the functions loaded (the script's,
 * private ones only from their own file) and every function of the
 * tapset index, loaded or not.  Names starting with '_' are the
 * library's internals, offered only for a name that starts with one. */
static const char *similar_functions(Scope *sc, const char *name)
{
	Vec names = { 0 };
	bool internal = name[0] == '_';
	for (int i = 0; i < func_pool.len; i++) {
		Func *f = vec_get(&func_pool, i);
		if (func_visible(f, sc->file) && (internal || f->name[0] != '_'))
			add_name_once(&names, f->name);
	}
	const Vec *lib = tapset_function_names();
	for (int i = 0; i < lib->len; i++) {
		const char *f = vec_get(lib, i);
		if (internal || f[0] != '_')
			add_name_once(&names, f);
	}
	return similar_names(name, &names);
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
			error_at(call->loc, _("unresolved function '%s': no tapset "
					      "defines it"), name);
			const char *sim = similar_functions(sc, name);
			if (*sim)
				note_at(call->loc, _("did you mean one of these?%s"), sim);
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
		if (!tapset_global_missing(sym->loc, sym->name))
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
			if (!tapset_global_missing(n->loc, name))
				error_at(n->loc, _("embedded code names unknown global '%s'"),
					 name);
			continue;
		}
		if (wr)
			g->written = true;
		else
			g->read = true;
		if (!n->pragma_globals)
			n->pragma_globals = NEW(Vec);
		vec_push(n->pragma_globals, g);
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

void bind_scope(Scope *sc, Node *body)
{
	Binder b = { sc };
	if (body)
		bind_node(&body, &b);
}

/* Probe conditions may read globals only, without side effects. */
void check_condition_node(Node **slot, void *ctx)
{
	Node *n = *slot;
	Scope *sc = ctx;
	switch (n->kind) {
	case N_SYMBOL:
		n->var = find_global(n->name, sc->file);
		if (!n->var) {
			if (!tapset_global_missing(n->loc, n->name))
				error_at(n->loc, _("probe condition may only use global "
						   "variables, not '%s'"), n->name);
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
			if (!n->var && !tapset_global_missing(n->base->loc, n->base->name))
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

void check_foreach_all(void)
{
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		Node *body = sc->probe ? sc->probe->body : sc->func->body;
		if (body)
			check_foreach(&body, NULL);
	}
}

