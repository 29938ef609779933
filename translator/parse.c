/* parse.c - pass 1: the SystemTap language parser.
 *
 * A recursive-descent parser over the preprocessed token array.  Each
 * parse function has its grammar in the comment above it.  After a syntax
 * error the parser skips to the next top-level declaration (probe,
 * function, global, private) so one run reports several errors; it always
 * advances, so it cannot loop. */
#include "lex.h"
#include "passes.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct Parser {
	Vec *toks;
	int pos;
	SrcFile *src;
	Stapfile *file;
	bool is_tapset;
	bool privileged;        /* embedded C and guru-only operators allowed */
	bool in_function;
	int loop_depth;
	int nest;               /* parse_expr/parse_stmt/... calls open now */
	bool last_paren;        /* the primary just parsed was ( expr ) */
	int seq;                /* declaration order */
	int errors_before;      /* p1_errors() when this file started */
	int decl_start;         /* token index where the declaration began */
	jmp_buf recover;
} Parser;

/* ---- tokens ---- */

static Token *peek(Parser *P)
{
	return vec_get(P->toks, P->pos);
}

static Token *peek2(Parser *P)
{
	if (P->pos + 1 < P->toks->len)
		return vec_get(P->toks, P->pos + 1);
	return vec_last(P->toks);
}

static Token *next(Parser *P)
{
	Token *t = peek(P);
	if (t->kind != TK_EOF)
		P->pos++;
	return t;
}

/* The first-character test keeps strcmp off the hot path: the
 * expression ladder asks about a dozen operators per token. */
static bool is_op(Token *t, const char *op)
{
	return t->kind == TK_OP && t->text[0] == op[0] && strcmp(t->text, op) == 0;
}

static bool is_word(Token *t, const char *w)
{
	return t->kind == TK_IDENT && t->text[0] == w[0] && strcmp(t->text, w) == 0;
}

static bool peek_op(Parser *P, const char *op)
{
	return is_op(peek(P), op);
}

static bool accept_op(Parser *P, const char *op)
{
	if (!peek_op(P, op))
		return false;
	next(P);
	return true;
}

static const char *const keywords[] = {
	"probe", "global", "function", "private", "if", "else", "for",
	"foreach", "in", "while", "break", "continue", "next", "return",
	"delete", "try", "catch", NULL,
};

/* True when interned text `s` is one of `list`; the interned copies are
 * made once per list, so each test is pointer compares. */
static bool in_interned_list(const char *s, const char *const *list,
			     const char **cache, int cache_len)
{
	if (!cache[0])
		for (int i = 0; list[i] && i < cache_len; i++)
			cache[i] = intern(list[i]);
	for (int i = 0; i < cache_len && cache[i]; i++)
		if (s == cache[i])
			return true;
	return false;
}

static bool is_keyword(Token *t)
{
	static const char *cache[sizeof keywords / sizeof keywords[0]];
	return t->kind == TK_IDENT &&
	       in_interned_list(t->text, keywords, cache, sizeof cache / sizeof cache[0]);
}

/* A plain name: an identifier that is not a keyword, $target or @op. */
static bool is_name(Token *t)
{
	return t->kind == TK_IDENT && !is_keyword(t) && t->text[0] != '$' &&
	       t->text[0] != '@';
}

/* How a token reads in a message. */
static const char *describe(Token *t)
{
	switch (t->kind) {
	case TK_EOF:
		return _("end of file");
	case TK_STRING: {
		size_t n = strlen(t->text);
		return xsprintf(_("string \"%.*s%s\""), n > 20 ? 20 : (int)n, t->text,
				n > 20 ? "..." : "");
	}
	case TK_NUMBER:
		return xsprintf(_("number %s"), t->text);
	case TK_EMBEDDED:
		return _("embedded C '%{'");
	case TK_IDENT:
		if (is_keyword(t))
			return xsprintf(_("keyword '%s'"), t->text);
		return xsprintf("'%s'", t->text);
	default:
		return xsprintf("'%s'", t->text);
	}
}

static const char *line_col(Loc l)
{
	return xsprintf("%d:%d", l.line, l.col);
}

/* Report and unwind to the declaration loop.  An error at the end of a
 * file that already had lexical errors is almost always their echo. */
static _Noreturn void fail_at(Parser *P, Loc loc, const char *fmt, ...) PRINTF(3, 4);
static _Noreturn void fail_at(Parser *P, Loc loc, const char *fmt, ...)
{
	Token *cur = peek(P);
	Token *prev = P->pos > 0 ? vec_get(P->toks, P->pos - 1) : cur;
	bool echo = (cur->kind == TK_EOF && p1_errors() > P->errors_before) ||
		    cur->bad || prev->bad;
	if (!echo) {
		va_list ap;
		va_start(ap, fmt);
		StrBuf sb = { 0 };
		sb_vprintf(&sb, fmt, ap);
		va_end(ap);
		p1_error(loc, "%s", sb_cstr(&sb));
		sb_free(&sb);
	}
	longjmp(P->recover, 1);
}

static _Noreturn void unexpected(Parser *P, const char *wanted)
{
	Token *t = peek(P);
	fail_at(P, t->loc, _("expected %s, found %s"), wanted, describe(t));
}

static Token *expect_op(Parser *P, const char *op)
{
	if (!peek_op(P, op))
		unexpected(P, xsprintf("'%s'", op));
	return next(P);
}

/* The closing half of a pair, naming where the opening half was. */
static void expect_close(Parser *P, const char *op, Token *open)
{
	if (peek_op(P, op)) {
		next(P);
		return;
	}
	Token *t = peek(P);
	fail_at(P, t->loc, _("expected '%s' to close '%s' at %s, found %s"), op,
		open->text, line_col(open->loc), describe(t));
}

/* ---- nesting ----
 *
 * Two counts keep every pass within its stack (see MAX_NEST_DEPTH): the
 * parser's own recursion (which parentheses deepen without deepening the
 * tree), and the height of the tree it builds (which a chain such as
 * a + b + c + ... deepens without any recursion here).  Both are refused
 * where they cross the limit. */

static _Noreturn void too_deep(Parser *P, Loc loc)
{
	fail_at(P, loc, _("too deeply nested: expressions and statements may nest "
			  "at most %d levels"), MAX_NEST_DEPTH);
}

/* Around each recursive call that can nest without bound. */
static void enter(Parser *P)
{
	if (++P->nest > MAX_NEST_DEPTH)
		too_deep(P, peek(P)->loc);
}

static void leave(Parser *P)
{
	P->nest--;
}

/* A finished node: measure it, and refuse it at `at` when it is too
 * deep. */
static Node *sealed(Parser *P, Node *n, Loc at)
{
	if (node_depth(n) > MAX_NEST_DEPTH)
		too_deep(P, at);
	return n;
}

static Node *new_node(Parser *P, NodeKind k, Loc loc)
{
	Node *n = node_new(k, loc);
	n->from_tapset = P->is_tapset;
	return n;
}

static bool compat_autocast(void)
{
	return !compat_before("2.6");
}

