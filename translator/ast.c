/* ast.c - AST helpers and the canonical printer (-p1).
 *
 * The printed form parses again to the same tree: binary expressions are
 * fully parenthesised, strings re-escaped, one statement per line with a
 * 2-space indent, and simple statements end in ';' so that two of them
 * never run together when read back.
 *
 * The output stays linear in the size of the tree: the indent stops
 * growing at MAX_INDENT levels (else a deep tree would print a line of
 * spaces per level per line), and nothing is rendered twice. */
#include "ast.h"

#include <string.h>

const char *const node_kind_names[] = {
#define X(k, name) name,
	NODE_KINDS(X)
#undef X
};

Node *node_new(NodeKind kind, Loc loc)
{
	Node *n = NEW(Node);
	n->kind = kind;
	n->loc = loc;
	return n;
}

static int max_depth_of(Vec *v, int d)
{
	for (int i = 0; i < v->len; i++) {
		int k = node_depth(vec_get(v, i));
		if (k > d)
			d = k;
	}
	return d;
}

/* Every Node field that holds a child, whatever the kind: a kind that
 * leaves a field NULL costs nothing. */
int node_depth(Node *n)
{
	if (!n)
		return 0;
	if (n->depth)
		return n->depth;
	Node *kids[] = { n->lhs, n->rhs, n->base, n->cond, n->then, n->els,
			 n->init, n->incr, n->body, n->fmt, n->value, n->limit,
			 n->catch_var };
	int d = 0;
	for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) {
		int k = node_depth(kids[i]);
		if (k > d)
			d = k;
	}
	d = max_depth_of(&n->args, d);
	d = max_depth_of(&n->stmts, d);
	d = max_depth_of(&n->slice, d);
	for (int i = 0; i < n->comps.len; i++) {
		Component *c = vec_get(&n->comps, i);
		int k = node_depth(c->index);
		if (k > d)
			d = k;
	}
	n->depth = d + 1;
	return n->depth;
}

const char *type_name(Type t)
{
	switch (t) {
	case TY_LONG:
		return "long";
	case TY_STRING:
		return "string";
	case TY_STATS:
		return "stats";
	case TY_VOID:
		return "void";
	default:
		return "unknown";
	}
}

/* ---- the printer writes into a buffer ---- */

static void put_string_literal(StrBuf *o, const char *s)
{
	sb_putc(o, '"');
	for (; *s; s++) {
		unsigned char c = *s;
		switch (c) {
		case '"':
			sb_puts(o, "\\\"");
			break;
		case '\\':
			sb_puts(o, "\\\\");
			break;
		case '\n':
			sb_puts(o, "\\n");
			break;
		case '\t':
			sb_puts(o, "\\t");
			break;
		case '\r':
			sb_puts(o, "\\r");
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				sb_printf(o, "\\%03o", c);
			else
				sb_putc(o, (char)c);
		}
	}
	sb_putc(o, '"');
}

static void put_expr(StrBuf *o, Node *n, bool top);

/* Binary-like kinds print their own parentheses when nested. */
static bool self_parenthesised(Node *n)
{
	switch (n->kind) {
	case N_BINARY: case N_COMPARE: case N_LOGICAL: case N_CONCAT:
	case N_REGEX: case N_ASSIGN: case N_TERNARY: case N_IN:
		return true;
	default:
		return false;
	}
}

/* An operand of a prefix operator: things that would fuse with the
 * operator ("- -a" "--a" "-5") get parentheses. */
static void put_operand(StrBuf *o, Node *n)
{
	bool wrap = n->kind == N_UNARY || n->kind == N_PREINC || n->kind == N_POSTINC ||
		    n->kind == N_NUMBER || n->addressof;
	if (wrap)
		sb_putc(o, '(');
	put_expr(o, n, false);
	if (wrap)
		sb_putc(o, ')');
}

static void put_list(StrBuf *o, Vec *v, int from)
{
	for (int i = from; i < v->len; i++) {
		if (i > from)
			sb_puts(o, ", ");
		Node *a = vec_get(v, i);
		if (a)
			put_expr(o, a, true);
		else
			sb_putc(o, '*');
	}
}

