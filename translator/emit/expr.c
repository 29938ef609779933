/* expr.c - pass 3: expressions.
 *
 * An expression compiles to C statements (emitted into the body, in
 * evaluation order) and a C expression for its value, the Val.  Values
 * that cannot change (literals, the body's own temporaries) are "stable";
 * any other value is copied into a temporary when code that could change
 * it was emitted after it (emit_insert at the Mark), which keeps stap's
 * left-to-right order without copying everything.
 *
 * Temporaries live in the frame (l->n[], l->s[], l->k[], l->a[]), not on
 * the kernel stack, and are reused from one statement to the next.
 */
#include "emit_priv.h"
#include "passes.h"

#include <string.h>

/* ---- values and temporaries ---- */

static Val val_str(const char *s)
{
	Val v = val_c(c_string(s), true);
	v.is_str = true;
	v.str = s;
	return v;
}

static bool is_own_str_temp(Val v)
{
	return v.stable && !strncmp(v.c, "l->s[", 5);
}

static Val capture(Body *b, Mark m, Val v, Type t)
{
	if (v.stable)
		return v;
	if (t == TY_STRING) {
		const char *s = body_tmp_str(b);
		emit_insert(b->e, m, xsprintf("tap_str_assign(%s, %s);", s, v.c));
		return val_c(s, true);
	}
	const char *n = body_tmp_long(b);
	emit_insert(b->e, m, xsprintf("%s = %s;", n, v.c));
	return val_c(n, true);
}

/* Evaluate nodes left to right; a value that later code could change (a
 * call, an assignment: b->effects went up) is captured where it was
 * computed.  NULL nodes ('*' slices) give 0. */
void expr_list(Body *b, Node **nodes, int n, Val *out)
{
	Emitter *e = b->e;
	Mark *after = xalloc(sizeof(Mark) * (n ? n : 1));
	int *effects = xalloc(sizeof(int) * (n ? n : 1));
	for (int i = 0; i < n; i++) {
		out[i] = nodes[i] ? expr_eval(b, nodes[i]) : val_num(0);
		after[i] = emit_mark(e);
		effects[i] = b->effects;
	}
	for (int i = n - 2; i >= 0; i--)
		if (nodes[i] && !out[i].stable && b->effects > effects[i])
			out[i] = capture(b, after[i], out[i], nodes[i]->type);
}

/* Compile n into a separate buffer, one level deeper (for the branches of
 * ?:, && and ||); returns the value, the statements are in *buf. */
static Val ex_into(Body *b, Node *n, StrBuf *buf)
{
	Emitter *e = b->e;
	StrBuf *save = e->out;
	int indent = e->indent;
	e->out = buf;
	e->indent = indent + 1;
	Val v = expr_eval(b, n);
	e->out = save;
	e->indent = indent;
	return v;
}

static void paste(Emitter *e, StrBuf *buf)
{
	sb_putn(e->out, buf->data, buf->len);
}

const char *expr_cond(Body *b, Node *n)
{
	return expr_eval(b, n).c;
}

/* ---- variables and arrays ---- */

static Val ex_symbol(Body *b, Node *n)
{
	Var *v = n->var;
	if (!v)
		return body_error(b, n->loc, _("internal: unbound symbol"));
	if (v->scope == VS_GLOBAL) {
		if (v->type == TY_STATS || v->arity > 0)
			return body_error(b, n->loc, xsprintf(_("'%s' is not a plain value here"),
							      v->name));
		body_use_global(b, v, false);
	} else {
		body_add_local(b, v);
	}
	return val_c(names_var_ref(b->e, v), false);
}

/* Fill a key tuple from already computed values. */
static const char *key_tuple(Body *b, Var *arr, Node **keys, Val *vals, int n,
			     unsigned *wild)
{
	const char *k = body_tmp_key(b);
	if (wild)
		*wild = 0;
	for (int i = 0; i < n && i < 9; i++) {
		bool str = arr->key_types[i] == TY_STRING;
		if (!keys[i]) {
			if (wild)
				*wild |= 1u << i;
			emit(b->e, "%s[%d].%s = %s;", k, i, str ? "s" : "l", str ? "\"\"" : "0");
			continue;
		}
		emit(b->e, "%s[%d].%s = %s;", k, i, str ? "s" : "l", vals[i].c);
	}
	return k;
}

const char *expr_fill_keys(Body *b, Var *arr, Vec *keys, unsigned *wild)
{
	Val *vals = xalloc(sizeof(Val) * (keys->len ? keys->len : 1));
	expr_list(b, (Node **)keys->data, keys->len, vals);
	return key_tuple(b, arr, (Node **)keys->data, vals, keys->len, wild);
}

static const char *map_of(Body *b, Var *v)
{
	return xsprintf("%s.m", names_var(b->e, v));
}

static Var *array_var(Node *n)
{
	if (n->var)
		return n->var;
	return n->base ? n->base->var : NULL;
}

