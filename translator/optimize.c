/* optimize.c - pass 2's clean-up: decide @defined, fold the constant
 * conditions it leaves, and (unless -u) drop what has no effect: pure
 * expression statements, stores to locals nobody reads, empty probes,
 * unused functions, globals and locals.
 *
 * Scripts rely on this: "@defined($x) ? $x : 0" must not complain about
 * $x where it does not exist, and a dead "$nosuchvar" is no error.
 */
#include "elab.h"
#include "tpath.h"
#include "families/family.h"

#include <stdlib.h>
#include <string.h>

static bool changed;

static Node *body_of(Scope *sc)
{
	return sc->probe ? sc->probe->body : sc->func->body;
}

static Node **body_slot(Scope *sc)
{
	return sc->probe ? &sc->probe->body : &sc->func->body;
}

static Node *number(Loc loc, int64_t v)
{
	Node *n = node_new(N_NUMBER, loc);
	n->num = v;
	n->type = TY_LONG;
	n->synthetic = true;
	return n;
}

static Node *null_stmt(Loc loc)
{
	Node *n = node_new(N_NULL_STMT, loc);
	n->synthetic = true;
	return n;
}

/* ---- @defined ---- */

static CtxVar *ctx_lookup(ResolvedPoint *rp, const char *name)
{
	for (int i = 0; rp && i < rp->ctx_vars.len; i++) {
		CtxVar *cv = vec_get(&rp->ctx_vars, i);
		if (!strcmp(cv->name, name))
			return cv;
	}
	return NULL;
}

/* 1 defined, 0 not, -1 not known before debuginfo is read. */
static int defined_value(Scope *sc, Node *e)
{
	if (!e)
		return 0;
	ResolvedPoint *rp = sc->rp;
	switch (e->kind) {
	case N_TARGET: {
		if (sc->func || !rp)
			return 0;
		const char *name = e->name && e->name[0] == '$' ? e->name + 1 : e->name;
		if (!name)
			return 0;
		if (!strcmp(name, "return") && !rp->is_return)
			return 0;
		if (rp_has_debug_vars(rp)) {
			bool entry = rp->is_return && strcmp(name, "return");
			return debug_target(rp, e, entry, false) != NULL;
		}
		CtxVar *cv = ctx_lookup(rp, name);
		if (cv && cv->ctype && !cv->scalar && e->comps.len) {
			int before = error_count;
			if (typed_ctx_target(rp, e, cv->ctype, false))
				return 1;
			/* the types know the struct: the member is not there */
			if (error_count == before && struct_name_of(cv->ctype) &&
			    di_source(NULL) != DI_SRC_NONE &&
			    di_find_type(NULL, xsprintf("struct %s", struct_name_of(cv->ctype))))
				return 0;
		}
		if (cv)
			return (e->comps.len || e->addressof) && cv->scalar ? 0 : 1;
		/* a point its family placed by symbol only (kernel.function):
		 * its DWARF and BTF were asked during resolution and do not
		 * describe it, so it has no variables but $return, read from
		 * the registers (stap: not defined) */
		if (rp->family && rp->family->debug_vars_only)
			return rp->is_return && !strcmp(name, "return") &&
			       !e->comps.len && !e->addressof;
		return rp->needs_debuginfo ? -1 : 0;
	}
	case N_TARGET_VARS:
		if (sc->func || !rp)
			return 0;
		if (rp_has_debug_vars(rp))
			return !strstr(e->name ? e->name : "", "return") || rp->is_return;
		if (rp->needs_debuginfo)
			return 1;
		return rp->ctx_vars.len ? 1 : 0;
	case N_AUTOCAST: {
		const DiType *t = value_ditype(sc, e->lhs);
		if (t)
			return autocast_target(t, e, false) != NULL;
		return e->lhs && (e->lhs->kind == N_CAST || e->lhs->kind == N_TARGET)
			? defined_value(sc, e->lhs) : -1;
	}
	case N_CAST: {
		/* with the module's types the members are checked; without,
		 * assume they exist */
		int before = error_count;
		if (cast_target(sc->func ? NULL : rp, e, false))
			return 1;
		return error_count == before && cast_types_known(e) ? 0 : 1;
	}
	case N_ATVAR:
		if (atvar_target(sc->func ? NULL : rp, e, true, false))
			return 1;
		return atvar_types_known(sc->func ? NULL : rp, e) ? 0 : 1;
	case N_ENTRY:
		return !sc->func && rp && rp->is_return;
	case N_PERF:
		return 1;
	default:
		return 1;
	}
}