static void put_comps(StrBuf *o, Node *n)
{
	for (int i = 0; i < n->comps.len; i++) {
		Component *c = vec_get(&n->comps, i);
		if (c->kind == COMP_MEMBER) {
			sb_printf(o, "->%s", c->name);
		} else {
			sb_putc(o, '[');
			put_expr(o, c->index, true);
			sb_putc(o, ']');
		}
	}
	if (n->deref)
		sb_puts(o, n->deref);
}

static void put_name_module(StrBuf *o, const char *op, Node *n)
{
	sb_printf(o, "%s(", op);
	put_string_literal(o, n->str);
	if (n->module) {
		sb_puts(o, ", ");
		put_string_literal(o, n->module);
	}
	sb_putc(o, ')');
}

static void put_call1(StrBuf *o, const char *op, Node *arg)
{
	sb_printf(o, "%s(", op);
	put_expr(o, arg, true);
	sb_putc(o, ')');
}

static void put_expr(StrBuf *o, Node *n, bool top)
{
	bool paren = !top && self_parenthesised(n);
	if (paren)
		sb_putc(o, '(');
	if (n->addressof)
		sb_putc(o, '&');
	switch (n->kind) {
	case N_NUMBER:
		sb_printf(o, "%lld", (long long)n->num);
		break;
	case N_STRING:
		put_string_literal(o, n->str);
		break;
	case N_SYMBOL:
		sb_puts(o, n->name);
		break;
	case N_INDEX:
		put_expr(o, n->base, false);
		sb_putc(o, '[');
		put_list(o, &n->args, 0);
		sb_putc(o, ']');
		break;
	case N_CALL:
		sb_printf(o, "%s(", n->name);
		put_list(o, &n->args, 0);
		sb_putc(o, ')');
		break;
	case N_PRINT:
		sb_printf(o, "%s(", n->name);
		if (n->fmt) {
			put_expr(o, n->fmt, true);
			if (n->args.len)
				sb_puts(o, ", ");
		}
		put_list(o, &n->args, 0);
		sb_putc(o, ')');
		break;
	case N_BINARY: case N_COMPARE: case N_LOGICAL: case N_REGEX: case N_ASSIGN:
		put_expr(o, n->lhs, false);
		sb_printf(o, " %s ", n->op);
		put_expr(o, n->rhs, false);
		break;
	case N_CONCAT:
		put_expr(o, n->lhs, false);
		sb_puts(o, " . ");
		put_expr(o, n->rhs, false);
		break;
	case N_UNARY:
	case N_PREINC:
		sb_puts(o, n->op);
		put_operand(o, n->lhs);
		break;
	case N_POSTINC:
		put_operand(o, n->lhs);
		sb_puts(o, n->op);
		break;
	case N_TERNARY:
		put_expr(o, n->cond, false);
		sb_puts(o, " ? ");
		put_expr(o, n->then, false);
		sb_puts(o, " : ");
		put_expr(o, n->els, false);
		break;
	case N_IN:
		if (n->args.len == 1 && vec_get(&n->args, 0)) {
			put_expr(o, vec_get(&n->args, 0), false);
		} else {
			sb_putc(o, '[');
			put_list(o, &n->args, 0);
			sb_putc(o, ']');
		}
		sb_puts(o, " in ");
		put_expr(o, n->base, false);
		break;
	case N_STAT:
	case N_HIST:
		sb_printf(o, "%s(", n->op);
		put_expr(o, n->lhs, true);
		if (n->args.len) {
			sb_puts(o, ", ");
			put_list(o, &n->args, 0);
		}
		sb_putc(o, ')');
		break;
	case N_TARGET:
		sb_puts(o, n->name);
		put_comps(o, n);
		break;
	case N_TARGET_VARS:
		sb_puts(o, n->name);
		if (n->deref)
			sb_puts(o, n->deref);
		break;
	case N_CAST:
		sb_puts(o, "@cast(");
		put_expr(o, n->lhs, true);
		sb_puts(o, ", ");
		put_string_literal(o, n->str);
		if (n->module) {
			sb_puts(o, ", ");
			put_string_literal(o, n->module);
		}
		sb_putc(o, ')');
		put_comps(o, n);
		break;
	case N_ATVAR:
		put_name_module(o, "@var", n);
		put_comps(o, n);
		break;
	case N_AUTOCAST:
		/* Always parenthesised: "(foo)[1]" is not "foo[1]", "(42)$" is
		 * not the token "42$". */
		if (!self_parenthesised(n->lhs))
			sb_putc(o, '(');
		put_expr(o, n->lhs, false);
		if (!self_parenthesised(n->lhs))
			sb_putc(o, ')');
		put_comps(o, n);
		break;
	case N_ENTRY:
		put_call1(o, "@entry", n->lhs);
		break;
	case N_DEFINED:
		put_call1(o, "@defined", n->lhs);
		break;
	case N_PROBEWRITE:
		put_call1(o, "@probewrite", n->lhs);
		break;
	case N_PERF:
		sb_puts(o, "@perf(");
		put_string_literal(o, n->str);
		sb_putc(o, ')');
		break;
	case N_CONST:
		sb_puts(o, "@const(");
		put_string_literal(o, n->str);
		sb_putc(o, ')');
		break;
	case N_REGISTER:
		put_call1(o, n->op, n->lhs);
		break;
	case N_DEREF:
		sb_printf(o, "%s(", n->op);
		put_list(o, &n->args, 0);
		sb_putc(o, ')');
		break;
	case N_ENUM:
		put_name_module(o, "@enum", n);
		break;
	case N_EMBEDDED_EXPR:
	case N_EMBEDDED:
		sb_printf(o, "%%{%s%%}", n->str);
		break;
	default:
		sb_printf(o, "/* %s */", n->kind < N__COUNT ? node_kind_names[n->kind] : "?");
		break;
	}
	if (paren)
		sb_putc(o, ')');
}