/* The merged statistics of `x` or `a[k]` (needs the write lock). */
const char *expr_stat_data(Body *b, Node *operand)
{
	Var *v = operand ? array_var(operand) : NULL;
	if (!v || v->scope != VS_GLOBAL || v->type != TY_STATS) {
		emit_error_at(b->e, operand ? operand->loc : NOLOC,
			      _("expected a statistics aggregate"));
		return "NULL";
	}
	body_use_global(b, v, true);
	if (operand->kind == N_INDEX) {
		const char *k = expr_fill_keys(b, v, &operand->args, NULL);
		return xsprintf("tap_map_get_stat(%s, %s)", map_of(b, v), k);
	}
	return xsprintf("tap_stat_get(%s.s)", names_var(b->e, v));
}

static Val ex_hist_bucket(Body *b, Node *n)
{
	Node *h = n->base;
	Var *v = h->lhs ? array_var(h->lhs) : NULL;
	if (!v || n->args.len != 1)
		return body_error(b, n->loc, _("a histogram bucket takes one index"));
	const char *d = expr_stat_data(b, h->lhs);
	Val i = expr_eval(b, vec_get(&n->args, 0));
	const char *t = body_tmp_long(b);
	body_where(b, n->loc, "operator '['");
	body_fail_if(b, xsprintf("tap_hist_bucket(c, %s, %s, %s, &%s)", names_stat_spec(b->e, v), d,
				 i.c, t));
	return val_c(t, true);
}

static Val ex_index(Body *b, Node *n)
{
	if (n->base && n->base->kind == N_HIST)
		return ex_hist_bucket(b, n);
	Var *v = array_var(n);
	if (!v || v->arity <= 0)
		return body_error(b, n->loc, _("indexing something that is not an array"));
	if (v->type == TY_STATS)
		return body_error(b, n->loc, xsprintf(_("'%s' holds statistics: read it with "
							"@count, @sum, @min, @max or @avg"),
						      v->name));
	body_use_global(b, v, false);
	const char *k = expr_fill_keys(b, v, &n->args, NULL);
	if (v->type == TY_STRING) {
		const char *s = body_tmp_str(b);
		emit(b->e, "tap_str_assign(%s, tap_map_get_str(%s, %s));", s, map_of(b, v), k);
		return val_c(s, true);
	}
	return val_c(xsprintf("tap_map_get_long(%s, %s)", map_of(b, v), k), false);
}

static Val ex_in(Body *b, Node *n)
{
	if (n->base && n->base->kind == N_HIST)
		return body_error(b, n->loc, _("'in' does not apply to a histogram"));
	Var *v = array_var(n);
	if (!v || v->arity <= 0)
		return body_error(b, n->loc, _("'in' needs an array"));
	body_use_global(b, v, v->type == TY_STATS);
	unsigned wild;
	const char *k = expr_fill_keys(b, v, &n->args, &wild);
	const char *t = body_tmp_long(b);
	if (wild)
		emit(b->e, "%s = tap_map_exists_match(%s, %s, 0x%x);", t, map_of(b, v), k, wild);
	else
		emit(b->e, "%s = tap_map_exists(%s, %s);", t, map_of(b, v), k);
	return val_c(t, true);
}

/* ---- calls ---- */

static void note_call(Body *b, Func *f)
{
	for (int i = 0; i < b->calls.len; i++)
		if (vec_get(&b->calls, i) == f)
			return;
	vec_push(&b->calls, f);
}

/* Call f with the values vals (already computed). */
static Val call_with(Body *b, Func *f, Val *vals, int nvals, Loc loc)
{
	Emitter *e = b->e;
	const char *fn = names_func(e, f);
	note_call(b, f);
	b->effects++;
	body_where(b, loc, xsprintf("identifier '%s'", f->name));
	body_fail_if(b, "tap_call_enter(c)");
	emit_open(e, "{");
	emit(e, "struct tap_frame_%s *f __maybe_unused = TAP_FRAME(c, struct tap_frame_%s);",
	     fn, fn);
	emit_blank(e);
	for (int i = 0; i < f->params.len && i < nvals; i++) {
		Var *p = vec_get(&f->params, i);
		if (p->type == TY_STRING)
			emit(e, "tap_str_assign(f->%s, %s);", names_var(e, p), vals[i].c);
		else
			emit(e, "f->%s = %s;", names_var(e, p), vals[i].c);
	}
	emit(e, "%s(c);", fn);
	emit(e, "tap_call_exit(c);");
	Val r = val_num(0);
	if (f->type == TY_STRING) {
		const char *s = body_tmp_str(b);
		emit(e, "tap_str_assign(%s, f->__retval);", s);
		r = val_c(s, true);
	} else if (f->type == TY_LONG) {
		const char *t = body_tmp_long(b);
		emit(e, "%s = f->__retval;", t);
		r = val_c(t, true);
	}
	emit_close(e, "}");
	body_fail_if(b, "c->last_error");
	return r;
}

static Val ex_call(Body *b, Node *n)
{
	Func *f = n->func;
	if (!f)
		return body_error(b, n->loc, xsprintf(_("internal: unresolved function '%s'"),
						      n->name ? n->name : "?"));
	Val *vals = xalloc(sizeof(Val) * (n->args.len ? n->args.len : 1));
	expr_list(b, (Node **)n->args.data, n->args.len, vals);
	return call_with(b, f, vals, n->args.len, n->loc);
}