static void need_privilege(Parser *P, Token *t, const char *what)
{
	if (!P->privileged)
		fail_at(P, t->loc, _("%s is only allowed in guru mode (-g) or in tapsets"),
			what);
}

/* ---- literals ---- */

/* string = STRING+ (adjacent literals are glued, as in C) */
static Node *parse_string(Parser *P)
{
	Token *t = next(P);
	if (t->kind != TK_STRING) {
		P->pos--;
		unexpected(P, _("a string literal"));
	}
	Node *n = new_node(P, N_STRING, t->loc);
	if (peek(P)->kind != TK_STRING) {
		n->str = t->text;
		return n;
	}
	if (compat_before("2.0") && !P->is_tapset)
		fail_at(P, peek(P)->loc, _("adjacent string literals are glued only "
					   "with --compatible 2.0 or later"));
	StrBuf sb = { 0 };
	sb_puts(&sb, t->text);
	while (peek(P)->kind == TK_STRING)
		sb_puts(&sb, next(P)->text);
	n->str = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return n;
}

static Node *number_node(Parser *P, Token *t, bool negate)
{
	Node *n = new_node(P, N_NUMBER, t->loc);
	n->num = negate ? (int64_t)(0 - (uint64_t)t->num) : t->num;
	return n;
}

/* literal = ["-"] NUMBER | string */
static Node *parse_literal(Parser *P, const char *what)
{
	Token *t = peek(P);
	if (t->kind == TK_STRING)
		return parse_string(P);
	if (t->kind == TK_NUMBER)
		return number_node(P, next(P), false);
	if (is_op(t, "-") && peek2(P)->kind == TK_NUMBER) {
		next(P);
		Node *n = number_node(P, next(P), true);
		n->loc = t->loc;
		return n;
	}
	unexpected(P, what);
}

/* ---- expressions ---- */

static Node *parse_expr(Parser *P);
static Node *parse_ternary(Parser *P);
static Node *parse_unary(Parser *P);
static Node *parse_postfix(Parser *P);
static Node *primary_of_parse(Parser *P);
static Node *parse_stmt(Parser *P);
static Node *parse_block(Parser *P);

static Node *binary(Parser *P, NodeKind k, Token *op, Node *l, Node *r)
{
	Node *n = new_node(P, k, op->loc);
	n->op = op->text;
	n->lhs = l;
	n->rhs = r;
	n->loc = l->loc;
	n->op_loc = op->loc;
	return sealed(P, n, op->loc);
}

static bool is_assign_op(Token *t)
{
	static const char *const ops[] = { "=", "<<<", "+=", "-=", "*=", "/=",
		"%=", "<<=", ">>=", ">>>=", "&=", "^=", "|=", ".=", NULL };
	static const char *cache[sizeof ops / sizeof ops[0]];
	return t->kind == TK_OP &&
	       in_interned_list(t->text, ops, cache, sizeof cache / sizeof cache[0]);
}

/* expr = ternary [assign-op expr] */
static Node *parse_expr(Parser *P)
{
	enter(P);
	Node *n = parse_ternary(P);
	if (is_assign_op(peek(P))) {
		Token *op = next(P);
		Node *rhs = parse_expr(P);
		n = binary(P, N_ASSIGN, op, n, rhs);
	}
	leave(P);
	return sealed(P, n, n->loc);
}

static Node *parse_logical_or(Parser *P);

/* ternary = logical-or ["?" expr ":" ternary] */
static Node *parse_ternary(Parser *P)
{
	Node *c = parse_logical_or(P);
	if (!peek_op(P, "?"))
		return c;
	Token *q = next(P);
	Node *n = new_node(P, N_TERNARY, c->loc);
	n->cond = c;
	n->then = parse_expr(P);
	if (!peek_op(P, ":"))
		fail_at(P, peek(P)->loc, _("expected ':' for the '?' at %s, found %s"),
			line_col(q->loc), describe(peek(P)));
	next(P);
	enter(P);
	n->els = parse_ternary(P);
	leave(P);
	return sealed(P, n, q->loc);
}

/* A left-associative level: operand (op operand)* */
typedef Node *(*ParseFn)(Parser *);

static Node *left_assoc(Parser *P, ParseFn sub, NodeKind k, const char *const *ops)
{
	Node *l = sub(P);
	for (;;) {
		Token *t = peek(P);
		bool hit = false;
		for (int i = 0; ops[i] && !hit; i++)
			hit = is_op(t, ops[i]);
		if (!hit)
			return l;
		next(P);
		l = binary(P, k, t, l, sub(P));
	}
}

static Node *parse_in(Parser *P);
static Node *parse_bit_and(Parser *P)
{
	static const char *const ops[] = { "&", NULL };
	return left_assoc(P, parse_in, N_BINARY, ops);
}

static Node *parse_bit_xor(Parser *P)
{
	static const char *const ops[] = { "^", NULL };
	return left_assoc(P, parse_bit_and, N_BINARY, ops);
}

static Node *parse_bit_or(Parser *P)
{
	static const char *const ops[] = { "|", NULL };
	return left_assoc(P, parse_bit_xor, N_BINARY, ops);
}

static Node *parse_logical_and(Parser *P)
{
	static const char *const ops[] = { "&&", NULL };
	return left_assoc(P, parse_bit_or, N_LOGICAL, ops);
}

/* logical-or = logical-and ("||" logical-and)* */
static Node *parse_logical_or(Parser *P)
{
	static const char *const ops[] = { "||", NULL };
	return left_assoc(P, parse_logical_and, N_LOGICAL, ops);
}

static Node *parse_multiplicative(Parser *P)
{
	static const char *const ops[] = { "*", "/", "%", NULL };
	return left_assoc(P, parse_unary, N_BINARY, ops);
}

static Node *parse_additive(Parser *P)
{
	static const char *const ops[] = { "+", "-", NULL };
	return left_assoc(P, parse_multiplicative, N_BINARY, ops);
}

/* concatenation = additive ("." additive)* */
static Node *parse_concat(Parser *P)
{
	Node *l = parse_additive(P);
	while (peek_op(P, ".")) {
		Token *t = next(P);
		Node *r = parse_additive(P);
		l = binary(P, N_CONCAT, t, l, r);
	}
	return l;
}

static Node *parse_shift(Parser *P)
{
	static const char *const ops[] = { "<<", ">>", ">>>", NULL };
	return left_assoc(P, parse_concat, N_BINARY, ops);
}

/* comparison = shift (("<" | ">" | "<=" | ">=" | "==" | "!=") shift
 *                    | ("=~" | "!~") string)* */
static Node *parse_compare(Parser *P)
{
	static const char *const ops[] = { "<", ">", "<=", ">=", "==", "!=", NULL };
	Node *l = parse_shift(P);
	for (;;) {
		Token *t = peek(P);
		if (is_op(t, "=~") || is_op(t, "!~")) {
			next(P);
			if (peek(P)->kind != TK_STRING)
				fail_at(P, peek(P)->loc, _("the right side of '%s' must be a "
							   "regular expression in a string "
							   "literal, found %s"),
					t->text, describe(peek(P)));
			l = binary(P, N_REGEX, t, l, parse_string(P));
			continue;
		}
		bool hit = false;
		for (int i = 0; ops[i] && !hit; i++)
			hit = is_op(t, ops[i]);
		if (!hit)
			return l;
		next(P);
		l = binary(P, N_COMPARE, t, l, parse_shift(P));
	}
}

