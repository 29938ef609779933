/* types.c - type inference for pass 2.
 *
 * Every variable, array key, function parameter and return value is long,
 * string or stats.  Types flow both ways: up from literals and operators,
 * down from what an operator or a call expects.  We sweep all bodies until
 * nothing changes, silently; a last sweep then reports every conflict
 * with the place where the first type was decided.
 */
#include "elab.h"

#include <regex.h>
#include <string.h>

static bool changed, reporting;
static Vec reported;            /* Var * / Func * already complained about */

typedef struct Infer {
	Scope *sc;
} Infer;

static bool once(void *p)
{
	for (int i = 0; i < reported.len; i++)
		if (vec_get(&reported, i) == p)
			return false;
	vec_push(&reported, p);
	return true;
}

static const char *var_kind_name(Var *v)
{
	switch (v->scope) {
	case VS_GLOBAL: return _("global");
	case VS_PARAM: return _("parameter");
	default: return _("local");
	}
}

static const char *decl_place(Loc l)
{
	if (!l.file || l.line <= 0)
		return _("elsewhere");
	return xsprintf("%s:%d:%d", l.file->name, l.line, l.col);
}

static void set_var(Var *v, Type t, Loc at)
{
	if (!v || t == TY_UNKNOWN || t == TY_VOID)
		return;
	if (v->type == TY_UNKNOWN) {
		v->type = t;
		v->type_loc = at;
		changed = true;
		return;
	}
	if (v->type != t && reporting && once(v))
		error_at(at, _("type mismatch: %s '%s' is %s here but was %s at %s"),
			 var_kind_name(v), v->name, type_name(t), type_name(v->type),
			 decl_place(v->type_loc.line ? v->type_loc : v->loc));
}

static void set_key(Var *v, int i, Type t, Loc at)
{
	if (!v || i >= 9 || t == TY_UNKNOWN || t == TY_VOID)
		return;
	if (t == TY_STATS) {
		if (reporting)
			error_at(at, _("a statistics aggregate cannot be an array index"));
		return;
	}
	if (v->key_types[i] == TY_UNKNOWN) {
		v->key_types[i] = t;
		changed = true;
		return;
	}
	if (v->key_types[i] != t && reporting)
		error_at(at, _("type mismatch: index %d of array '%s' is %s here but "
			       "%s elsewhere"), i + 1, v->name, type_name(t),
			 type_name(v->key_types[i]));
}

static void set_func(Func *f, Type t, Loc at)
{
	if (!f || t == TY_UNKNOWN || t == TY_VOID)
		return;
	for (; f; f = f->next_overload) {
		if (f->type == TY_UNKNOWN && !f->declared_type) {
			f->type = t;
			f->type_loc = at;
			changed = true;
		} else if (f->type != t && reporting && once(f)) {
			error_at(at, _("type mismatch: function '%s' returns %s, but %s is "
				       "used here"), f->name, type_name(f->type), type_name(t));
		}
	}
}

static Scope *cur_scope;         /* the body being swept */

/* A $variable of a probe whose variables pass 2 cannot list (they need
 * debuginfo): it was taken to be a number without knowing it exists.
 * When that number is the wrong type, say so, since the variable may
 * just as well be misspelt. */
static void note_unchecked_target(Node *n)
{
	ResolvedPoint *rp = cur_scope ? cur_scope->rp : NULL;
	if (n->kind != N_TARGET || n->deref || !rp || !rp->needs_debuginfo ||
	    !n->name)
		return;
	const char *name = n->name[0] == '$' ? n->name + 1 : n->name;
	if (resolved_ctx_var(rp, name))
		return;
	ProbePoint plain = *rp->point;
	plain.optional = plain.sufficient = false;
	plain.condition = NULL;
	note_at(n->loc, _("tapc cannot tell whether '$%s' exists in '%s' "
			  "without its debuginfo; if it does, it is a number"),
		name, probe_point_text(&plain));
}

/* An operand of the wrong type. */
static void want(Node *n, Type got, Type expect)
{
	if (!reporting || got == TY_UNKNOWN || expect == TY_UNKNOWN || got == expect)
		return;
	if (got == TY_VOID) {
		error_at(n->loc, _("this function call has no value (its function "
				   "returns nothing)"));
		return;
	}
	error_at(n->loc, _("type mismatch: expected %s, got %s"), type_name(expect),
		 type_name(got));
	note_unchecked_target(n);
}