Val expr_next_overload(Body *b, Func *f, Loc loc)
{
	Func *g = f->next_overload;
	if (!g)
		return body_error(b, loc, _("'next' in the last overload of a function"));
	Val *vals = xalloc(sizeof(Val) * (f->params.len ? f->params.len : 1));
	for (int i = 0; i < f->params.len; i++) {
		Var *p = vec_get(&f->params, i);
		body_add_local(b, p);
		vals[i] = val_c(xsprintf("l->%s", names_var(b->e, p)), false);
	}
	return call_with(b, g, vals, f->params.len, loc);
}

/* ---- printing ---- */

/* The most values one print statement takes (its frame's argument array). */
#define MAX_PRINT_VALUES 32

static void hist_print(Body *b, Node *h, bool to_string, const char *dst);

/* print/println/printd/printdln and their s- forms with a histogram among
 * the values: piece by piece. */
static void print_pieces(Body *b, Node *n, bool is_s, bool ln, const char *delim,
			 const char *dst)
{
	Emitter *e = b->e;
	if (is_s)
		emit(e, "%s[0] = '\\0';", dst);
	for (int i = 0; i < n->args.len; i++) {
		Node *a = vec_get(&n->args, i);
		if (i && delim) {
			if (is_s)
				emit(e, "tap_str_append(%s, %s);", dst, c_string(delim));
			else
				emit(e, "tap_print(%s);", c_string(delim));
		}
		if (a->kind == N_HIST) {
			if (is_s) {
				const char *s = body_tmp_str(b);
				hist_print(b, a, true, s);
				emit(e, "tap_str_append(%s, %s);", dst, s);
			} else {
				hist_print(b, a, false, NULL);
			}
			continue;
		}
		Val v = expr_eval(b, a);
		Vec items = { 0 };
		printf_conv(&items, a->type == TY_STRING ? FMT_STRING : FMT_SIGNED);
		if (is_s) {
			const char *s = body_tmp_str(b);
			printf_items(b, &items, &a, &v, 1, s, n->loc);
			emit(e, "tap_str_append(%s, %s);", dst, s);
		} else {
			printf_items(b, &items, &a, &v, 1, NULL, n->loc);
		}
	}
	if (ln) {
		if (is_s)
			emit(e, "tap_str_append(%s, \"\\n\");", dst);
		else
			emit(e, "tap_print(\"\\n\");");
	}
}

static Val ex_print(Body *b, Node *n)
{
	const char *name = n->name ? n->name : "print";
	bool is_s = name[0] == 's';
	bool is_f = strstr(name, "printf") != NULL;
	bool is_d = strstr(name, "printd") != NULL;
	bool ln = strstr(name, "ln") != NULL;
	const char *delim = is_d && n->fmt ? n->fmt->str : NULL;
	const char *dst = is_s ? body_tmp_str(b) : NULL;

	/* a translation-time limit in stap too (conformance transko/varargs) */
	if (n->args.len > MAX_PRINT_VALUES)
		return body_error(b, n->loc, xsprintf(_("%s takes at most %d values"), name,
						      MAX_PRINT_VALUES));
	bool hist = false;
	for (int i = 0; i < n->args.len; i++)
		hist |= ((Node *)vec_get(&n->args, i))->kind == N_HIST;
	if (hist && is_f)
		return body_error(b, n->loc, _("a histogram can be printed with print or "
					       "println, not with a format"));
	if (hist) {
		print_pieces(b, n, is_s, ln, delim, dst);
		return is_s ? val_c(dst, true) : val_num(0);
	}

	Val *vals = xalloc(sizeof(Val) * (n->args.len ? n->args.len : 1));
	expr_list(b, (Node **)n->args.data, n->args.len, vals);
	Vec items = { 0 };
	if (is_f) {
		/* pass 2 parsed the format and matched it with the values */
		ASSERT(n->format && !n->format->error && n->format->nargs == n->args.len);
		items = n->format->dirs;
	} else {
		for (int i = 0; i < n->args.len; i++) {
			Node *a = vec_get(&n->args, i);
			if (i && delim && *delim)
				printf_lit(&items, delim);
			printf_conv(&items, a->type == TY_STRING ? FMT_STRING : FMT_SIGNED);
		}
		if (ln)
			printf_lit(&items, "\n");
	}
	/* print("text") is just the text */
	if (!is_s && items.len == 1 && ((FmtDirective *)vec_get(&items, 0))->conv == FMT_LIT &&
	    !n->args.len) {
		emit(b->e, "tap_print(%s);", c_string(((FmtDirective *)vec_get(&items, 0))->lit));
		return val_num(0);
	}
	if (!is_s && !is_f && !delim && !ln && n->args.len == 1 &&
	    ((Node *)vec_get(&n->args, 0))->type == TY_STRING) {
		emit(b->e, "tap_print(%s);", vals[0].c);
		return val_num(0);
	}
	printf_items(b, &items, (Node **)n->args.data, vals, n->args.len, dst, n->loc);
	return is_s ? val_c(dst, true) : val_num(0);
}