/* indexable = NAME | hist-op */
static Node *parse_indexable(Parser *P)
{
	Token *t = peek(P);
	if (is_word(t, "@hist_log") || is_word(t, "@hist_linear"))
		return parse_postfix(P);
	if (!is_name(t))
		unexpected(P, _("an array name"));
	next(P);
	Node *n = new_node(P, N_SYMBOL, t->loc);
	n->name = t->text;
	return n;
}

/* index-list = "[" [ key ("," key)* ] "]"  with key = "*" | expr */
static void parse_keys(Parser *P, Vec *keys, bool allow_star)
{
	Token *open = expect_op(P, "[");
	if (peek_op(P, "]"))
		fail_at(P, peek(P)->loc, _("expected an index expression in '[ ]'"));
	for (;;) {
		if (allow_star && peek_op(P, "*") &&
		    (is_op(peek2(P), ",") || is_op(peek2(P), "]"))) {
			next(P);
			vec_push(keys, NULL);
		} else {
			vec_push(keys, parse_expr(P));
		}
		if (accept_op(P, ","))
			continue;
		expect_close(P, "]", open);
		return;
	}
}

/* array-in = "[" keys "]" "in" indexable
 *          | comparison ["in" indexable] */
static Node *parse_in(Parser *P)
{
	Node *n;
	Token *first = peek(P);
	if (is_op(first, "[")) {
		n = new_node(P, N_IN, first->loc);
		parse_keys(P, &n->args, true);
		if (!is_word(peek(P), "in"))
			unexpected(P, _("'in' after the '[...]' keys"));
	} else {
		Node *k = parse_compare(P);
		if (!is_word(peek(P), "in"))
			return k;
		n = new_node(P, N_IN, k->loc);
		vec_push(&n->args, k);
	}
	Token *in = next(P);
	n->base = parse_indexable(P);
	if (peek_op(P, "["))
		fail_at(P, peek(P)->loc, _("the array after 'in' takes no index: "
					   "write '[keys] in array'"));
	return sealed(P, n, in->loc);
}

/* The operand of a prefix "-" "+" "!" "~" (t), after it. */
static Node *parse_prefixed(Parser *P, Token *t)
{
	/* A minus right before a number literal is part of it, so
	 * -9223372036854775808 is representable. */
	if (is_op(t, "-") && peek(P)->kind == TK_NUMBER) {
		Token *num = peek(P);
		Node *v = parse_unary(P);
		if (v->kind == N_NUMBER && v->loc.line == num->loc.line &&
		    v->loc.col == num->loc.col) {
			v->num = (int64_t)(0 - (uint64_t)v->num);
			v->loc = t->loc;
			return v;
		}
		Node *n = new_node(P, N_UNARY, t->loc);
		n->op = t->text;
		n->lhs = v;
		return n;
	}
	Node *n = new_node(P, N_UNARY, t->loc);
	n->op = t->text;
	n->lhs = parse_unary(P);
	return n;
}

/* unary = ("-" | "+" | "!" | "~") unary | crement
 * crement = ("++" | "--") postfix | postfix ["++" | "--"] */
static Node *parse_unary(Parser *P)
{
	Token *t = peek(P);
	if (is_op(t, "-") || is_op(t, "+") || is_op(t, "!") || is_op(t, "~")) {
		next(P);
		enter(P);
		Node *n = parse_prefixed(P, t);
		leave(P);
		return sealed(P, n, t->loc);
	}
	if (is_op(t, "++") || is_op(t, "--")) {
		next(P);
		Node *n = new_node(P, N_PREINC, t->loc);
		n->op = t->text;
		n->lhs = parse_postfix(P);
		return sealed(P, n, t->loc);
	}
	Node *v = parse_postfix(P);
	t = peek(P);
	if (is_op(t, "++") || is_op(t, "--")) {
		next(P);
		Node *n = new_node(P, N_POSTINC, v->loc);
		n->op = t->text;
		n->lhs = v;
		return sealed(P, n, t->loc);
	}
	return sealed(P, v, v->loc);
}

/* Split a trailing "$" or "$$" (pretty-printing) off a name. */
static const char *split_deref(const char *name, const char **deref)
{
	size_t n = strlen(name);
	*deref = NULL;
	if (n >= 3 && name[n - 1] == '$' && name[n - 2] == '$') {
		*deref = intern("$$");
		return intern_n(name, n - 2);
	}
	if (n >= 2 && name[n - 1] == '$') {
		*deref = intern("$");
		return intern_n(name, n - 1);
	}
	return name;
}

static bool is_target_like(Node *n)
{
	return n->kind == N_TARGET || n->kind == N_CAST || n->kind == N_ATVAR ||
	       n->kind == N_AUTOCAST;
}

static void no_autocast(Parser *P, Token *t)
{
	if (!compat_autocast() && !P->is_tapset)
		fail_at(P, t->loc, _("'%s' here needs a context variable or @cast "
				     "(autocast needs --compatible 2.6 or later)"), t->text);
}

/* Make n able to take target-path components: target, @cast, @var and
 * autocast nodes take them directly, anything else is wrapped. */
static Node *as_target(Parser *P, Node *n, Token *t)
{
	if (is_target_like(n) && !n->deref)
		return n;
	no_autocast(P, t);
	Node *a = new_node(P, N_AUTOCAST, n->loc);
	a->lhs = n;
	return a;
}

static bool is_deref_token(Token *t)
{
	return t->kind == TK_IDENT && (!strcmp(t->text, "$") || !strcmp(t->text, "$$"));
}

/* postfix = ["&"] primary ( "->" NAME | "[" keys "]" )* ["$" | "$$"]
 * A '[' right after an array name or @hist_* is an array index; after
 * anything else it indexes a target (pointer or array) value. */
static Node *parse_postfix(Parser *P)
{
	Token *amp = NULL;
	if (peek_op(P, "&"))
		amp = next(P);

	Node *n = primary_of_parse(P);
	bool paren = P->last_paren;
	for (;;) {
		Token *t = peek(P);
		if (is_op(t, "->")) {
			next(P);
			Token *m = next(P);
			if (m->kind != TK_IDENT || m->text[0] == '@' ||
			    (m->text[0] == '$' && m->text[1] != 0)) {
				P->pos--;
				unexpected(P, _("a member name after '->'"));
			}
			n = as_target(P, n, t);
			Component *c = NEW(Component);
			c->kind = COMP_MEMBER;
			c->loc = m->loc;
			c->name = split_deref(m->text, &n->deref);
			if (m->text[0] == '$') {   /* "->$" */
				P->pos--;
				unexpected(P, _("a member name after '->'"));
			}
			vec_push(&n->comps, c);
			if (n->deref)
				break;
		} else if (is_op(t, "[")) {
			bool array = !paren && !n->comps.len &&
				     ((n->kind == N_SYMBOL) || n->kind == N_HIST);
			if (array) {
				Node *ix = new_node(P, N_INDEX, n->loc);
				ix->base = n;
				parse_keys(P, &ix->args, true);
				n = ix;
			} else {
				n = as_target(P, n, t);
				Token *open = next(P);
				Component *c = NEW(Component);
				c->kind = COMP_INDEX;
				c->loc = open->loc;
				c->index = parse_expr(P);
				expect_close(P, "]", open);
				vec_push(&n->comps, c);
			}
		} else if (is_deref_token(t)) {
			next(P);
			n = as_target(P, n, t);
			n->deref = t->text;
			break;
		} else {
			break;
		}
		paren = false;
	}
	if (amp) {
		if (!is_target_like(n) || n->deref) {
			no_autocast(P, amp);
			Node *a = new_node(P, N_AUTOCAST, n->loc);
			a->lhs = n;
			n = a;
		}
		n->addressof = true;
		n->loc = amp->loc;
	}
	P->last_paren = false;
	return n;
}