static Type infer(Infer *in, Node *n, Type expect);

/* A value of any scalar type; stats aggregates are not values. */
static Type value_of(Infer *in, Node *n, Type expect)
{
	Type t = infer(in, n, expect);
	if (t == TY_STATS && reporting && once(n))
		error_at(n->loc, _("a statistics aggregate is not a value here: use "
				   "@count, @sum, @min, @max, @avg or a histogram"));
	return t;
}

static void unify_pair(Infer *in, Node *a, Node *b, Type ta, Type tb)
{
	if (ta == TY_UNKNOWN && tb != TY_UNKNOWN)
		infer(in, a, tb);
	else if (tb == TY_UNKNOWN && ta != TY_UNKNOWN)
		infer(in, b, ta);
}

static void infer_keys(Infer *in, Var *v, Vec *keys)
{
	for (int i = 0; i < keys->len; i++) {
		Node *k = vec_get(keys, i);
		if (!k)
			continue;
		Type kt = v && i < 9 ? v->key_types[i] : TY_UNKNOWN;
		Type t = value_of(in, k, kt);
		if (v)
			set_key(v, i, t, k->loc);
	}
}

/* The aggregate operand of <<<, @count(...) and histograms. */
static void stats_operand(Infer *in, Node *n)
{
	if (!n)
		return;
	Var *v = n->var;
	if ((n->kind == N_SYMBOL || n->kind == N_INDEX) && v) {
		if (v->scope != VS_GLOBAL) {
			if (reporting && once(v))
				error_at(n->loc, _("statistics aggregate '%s' must be a global "
						   "variable"), v->name);
			return;
		}
		set_var(v, TY_STATS, n->loc);
		if (n->kind == N_INDEX)
			infer_keys(in, v, &n->args);
		if (v->type != TY_STATS && reporting && once(v))
			error_at(n->loc, _("'%s' is a %s, not a statistics aggregate"),
				 v->name, type_name(v->type));
		n->type = TY_STATS;
		return;
	}
	if (reporting)
		error_at(n->loc, _("expected a statistics aggregate (a global that "
				   "collects values with <<<)"));
}

/* ---- printf formats ---- */

static void check_format(Infer *in, Node *n)
{
	if (!n->format)
		n->format = parse_format(n->fmt->str);
	const PrintFormat *pf = n->format;
	int arg = 0;
	for (int i = 0; i < pf->dirs.len; i++) {
		const FmtDirective *d = vec_get(&pf->dirs, i);
		if (d->conv == FMT_LIT || d->conv == FMT_PERCENT)
			continue;
		int stars = (d->width == FMT_STAR) + (d->prec == FMT_STAR);
		for (int s = 0; s < stars; s++, arg++)
			if (arg < n->args.len)
				want(vec_get(&n->args, arg),
				     value_of(in, vec_get(&n->args, arg), TY_LONG), TY_LONG);
		Type t = d->conv == FMT_STRING ? TY_STRING : TY_LONG;
		if (arg < n->args.len) {
			Node *a = vec_get(&n->args, arg);
			Type got = value_of(in, a, t);
			if (reporting && got != TY_UNKNOWN && got != t && got != TY_STATS)
				error_at(a->loc, _("%s: '%%%c' wants a %s, this is a %s"),
					 n->name, d->letter, type_name(t), type_name(got));
		}
		arg++;
	}
	if (pf->error) {
		if (reporting)
			error_at(n->fmt->loc, "%s", pf->error);
		return;
	}
	if (arg != n->args.len && reporting)
		error_at(n->loc, _("%s: the format wants %d value(s), %d given"),
			 n->name, arg, n->args.len);
	for (int i = arg; i < n->args.len; i++)
		value_of(in, vec_get(&n->args, i), TY_UNKNOWN);
}