static void hist_print(Body *b, Node *h, bool to_string, const char *dst)
{
	Var *v = h->lhs ? array_var(h->lhs) : NULL;
	const char *d = expr_stat_data(b, h->lhs);
	if (!v)
		return;
	if (to_string)
		emit(b->e, "tap_hist_sprint(%s, MAXSTRINGLEN, %s, %s);", dst,
		     names_stat_spec(b->e, v), d);
	else
		emit(b->e, "tap_hist_print(c, %s, %s);", names_stat_spec(b->e, v), d);
}

/* ---- operators ---- */

static bool fold_binary(const char *op, int64_t a, int64_t b, int64_t *r)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
	if (!strcmp(op, "+")) *r = (int64_t)(ua + ub);
	else if (!strcmp(op, "-")) *r = (int64_t)(ua - ub);
	else if (!strcmp(op, "*")) *r = (int64_t)(ua * ub);
	else if (!strcmp(op, "&")) *r = a & b;
	else if (!strcmp(op, "|")) *r = a | b;
	else if (!strcmp(op, "^")) *r = a ^ b;
	else if (!strcmp(op, "<<")) *r = (int64_t)(ua << (b & 63));
	else if (!strcmp(op, ">>")) *r = a >> (b & 63);
	else if (!strcmp(op, ">>>")) *r = (int64_t)(ua >> (b & 63));
	else if (!strcmp(op, "/") && b != 0) *r = b == -1 ? (int64_t)(0 - ua) : a / b;
	else if (!strcmp(op, "%") && b != 0) *r = b == -1 ? 0 : a % b;
	else return false;
	return true;
}

/* a OP b of two computed values (OP of + - * / % << >> >>> & | ^). */
static Val binary_op(Body *b, const char *op, Val l, Val r, Loc loc)
{
	int64_t folded;
	if (l.is_num && r.is_num && fold_binary(op, l.num, r.num, &folded))
		return val_num(folded);
	bool st = l.stable && r.stable;
	if (!strcmp(op, "<<"))
		return val_c(xsprintf("tap_shl(%s, %s)", l.c, r.c), st);
	if (!strcmp(op, ">>"))
		return val_c(xsprintf("tap_shr(%s, %s)", l.c, r.c), st);
	if (!strcmp(op, ">>>"))
		return val_c(xsprintf("((int64_t)((u64)(%s) >> ((%s) & 63)))", l.c, r.c), st);
	if (!strcmp(op, "/") || !strcmp(op, "%")) {
		const char *t = body_tmp_long(b);
		body_where(b, loc, xsprintf("operator '%s'", op));
		body_fail_if(b, xsprintf("tap_%s(c, %s, %s, &%s)", op[0] == '/' ? "div" : "mod",
					 l.c, r.c, t));
		return val_c(t, true);
	}
	return val_c(xsprintf("(%s %s %s)", l.c, op, r.c), st);
}

static Val ex_binary(Body *b, Node *n)
{
	Node *ops[2] = { n->lhs, n->rhs };
	Val v[2];
	expr_list(b, ops, 2, v);
	return binary_op(b, n->op, v[0], v[1], n->op_loc.line ? n->op_loc : n->loc);
}

static Val ex_compare(Body *b, Node *n)
{
	Node *ops[2] = { n->lhs, n->rhs };
	Val v[2];
	expr_list(b, ops, 2, v);
	const char *op = n->op;
	bool st = v[0].stable && v[1].stable;
	if (n->lhs->type == TY_STRING || n->rhs->type == TY_STRING) {
		if (v[0].is_str && v[1].is_str) {
			int c = strcmp(v[0].str, v[1].str);
			int64_t r = !strcmp(op, "==") ? c == 0 : !strcmp(op, "!=") ? c != 0 :
				    !strcmp(op, "<") ? c < 0 : !strcmp(op, "<=") ? c <= 0 :
				    !strcmp(op, ">") ? c > 0 : c >= 0;
			return val_num(r);
		}
		return val_c(xsprintf("(strcmp(%s, %s) %s 0)", v[0].c, v[1].c, op), st);
	}
	if (v[0].is_num && v[1].is_num) {
		int64_t a = v[0].num, c = v[1].num;
		int64_t r = !strcmp(op, "==") ? a == c : !strcmp(op, "!=") ? a != c :
			    !strcmp(op, "<") ? a < c : !strcmp(op, "<=") ? a <= c :
			    !strcmp(op, ">") ? a > c : a >= c;
		return val_num(r);
	}
	return val_c(xsprintf("(%s %s %s)", v[0].c, op, v[1].c), st);
}

static Val ex_logical(Body *b, Node *n)
{
	Emitter *e = b->e;
	bool is_and = !strcmp(n->op, "&&");
	Val l = expr_eval(b, n->lhs);
	StrBuf rbuf = { 0 };
	Val r = ex_into(b, n->rhs, &rbuf);
	if (!rbuf.len) {
		if (l.is_num && r.is_num)
			return val_num(is_and ? (l.num && r.num) : (l.num || r.num));
		return val_c(xsprintf("(%s %s %s)", l.c, n->op, r.c), l.stable && r.stable);
	}
	const char *t = body_tmp_long(b);
	emit(e, "%s = (%s) != 0;", t, l.c);
	emit_open(e, is_and ? "if (%s) {" : "if (!%s) {", t);
	paste(e, &rbuf);
	emit(e, "%s = (%s) != 0;", t, r.c);
	emit_close(e, "}");
	sb_free(&rbuf);
	return val_c(t, true);
}