/* ---- statements ---- */

#define MAX_INDENT 40

static void pad(StrBuf *o, int indent)
{
	static const char spaces[2 * MAX_INDENT + 1] =
		"                                        "
		"                                        ";
	sb_putn(o, spaces, 2 * (size_t)(indent < MAX_INDENT ? indent : MAX_INDENT));
}

static void put_stmt(StrBuf *o, Node *n, int indent);

static void put_block(StrBuf *o, Node *b, int indent)
{
	sb_puts(o, "{\n");
	for (int i = 0; i < b->stmts.len; i++)
		put_stmt(o, vec_get(&b->stmts, i), indent + 1);
	pad(o, indent);
	sb_puts(o, "}\n");
}

/* The statement under if/else/while/for/foreach: a block stays on the
 * same line, anything else goes on the next one, indented. */
static void put_sub(StrBuf *o, Node *s, int indent)
{
	if (s->kind == N_BLOCK) {
		sb_putc(o, ' ');
		put_block(o, s, indent);
	} else {
		sb_putc(o, '\n');
		put_stmt(o, s, indent + 1);
	}
}

static void put_foreach_head(StrBuf *o, Node *n)
{
	sb_puts(o, "foreach (");
	if (n->value)
		sb_printf(o, "%s = ", n->value->name);
	bool brackets = n->args.len != 1 || n->value;
	if (brackets)
		sb_putc(o, '[');
	for (int i = 0; i < n->args.len; i++) {
		Node *k = vec_get(&n->args, i);
		if (i)
			sb_puts(o, ", ");
		sb_puts(o, k->name);
		if (n->sort_col == i + 1)
			sb_putc(o, n->sort_dir > 0 ? '+' : '-');
	}
	if (brackets)
		sb_putc(o, ']');
	sb_puts(o, " in ");
	put_expr(o, n->base, false);
	if (n->slice.len) {
		sb_putc(o, '[');
		put_list(o, &n->slice, 0);
		sb_putc(o, ']');
	}
	if (n->op)
		sb_puts(o, n->op);
	if (n->sort_col == -1)
		sb_putc(o, n->sort_dir > 0 ? '+' : '-');
	if (n->limit) {
		sb_puts(o, " limit ");
		put_expr(o, n->limit, false);
	}
	sb_putc(o, ')');
}