/* args = "(" [expr ("," expr)*] ")" */
static void parse_args(Parser *P, Vec *args)
{
	Token *open = expect_op(P, "(");
	if (accept_op(P, ")"))
		return;
	for (;;) {
		vec_push(args, parse_expr(P));
		if (accept_op(P, ","))
			continue;
		expect_close(P, ")", open);
		return;
	}
}

static bool is_print_name(const char *s)
{
	static const char *const names[] = { "print", "println", "printf", "printd",
		"printdln", "sprint", "sprintln", "sprintf", "sprintd", "sprintdln",
		NULL };
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

/* print-call = PRINTNAME "(" args ")": printf and sprintf take a format
 * literal first, the printd family a delimiter literal; both go to fmt. */
static Node *parse_print(Parser *P, Token *name)
{
	Node *n = new_node(P, N_PRINT, name->loc);
	n->name = name->text;
	bool has_fmt = strstr(name->text, "printf") != NULL;
	bool is_d = strstr(name->text, "printd") != NULL;
	Token *open = peek(P);
	parse_args(P, &n->args);
	if (has_fmt || is_d) {
		Node *first = n->args.len ? vec_get(&n->args, 0) : NULL;
		if (!first || first->kind != N_STRING)
			fail_at(P, first ? first->loc : open->loc,
				is_d ? _("%s needs a delimiter string literal first")
				     : _("%s needs a format string literal first"),
				name->text);
		n->fmt = first;
		for (int i = 1; i < n->args.len; i++)
			n->args.data[i - 1] = n->args.data[i];
		n->args.len--;
		if (is_d && n->args.len < 2)
			fail_at(P, name->loc, _("%s needs at least two values to join"),
				name->text);
	} else if (n->args.len == 0 && strstr(name->text, "ln") == NULL) {
		fail_at(P, name->loc, _("%s needs at least one value"), name->text);
	}
	return n;
}

/* "(" string ["," string] ")" for @var and @enum */
static void parse_name_module(Parser *P, Node *n)
{
	Token *open = expect_op(P, "(");
	n->str = parse_string(P)->str;
	if (accept_op(P, ","))
		n->module = parse_string(P)->str;
	expect_close(P, ")", open);
}

/* The built-in @ operators. */
static Node *parse_at_op(Parser *P, Token *t)
{
	const char *s = t->text;
	Node *n;
	Token *open;
	if (!strcmp(s, "@count") || !strcmp(s, "@sum") || !strcmp(s, "@min") ||
	    !strcmp(s, "@max") || !strcmp(s, "@avg") || !strcmp(s, "@variance")) {
		n = new_node(P, N_STAT, t->loc);
		n->op = s;
		open = expect_op(P, "(");
		n->lhs = parse_expr(P);
		if (!strcmp(s, "@variance") && accept_op(P, ",")) {
			Token *b = peek(P);
			if (b->kind != TK_NUMBER)
				unexpected(P, _("a number (the bit shift) as @variance's second "
						"argument"));
			vec_push(&n->args, number_node(P, next(P), false));
		}
		expect_close(P, ")", open);
		return n;
	}
	if (!strcmp(s, "@hist_log") || !strcmp(s, "@hist_linear")) {
		n = new_node(P, N_HIST, t->loc);
		n->op = s;
		open = expect_op(P, "(");
		n->lhs = parse_expr(P);
		if (!strcmp(s, "@hist_linear")) {
			for (int i = 0; i < 3; i++) {
				if (!peek_op(P, ","))
					fail_at(P, peek(P)->loc, _("@hist_linear takes a value, "
								   "then low, high and step "
								   "(found %s)"),
						describe(peek(P)));
				next(P);
				vec_push(&n->args, parse_expr(P));
			}
		}
		expect_close(P, ")", open);
		return n;
	}
	if (!strcmp(s, "@cast")) {
		n = new_node(P, N_CAST, t->loc);
		open = expect_op(P, "(");
		n->lhs = parse_expr(P);
		if (!peek_op(P, ",") || peek2(P)->kind != TK_STRING)
			fail_at(P, peek(P)->loc, _("@cast needs a type name: write "
						   "@cast(address, \"type\" [, \"module\"])"));
		next(P);
		n->str = parse_string(P)->str;
		if (accept_op(P, ","))
			n->module = parse_string(P)->str;
		expect_close(P, ")", open);
		return n;
	}
	if (!strcmp(s, "@var")) {
		n = new_node(P, N_ATVAR, t->loc);
		parse_name_module(P, n);
		return n;
	}
	if (!strcmp(s, "@enum")) {
		n = new_node(P, N_ENUM, t->loc);
		parse_name_module(P, n);
		return n;
	}
	if (!strcmp(s, "@entry") || !strcmp(s, "@defined") || !strcmp(s, "@probewrite")) {
		n = new_node(P, s[1] == 'e' ? N_ENTRY : s[1] == 'd' ? N_DEFINED : N_PROBEWRITE,
			     t->loc);
		open = expect_op(P, "(");
		n->lhs = parse_expr(P);
		expect_close(P, ")", open);
		return n;
	}
	if (!strcmp(s, "@perf") || !strcmp(s, "@const")) {
		n = new_node(P, s[1] == 'p' ? N_PERF : N_CONST, t->loc);
		open = expect_op(P, "(");
		if (peek(P)->kind != TK_STRING)
			unexpected(P, xsprintf(_("a string literal as %s's argument"), s));
		Node *str = parse_string(P);
		if (!*str->str)
			fail_at(P, str->loc, _("%s needs a non-empty name"), s);
		n->str = str->str;
		expect_close(P, ")", open);
		return n;
	}
	if (!strcmp(s, "@kregister") || !strcmp(s, "@uregister")) {
		if (s[1] == 'k')
			need_privilege(P, t, "@kregister");
		n = new_node(P, N_REGISTER, t->loc);
		n->op = s;
		open = expect_op(P, "(");
		n->lhs = parse_expr(P);
		expect_close(P, ")", open);
		return n;
	}
	if (!strcmp(s, "@kderef") || !strcmp(s, "@uderef")) {
		if (s[1] == 'k')
			need_privilege(P, t, "@kderef");
		n = new_node(P, N_DEREF, t->loc);
		n->op = s;
		open = expect_op(P, "(");
		vec_push(&n->args, parse_expr(P));
		expect_op(P, ",");
		vec_push(&n->args, parse_expr(P));
		expect_close(P, ")", open);
		return n;
	}
	fail_at(P, t->loc, _("unknown operator or macro '%s'"), s);
}

static const char *const target_vars[] = { "$$vars", "$$parms", "$$locals",
	"$$return", NULL };

/* primary = NUMBER | string | "(" expr ")" | EMBEDDED | NAME [args]
 *         | $target | $$vars... | @op(...) */
static Node *primary_of_parse(Parser *P)
{
	Token *t = next(P);
	Node *n;
	P->last_paren = false;
	switch (t->kind) {
	case TK_NUMBER:
		return number_node(P, t, false);
	case TK_STRING:
		P->pos--;
		return parse_string(P);
	case TK_EMBEDDED:
		need_privilege(P, t, _("embedded C code"));
		n = new_node(P, N_EMBEDDED_EXPR, t->loc);
		n->str = t->text;
		return n;
	case TK_OP:
		if (is_op(t, "(")) {
			n = parse_expr(P);
			expect_close(P, ")", t);
			P->last_paren = true;
			return n;
		}
		break;
	case TK_IDENT:
		if (t->text[0] == '$' && t->text[1] == '$') {
			const char *deref;
			const char *name = split_deref(t->text, &deref);
			for (int i = 0; target_vars[i]; i++) {
				if (!strcmp(name, target_vars[i])) {
					n = new_node(P, N_TARGET_VARS, t->loc);
					n->name = name;
					n->deref = deref;
					return n;
				}
			}
			if (!name[2])
				break;
			/* other $$names ($$name of plt probes) are plain
			 * context values */
			n = new_node(P, N_TARGET, t->loc);
			n->name = name;
			n->deref = deref;
			return n;
		}
		if (t->text[0] == '$' && t->text[1]) {
			n = new_node(P, N_TARGET, t->loc);
			n->name = split_deref(t->text, &n->deref);
			return n;
		}
		if (t->text[0] == '@')
			return parse_at_op(P, t);
		if (!is_name(t))
			break;
		if (peek_op(P, "(")) {
			if (is_print_name(t->text))
				return parse_print(P, t);
			n = new_node(P, N_CALL, t->loc);
			n->name = t->text;
			parse_args(P, &n->args);
			return n;
		}
		n = new_node(P, N_SYMBOL, t->loc);
		n->name = t->text;
		return n;
	default:
		break;
	}
	P->pos--;
	unexpected(P, _("an expression"));
}

/* ---- statements ---- */

static void optional_semicolon(Parser *P)
{
	accept_op(P, ";");
}

static Node *parse_paren_cond(Parser *P, const char *what)
{
	if (!peek_op(P, "("))
		fail_at(P, peek(P)->loc, _("expected '(' after '%s', found %s"), what,
			describe(peek(P)));
	Token *open = next(P);
	Node *c = parse_expr(P);
	expect_close(P, ")", open);
	return c;
}

static Node *parse_loop_body(Parser *P)
{
	P->loop_depth++;
	Node *b = parse_stmt(P);
	P->loop_depth--;
	return b;
}

/* foreach = "foreach" "(" [NAME "="] (key | "[" key ("," key)* "]")
 *           "in" indexable ["[" slice "]"] [["@stat"] ("+" | "-")]
 *           ["limit" expr] ")" stmt
 * key = NAME ["+" | "-"] */
static Node *parse_foreach(Parser *P, Token *kw)
{
	Node *n = new_node(P, N_FOREACH, kw->loc);
	if (!peek_op(P, "("))
		fail_at(P, peek(P)->loc, _("expected '(' after 'foreach', found %s"),
			describe(peek(P)));
	Token *open = next(P);
	if (is_name(peek(P)) && is_op(peek2(P), "=")) {
		Token *v = next(P);
		next(P);
		n->value = new_node(P, N_SYMBOL, v->loc);
		n->value->name = v->text;
	}
	Token *bracket = NULL;
	if (peek_op(P, "["))
		bracket = next(P);
	for (;;) {
		Token *k = peek(P);
		if (!is_name(k))
			unexpected(P, _("an iteration variable name"));
		next(P);
		Node *key = new_node(P, N_SYMBOL, k->loc);
		key->name = k->text;
		vec_push(&n->args, key);
		if (peek_op(P, "+") || peek_op(P, "-")) {
			Token *s = next(P);
			if (n->sort_dir)
				fail_at(P, s->loc, _("only one sort order ('+' or '-') is "
						     "allowed in a foreach"));
			n->sort_col = n->args.len;
			n->sort_dir = is_op(s, "+") ? 1 : -1;
		}
		if (!bracket || !accept_op(P, ","))
			break;
	}
	if (bracket)
		expect_close(P, "]", bracket);
	if (!is_word(peek(P), "in"))
		unexpected(P, _("'in'"));
	next(P);
	n->base = parse_indexable(P);
	if (peek_op(P, "["))
		parse_keys(P, &n->slice, true);
	Token *agg = NULL;
	if (peek(P)->kind == TK_IDENT && peek(P)->text[0] == '@') {
		agg = next(P);
		static const char *const ok[] = { "@count", "@sum", "@min", "@max",
			"@avg", NULL };
		bool good = false;
		for (int i = 0; ok[i]; i++)
			good |= !strcmp(agg->text, ok[i]);
		if (!good)
			fail_at(P, agg->loc, _("expected @count, @sum, @min, @max or @avg "
					       "to sort by, found '%s'"), agg->text);
		if (!peek_op(P, "+") && !peek_op(P, "-"))
			unexpected(P, xsprintf(_("'+' or '-' after '%s'"), agg->text));
		n->op = agg->text;
	}
	if (peek_op(P, "+") || peek_op(P, "-")) {
		Token *s = next(P);
		if (n->sort_dir)
			fail_at(P, s->loc, _("only one sort order ('+' or '-') is allowed "
					     "in a foreach"));
		n->sort_col = -1;
		n->sort_dir = is_op(s, "+") ? 1 : -1;
	}
	if (is_word(peek(P), "limit")) {
		next(P);
		n->limit = parse_expr(P);
	}
	expect_close(P, ")", open);
	n->body = parse_loop_body(P);
	return n;
}

/* for = "for" "(" [expr] ";" [expr] ";" [expr] ")" stmt */
static Node *parse_for(Parser *P, Token *kw)
{
	Node *n = new_node(P, N_FOR, kw->loc);
	if (!peek_op(P, "("))
		fail_at(P, peek(P)->loc, _("expected '(' after 'for', found %s"),
			describe(peek(P)));
	Token *open = next(P);
	if (!peek_op(P, ";"))
		n->init = parse_expr(P);
	expect_op(P, ";");
	if (!peek_op(P, ";"))
		n->cond = parse_expr(P);
	expect_op(P, ";");
	if (!peek_op(P, ")"))
		n->incr = parse_expr(P);
	expect_close(P, ")", open);
	n->body = parse_loop_body(P);
	return n;
}

/* try = "try" block "catch" ["(" NAME ")"] block */
static Node *parse_try(Parser *P, Token *kw)
{
	Node *n = new_node(P, N_TRY, kw->loc);
	n->body = parse_block(P);
	if (!is_word(peek(P), "catch"))
		unexpected(P, _("'catch' after the try block"));
	next(P);
	if (peek_op(P, "(")) {
		Token *open = next(P);
		Token *v = peek(P);
		if (!is_name(v))
			unexpected(P, _("a variable name for the error message"));
		next(P);
		n->catch_var = new_node(P, N_SYMBOL, v->loc);
		n->catch_var->name = v->text;
		expect_close(P, ")", open);
	}
	n->els = parse_block(P);
	return n;
}

/* stmt = ";" | block | if | while | for | foreach | try
 *      | ("break" | "continue" | "next") [";"] | "return" [expr] [";"]
 *      | "delete" expr [";"] | expr [";"] */
static Node *parse_stmt_here(Parser *P)
{
	Token *t = peek(P);
	Node *n;
	if (is_op(t, ";")) {
		next(P);
		return new_node(P, N_NULL_STMT, t->loc);
	}
	if (is_op(t, "{"))
		return parse_block(P);
	if (t->kind == TK_IDENT && is_keyword(t)) {
		const char *w = t->text;
		if (!strcmp(w, "if")) {
			next(P);
			n = new_node(P, N_IF, t->loc);
			n->cond = parse_paren_cond(P, "if");
			n->then = parse_stmt(P);
			if (is_word(peek(P), "else")) {
				next(P);
				n->els = parse_stmt(P);
			}
			return n;
		}
		if (!strcmp(w, "while")) {
			next(P);
			n = new_node(P, N_WHILE, t->loc);
			n->cond = parse_paren_cond(P, "while");
			n->body = parse_loop_body(P);
			return n;
		}
		if (!strcmp(w, "for")) {
			next(P);
			return parse_for(P, t);
		}
		if (!strcmp(w, "foreach")) {
			next(P);
			return parse_foreach(P, t);
		}
		if (!strcmp(w, "try")) {
			next(P);
			return parse_try(P, t);
		}
		if (!strcmp(w, "break") || !strcmp(w, "continue")) {
			next(P);
			n = new_node(P, w[0] == 'b' ? N_BREAK : N_CONTINUE, t->loc);
			optional_semicolon(P);
			return n;
		}
		if (!strcmp(w, "next")) {
			next(P);
			n = new_node(P, N_NEXT, t->loc);
			optional_semicolon(P);
			return n;
		}
		if (!strcmp(w, "return")) {
			next(P);
			if (!P->in_function)
				fail_at(P, t->loc, _("'return' is only allowed in a function; "
						     "use 'next' to leave a probe"));
			n = new_node(P, N_RETURN, t->loc);
			if (!peek_op(P, ";") && !peek_op(P, "}"))
				n->lhs = parse_expr(P);
			optional_semicolon(P);
			return n;
		}
		if (!strcmp(w, "delete")) {
			next(P);
			n = new_node(P, N_DELETE, t->loc);
			n->lhs = parse_expr(P);
			optional_semicolon(P);
			return n;
		}
		if (!strcmp(w, "else"))
			fail_at(P, t->loc, _("'else' without a matching 'if'"));
		unexpected(P, _("a statement"));
	}
	n = new_node(P, N_EXPR_STMT, t->loc);
	n->lhs = parse_expr(P);
	optional_semicolon(P);
	return n;
}

static Node *parse_stmt(Parser *P)
{
	enter(P);
	Node *n = parse_stmt_here(P);
	leave(P);
	return sealed(P, n, n->loc);
}

/* block = "{" stmt* "}" */
static Node *parse_block(Parser *P)
{
	Token *open = peek(P);
	if (!is_op(open, "{"))
		unexpected(P, _("'{'"));
	next(P);
	Node *b = new_node(P, N_BLOCK, open->loc);
	for (;;) {
		Token *t = peek(P);
		if (is_op(t, "}")) {
			next(P);
			return sealed(P, b, open->loc);
		}
		if (t->kind == TK_EOF)
			fail_at(P, t->loc, _("expected '}' to close '{' at %s, found end "
					     "of file"), line_col(open->loc));
		vec_push(&b->stmts, parse_stmt(P));
	}
}

/* ---- probe points ---- */

/* One alternative of a brace expansion: its components, and the '?' or
 * '!' written after it inside the braces (mark: the last one, or
 * NULL). */
typedef struct Alt {
	Vec comps;              /* ProbePointComp * */
	bool optional, sufficient;
	Token *mark;
} Alt;

typedef Vec Alts;   /* alternatives: Vec of Alt * */

static Alt *alt_concat(Alt *a, Alt *b)
{
	Alt *r = NEW(Alt);
	for (int i = 0; i < a->comps.len; i++)
		vec_push(&r->comps, vec_get(&a->comps, i));
	for (int i = 0; i < b->comps.len; i++)
		vec_push(&r->comps, vec_get(&b->comps, i));
	r->optional = b->optional;
	r->sufficient = b->sufficient;
	r->mark = b->mark;
	return r;
}

#define MAX_EXPANSION 4096

static Alts *alts_product(Parser *P, Alts *a, Alts *b, Loc loc)
{
	if ((long)a->len * b->len > MAX_EXPANSION)
		fail_at(P, loc, _("brace expansion gives more than %d probe points"),
			MAX_EXPANSION);
	for (int i = 0; i < a->len; i++) {
		Alt *x = vec_get(a, i);
		if (x->mark)
			fail_at(P, x->mark->loc, _("'%s' inside braces must end the probe "
						   "point, but a '.' follows these braces"),
				x->mark->text);
	}
	Alts *r = NEW(Alts);
	for (int i = 0; i < a->len; i++)
		for (int j = 0; j < b->len; j++)
			vec_push(r, alt_concat(vec_get(a, i), vec_get(b, j)));
	return r;
}

static bool is_name_piece(Token *t)
{
	return (t->kind == TK_IDENT && t->text[0] != '$' && t->text[0] != '@') ||
	       is_op(t, "*") || t->kind == TK_NUMBER;
}

static Alts *parse_pp_seq(Parser *P, int depth);

/* pp-unit = "{" pp-alt ("," pp-alt)* "}" | pp-name ["(" literal ")"]
 * pp-alt = pp-seq ["?" | "!"]*   (a mark only when the braces end the point)
 * pp-name = touching pieces of NAME and "*" (wildcards) */
static Alts *parse_pp_unit(Parser *P, int depth)
{
	Token *t = peek(P);
	Alts *r = NEW(Alts);
	if (is_op(t, "{")) {
		if (depth > 32)
			fail_at(P, t->loc, _("braces nested too deeply"));
		next(P);
		for (;;) {
			Alts *a = parse_pp_seq(P, depth + 1);
			Token *mark = NULL;
			bool opt = false, suff = false;
			for (;;) {
				if (peek_op(P, "?"))
					opt = true;
				else if (peek_op(P, "!"))
					suff = opt = true;
				else
					break;
				mark = next(P);
			}
			for (int i = 0; i < a->len; i++) {
				Alt *x = vec_get(a, i);
				x->optional |= opt;
				x->sufficient |= suff;
				if (mark)
					x->mark = mark;
				vec_push(r, x);
			}
			if (r->len > MAX_EXPANSION)
				fail_at(P, t->loc, _("brace expansion gives more than %d probe "
						     "points"), MAX_EXPANSION);
			if (accept_op(P, ","))
				continue;
			Token *c = peek(P);
			if (is_word(c, "if"))
				fail_at(P, c->loc, _("'%s' may only follow a whole probe point, "
						     "not a part inside braces"), c->text);
			expect_close(P, "}", t);
			return r;
		}
	}
	if (!is_name_piece(t) || t->kind == TK_NUMBER)
		unexpected(P, _("a probe point name"));
	StrBuf sb = { 0 };
	sb_puts(&sb, next(P)->text);
	while (is_name_piece(peek(P)) && !peek(P)->space_before)
		sb_puts(&sb, next(P)->text);
	ProbePointComp *c = NEW(ProbePointComp);
	c->name = intern(sb_cstr(&sb));
	c->loc = t->loc;
	sb_free(&sb);
	if (peek_op(P, "*"))
		fail_at(P, peek(P)->loc, _("a '*' wildcard must touch the name it is "
					   "part of (no spaces)"));
	if (peek_op(P, "(")) {
		Token *open = next(P);
		Token *a = peek(P);
		if (!(a->kind == TK_STRING || a->kind == TK_NUMBER ||
		      (is_op(a, "-") && peek2(P)->kind == TK_NUMBER)))
			fail_at(P, a->loc, _("a probe point argument must be a number or a "
					     "string literal, found %s"), describe(a));
		c->arg = parse_literal(P, _("a number or string"));
		if (!peek_op(P, ")"))
			fail_at(P, peek(P)->loc, _("expected ')' to close '(' at %s (a probe "
						   "point argument is one literal), found %s"),
				line_col(open->loc), describe(peek(P)));
		next(P);
	}
	Alt *one = NEW(Alt);
	vec_push(&one->comps, c);
	vec_push(r, one);
	return r;
}

/* pp-seq = pp-unit ("." pp-unit)* */
static Alts *parse_pp_seq(Parser *P, int depth)
{
	Alts *r = parse_pp_unit(P, depth);
	while (peek_op(P, ".")) {
		Token *dot = next(P);
		r = alts_product(P, r, parse_pp_unit(P, depth), dot->loc);
	}
	return r;
}

/* probe-point = pp-seq ["?" | "!"]* ["if" "(" expr ")"] */
static void parse_probe_point(Parser *P, Vec *out)
{
	Token *start = peek(P);
	Alts *alts = parse_pp_seq(P, 0);
	bool optional = false, sufficient = false;
	for (;;) {
		if (accept_op(P, "?"))
			optional = true;
		else if (accept_op(P, "!"))
			sufficient = optional = true;
		else
			break;
	}
	Node *cond = NULL;
	if (is_word(peek(P), "if")) {
		next(P);
		cond = parse_paren_cond(P, "if");
	}
	for (int i = 0; i < alts->len; i++) {
		ProbePoint *pp = NEW(ProbePoint);
		Alt *alt = vec_get(alts, i);
		pp->comps = alt->comps;
		pp->optional = optional || alt->optional;
		pp->sufficient = sufficient || alt->sufficient;
		pp->condition = cond;
		pp->loc = start->loc;
		vec_push(out, pp);
	}
}

static void parse_probe_points(Parser *P, Vec *out)
{
	for (;;) {
		parse_probe_point(P, out);
		if (!accept_op(P, ","))
			return;
	}
}

/* probe = "probe" probe-point ("," probe-point)* [("=" | "+=") probe-point
 *         ("," probe-point)*] block */
static void parse_probe(Parser *P, Token *kw, bool is_private)
{
	Probe *p = NEW(Probe);
	p->loc = kw->loc;
	p->from_tapset = P->is_tapset;
	p->file = P->src;
	p->is_private = is_private;
	p->seq = ++P->seq;
	parse_probe_points(P, &p->points);
	if (peek_op(P, "=") || peek_op(P, "+=")) {
		Token *eq = next(P);
		p->is_alias = true;
		p->epilogue = is_op(eq, "+=");
		p->alias_names = p->points;
		memset(&p->points, 0, sizeof p->points);
		for (int i = 0; i < p->alias_names.len; i++) {
			ProbePoint *pp = vec_get(&p->alias_names, i);
			if (pp->optional || pp->condition)
				fail_at(P, pp->loc, _("an alias name cannot carry '?', '!' or "
						      "'if': put them where the alias is used"));
		}
		parse_probe_points(P, &p->points);
	} else if (!peek_op(P, "{")) {
		Token *t = peek(P);
		if (is_op(t, "*") || is_name_piece(t))
			fail_at(P, t->loc, _("unexpected %s in a probe point: components are "
					     "joined with '.', probe points with ','"),
				describe(t));
		unexpected(P, _("'{' to start the probe body"));
	}
	P->in_function = false;
	P->loop_depth = 0;
	p->body = parse_block(P);
	vec_push(p->is_alias ? &P->file->aliases : &P->file->probes, p);
}

/* ---- globals ---- */

static Var *find_global(Stapfile *f, const char *name)
{
	for (int i = 0; i < f->globals.len; i++) {
		Var *v = vec_get(&f->globals, i);
		if (v->name == name)
			return v;
	}
	return NULL;
}

/* global = "global" decl ("," decl)* [";"]
 * decl = NAME ["%"] ["[" NUMBER "]"] ["%"] ["=" literal] */
static void parse_globals(Parser *P, Token *kw, bool is_private)
{
	(void)kw;
	for (;;) {
		Token *t = peek(P);
		if (!is_name(t))
			unexpected(P, _("a variable name"));
		next(P);
		Var *v = NEW(Var);
		v->name = t->text;
		v->loc = t->loc;
		v->scope = VS_GLOBAL;
		v->is_private = is_private;
		v->file = P->src;
		v->from_tapset = P->is_tapset;
		v->arity = -1;
		if (accept_op(P, "%"))
			v->wrap = true;
		if (peek_op(P, "[")) {
			Token *open = next(P);
			Token *n = peek(P);
			if (n->kind != TK_NUMBER)
				unexpected(P, _("the array size (a number)"));
			next(P);
			if (n->num <= 0)
				fail_at(P, n->loc, _("the size of array '%s' must be positive"),
					v->name);
			v->maxsize = n->num;
			v->arity = 0;   /* an array; keys unknown yet */
			expect_close(P, "]", open);
			if (accept_op(P, "%"))
				v->wrap = true;
		}
		if (peek_op(P, "=")) {
			Token *eq = next(P);
			if (v->maxsize)
				fail_at(P, eq->loc, _("array '%s' cannot have an initial value"),
					v->name);
			v->init = parse_literal(P, _("a number or string literal as the "
						     "initial value"));
		}
		Var *old = find_global(P->file, v->name);
		if (old)
			fail_at(P, t->loc, _("global '%s' is already declared at %s"),
				v->name, line_col(old->loc));
		vec_push(&P->file->globals, v);
		if (!accept_op(P, ","))
			break;
	}
	optional_semicolon(P);
}

/* ---- functions ---- */

static Type parse_type(Parser *P)
{
	Token *t = peek(P);
	if (is_word(t, "long")) {
		next(P);
		return TY_LONG;
	}
	if (is_word(t, "string")) {
		next(P);
		return TY_STRING;
	}
	if (t->kind == TK_IDENT)
		fail_at(P, t->loc, _("unknown type '%s': use 'long' or 'string'"), t->text);
	unexpected(P, _("a type ('long' or 'string')"));
}

static void set_pragmas(Func *f, const char *code)
{
	f->pure = strstr(code, "/* pure */") != NULL;
	f->unprivileged = strstr(code, "/* unprivileged */") != NULL;
	f->myproc_unprivileged = strstr(code, "/* myproc-unprivileged */") != NULL;
	f->guru = strstr(code, "/* guru */") != NULL;
	/* a tapset function tapc cannot make work yet: calling it is an
	 * error saying why, in pass 2, instead of a wrong answer */
	const char *u = strstr(code, "/* unavailable: ");
	if (u) {
		u += strlen("/* unavailable: ");
		const char *end = strstr(u, " */");
		f->unavailable = end ? intern_n(u, (size_t)(end - u)) : intern(u);
	}
}

/* function = "function" NAME [":" type] "(" [param ("," param)*] ")"
 *            [":" NUMBER] (block | EMBEDDED)
 * param = NAME [":" type] */
static void parse_function(Parser *P, Token *kw, bool is_private)
{
	Token *t = peek(P);
	if (!is_name(t))
		unexpected(P, _("a function name"));
	next(P);
	Func *f = NEW(Func);
	f->name = t->text;
	f->loc = t->loc;
	f->is_private = is_private;
	f->from_tapset = P->is_tapset;
	f->file = P->src;
	f->priority = P->is_tapset ? 1 : 0;
	(void)kw;
	if (accept_op(P, ":")) {
		f->type = parse_type(P);
		f->declared_type = true;
	}
	if (!peek_op(P, "("))
		fail_at(P, peek(P)->loc, _("expected '(' and the parameters after function "
					   "'%s', found %s"), f->name, describe(peek(P)));
	Token *open = next(P);
	while (!peek_op(P, ")")) {
		Token *pt = peek(P);
		if (!is_name(pt))
			unexpected(P, _("a parameter name"));
		next(P);
		for (int i = 0; i < f->params.len; i++) {
			Var *o = vec_get(&f->params, i);
			if (o->name == pt->text)
				fail_at(P, pt->loc, _("duplicate parameter '%s' (first at %s)"),
					pt->text, line_col(o->loc));
		}
		Var *v = NEW(Var);
		v->name = pt->text;
		v->loc = pt->loc;
		v->scope = VS_PARAM;
		v->file = P->src;
		v->from_tapset = P->is_tapset;
		if (accept_op(P, ":")) {
			v->type = parse_type(P);
			v->declared_type = true;
		}
		vec_push(&f->params, v);
		if (accept_op(P, ","))
			continue;
		if (!peek_op(P, ")"))
			fail_at(P, peek(P)->loc, _("expected ',' or ')' to close '(' at %s, "
						   "found %s"), line_col(open->loc),
				describe(peek(P)));
	}
	next(P);
	if (accept_op(P, ":")) {
		Token *n = peek(P);
		if (n->kind != TK_NUMBER)
			unexpected(P, _("a priority number after ':'"));
		next(P);
		f->priority = n->num;
	}
	Token *b = peek(P);
	if (b->kind == TK_EMBEDDED) {
		need_privilege(P, b, _("embedded C code"));
		next(P);
		Node *e = new_node(P, N_EMBEDDED, b->loc);
		e->str = b->text;
		f->body = e;
		set_pragmas(f, b->text);
	} else {
		P->in_function = true;
		P->loop_depth = 0;
		f->body = parse_block(P);
		P->in_function = false;
	}
	vec_push(&P->file->funcs, f);
}

/* ---- files ---- */

static bool is_decl_start(Token *t)
{
	return is_word(t, "probe") || is_word(t, "global") || is_word(t, "function") ||
	       is_word(t, "private") || t->kind == TK_EOF;
}

/* decl = probe | global | function | "private" (global | function | NAME)
 *      | EMBEDDED | ";" */
static void parse_decl(Parser *P)
{
	Token *t = next(P);
	bool priv = false;
	if (is_word(t, "private")) {
		priv = true;
		Token *u = peek(P);
		if (is_word(u, "global") || is_word(u, "function")) {
			t = next(P);
		} else if (is_name(u)) {
			parse_globals(P, t, true);
			return;
		} else {
			unexpected(P, _("'global', 'function' or a variable name after "
					"'private'"));
		}
	}
	if (is_word(t, "probe") && !priv)
		parse_probe(P, t, false);
	else if (is_word(t, "global"))
		parse_globals(P, t, priv);
	else if (is_word(t, "function"))
		parse_function(P, t, priv);
	else if (t->kind == TK_EMBEDDED) {
		need_privilege(P, t, _("embedded C code"));
		Node *e = new_node(P, N_EMBEDDED, t->loc);
		e->str = t->text;
		vec_push(&P->file->embeds, e);
	} else if (!is_op(t, ";")) {
		P->pos--;
		unexpected(P, _("'probe', 'global', 'function' or '%{'"));
	}
}

Stapfile *parse_file(SrcFile *src, bool is_tapset)
{
	int errors_before = p1_errors();
	Vec *raw = lex_file(src);
	Vec *toks = preprocess(raw, src);

	Parser *P = NEW(Parser);
	P->toks = toks;
	P->errors_before = errors_before;
	P->src = src;
	P->is_tapset = is_tapset;
	P->privileged = is_tapset || sess.guru;
	P->file = NEW(Stapfile);
	P->file->src = src;
	P->file->is_tapset = is_tapset;
	P->file->privileged = P->privileged;
	src->is_tapset = src->is_tapset || is_tapset;

	int failures = 0;
	while (peek(P)->kind != TK_EOF) {
		if (setjmp(P->recover)) {
			/* skip to the next declaration, moving at least one
			 * token past where this one started */
			if (++failures > 50)
				break;
			P->nest = 0;
			if (P->pos == P->decl_start)
				next(P);
			while (!is_decl_start(peek(P)))
				next(P);
			continue;
		}
		P->decl_start = P->pos;
		parse_decl(P);
	}
	Stapfile *f = P->file;
	if (p1_errors() == errors_before && !is_tapset && !f->probes.len &&
	    !f->aliases.len && !f->funcs.len && !f->globals.len && !f->embeds.len)
		p1_error(((Token *)vec_last(toks))->loc,
			 _("the script declares nothing: expected a probe, function or "
			   "global"));
	if (p1_errors() != errors_before)
		return NULL;
	return f;
}