static Val ex_ternary(Body *b, Node *n)
{
	Emitter *e = b->e;
	Val c = expr_eval(b, n->cond);
	StrBuf tb = { 0 }, eb = { 0 };
	Val t = ex_into(b, n->then, &tb);
	Val f = ex_into(b, n->els, &eb);
	bool str = n->type == TY_STRING;
	if (!tb.len && !eb.len) {
		if (c.is_num)
			return c.num ? t : f;
		return val_c(xsprintf("(%s ? %s : %s)", c.c, t.c, f.c),
			     c.stable && t.stable && f.stable);
	}
	const char *dst = str ? body_tmp_str(b) : body_tmp_long(b);
	emit_open(e, "if (%s) {", c.c);
	paste(e, &tb);
	if (str)
		emit(e, "tap_str_assign(%s, %s);", dst, t.c);
	else
		emit(e, "%s = %s;", dst, t.c);
	emit_close(e, "} else {");
	e->indent++;
	paste(e, &eb);
	if (str)
		emit(e, "tap_str_assign(%s, %s);", dst, f.c);
	else
		emit(e, "%s = %s;", dst, f.c);
	emit_close(e, "}");
	sb_free(&tb);
	sb_free(&eb);
	return val_c(dst, true);
}

static Val ex_concat(Body *b, Node *n)
{
	Node *ops[2] = { n->lhs, n->rhs };
	Val v[2];
	expr_list(b, ops, 2, v);
	if (v[0].is_str && v[1].is_str)
		return val_str(xsprintf("%s%s", v[0].str, v[1].str));
	if (v[1].is_str && !*v[1].str)
		return v[0];
	if (is_own_str_temp(v[0])) {
		emit(b->e, "tap_str_append(%s, %s);", v[0].c, v[1].c);
		return v[0];
	}
	const char *s = body_tmp_str(b);
	emit(b->e, "tap_str_concat(%s, %s, %s);", s, v[0].c, v[1].c);
	return val_c(s, true);
}

static int regex_index(Emitter *e, Node *n, const char *pattern)
{
	(void)n;
	for (int i = 0; i < e->regexes.len; i++)
		if (!strcmp(vec_get(&e->regexes, i), pattern))
			return i;
	vec_push(&e->regexes, (void *)pattern);
	return e->regexes.len - 1;
}

static Val ex_regex(Body *b, Node *n)
{
	if (!n->rhs || n->rhs->kind != N_STRING)
		return body_error(b, n->loc, _("the right side of =~ must be a string "
					       "literal (the regular expression)"));
	Val s = expr_eval(b, n->lhs);
	int k = regex_index(b->e, n, n->rhs->str);
	const char *t = body_tmp_long(b);
	emit(b->e, "%s = %stap_regex_match(c, &tap_re_%d, %s);", t,
	     !strcmp(n->op, "!~") ? "!" : "", k, s.c);
	return val_c(t, true);
}

static Val ex_unary(Body *b, Node *n)
{
	Val v = expr_eval(b, n->lhs);
	const char *op = n->op;
	if (!strcmp(op, "+"))
		return v;
	if (v.is_num) {
		if (!strcmp(op, "-"))
			return val_num((int64_t)(0 - (uint64_t)v.num));
		if (!strcmp(op, "!"))
			return val_num(!v.num);
		if (!strcmp(op, "~"))
			return val_num(~v.num);
	}
	return val_c(xsprintf("(%s(%s))", op, v.c), v.stable);
}

/* ---- assignment ---- */

static bool is_target_like(Node *n)
{
	return n && (n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_AUTOCAST ||
		     n->kind == N_ATVAR);
}


/* x OP= r on a long lvalue ref (a plain C lvalue). */
static void compound_long(Body *b, const char *ref, const char *op, Val r, Loc loc)
{
	Emitter *e = b->e;
	const char *bop = xstrndup(op, strlen(op) - 1);   /* "+=" -> "+" */
	if (!strcmp(bop, "/") || !strcmp(bop, "%")) {
		body_where(b, loc, xsprintf("operator '%s'", op));
		body_fail_if(b, xsprintf("tap_%s(c, %s, %s, &%s)", bop[0] == '/' ? "div" : "mod",
					 ref, r.c, ref));
	} else if (!strcmp(bop, "<<")) {
		emit(e, "%s = tap_shl(%s, %s);", ref, ref, r.c);
	} else if (!strcmp(bop, ">>")) {
		emit(e, "%s = tap_shr(%s, %s);", ref, ref, r.c);
	} else if (!strcmp(bop, ">>>")) {
		emit(e, "%s = (int64_t)((u64)%s >> ((%s) & 63));", ref, ref, r.c);
	} else {
		emit(e, "%s %s %s;", ref, op, r.c);
	}
}