static void put_opt_expr(StrBuf *o, Node *n)
{
	if (n)
		put_expr(o, n, true);
}

static void put_stmt(StrBuf *o, Node *n, int indent)
{
	pad(o, indent);
	switch (n->kind) {
	case N_BLOCK:
		put_block(o, n, indent);
		return;
	case N_NULL_STMT:
		sb_puts(o, ";\n");
		return;
	case N_EXPR_STMT:
		put_expr(o, n->lhs, true);
		sb_puts(o, ";\n");
		return;
	case N_IF:
		sb_puts(o, "if (");
		put_expr(o, n->cond, true);
		sb_putc(o, ')');
		put_sub(o, n->then, indent);
		if (n->els) {
			pad(o, indent);
			sb_puts(o, "else");
			put_sub(o, n->els, indent);
		}
		return;
	case N_WHILE:
		sb_puts(o, "while (");
		put_expr(o, n->cond, true);
		sb_putc(o, ')');
		put_sub(o, n->body, indent);
		return;
	case N_FOR:
		sb_puts(o, "for (");
		put_opt_expr(o, n->init);
		sb_puts(o, "; ");
		put_opt_expr(o, n->cond);
		sb_puts(o, "; ");
		put_opt_expr(o, n->incr);
		sb_putc(o, ')');
		put_sub(o, n->body, indent);
		return;
	case N_FOREACH:
		put_foreach_head(o, n);
		put_sub(o, n->body, indent);
		return;
	case N_BREAK:
		sb_puts(o, "break;\n");
		return;
	case N_CONTINUE:
		sb_puts(o, "continue;\n");
		return;
	case N_NEXT:
		sb_puts(o, "next;\n");
		return;
	case N_RETURN:
		sb_puts(o, "return");
		if (n->lhs) {
			sb_putc(o, ' ');
			put_expr(o, n->lhs, true);
		}
		sb_puts(o, ";\n");
		return;
	case N_DELETE:
		sb_puts(o, "delete ");
		put_expr(o, n->lhs, true);
		sb_puts(o, ";\n");
		return;
	case N_TRY:
		sb_puts(o, "try ");
		put_block(o, n->body, indent);
		pad(o, indent);
		sb_puts(o, "catch");
		if (n->catch_var)
			sb_printf(o, " (%s)", n->catch_var->name);
		sb_putc(o, ' ');
		put_block(o, n->els, indent);
		return;
	case N_EMBEDDED:
		put_expr(o, n, true);
		sb_putc(o, '\n');
		return;
	default:
		/* an expression where a statement was expected (pass 2 output) */
		put_expr(o, n, true);
		sb_puts(o, ";\n");
		return;
	}
}

/* ---- declarations ---- */

static void put_probe_point(StrBuf *o, ProbePoint *pp)
{
	for (int i = 0; i < pp->comps.len; i++) {
		ProbePointComp *c = vec_get(&pp->comps, i);
		if (i)
			sb_putc(o, '.');
		sb_puts(o, c->name);
		if (c->arg) {
			sb_putc(o, '(');
			put_expr(o, c->arg, true);
			sb_putc(o, ')');
		}
	}
	if (pp->sufficient)
		sb_putc(o, '!');
	else if (pp->optional)
		sb_putc(o, '?');
	if (pp->condition) {
		sb_puts(o, " if (");
		put_expr(o, pp->condition, true);
		sb_putc(o, ')');
	}
}

static void put_points(StrBuf *o, Vec *points)
{
	for (int i = 0; i < points->len; i++) {
		if (i)
			sb_puts(o, ", ");
		put_probe_point(o, vec_get(points, i));
	}
}

static void put_probe(StrBuf *o, Probe *p)
{
	if (p->is_private)
		sb_puts(o, "private ");
	sb_puts(o, "probe ");
	if (p->is_alias) {
		put_points(o, &p->alias_names);
		sb_puts(o, p->epilogue ? " += " : " = ");
	}
	put_points(o, &p->points);
	sb_putc(o, ' ');
	if (p->body)
		put_block(o, p->body, 0);
	else
		sb_puts(o, "{\n}\n");
}