typedef struct Folder {
	Scope *sc;
} Folder;

static bool truth(Node *n, int64_t *v)
{
	if (n && n->kind == N_NUMBER) {
		*v = n->num;
		return true;
	}
	return false;
}

static void fold_node(Node **slot, void *ctx)
{
	Folder *f = ctx;
	Node *n = *slot;
	for_each_child(n, fold_node, ctx);
	int64_t a, b;
	switch (n->kind) {
	case N_DEFINED: {
		int d = defined_value(f->sc, n->lhs);
		if (d >= 0)
			*slot = number(n->loc, d);
		else
			n->type = TY_LONG;
		break;
	}
	case N_UNARY:
		if (n->op && !strcmp(n->op, "!") && truth(n->lhs, &a))
			*slot = number(n->loc, !a);
		break;
	case N_LOGICAL:
		if (!n->op)
			break;
		if (truth(n->lhs, &a)) {
			bool is_and = !strcmp(n->op, "&&");
			if (is_and && !a)
				*slot = number(n->loc, 0);
			else if (!is_and && a)
				*slot = number(n->loc, 1);
			else if (truth(n->rhs, &b))
				*slot = number(n->loc, b != 0);
		}
		break;
	case N_TERNARY:
		if (truth(n->cond, &a))
			*slot = a ? n->then : n->els;
		break;
	case N_IF:
		if (truth(n->cond, &a)) {
			Node *r = a ? n->then : n->els;
			*slot = r ? r : null_stmt(n->loc);
		}
		break;
	default:
		break;
	}
}

/* ---- side effects ---- */

static Vec pure_known, impure_known, visiting;

static bool func_has_effects(Func *f);

typedef struct Fx {
	bool in_func;           /* local writes are no effect inside functions */
	bool found;
} Fx;

static bool lvalue_is_local(Node *lhs)
{
	return lhs && lhs->kind == N_SYMBOL && lhs->var && lhs->var->scope != VS_GLOBAL;
}

static void fx_node(Node **slot, void *ctx)
{
	Fx *fx = ctx;
	Node *n = *slot;
	if (fx->found)
		return;
	switch (n->kind) {
	case N_ASSIGN:
	case N_PREINC:
	case N_POSTINC:
		if (!(fx->in_func && lvalue_is_local(n->lhs)))
			fx->found = true;
		break;
	case N_DELETE:
		if (!(fx->in_func && lvalue_is_local(n->lhs)))
			fx->found = true;
		break;
	case N_CALL:
		for (Func *f = n->func; f; f = f->next_overload)
			if (func_has_effects(f)) {
				fx->found = true;
				break;
			}
		if (!n->func)
			fx->found = true;
		break;
	case N_PRINT:
		/* sprintf and friends only build a string; printing is output. */
		if (n->name[0] != 's')
			fx->found = true;
		break;
	case N_WHILE:
	case N_FOR:
	case N_BREAK:
	case N_CONTINUE:
	case N_NEXT:
		fx->found = true;
		break;
	case N_RETURN:
		if (!fx->in_func)
			fx->found = true;
		break;
	case N_EMBEDDED:
	case N_EMBEDDED_EXPR:
		if (!n->str || !strstr(n->str, "/* pure */"))
			fx->found = true;
		break;
	default:
		break;
	}
	if (!fx->found)
		for_each_child(n, fx_node, ctx);
}

static bool vec_contains(Vec *v, void *p)
{
	for (int i = 0; i < v->len; i++)
		if (vec_get(v, i) == p)
			return true;
	return false;
}

static bool func_has_effects(Func *f)
{
	if (f->pure || vec_contains(&pure_known, f))
		return false;
	if (vec_contains(&impure_known, f))
		return true;
	if (vec_contains(&visiting, f))
		return false;   /* recursion: decided by the other paths */
	if (!f->body)
		return false;
	vec_push(&visiting, f);
	Fx fx = { true, false };
	Node *b = f->body;
	fx_node(&b, &fx);
	visiting.len--;
	vec_push(fx.found ? &impure_known : &pure_known, f);
	return fx.found;
}

static bool has_side_effects(Node *n)
{
	if (!n)
		return false;
	Fx fx = { false, false };
	fx_node(&n, &fx);
	return fx.found;
}

/* ---- reads of locals ---- */

typedef struct Uses {
	Vec read;               /* Var * read somewhere */
	Vec written;
} Uses;

static void uses_node(Node **slot, void *ctx);

