/* stmt.c - pass 3: statements.
 *
 * Control flow maps onto C directly: a stap loop is one C loop, so break
 * and continue are C's own (a `for` with an increment has a label for
 * continue).  Errors jump to the innermost catch label, or to the body's
 * `out`; MAXACTION is charged once per block (its statement count) and
 * once per loop iteration.
 */
#include "emit_priv.h"

#include <string.h>

static void stmt(Body *b, Node *n);

static int count_actions(Node *n)
{
	if (!n)
		return 0;
	if (n->kind != N_BLOCK)
		return n->kind == N_NULL_STMT ? 0 : 1;
	int k = 0;
	for (int i = 0; i < n->stmts.len; i++) {
		Node *s = vec_get(&n->stmts, i);
		if (s && s->kind != N_NULL_STMT)
			k++;
	}
	return k;
}

/* MAXACTION: never caught by try/catch, so it goes straight out. */
static void charge(Body *b, int n)
{
	if (n <= 0)
		return;
	emit(b->e, "if (tap_action(c, %d))", n);
	emit(b->e, "\t%s", body_goto(b->out));
}

/* The statements of a block (or one statement), without charging. */
static void contents(Body *b, Node *n)
{
	if (!n)
		return;
	if (n->kind != N_BLOCK) {
		stmt(b, n);
		return;
	}
	for (int i = 0; i < n->stmts.len; i++) {
		Node *s = vec_get(&n->stmts, i);
		if (s)
			stmt(b, s);
	}
}

void stmt_body_block(Body *b, Node *n)
{
	charge(b, count_actions(n));
	contents(b, n);
}

/* A nested block charges its own statements. */
static void block(Body *b, Node *n)
{
	if (n && n->kind == N_BLOCK)
		charge(b, count_actions(n));
	contents(b, n);
}

/* End the map iterators of the loops from down_to out (a return or a
 * next leaves them all). */
static void end_iterators(Body *b, int down_to)
{
	for (int i = b->loops.len - 1; i >= down_to; i--) {
		Loop *lp = vec_get(&b->loops, i);
		if (lp->iter)
			emit(b->e, "tap_map_iter_end(c, %s);", lp->iter);
	}
}

static Loop *push_loop(Body *b, Label *cont, const char *iter)
{
	Loop *lp = NEW(Loop);
	lp->cont = cont;
	lp->iter = iter;
	vec_push(&b->loops, lp);
	return lp;
}

static void pop_loop(Body *b)
{
	vec_pop(&b->loops);
}

/* ---- loops ---- */

static void loop_head(Body *b, Node *cond, Node *body)
{
	Emitter *e = b->e;
	charge(b, 1 + (body && body->kind == N_BLOCK ? count_actions(body) : 0));
	if (cond) {
		const char *c = expr_cond(b, cond);
		emit(e, "if (!(%s))", c);
		emit(e, "\tbreak;");
	}
}

static void loop_body(Body *b, Node *body)
{
	contents(b, body);
}

static void st_while(Body *b, Node *n)
{
	Emitter *e = b->e;
	/* where a MAXACTION error in the loop is reported, unless a statement
	 * in it names a place of its own */
	emit(e, "c->last_stmt = %s;", emit_loc_text(n->loc, "keyword 'while'"));
	emit_open(e, "for (;;) {");
	loop_head(b, n->cond, n->body);
	push_loop(b, NULL, NULL);
	loop_body(b, n->body);
	pop_loop(b);
	emit_close(e, "}");
}

static void st_for(Body *b, Node *n)
{
	Emitter *e = b->e;
	if (n->init)
		expr_eval_void(b, n->init);
	emit(e, "c->last_stmt = %s;", emit_loc_text(n->loc, "keyword 'for'"));
	emit_open(e, "for (;;) {");
	loop_head(b, n->cond, n->body);
	Label *cont = n->incr ? body_label(b, "next") : NULL;
	push_loop(b, cont, NULL);
	loop_body(b, n->body);
	pop_loop(b);
	if (cont)
		body_put_label(e, cont);
	if (n->incr)
		expr_eval_void(b, n->incr);
	emit_close(e, "}");
}