static Type infer_print(Infer *in, Node *n)
{
	bool is_s = n->name && n->name[0] == 's';
	if (n->fmt && strstr(n->name, "printf")) {
		check_format(in, n);
	} else {
		for (int i = 0; i < n->args.len; i++) {
			Node *a = vec_get(&n->args, i);
			if (a->kind == N_HIST) {
				infer(in, a, TY_UNKNOWN);
				continue;
			}
			Type t = value_of(in, a, TY_UNKNOWN);
			if (t == TY_VOID)
				want(a, t, TY_LONG);
		}
	}
	return is_s ? TY_STRING : TY_LONG;
}

static void check_regex(Node *n)
{
	if (!reporting || !n->rhs || n->rhs->kind != N_STRING || !n->rhs->str)
		return;
	regex_t re;
	int rc = regcomp(&re, n->rhs->str, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char buf[256];
		regerror(rc, &re, buf, sizeof buf);
		error_at(n->rhs->loc, _("invalid regular expression: %s"), buf);
		return;
	}
	regfree(&re);
}

/* Embedded C names the globals it touches with pragma:read:NAME; an
 * aggregate has no C value it could read. */
static void check_pragmas(Node *n)
{
	Vec *v = n->pragma_globals;
	for (int i = 0; reporting && v && i < v->len; i++) {
		Var *g = vec_get(v, i);
		if (g->type == TY_STATS)
			error_at(n->loc, _("embedded code cannot access the statistics "
					   "aggregate '%s'"), g->name);
	}
}

/* ---- expressions ---- */

static Type infer_call(Infer *in, Node *n, Type expect)
{
	Func *f = n->func;
	for (int i = 0; i < n->args.len; i++) {
		Node *a = vec_get(&n->args, i);
		Type pt = TY_UNKNOWN;
		if (f && i < f->params.len)
			pt = ((Var *)vec_get(&f->params, i))->type;
		Type t = value_of(in, a, pt);
		for (Func *g = f; g; g = g->next_overload) {
			if (i >= g->params.len)
				continue;
			Var *p = vec_get(&g->params, i);
			if (p->declared_type)
				want(a, t, p->type);
			else
				set_var(p, t, a->loc);
		}
	}
	if (!f)
		return TY_UNKNOWN;
	if (expect != TY_UNKNOWN && f->type == TY_UNKNOWN)
		set_func(f, expect, n->loc);
	return f->type;
}

static Type infer_assign(Infer *in, Node *n, Type expect)
{
	const char *op = n->op ? n->op : "=";
	if (!strcmp(op, "<<<")) {
		stats_operand(in, n->lhs);
		want(n->rhs, value_of(in, n->rhs, TY_LONG), TY_LONG);
		return TY_LONG;
	}
	if (!strcmp(op, "=")) {
		Node *l = n->lhs;
		if (l && (l->kind == N_SYMBOL || l->kind == N_INDEX) && l->var &&
		    l->var->type == TY_STATS) {
			if (reporting)
				error_at(n->loc, _("'%s' is a statistics aggregate: add values "
						   "with <<<, not ="), l->var->name);
			return TY_UNKNOWN;
		}
		Type tr = value_of(in, n->rhs, expect);
		Type tl = value_of(in, n->lhs, tr);
		if (tl == TY_UNKNOWN && tr != TY_UNKNOWN)
			tl = value_of(in, n->lhs, tr);
		if (tr == TY_UNKNOWN && tl != TY_UNKNOWN)
			tr = value_of(in, n->rhs, tl);
		/* a variable's own conflict is reported by set_var */
		if (n->lhs && n->lhs->kind != N_SYMBOL && n->lhs->kind != N_INDEX)
			want(n->rhs, tr, tl);
		return tl != TY_UNKNOWN ? tl : tr;
	}
	Type t = !strcmp(op, ".=") ? TY_STRING : TY_LONG;
	want(n->lhs, value_of(in, n->lhs, t), t);
	want(n->rhs, value_of(in, n->rhs, t), t);
	return t;
}

static Type infer_target(Node *n)
{
	if (n->deref)
		return TY_STRING;
	if (n->kind == N_TARGET && n->type != TY_UNKNOWN && !n->comps.len && !n->addressof)
		return n->type;
	return TY_LONG;
}