static Val assign_scalar(Body *b, Node *n, Var *v)
{
	Emitter *e = b->e;
	const char *op = n->op ? n->op : "=";
	bool plain = !strcmp(op, "=");
	b->effects++;
	if (v->scope == VS_GLOBAL && v->counter) {
		/* an add to a counter (counters.c): nothing reads its value */
		body_use_stat_add(b, v);
		Val r = expr_eval(b, n->rhs);
		body_fail_if(b, xsprintf("tap_counter_add(c, %s.ctr, %s%s%s)", names_var(e, v),
					 op[0] == '-' ? "tap_neg(" : "", r.c,
					 op[0] == '-' ? ")" : ""));
		return val_num(0);
	}
	if (v->scope == VS_GLOBAL && !strcmp(op, "<<<") && v->type == TY_STATS)
		body_use_stat_add(b, v);
	else if (v->scope == VS_GLOBAL)
		body_use_global(b, v, strcmp(op, "<<<") != 0);
	else
		body_add_local(b, v);
	const char *ref = names_var_ref(e, v);

	if (!strcmp(op, "<<<")) {
		if (v->type != TY_STATS || v->scope != VS_GLOBAL)
			return body_error(b, n->loc, _("<<< needs a statistics global"));
		Val r = expr_eval(b, n->rhs);
		body_fail_if(b, xsprintf("tap_stat_add(c, %s.s, %s)", names_var(e, v), r.c));
		return r;
	}
	if (v->type == TY_STATS)
		return body_error(b, n->loc, _("a statistics aggregate takes values with <<<"));
	Val r = expr_eval(b, n->rhs);
	if (v->type == TY_STRING) {
		if (plain) {
			if (strcmp(r.c, ref))
				emit(e, "tap_str_assign(%s, %s);", ref, r.c);
		} else if (!strcmp(op, ".=")) {
			emit(e, "tap_str_append(%s, %s);", ref, r.c);
		} else {
			return body_error(b, n->loc,
					  xsprintf(_("'%s' does not apply to strings"), op));
		}
		return val_c(ref, false);
	}
	if (plain)
		emit(e, "%s = %s;", ref, r.c);
	else
		compound_long(b, ref, op, r, n->op_loc.line ? n->op_loc : n->loc);
	return val_c(ref, false);
}

static Val assign_element(Body *b, Node *n)
{
	Emitter *e = b->e;
	Node *lhs = n->lhs;
	Var *v = array_var(lhs);
	const char *op = n->op ? n->op : "=";
	if (!v || v->arity <= 0)
		return body_error(b, n->loc, _("assigning to an element of something that is "
					       "not an array"));
	if ((!strcmp(op, "<<<") && v->type == TY_STATS) || v->counter)
		body_use_stat_add(b, v);
	else
		body_use_global(b, v, strcmp(op, "<<<") != 0);
	int nk = lhs->args.len;
	Node **nodes = xalloc(sizeof(Node *) * (nk + 1));
	for (int i = 0; i < nk; i++)
		nodes[i] = vec_get(&lhs->args, i);
	nodes[nk] = n->rhs;
	Val *vals = xalloc(sizeof(Val) * (nk + 1));
	expr_list(b, nodes, nk + 1, vals);
	Val r = vals[nk];
	b->effects++;
	const char *k = key_tuple(b, v, nodes, vals, nk, NULL);
	const char *m = map_of(b, v);
	body_where(b, lhs->loc, xsprintf("identifier '%s'", v->name));

	if (!strcmp(op, "<<<")) {
		if (v->type != TY_STATS)
			return body_error(b, n->loc, _("<<< needs a statistics global"));
		body_fail_if(b, xsprintf("tap_map_stat_add(c, %s, %s, %s)", m, k, r.c));
		return r;
	}
	if (v->type == TY_STATS)
		return body_error(b, n->loc, _("a statistics aggregate takes values with <<<"));
	if (v->type == TY_STRING) {
		if (!strcmp(op, "=")) {
			body_fail_if(b, xsprintf("tap_map_set_str(c, %s, %s, %s)", m, k, r.c));
			return r;
		}
		if (strcmp(op, ".="))
			return body_error(b, n->loc,
					  xsprintf(_("'%s' does not apply to strings"), op));
		const char *s = body_tmp_str(b);
		emit(e, "tap_str_concat(%s, tap_map_get_str(%s, %s), %s);", s, m, k, r.c);
		body_fail_if(b, xsprintf("tap_map_set_str(c, %s, %s, %s)", m, k, s));
		return val_c(s, true);
	}
	if (!strcmp(op, "=")) {
		body_fail_if(b, xsprintf("tap_map_set_long(c, %s, %s, %s)", m, k, r.c));
		return r;
	}
	if (v->counter) {
		/* an add to a counter (counters.c): nothing reads its value */
		body_fail_if(b, xsprintf("tap_map_counter_add(c, %s, %s, %s%s%s)", m, k,
					 op[0] == '-' ? "tap_neg(" : "", r.c,
					 op[0] == '-' ? ")" : ""));
		return val_num(0);
	}
	const char *t = body_tmp_long(b);
	if (!strcmp(op, "+=") || !strcmp(op, "-=")) {
		body_fail_if(b, xsprintf("tap_map_add_long(c, %s, %s, %s%s%s, &%s)", m, k,
					 op[0] == '-' ? "-(" : "", r.c, op[0] == '-' ? ")" : "", t));
		return val_c(t, true);
	}
	emit(e, "%s = tap_map_get_long(%s, %s);", t, m, k);
	compound_long(b, t, op, r, n->op_loc.line ? n->op_loc : n->loc);
	body_where(b, lhs->loc, xsprintf("identifier '%s'", v->name));
	body_fail_if(b, xsprintf("tap_map_set_long(c, %s, %s, %s)", m, k, t));
	return val_c(t, true);
}