static void uses_lvalue(Node *lhs, Uses *u, bool also_read)
{
	if (lhs && lhs->kind == N_SYMBOL && lhs->var) {
		if (!vec_contains(&u->written, lhs->var))
			vec_push(&u->written, lhs->var);
		if (also_read && !vec_contains(&u->read, lhs->var))
			vec_push(&u->read, lhs->var);
		return;
	}
	if (lhs)
		uses_node(&lhs, u);
}

static void uses_node(Node **slot, void *ctx)
{
	Uses *u = ctx;
	Node *n = *slot;
	switch (n->kind) {
	case N_SYMBOL:
		if (n->var && !vec_contains(&u->read, n->var))
			vec_push(&u->read, n->var);
		return;
	case N_ASSIGN:
		/* "x += 1" reads x too; "x <<< v" does not */
		uses_lvalue(n->lhs, u, n->op && strcmp(n->op, "=") && strcmp(n->op, "<<<"));
		if (n->rhs)
			uses_node(&n->rhs, u);
		return;
	case N_PREINC:
	case N_POSTINC:
		uses_lvalue(n->lhs, u, true);
		return;
	case N_FOREACH:
		if (n->value && n->value->var && !vec_contains(&u->written, n->value->var))
			vec_push(&u->written, n->value->var);
		for (int i = 0; i < n->args.len; i++) {
			Node *k = vec_get(&n->args, i);
			if (k && k->kind == N_SYMBOL && k->var) {
				if (!vec_contains(&u->written, k->var))
					vec_push(&u->written, k->var);
			} else if (k) {
				uses_node((Node **)&n->args.data[i], u);
			}
		}
		for (int i = 0; i < n->slice.len; i++)
			if (n->slice.data[i])
				uses_node((Node **)&n->slice.data[i], u);
		if (n->base)
			uses_node(&n->base, u);
		if (n->limit)
			uses_node(&n->limit, u);
		if (n->body)
			uses_node(&n->body, u);
		return;
	case N_TRY:
		if (n->catch_var && n->catch_var->var &&
		    !vec_contains(&u->written, n->catch_var->var))
			vec_push(&u->written, n->catch_var->var);
		if (n->body)
			uses_node(&n->body, u);
		if (n->els)
			uses_node(&n->els, u);
		return;
	default:
		for_each_child(n, uses_node, ctx);
	}
}

/* ---- dropping statements ---- */

typedef struct Cleaner {
	Scope *sc;
	Uses uses;
} Cleaner;

static bool is_empty(Node *n)
{
	if (!n || n->kind == N_NULL_STMT)
		return true;
	if (n->kind == N_BLOCK) {
		for (int i = 0; i < n->stmts.len; i++)
			if (!is_empty(vec_get(&n->stmts, i)))
				return false;
		return true;
	}
	return false;
}

/* A store to a local nobody reads: keep only the value's effects. */
static Node *strip_dead_store(Cleaner *c, Node *e)
{
	if (!e || (e->kind != N_ASSIGN && e->kind != N_PREINC && e->kind != N_POSTINC))
		return e;
	Node *lhs = e->lhs;
	if (!lvalue_is_local(lhs) || vec_contains(&c->uses.read, lhs->var))
		return e;
	changed = true;
	Node *rhs = e->kind == N_ASSIGN ? strip_dead_store(c, e->rhs) : NULL;
	return rhs && has_side_effects(rhs) ? rhs : NULL;
}

static void clean_stmt(Node **slot, Cleaner *c);

static void warn_elided(Cleaner *c, Node *e)
{
	if (c->sc->from_tapset || e->synthetic || elab.listing ||
	    (e->loc.file && e->loc.file->is_tapset))
		return;
	warning_at(e->loc, _("eliding side-effect-free expression"));
}