static const char *stat_op_const(const char *op)
{
	if (!op || !strcmp(op, "@count"))
		return "TAP_STAT_COUNT";
	if (!strcmp(op, "@sum"))
		return "TAP_STAT_SUM";
	if (!strcmp(op, "@min"))
		return "TAP_STAT_MIN";
	if (!strcmp(op, "@max"))
		return "TAP_STAT_MAX";
	return "TAP_STAT_AVG";
}

/* Assign an iteration value to a loop variable. */
static void set_loop_var(Body *b, Node *sym, Type t, const char *value)
{
	Var *v = sym ? sym->var : NULL;
	if (!v)
		return;
	if (v->scope == VS_GLOBAL)
		body_use_global(b, v, true);
	else
		body_add_local(b, v);
	if (t == TY_STRING)
		emit(b->e, "tap_str_assign(%s, %s);", names_var_ref(b->e, v), value);
	else
		emit(b->e, "%s = %s;", names_var_ref(b->e, v), value);
}

static void foreach_hist(Body *b, Node *n)
{
	Emitter *e = b->e;
	Node *h = n->base;
	Var *v = h->lhs ? (h->lhs->var ? h->lhs->var : h->lhs->base ? h->lhs->base->var : NULL)
			: NULL;
	if (!v) {
		emit_error_at(e, n->loc, _("foreach over a histogram of something that is not "
					   "a statistics aggregate"));
		return;
	}
	const char *d = expr_stat_data(b, h->lhs);
	const char *i = body_tmp_long(b);
	const char *lim = NULL;
	if (n->limit) {
		lim = body_tmp_long(b);
		emit(e, "%s = %s;", lim, expr_eval(b, n->limit).c);
	}
	(void)d;
	emit_open(e, "for (%s = 0; %s < tap_hist_nbuckets(%s); %s++) {", i, i,
		  names_stat_spec(e, v), i);
	if (lim) {
		emit(e, "if (%s >= 0 && %s >= %s)", lim, i, lim);
		emit(e, "\tbreak;");
	}
	charge(b, 1 + (n->body && n->body->kind == N_BLOCK ? count_actions(n->body) : 0));
	if (n->args.len)
		set_loop_var(b, vec_get(&n->args, 0), TY_LONG, i);
	push_loop(b, NULL, NULL);
	loop_body(b, n->body);
	pop_loop(b);
	emit_close(e, "}");
}

static void st_foreach(Body *b, Node *n)
{
	Emitter *e = b->e;
	if (n->base && n->base->kind == N_HIST) {
		foreach_hist(b, n);
		return;
	}
	Var *arr = n->var ? n->var : n->base ? n->base->var : NULL;
	if (!arr || arr->arity <= 0) {
		emit_error_at(e, n->loc, _("foreach needs an array"));
		return;
	}
	body_use_global(b, arr, arr->type == TY_STATS);
	unsigned wild = 0;
	const char *keys = "NULL";
	if (n->slice.len)
		keys = expr_fill_keys(b, arr, &n->slice, &wild);
	const char *limit = n->limit ? expr_eval(b, n->limit).c : "-1";
	int col = 0, dir = 0;
	if (n->sort_dir) {
		dir = n->sort_dir;
		col = n->sort_col < 0 ? 0 : n->sort_col;
	}
	const char *it = xsprintf("&l->it[%d]", b->nit++);
	if (b->nit > b->max_it)
		b->max_it = b->nit;
	emit(e, "c->last_stmt = %s;", emit_loc_text(n->loc, "keyword 'foreach'"));
	emit(e, "if (tap_map_iter_begin(c, %s, %s.m, %s, 0x%x, %d, %d, %s, %s))", it,
	     names_var(e, arr), keys, wild, col, dir, stat_op_const(n->op), limit);
	emit(e, "\t%s", body_err_goto(b));
	emit_open(e, "while (tap_map_iter_next(%s)) {", it);
	charge(b, 1 + (n->body && n->body->kind == N_BLOCK ? count_actions(n->body) : 0));
	for (int i = 0; i < n->args.len && i < 9; i++) {
		Type kt = arr->key_types[i];
		set_loop_var(b, vec_get(&n->args, i), kt,
			     xsprintf(kt == TY_STRING ? "tap_iter_key_str(%s, %d)"
						      : "tap_iter_key_long(%s, %d)", it, i));
	}
	if (n->value)
		set_loop_var(b, n->value, arr->type,
			     xsprintf(arr->type == TY_STRING ? "tap_iter_str(%s)"
							     : "tap_iter_long(%s)", it));
	push_loop(b, NULL, it);
	loop_body(b, n->body);
	pop_loop(b);
	emit_close(e, "}");
	emit(e, "tap_map_iter_end(c, %s);", it);
	b->nit--;
}