static void put_global(StrBuf *o, Var *v)
{
	if (v->is_private)
		sb_puts(o, "private ");
	sb_printf(o, "global %s", v->name);
	if (v->wrap)
		sb_putc(o, '%');
	if (v->maxsize)
		sb_printf(o, "[%lld]", (long long)v->maxsize);
	if (v->init) {
		sb_puts(o, " = ");
		put_expr(o, v->init, true);
	}
	sb_putc(o, '\n');
}

static void put_function(StrBuf *o, Func *f)
{
	if (f->is_private)
		sb_puts(o, "private ");
	sb_printf(o, "function %s", f->name);
	if (f->declared_type)
		sb_printf(o, ":%s", type_name(f->type));
	sb_puts(o, " (");
	for (int i = 0; i < f->params.len; i++) {
		Var *v = vec_get(&f->params, i);
		if (i)
			sb_puts(o, ", ");
		sb_puts(o, v->name);
		if (v->declared_type)
			sb_printf(o, ":%s", type_name(v->type));
	}
	sb_putc(o, ')');
	if (f->priority != (f->from_tapset ? 1 : 0))
		sb_printf(o, ":%lld", (long long)f->priority);
	sb_putc(o, ' ');
	if (!f->body) {
		sb_puts(o, "{\n}\n");
	} else if (f->body->kind == N_BLOCK) {
		put_block(o, f->body, 0);
	} else {
		put_expr(o, f->body, true);
		sb_putc(o, '\n');
	}
}

static void flush(FILE *out, StrBuf *sb)
{
	fwrite(sb_cstr(sb), 1, sb->len, out);
	sb_free(sb);
}

void print_stapfile(FILE *out, Stapfile *f)
{
	StrBuf o = { 0 };
	for (int i = 0; i < f->embeds.len; i++) {
		put_expr(&o, vec_get(&f->embeds, i), true);
		sb_putc(&o, '\n');
	}
	for (int i = 0; i < f->globals.len; i++)
		put_global(&o, vec_get(&f->globals, i));
	for (int i = 0; i < f->funcs.len; i++)
		put_function(&o, vec_get(&f->funcs, i));
	/* probes and aliases, merged back into declaration order */
	int a = 0, b = 0;
	while (a < f->probes.len || b < f->aliases.len) {
		Probe *p = a < f->probes.len ? vec_get(&f->probes, a) : NULL;
		Probe *q = b < f->aliases.len ? vec_get(&f->aliases, b) : NULL;
		if (p && (!q || p->seq <= q->seq)) {
			put_probe(&o, p);
			a++;
		} else {
			put_probe(&o, q);
			b++;
		}
	}
	flush(out, &o);
}

void print_node(FILE *out, Node *n)
{
	StrBuf o = { 0 };
	if (!n) {
		sb_puts(&o, "(null)");
	} else if (n->kind >= N_BLOCK && n->kind != N_EMBEDDED) {
		put_stmt(&o, n, 0);
		if (o.len && o.data[o.len - 1] == '\n')
			o.data[--o.len] = 0;
	} else {
		put_expr(&o, n, true);
	}
	flush(out, &o);
}

char *probe_point_text(ProbePoint *pp)
{
	StrBuf o = { 0 };
	put_probe_point(&o, pp);
	char *r = xstrndup(sb_cstr(&o), o.len);
	sb_free(&o);
	return r;
}

const char *probe_point_plain_text(ProbePoint *pp)
{
	ProbePoint c = *pp;
	c.optional = c.sufficient = false;
	c.condition = NULL;
	return probe_point_text(&c);
}

/* ---- walking and copying ---- */

void for_each_child(Node *n, void (*fn)(Node **slot, void *ctx), void *ctx)
{
	if (!n)
		return;
	Node **single[] = { &n->fmt, &n->init, &n->cond, &n->lhs, &n->rhs,
			    &n->base, &n->value, &n->limit, &n->catch_var,
			    &n->then, &n->els, &n->incr, &n->body };
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
