/* counters.c - which number globals are counters: every write to them
 * in the whole program (probes, functions, tapsets) is an add whose value
 * nothing uses (`x++`, `--x`, `x += e`, `m[k] -= e` as statements).
 *
 * Pass 3 keeps a counter per CPU (runtime/DESIGN.md, "Counters"): an
 * add goes to its CPU's part under its CPU's lock word, and a handler
 * that does anything else with the global (reads it, deletes it, prints
 * it) folds every CPU's part into it first, so it sees exactly the value
 * one shared global would hold.  That is only right when adds commute
 * with each other and nothing needs the running value at the add, hence
 * the rule; any other write keeps the global an ordinary one.
 */
#include "tapc.h"
#include "passes.h"

#include <string.h>

typedef struct Scan {
	Var *v;
	bool added;             /* some statement adds to it */
	const char *why;        /* the first write that is not such an add */
} Scan;

static Var *target_of(Node *n)
{
	if (!n)
		return NULL;
	if (n->kind == N_SYMBOL)
		return n->var;
	if (n->kind == N_INDEX && !(n->base && n->base->kind == N_HIST))
		return n->var ? n->var : n->base ? n->base->var : NULL;
	return NULL;
}

static bool is_add(Node *n)
{
	if (!n)
		return false;
	if (n->kind == N_PREINC || n->kind == N_POSTINC)
		return true;
	return n->kind == N_ASSIGN && n->op &&
	       (!strcmp(n->op, "+=") || !strcmp(n->op, "-="));
}

static void scan(Node **slot, void *ctx);

static void scan_node(Scan *s, Node *n)
{
	if (n)
		scan(&n, s);
}

static void why(Scan *s, Loc loc, const char *text)
{
	if (!s->why)
		s->why = xsprintf(_("%s at %s:%d:%d"), text, loc.file ? loc.file->name : "?",
				  loc.line, loc.col);
}

/* An expression whose value is thrown away: an add to v is a counter's. */
static void scan_void(Scan *s, Node *n)
{
	if (is_add(n) && target_of(n->lhs) == s->v) {
		s->added = true;
		/* the keys and the amount may touch v too */
		if (n->lhs->kind == N_INDEX)
			for (int i = 0; i < n->lhs->args.len; i++)
				scan_node(s, vec_get(&n->lhs->args, i));
		scan_node(s, n->rhs);
		return;
	}
	scan_node(s, n);
}

static void scan(Node **slot, void *ctx)
{
	Scan *s = ctx;
	Node *n = *slot;
	if (!n)
		return;
	switch (n->kind) {
	case N_EXPR_STMT:
		scan_void(s, n->lhs);
		return;
	case N_FOR:
		scan_void(s, n->init);
		scan_node(s, n->cond);
		scan_void(s, n->incr);
		scan_node(s, n->body);
		return;
	case N_ASSIGN:
		if (target_of(n->lhs) == s->v)
			why(s, n->loc, is_add(n) ? xsprintf(_("the value of '%s' is used"), n->op)
						 : xsprintf(_("'%s' assigns it"), n->op ? n->op : "="));
		break;
	case N_PREINC:
	case N_POSTINC:
		if (target_of(n->lhs) == s->v)
			why(s, n->loc, xsprintf(_("the value of '%s' is used"), n->op));
		break;
	case N_FOREACH:
		for (int i = 0; i < n->args.len; i++)
			if (target_of(vec_get(&n->args, i)) == s->v)
				why(s, n->loc, _("foreach assigns it"));
		if (target_of(n->value) == s->v)
			why(s, n->loc, _("foreach assigns it"));
		break;
	case N_TRY:
		if (target_of(n->catch_var) == s->v)
			why(s, n->loc, _("catch assigns it"));
		break;
	default:
		break;
	}
	for_each_child(n, scan, s);
}

const char *counter_reason(Program *prog, Var *v)
{
	if (v->scope != VS_GLOBAL)
		return _("not a global");
	if (v->type != TY_LONG)
		return _("not a number");
	if (v->arity < 0)
		return _("used neither as a scalar nor as an array");
	if (v->wrap)
		return _("declared with '%': a full array replaces its oldest element");
	Scan s = { .v = v };
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = vec_get(&prog->probes, i);
		scan_node(&s, p->body);
	}
	for (int i = 0; i < prog->funcs.len; i++) {
		Func *f = vec_get(&prog->funcs, i);
		if (f->body && f->body->kind != N_EMBEDDED)
			scan_node(&s, f->body);
	}
	if (s.why)
		return s.why;
	if (!s.added)
		return _("nothing adds to it");
	return NULL;
}

void find_counters(Program *prog)
{
	for (int i = 0; i < prog->globals.len; i++) {
		Var *v = vec_get(&prog->globals, i);
		v->counter = !counter_reason(prog, v);
	}
}