/* ---- other statements ---- */

static void st_delete(Body *b, Node *n)
{
	Emitter *e = b->e;
	Node *t = n->lhs;
	if (!t) {
		emit_error_at(e, n->loc, _("delete needs something to delete"));
		return;
	}
	b->effects++;
	if (t->kind == N_SYMBOL && t->var) {
		Var *v = t->var;
		if (v->scope == VS_GLOBAL)
			body_use_global(b, v, true);
		else
			body_add_local(b, v);
		const char *n2 = names_var(e, v);
		if (v->arity > 0)
			emit(e, "tap_map_clear(%s.m);", n2);
		else if (v->type == TY_STATS)
			emit(e, "tap_stat_clear(%s.s);", n2);
		else if (v->type == TY_STRING)
			emit(e, "%s[0] = '\\0';", names_var_ref(e, v));
		else
			emit(e, "%s = 0;", names_var_ref(e, v));
		return;
	}
	if (t->kind == N_INDEX && !(t->base && t->base->kind == N_HIST)) {
		Var *v = t->var ? t->var : t->base ? t->base->var : NULL;
		if (!v || v->arity <= 0) {
			emit_error_at(e, t->loc, _("delete of an element of something that is not "
						   "an array"));
			return;
		}
		body_use_global(b, v, true);
		unsigned wild;
		const char *k = expr_fill_keys(b, v, &t->args, &wild);
		if (wild)
			emit(e, "tap_map_delete_match(%s.m, %s, 0x%x);", names_var(e, v), k, wild);
		else
			emit(e, "tap_map_delete(%s.m, %s);", names_var(e, v), k);
		return;
	}
	emit_error_at(e, t->loc, _("only variables, arrays and array elements can be "
				   "deleted"));
}

static void st_try(Body *b, Node *n)
{
	Emitter *e = b->e;
	Label *catch = body_label(b, "catch");
	Label *done = body_label(b, "try_end");
	vec_push(&b->errs, catch);
	emit_open(e, "{   /* try */");
	block(b, n->body);
	emit_close(e, "}");
	vec_pop(&b->errs);
	if (!catch->used)
		return;   /* nothing in it can fail */
	emit(e, "%s", body_goto(done));
	body_put_label(e, catch);
	/* abort() and MAXACTION are not for catch blocks */
	emit(e, "if (c->aborted || c->actions > c->action_limit)");
	emit(e, "\t%s", body_err_goto(b));
	if (n->catch_var && n->catch_var->var) {
		Var *v = n->catch_var->var;
		if (v->scope == VS_GLOBAL)
			body_use_global(b, v, true);
		else
			body_add_local(b, v);
		emit(e, "tap_str_assign(%s, c->last_error);", names_var_ref(e, v));
	}
	emit(e, "tap_error_clear(c);");
	emit_open(e, "{   /* catch */");
	block(b, n->els);
	emit_close(e, "}");
	body_put_label(e, done);
}