/* The @perf node being the operand of the `<<<` being translated: the
 * one place @perf may stand. */
static const Node *perf_operand;

static Val ex_assign(Body *b, Node *n)
{
	Node *lhs = n->lhs;
	if (!lhs)
		return body_error(b, n->loc, _("internal: assignment without a target"));
	if (n->op && !strcmp(n->op, "<<<") && n->rhs && n->rhs->kind == N_PERF)
		perf_operand = n->rhs;
	if (lhs->kind == N_SYMBOL && lhs->var)
		return assign_scalar(b, n, lhs->var);
	if (lhs->kind == N_INDEX)
		return assign_element(b, n);
	if (is_target_like(lhs)) {
		/* `$value .= s` (procfs) */
		if (n->op && !strcmp(n->op, ".=") && lhs->kind == N_TARGET &&
		    !lhs->comps.len && !lhs->tpath && lhs->type == TY_STRING)
			return tx_append(b, lhs, expr_eval(b, n->rhs));
		if (n->op && strcmp(n->op, "="))
			return body_error(b, n->loc, _("only '=' can assign to a context "
						       "variable or kernel memory"));
		return tx_write(b, lhs, expr_eval(b, n->rhs));
	}
	return body_error(b, n->loc, _("this cannot be assigned to"));
}

static Val ex_incdec(Body *b, Node *n, bool value_unused)
{
	Emitter *e = b->e;
	bool inc = !strcmp(n->op, "++");
	bool post = n->kind == N_POSTINC && !value_unused;
	Node *lhs = n->lhs;
	b->effects++;
	if (lhs && lhs->kind == N_SYMBOL && lhs->var && lhs->var->type != TY_STATS &&
	    lhs->var->type != TY_STRING) {
		Var *v = lhs->var;
		if (v->scope == VS_GLOBAL && v->counter) {
			/* its value is not used (counters.c) */
			body_use_stat_add(b, v);
			body_fail_if(b, xsprintf("tap_counter_add(c, %s.ctr, %s)", names_var(e, v),
						 inc ? "1" : "-1"));
			return val_num(0);
		}
		if (v->scope == VS_GLOBAL)
			body_use_global(b, v, true);
		else
			body_add_local(b, v);
		const char *ref = names_var_ref(e, v);
		if (!post) {
			emit(e, "%s%s;", inc ? "++" : "--", ref);
			return val_c(ref, false);
		}
		const char *t = body_tmp_long(b);
		emit(e, "%s = %s%s;", t, ref, inc ? "++" : "--");
		return val_c(t, true);
	}
	if (lhs && lhs->kind == N_INDEX && !(lhs->base && lhs->base->kind == N_HIST)) {
		Var *v = array_var(lhs);
		if (!v || v->arity <= 0 || v->type != TY_LONG)
			return body_error(b, n->loc, _("++ and -- need a number variable or "
						       "array element"));
		if (v->counter) {
			/* its value is not used (counters.c) */
			body_use_stat_add(b, v);
			const char *k = expr_fill_keys(b, v, &lhs->args, NULL);
			body_where(b, lhs->loc, xsprintf("identifier '%s'", v->name));
			body_fail_if(b, xsprintf("tap_map_counter_add(c, %s, %s, %s)", map_of(b, v),
						 k, inc ? "1" : "-1"));
			return val_num(0);
		}
		body_use_global(b, v, true);
		const char *k = expr_fill_keys(b, v, &lhs->args, NULL);
		const char *t = body_tmp_long(b);
		body_where(b, lhs->loc, xsprintf("identifier '%s'", v->name));
		body_fail_if(b, xsprintf("tap_map_add_long(c, %s, %s, %s, &%s)", map_of(b, v), k,
					 inc ? "1" : "-1", t));
		if (post)
			return val_c(xsprintf("(%s %s 1)", t, inc ? "-" : "+"), true);
		return val_c(t, true);
	}
	return body_error(b, n->loc, _("++ and -- need a number variable or array element"));
}

/* ---- statistics ---- */