static Type infer(Infer *in, Node *n, Type expect)
{
	if (!n)
		return TY_UNKNOWN;
	Type t = TY_UNKNOWN, a, b;
	switch (n->kind) {
	case N_NUMBER:
		t = TY_LONG;
		break;
	case N_STRING:
		t = TY_STRING;
		break;
	case N_SYMBOL:
		if (n->var && n->var->arity <= 0) {
			set_var(n->var, expect, n->loc);
			t = n->var->type;
		}
		break;
	case N_INDEX:
		if (n->base && n->base->kind == N_HIST) {
			infer(in, n->base, TY_UNKNOWN);
			infer_keys(in, NULL, &n->args);
			t = TY_LONG;
			break;
		}
		infer_keys(in, n->var, &n->args);
		if (n->var) {
			set_var(n->var, expect, n->loc);
			t = n->var->type;
		}
		break;
	case N_CALL:
		t = infer_call(in, n, expect);
		break;
	case N_PRINT:
		t = infer_print(in, n);
		break;
	case N_BINARY:
		want(n->lhs, value_of(in, n->lhs, TY_LONG), TY_LONG);
		want(n->rhs, value_of(in, n->rhs, TY_LONG), TY_LONG);
		t = TY_LONG;
		break;
	case N_COMPARE:
		a = value_of(in, n->lhs, TY_UNKNOWN);
		b = value_of(in, n->rhs, TY_UNKNOWN);
		unify_pair(in, n->lhs, n->rhs, a, b);
		if (a != TY_UNKNOWN && b != TY_UNKNOWN && a != b && reporting)
			error_at(n->loc, _("type mismatch: comparing %s with %s"),
				 type_name(a), type_name(b));
		t = TY_LONG;
		break;
	case N_LOGICAL:
	case N_UNARY:
		want(n->lhs, value_of(in, n->lhs, TY_LONG), TY_LONG);
		if (n->rhs)
			want(n->rhs, value_of(in, n->rhs, TY_LONG), TY_LONG);
		t = TY_LONG;
		break;
	case N_CONCAT:
		want(n->lhs, value_of(in, n->lhs, TY_STRING), TY_STRING);
		want(n->rhs, value_of(in, n->rhs, TY_STRING), TY_STRING);
		t = TY_STRING;
		break;
	case N_REGEX:
		want(n->lhs, value_of(in, n->lhs, TY_STRING), TY_STRING);
		want(n->rhs, value_of(in, n->rhs, TY_STRING), TY_STRING);
		check_regex(n);
		t = TY_LONG;
		break;
	case N_PREINC:
	case N_POSTINC:
		want(n->lhs, value_of(in, n->lhs, TY_LONG), TY_LONG);
		t = TY_LONG;
		break;
	case N_ASSIGN:
		t = infer_assign(in, n, expect);
		break;
	case N_TERNARY:
		want(n->cond, value_of(in, n->cond, TY_LONG), TY_LONG);
		a = value_of(in, n->then, expect);
		b = value_of(in, n->els, expect);
		unify_pair(in, n->then, n->els, a, b);
		if (a != TY_UNKNOWN && b != TY_UNKNOWN && a != b && reporting)
			error_at(n->loc, _("type mismatch: the branches of '?:' are %s "
					   "and %s"), type_name(a), type_name(b));
		t = a != TY_UNKNOWN ? a : b;
		break;
	case N_IN:
		if (n->base && n->base->kind == N_HIST)
			infer(in, n->base, TY_UNKNOWN);
		infer_keys(in, n->var, &n->args);
		t = TY_LONG;
		break;
	case N_STAT:
		stats_operand(in, n->lhs);
		for (int i = 0; i < n->args.len; i++)
			value_of(in, vec_get(&n->args, i), TY_LONG);
		t = TY_LONG;
		break;
	case N_HIST:
		stats_operand(in, n->lhs);
		for (int i = 0; i < n->args.len; i++)
			want(vec_get(&n->args, i),
			     value_of(in, vec_get(&n->args, i), TY_LONG), TY_LONG);
		t = TY_STATS;
		n->type = t;
		return t;
	case N_TARGET:
	case N_CAST:
	case N_ATVAR:
	case N_AUTOCAST:
		if (n->lhs)
			value_of(in, n->lhs, TY_LONG);
		for (int i = 0; i < n->comps.len; i++) {
			Component *c = vec_get(&n->comps, i);
			if (c->index)
				want(c->index, value_of(in, c->index, TY_LONG), TY_LONG);
		}
		t = infer_target(n);
		break;
	case N_TARGET_VARS:
		t = TY_STRING;
		break;
	case N_ENTRY:
		t = value_of(in, n->lhs, expect);
		break;
	case N_DEFINED:
	case N_PROBEWRITE:
	case N_PERF:
	case N_CONST:
	case N_ENUM:
		t = TY_LONG;
		break;
	case N_REGISTER:
	case N_DEREF:
		if (n->lhs)
			value_of(in, n->lhs, TY_LONG);
		for (int i = 0; i < n->args.len; i++)
			value_of(in, vec_get(&n->args, i), TY_LONG);
		t = TY_LONG;
		break;
	case N_EMBEDDED_EXPR:
		check_pragmas(n);
		t = n->str && strstr(n->str, "/* string */") ? TY_STRING : TY_LONG;
		break;
	default:
		t = TY_UNKNOWN;
		break;
	}
	n->type = t;
	return t;
}