static void clean_stmt(Node **slot, Cleaner *c)
{
	Node *n = *slot;
	if (!n)
		return;
	switch (n->kind) {
	case N_BLOCK: {
		int out = 0;
		for (int i = 0; i < n->stmts.len; i++) {
			Node **s = (Node **)&n->stmts.data[i];
			clean_stmt(s, c);
			if (*s && (*s)->kind != N_NULL_STMT)
				n->stmts.data[out++] = *s;
			else
				changed = changed || *s == NULL;
		}
		if (out != n->stmts.len)
			changed = true;
		n->stmts.len = out;
		return;
	}
	case N_EXPR_STMT: {
		Node *e = strip_dead_store(c, n->lhs);
		if (!e) {
			*slot = null_stmt(n->loc);
			return;
		}
		n->lhs = e;
		if (!has_side_effects(e)) {
			warn_elided(c, e);
			*slot = null_stmt(n->loc);
			changed = true;
		}
		return;
	}
	case N_IF:
		clean_stmt(&n->then, c);
		clean_stmt(&n->els, c);
		if (is_empty(n->then) && is_empty(n->els)) {
			Node *s = node_new(N_EXPR_STMT, n->loc);
			s->lhs = n->cond;
			s->synthetic = true;
			n->cond->synthetic = true;
			*slot = s;
			changed = true;
			clean_stmt(slot, c);
		}
		return;
	case N_FOR:
		n->init = strip_dead_store(c, n->init);
		if (n->init && !has_side_effects(n->init)) {
			warn_elided(c, n->init);
			n->init = NULL;
			changed = true;
		}
		n->incr = strip_dead_store(c, n->incr);
		if (n->incr && !has_side_effects(n->incr)) {
			warn_elided(c, n->incr);
			n->incr = NULL;
			changed = true;
		}
		clean_stmt(&n->body, c);
		if (!n->body)
			n->body = null_stmt(n->loc);
		return;
	case N_FOREACH:
		clean_stmt(&n->body, c);
		if (is_empty(n->body) && !has_side_effects(n->limit)) {
			*slot = null_stmt(n->loc);
			changed = true;
			return;
		}
		if (!n->body)
			n->body = null_stmt(n->loc);
		return;
	case N_WHILE:
		clean_stmt(&n->body, c);
		if (!n->body)
			n->body = null_stmt(n->loc);
		return;
	case N_TRY:
		clean_stmt(&n->body, c);
		clean_stmt(&n->els, c);
		if (is_empty(n->body)) {
			*slot = null_stmt(n->loc);
			changed = true;
		}
		return;
	default:
		return;
	}
}

static void clean_scope(Scope *sc)
{
	Cleaner c = { sc, { { 0 }, { 0 } } };
	Node *b = body_of(sc);
	if (b)
		uses_node(&b, &c.uses);
	clean_stmt(body_slot(sc), &c);
}

/* "did you mean": the near names of a never-assigned local among the
 * scope's assigned locals, its parameters and the script's globals. */
static void note_similar_local(Scope *sc, Var *v, Uses *u)
{
	Vec names = { 0 };
	for (int i = 0; i < sc->locals->len; i++) {
		Var *w = vec_get(sc->locals, i);
		if (w != v && vec_contains(&u->written, w))
			vec_push(&names, (void *)w->name);
	}
	for (int i = 0; sc->func && i < sc->func->params.len; i++)
		vec_push(&names, (void *)((Var *)vec_get(&sc->func->params, i))->name);
	for (int i = 0; i < global_pool.len; i++) {
		Var *g = vec_get(&global_pool, i);
		if (!g->from_tapset && (!g->is_private || g->file == v->file))
			vec_push(&names, (void *)g->name);
	}
	const char *sim = similar_names(v->name, &names);
	if (*sim)
		note_at(v->loc, _("did you mean one of these?%s"), sim);
}

static void warn_never_assigned(Scope *sc)
{
	if (sc->from_tapset)
		return;
	Uses u = { { 0 }, { 0 } };
	Node *b = body_of(sc);
	if (b)
		uses_node(&b, &u);
	for (int i = 0; i < sc->locals->len; i++) {
		Var *v = vec_get(sc->locals, i);
		if (vec_contains(&u.read, v) && !vec_contains(&u.written, v) &&
		    !(v->loc.file && v->loc.file->is_tapset) && !sess.suppress_warnings) {
			warning_at(v->loc, _("never-assigned local variable '%s'"), v->name);
			note_similar_local(sc, v, &u);
		}
	}
}

static void compute_liveness(void);
static void drop_unused_locals(Scope *sc);

/* A perf probe with .counter("NAME") is there for @perf("NAME") to read:
 * its handler never runs, so an empty one is no reason to drop it. */
static bool is_counter_probe(Scope *sc)
{
	return sc->probe && sc->rp && sc->rp->perf_counter;
}