static void st_return(Body *b, Node *n)
{
	Emitter *e = b->e;
	Func *f = b->func;
	if (!f) {
		emit_error_at(e, n->loc, _("'return' outside a function"));
		return;
	}
	if (n->lhs) {
		Val v = expr_eval(b, n->lhs);
		if (f->type == TY_STRING) {
			if (strcmp(v.c, "l->__retval"))
				emit(e, "tap_str_assign(l->__retval, %s);", v.c);
		} else if (f->type == TY_LONG) {
			emit(e, "l->__retval = %s;", v.c);
		}
	}
	end_iterators(b, 0);
	emit(e, "%s", body_goto(b->out));
}

static void st_next(Body *b, Node *n)
{
	Emitter *e = b->e;
	if (b->func) {
		Val r = expr_next_overload(b, b->func, n->loc);
		if (b->func->type == TY_STRING)
			emit(e, "tap_str_assign(l->__retval, %s);", r.c);
		else if (b->func->type == TY_LONG)
			emit(e, "l->__retval = %s;", r.c);
	}
	end_iterators(b, 0);
	emit(e, "%s", body_goto(b->out));
}

static void st_continue(Body *b, Node *n)
{
	if (!b->loops.len) {
		emit_error_at(b->e, n->loc, _("'continue' outside a loop"));
		return;
	}
	Loop *lp = vec_last(&b->loops);
	if (lp->cont)
		emit(b->e, "%s", body_goto(lp->cont));
	else
		emit(b->e, "continue;");
}

static void stmt(Body *b, Node *n)
{
	Emitter *e = b->e;
	int nl = b->nlong, ns = b->nstr, nk = b->nkey;
	if (n->kind != N_BLOCK && n->kind != N_NULL_STMT)
		emit_line_directive(e, n->loc);
	switch (n->kind) {
	case N_BLOCK:
		block(b, n);
		break;
	case N_NULL_STMT:
		break;
	case N_EXPR_STMT:
		/* %{ code %} whose value nobody takes: C statements as they are */
		if (n->lhs && n->lhs->kind == N_EMBEDDED_EXPR)
			expr_embedded_stmt(b, n->lhs);
		else if (n->lhs)
			expr_eval_void(b, n->lhs);
		break;
	case N_IF: {
		Node *c = n->cond;
		if (c && c->kind == N_NUMBER) {   /* decided already */
			block(b, c->num ? n->then : n->els);
			break;
		}
		const char *cc = expr_cond(b, c);
		emit_open(e, "if (%s) {", cc);
		block(b, n->then);
		if (n->els) {
			emit_close(e, "} else {");
			e->indent++;
			block(b, n->els);
		}
		emit_close(e, "}");
		break;
	}
	case N_WHILE:
		st_while(b, n);
		break;
	case N_FOR:
		st_for(b, n);
		break;
	case N_FOREACH:
		st_foreach(b, n);
		break;
	case N_BREAK:
		if (!b->loops.len)
			emit_error_at(e, n->loc, _("'break' outside a loop"));
		else
			emit(e, "break;");
		break;
	case N_CONTINUE:
		st_continue(b, n);
		break;
	case N_NEXT:
		st_next(b, n);
		break;
	case N_RETURN:
		st_return(b, n);
		break;
	case N_DELETE:
		st_delete(b, n);
		break;
	case N_TRY:
		st_try(b, n);
		break;
	case N_EMBEDDED:
		expr_embedded_stmt(b, n);
		break;
	default:
		/* an expression where a statement was expected */
		expr_eval_void(b, n);
		break;
	}
	b->nlong = nl;
	b->nstr = ns;
	b->nkey = nk;
}