/* ---- statements ---- */

static void infer_stmt(Infer *in, Node *n);

static void infer_cond(Infer *in, Node *c)
{
	if (c)
		want(c, value_of(in, c, TY_LONG), TY_LONG);
}

static void infer_foreach(Infer *in, Node *n)
{
	Var *arr = n->var;
	if (n->base && n->base->kind == N_HIST) {
		infer(in, n->base, TY_UNKNOWN);
		for (int i = 0; i < n->args.len; i++)
			set_var(((Node *)vec_get(&n->args, i))->var, TY_LONG, n->loc);
		arr = NULL;
	}
	for (int i = 0; arr && i < n->args.len; i++) {
		Node *k = vec_get(&n->args, i);
		if (!k->var || i >= 9)
			continue;
		if (arr->key_types[i] != TY_UNKNOWN)
			set_var(k->var, arr->key_types[i], k->loc);
		else if (k->var->type != TY_UNKNOWN)
			set_key(arr, i, k->var->type, k->loc);
		k->type = k->var->type;
	}
	if (arr)
		infer_keys(in, arr, &n->slice);
	if (n->value && n->value->var && arr) {
		if (arr->type == TY_STATS) {
			if (reporting)
				error_at(n->value->loc, _("'%s' holds statistics: the loop "
							  "value cannot be one"), arr->name);
		} else if (arr->type != TY_UNKNOWN) {
			set_var(n->value->var, arr->type, n->value->loc);
		} else if (n->value->var->type != TY_UNKNOWN) {
			set_var(arr, n->value->var->type, n->value->loc);
		}
	}
	if (n->op && arr && arr->type != TY_UNKNOWN && arr->type != TY_STATS && reporting)
		error_at(n->loc, _("sorting by %s needs an array of statistics, '%s' "
				   "holds %s"), n->op, arr->name, type_name(arr->type));
	if (n->limit)
		want(n->limit, value_of(in, n->limit, TY_LONG), TY_LONG);
	infer_stmt(in, n->body);
}

static void infer_stmt(Infer *in, Node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_BLOCK:
		for (int i = 0; i < n->stmts.len; i++)
			infer_stmt(in, vec_get(&n->stmts, i));
		break;
	case N_EXPR_STMT:
		if (n->lhs && n->lhs->kind == N_HIST)
			infer(in, n->lhs, TY_UNKNOWN);
		else
			value_of(in, n->lhs, TY_UNKNOWN);
		break;
	case N_IF:
		infer_cond(in, n->cond);
		infer_stmt(in, n->then);
		infer_stmt(in, n->els);
		break;
	case N_WHILE:
		infer_cond(in, n->cond);
		infer_stmt(in, n->body);
		break;
	case N_FOR:
		if (n->init)
			value_of(in, n->init, TY_UNKNOWN);
		infer_cond(in, n->cond);
		if (n->incr)
			value_of(in, n->incr, TY_UNKNOWN);
		infer_stmt(in, n->body);
		break;
	case N_FOREACH:
		infer_foreach(in, n);
		break;
	case N_RETURN:
		if (!in->sc->func) {
			if (reporting)
				error_at(n->loc, _("'return' outside a function"));
			break;
		}
		if (n->lhs) {
			Func *f = in->sc->func;
			Type t = value_of(in, n->lhs, f->type);
			if (f->declared_type)
				want(n->lhs, t, f->type);
			else if (t != TY_UNKNOWN && f->type == TY_UNKNOWN) {
				f->type = t;
				f->type_loc = n->lhs->loc;
				changed = true;
			} else if (t != TY_UNKNOWN && t != f->type && reporting && once(f))
				error_at(n->lhs->loc, _("type mismatch: function '%s' returns "
							"%s here but %s at %s"), f->name,
					 type_name(t), type_name(f->type), decl_place(f->type_loc));
		}
		break;
	case N_DELETE:
		if (n->lhs && n->lhs->kind == N_INDEX)
			infer_keys(in, n->lhs->var, &n->lhs->args);
		break;
	case N_TRY:
		if (n->catch_var && n->catch_var->var)
			set_var(n->catch_var->var, TY_STRING, n->catch_var->loc);
		infer_stmt(in, n->body);
		infer_stmt(in, n->els);
		break;
	case N_EMBEDDED:
		check_pragmas(n);
		break;
	default:
		break;
	}
}