void optimize_before_types(void)
{
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		Folder f = { sc };
		if (body_of(sc))
			fold_node(body_slot(sc), &f);
	}
	if (sess.unoptimized || elab.listing) {
		compute_liveness();
		return;
	}
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (sc->func && sc->func->body && sc->func->body->kind != N_BLOCK)
			continue;   /* embedded C */
		int rounds = 0;
		do {
			changed = false;
			clean_scope(sc);
		} while (changed && ++rounds < 50);
		warn_never_assigned(sc);
		drop_unused_locals(sc);
	}
	/* probes that do nothing are dropped */
	int out = 0;
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (sc->probe && is_empty(sc->probe->body) && !is_counter_probe(sc)) {
			if (!sc->from_tapset) {
				/* named as the script wrote it, so a wildcard's
				 * thousands of probes warn once (diag.c drops
				 * the repeats) */
				ProbePoint *pp = vec_get(&sc->probe->points, 0);
				while (pp->from)
					pp = pp->from;
				warning_at(sc->probe->loc, _("side-effect-free probe '%s'"),
					   probe_point_text(pp));
			}
			continue;
		}
		elab.scopes.data[out++] = sc;
	}
	elab.scopes.len = out;
	compute_liveness();
}

/* ---- after types: unused functions, globals, locals ---- */

static void mark_calls(Node **slot, void *ctx);

static void mark_func(Func *f)
{
	for (; f; f = f->next_overload) {
		if (f->used)
			continue;
		f->used = true;
		if (f->body)
			mark_calls(&f->body, NULL);
	}
}

static void mark_calls(Node **slot, void *ctx)
{
	Node *n = *slot;
	if (n->kind == N_CALL && n->func)
		mark_func(n->func);
	for_each_child(n, mark_calls, ctx);
}

static void global_uses(Node **slot, void *ctx)
{
	Node *n = *slot;
	(void)ctx;
	switch (n->kind) {
	case N_SYMBOL:
		if (n->var)
			n->var->read = true;
		return;
	case N_ASSIGN:
		if (n->lhs && (n->lhs->kind == N_SYMBOL || n->lhs->kind == N_INDEX) &&
		    n->lhs->var) {
			n->lhs->var->written = true;
			if (n->op && strcmp(n->op, "=") && strcmp(n->op, "<<<"))
				n->lhs->var->read = true;
			for_each_child(n->lhs, global_uses, ctx);
			if (n->rhs)
				global_uses(&n->rhs, ctx);
			return;
		}
		break;
	case N_PREINC:
	case N_POSTINC:
	case N_DELETE:
		if (n->lhs && n->lhs->var) {
			n->lhs->var->written = true;
			if (n->kind != N_DELETE)
				n->lhs->var->read = true;
		}
		break;
	case N_INDEX:
	case N_IN:
	case N_FOREACH:
	case N_STAT:
	case N_HIST:
		if (n->var)
			n->var->read = true;
		break;
	default:
		break;
	}
	for_each_child(n, global_uses, ctx);
}

static void drop_unused_locals(Scope *sc)
{
	Uses u = { { 0 }, { 0 } };
	Node *b = body_of(sc);
	if (b)
		uses_node(&b, &u);
	int out = 0;
	for (int i = 0; i < sc->locals->len; i++) {
		Var *v = vec_get(sc->locals, i);
		if (vec_contains(&u.read, v) || vec_contains(&u.written, v))
			sc->locals->data[out++] = v;
	}
	sc->locals->len = out;
}

/* Which functions the remaining probes reach, and which globals they
 * read and write. */
static void compute_liveness(void)
{
	Vec funcs = { 0 };
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (sc->func) {
			vec_push(&funcs, sc->func);
			if (!(sess.unoptimized && !sc->func->from_tapset))
				sc->func->used = false;
		}
	}
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (sc->probe && sc->probe->body)
			mark_calls(&sc->probe->body, NULL);
		if (sc->probe) {
			ProbePoint *pp = vec_get(&sc->probe->points, 0);
			if (pp->condition)
				global_uses(&pp->condition, NULL);
		}
	}
	for (int i = 0; i < funcs.len; i++) {
		Func *f = vec_get(&funcs, i);
		if (f->used && f->body)
			mark_calls(&f->body, NULL);
	}
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (sc->func && !sc->func->used)
			continue;
		Node *b = body_of(sc);
		if (b)
			global_uses(&b, NULL);
	}
}

void optimize_after_types(void)
{
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (sc->func && !sc->func->used)
			continue;
		if (!sess.unoptimized && !elab.listing)
			drop_unused_locals(sc);
	}
	if (elab.listing)
		return;
	Vec *globals = elab_global_pool();
	for (int i = 0; i < globals->len; i++) {
		Var *v = vec_get(globals, i);
		if (v->from_tapset)
			continue;
		if (!v->read && !v->written) {
			if (!sess.unoptimized)
				warning_at(v->loc, _("eliding unused variable '%s'"), v->name);
		} else if (v->read && !v->written && !v->init && v->type != TY_STATS) {
			warning_at(v->loc, _("never-assigned global variable '%s'"), v->name);
		}
	}
}