static Val ex_stat(Body *b, Node *n)
{
	static const struct { const char *name, *op; } ops[] = {
		{ "@count", "TAP_STAT_COUNT" }, { "@sum", "TAP_STAT_SUM" },
		{ "@min", "TAP_STAT_MIN" }, { "@max", "TAP_STAT_MAX" },
		{ "@avg", "TAP_STAT_AVG" }, { "@variance", "TAP_STAT_VARIANCE" },
	};
	const char *op = NULL;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (n->op && !strcmp(n->op, ops[i].name))
			op = ops[i].op;
	if (!op)
		return body_error(b, n->loc, _("unknown statistics operator"));
	Var *v = n->lhs ? array_var(n->lhs) : NULL;
	const char *d = expr_stat_data(b, n->lhs);
	if (!v)
		return val_num(0);
	const char *t = body_tmp_long(b);
	body_where(b, n->loc, xsprintf("operator '%s'", n->op));
	body_fail_if(b, xsprintf("tap_stat_extract(c, %s, %s, %s, &%s)", names_stat_spec(b->e, v), d,
				 op, t));
	return val_c(t, true);
}


static void embedded_uses(Body *b, Node *n)
{
	Vec *g = n->pragma_globals;
	b->embedded = true;
	for (int i = 0; g && i < g->len; i++) {
		Var *v = vec_get(g, i);
		bool wr = n->str && strstr(n->str, xsprintf("pragma:write:%s", v->name));
		body_use_global(b, v, wr);
	}
}

static Val ex_embedded(Body *b, Node *n)
{
	embedded_uses(b, n);
	b->effects++;
	const char *code = n->str ? n->str : "0";
	if (n->type == TY_STRING) {
		const char *s = body_tmp_str(b);
		emit(b->e, "tap_str_assign(%s, (%s));", s, code);
		return val_c(s, true);
	}
	const char *t = body_tmp_long(b);
	emit(b->e, "%s = (int64_t)(%s);", t, code);
	return val_c(t, true);
}

void expr_embedded_stmt(Body *b, Node *n)
{
	embedded_uses(b, n);
	b->effects++;
	emit_open(b->e, "{");
	emit_line_directive(b->e, n->loc);
	emit_raw(b->e, n->str ? n->str : "");
	if (n->kind == N_EMBEDDED_EXPR)
		emit(b->e, ";");
	emit_close(b->e, "}");
}

Val expr_eval(Body *b, Node *n)
{
	if (!n)
		return val_num(0);
	switch (n->kind) {
	case N_NUMBER:
		return val_num(n->num);
	case N_STRING:
		return val_str(n->str ? n->str : "");
	case N_SYMBOL:
		return ex_symbol(b, n);
	case N_INDEX:
		return ex_index(b, n);
	case N_CALL:
		return ex_call(b, n);
	case N_PRINT:
		return ex_print(b, n);
	case N_BINARY:
		return ex_binary(b, n);
	case N_COMPARE:
		return ex_compare(b, n);
	case N_LOGICAL:
		return ex_logical(b, n);
	case N_CONCAT:
		return ex_concat(b, n);
	case N_REGEX:
		return ex_regex(b, n);
	case N_UNARY:
		return ex_unary(b, n);
	case N_PREINC:
	case N_POSTINC:
		return ex_incdec(b, n, false);
	case N_ASSIGN:
		return ex_assign(b, n);
	case N_TERNARY:
		return ex_ternary(b, n);
	case N_IN:
		return ex_in(b, n);
	case N_STAT:
		return ex_stat(b, n);
	case N_HIST:
		return body_error(b, n->loc, _("a histogram can only be printed, indexed or "
					       "iterated with foreach"));
	case N_TARGET:
	case N_CAST:
	case N_AUTOCAST:
		return tx_target(b, n);
	case N_ATVAR:
		return tx_target(b, n);
	case N_TARGET_VARS:
		return tx_target_vars(b, n);
	case N_ENTRY:
		return tx_entry(b, n);
	case N_DEFINED:
		return body_error(b, n->loc, _("@defined of this expression needs debug "
					       "information to decide, which is not supported yet"));
	case N_PROBEWRITE:
		return val_num(0);
	case N_PERF: {
		/* as stap (pass 3 too): @perf is a sample for an aggregate */
		if (n != perf_operand)
			return body_error(b, n->loc, xsprintf(_("@perf(\"%s\") can only be used "
								"as the operand of '<<<'"), n->str));
		/* pass 2 made sure a perf probe defines the counter, so the
		 * perf family's runtime (tap_perf_counter) is in the module */
		const char *t = body_tmp_long(b);
		emit(b->e, "%s = tap_perf_counter(c, %s);", t, c_string(n->str));
		return val_c(t, true);
	}
	case N_CONST:
	case N_ENUM:
		if (!n->str)
			return val_num(0);
		return val_c(xsprintf("((int64_t)(%s))", n->str), true);
	case N_REGISTER:
		return tx_register(b, n);
	case N_DEREF:
		return tx_deref(b, n);
	case N_EMBEDDED_EXPR:
		return ex_embedded(b, n);
	default:
		return body_error(b, n->loc, xsprintf(_("a %s cannot be used as a value"),
						      node_kind_names[n->kind]));
	}
}

/* An expression statement: post-increments need no old value. */
Val expr_eval_void(Body *b, Node *n)
{
	if (n && n->kind == N_POSTINC)
		return ex_incdec(b, n, true);
	return expr_eval(b, n);
}