static Node *scope_body(Scope *sc)
{
	return sc->probe ? sc->probe->body : sc->func->body;
}

static bool scope_live(Scope *sc)
{
	return sc->probe || sc->func->used;
}

static void sweep(void)
{
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (!scope_live(sc))
			continue;
		Infer in = { sc };
		cur_scope = sc;
		if (sc->probe) {
			ProbePoint *pp = vec_get(&sc->probe->points, 0);
			if (pp->condition)
				infer_cond(&in, pp->condition);
		}
		infer_stmt(&in, scope_body(sc));
	}
	cur_scope = NULL;
}

static void unresolved(Var *v)
{
	if (v->type == TY_UNKNOWN && once(v))
		error_at(v->loc, _("unresolved type for %s '%s': nothing tells whether "
				   "it is a number or a string"), var_kind_name(v), v->name);
}

void infer_types(void)
{
	reported.len = 0;
	/* embedded-C functions: undeclared parameters are numbers; an
	 * undeclared return type comes from the calls, as for script
	 * functions (void when none says, at the end) */
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		Func *f = sc->func;
		if (!f || (f->body && f->body->kind != N_EMBEDDED))
			continue;
		for (int j = 0; j < f->params.len; j++) {
			Var *p = vec_get(&f->params, j);
			if (p->type == TY_UNKNOWN) {
				p->type = TY_LONG;
				p->type_loc = p->loc;
			}
		}
	}
	Vec *pool = elab_global_pool();
	for (int i = 0; i < pool->len; i++) {
		Var *v = vec_get(pool, i);
		if (v->init && v->type == TY_UNKNOWN) {
			v->type = v->init->kind == N_STRING ? TY_STRING : TY_LONG;
			v->type_loc = v->init->loc;
		}
	}
	int rounds = 0;
	do {
		changed = false;
		sweep();
	} while (changed && ++rounds < 100);
	reporting = true;
	sweep();
	reporting = false;
	if (elab.listing)
		return;
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (!scope_live(sc))
			continue;
		for (int j = 0; j < sc->locals->len; j++)
			unresolved(vec_get(sc->locals, j));
		if (sc->func)
			for (int j = 0; j < sc->func->params.len; j++)
				unresolved(vec_get(&sc->func->params, j));
	}
	Vec *globals = elab_global_pool();
	for (int i = 0; i < globals->len; i++) {
		Var *v = vec_get(globals, i);
		if (v->wrap && v->arity == 0 && (v->read || v->written))
			error_at(v->loc, _("'%%' (wrap when full) is only for arrays, and "
					   "'%s' is a scalar"), v->name);
	}
	for (int i = 0; i < globals->len; i++) {
		Var *v = vec_get(globals, i);
		if (v->read || v->written || (sess.unoptimized && !v->from_tapset))
			unresolved(v);
	}
	for (int i = 0; i < elab.scopes.len; i++) {
		Scope *sc = vec_get(&elab.scopes, i);
		if (sc->func && sc->func->type == TY_UNKNOWN)
			sc->func->type = TY_VOID;
	}
}
