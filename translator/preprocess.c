/* preprocess.c - pass 1: conditionals, macros and script arguments.
 *
 * Works on the lexer's tokens and hands the parser a flat token array:
 *
 *   %( COND %? TOKENS [%: TOKENS] %)     keep one branch; the other is
 *                                         skipped unread (only balanced)
 *   @define NAME[(a, b)] %( BODY %)      define a macro, used as @NAME
 *   $N  @N  $#  @#                        script arguments
 *
 * Input comes from a stack: the file, then macro bodies and arguments
 * pushed as they are expanded.  A macro found on the stack again is
 * recursion, reported instead of followed.  Macros of a user script are
 * local to it; the *.stpm files of the tapset path give library macros
 * that every file sees, loaded the first time an unknown @name turns up. */
#include "lex.h"
#include "passes.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

typedef struct Macro {
	const char *name;       /* without the '@' */
	Vec params;             /* interned "@a" names */
	Vec body;               /* Token * */
	Loc loc;
} Macro;

/* Macros by name: open addressing on the interned name, so a file of
 * many @defines is not quadratic. */
typedef struct MacroTable {
	Macro **slots;
	int cap, len;
} MacroTable;

typedef struct Input {
	Vec *toks;
	int pos;
	struct Input *up;
	Macro *macro;           /* the macro whose body this is, or NULL */
	Loc call_loc;
	bool barrier;           /* end gives EOF instead of returning to up */
	bool from_arg;          /* $N text: no more $N inside */
} Input;

typedef struct Cond {
	Token *open;
	Input *in;
	bool in_else;
} Cond;

typedef struct PP {
	Input *in;
	Vec conds;              /* Cond * */
	MacroTable *local;      /* the macros of this file */
	SrcFile *src;
	int macro_depth;        /* expansions under way: arguments being
	                         * expanded or body being read */
	long expanded;          /* tokens macro expansion has copied */
	bool stopped;           /* too deep or too much, said once: expand
	                         * no more macros */
	bool conds_too_deep;    /* said so once for %( %) */
	Token *eof;
} PP;

/* Macro expansions nest at most this deep (a macro used in the body or
 * an argument of another counts one more).  Arguments are expanded
 * recursively, and each level re-reads the tokens of the arguments it
 * holds, so this bounds both the stack and the time. */
#define MAX_MACRO_DEPTH 200

/* Tokens macro expansion may copy in one file (bodies, arguments and
 * their expansions): a few macros that each use the previous one twice
 * would otherwise expand to billions.  No tapset or conformance case
 * needs more than about a thousand. */
#define MAX_MACRO_TOKENS (1L << 20)

static MacroTable library_macros;
static bool library_loaded, library_loading;
static void load_library_macros(void);

/* ---- versions and built-ins ---- */

/* The language version we act as (--compatible or ours). */
static const char *compat_version(void)
{
	return sess.compatible ? sess.compatible : TAPC_STAP_COMPAT_VERSION;
}

bool compat_before(const char *version)
{
	return version_cmp(compat_version(), version) < 0;
}

/* Whether the named @-operator is built into the language (not a macro). */
static bool is_builtin_at_op(const char *name)
{
	static const char *const ops[] = { "@count", "@sum", "@min", "@max", "@avg",
		"@variance", "@hist_log", "@hist_linear", "@cast", "@var", "@entry",
		"@defined", "@probewrite", "@perf", "@const", "@kregister",
		"@uregister", "@kderef", "@uderef", "@enum", "@define", NULL };
	for (int i = 0; ops[i]; i++)
		if (!strcmp(name, ops[i]))
			return true;
	return false;
}

/* ---- errors, with the chain of macro expansions ---- */

static void pp_error(PP *pp, Loc loc, const char *fmt, ...) PRINTF(3, 4);
static void pp_error(PP *pp, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	StrBuf sb = { 0 };
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	p1_error(loc, "%s", sb_cstr(&sb));
	sb_free(&sb);
	int shown = 0;
	for (Input *in = pp->in; in && shown < 10; in = in->up) {
		if (in->macro) {
			note_at(in->call_loc, _("in the expansion of macro '@%s'"),
				in->macro->name);
			shown++;
		}
	}
}

static const char *tok_desc(Token *t)
{
	switch (t->kind) {
	case TK_EOF:
		return _("end of file");
	case TK_STRING:
		return xsprintf(_("string \"%s\""), t->text);
	case TK_EMBEDDED:
		return _("embedded C");
	default:
		return xsprintf("'%s'", t->text);
	}
}

/* A copy of t that the parser will not complain about again. */
static Token *bad_token(Token *t)
{
	Token *b = NEW(Token);
	*b = *t;
	b->bad = true;
	return b;
}

/* ---- the input stack ---- */

static void push_input(PP *pp, Vec *toks, Macro *m, Loc call, bool barrier)
{
	Input *in = NEW(Input);
	in->toks = toks;
	in->up = pp->in;
	in->macro = m;
	in->call_loc = call;
	in->barrier = barrier;
	pp->in = in;
}

/* Conditionals opened in an input must close in it. */
static void close_input_conds(PP *pp, Input *in)
{
	while (pp->conds.len) {
		Cond *c = vec_last(&pp->conds);
		if (c->in != in)
			break;
		pp_error(pp, c->open->loc, _("'%%(' is not closed with '%%)'%s"),
			 in->macro ? _(" inside the macro body") :
			 in->up ? _(" inside the script argument") : "");
		vec_pop(&pp->conds);
	}
}

static void pop_input(PP *pp)
{
	close_input_conds(pp, pp->in);
	if (pp->in->macro)
		pp->macro_depth--;
	pp->in = pp->in->up;
}

/* The next token as written, crossing from an expanded body back to what
 * called it; the file's EOF (or a barrier's) repeats forever. */
static Token *raw(PP *pp)
{
	for (;;) {
		Input *in = pp->in;
		if (in->pos < in->toks->len) {
			Token *t = vec_get(in->toks, in->pos);
			if (t->kind != TK_EOF)
				in->pos++;
			return t;
		}
		if (in->barrier || !in->up)
			return pp->eof;
		pop_input(pp);
	}
}

/* The next token of the current input only, or NULL at its end. */
static Token *raw_here(PP *pp)
{
	Input *in = pp->in;
	if (in->pos >= in->toks->len)
		return NULL;
	Token *t = vec_get(in->toks, in->pos);
	if (t->kind == TK_EOF)
		return NULL;
	in->pos++;
	return t;
}

static bool is_op(Token *t, const char *op)
{
	return t && t->kind == TK_OP && !strcmp(t->text, op);
}

/* ---- script arguments ---- */

static Token *synth(TokKind kind, const char *text, int64_t num, Token *at)
{
	Token *t = NEW(Token);
	*t = *at;
	t->kind = kind;
	t->text = text;
	t->num = num;
	return t;
}

/* Replace $N @N $# @# by what the command line gave.  False after an
 * error. */
static bool expand_arg(PP *pp, Token *t)
{
	int argc = sess.args.len;
	if (pp->in->from_arg) {
		pp_error(pp, t->loc, _("a script argument cannot refer to script arguments "
				       "itself ('%s' inside one)"), t->text);
		return false;
	}
	if (t->text[1] == '#') {
		const char *n = intern(xsprintf("%d", argc));
		push_input(pp, NEW(Vec), NULL, t->loc, false);
		vec_push(pp->in->toks, synth(t->text[0] == '$' ? TK_NUMBER : TK_STRING,
					     n, argc, t));
		return true;
	}
	if (t->num < 1)
		return false;   /* the lexer reported it */
	if (t->num > argc) {
		pp_error(pp, t->loc, argc == 1 ? _("script argument %s was not given "
						   "(there is %d argument)")
				     : _("script argument %s was not given (there are %d "
					 "arguments)"), t->text, argc);
		return false;
	}
	const char *text = vec_get(&sess.args, t->num - 1);
	if (t->text[0] == '@') {
		push_input(pp, NEW(Vec), NULL, t->loc, false);
		vec_push(pp->in->toks, synth(TK_STRING, text, 0, t));
		return true;
	}
	SrcFile *f = srcfile_new(xsprintf(_("<script argument %s>"), t->text), text,
				 strlen(text));
	Vec *toks = lex_file(f);
	vec_pop(toks);   /* its EOF */
	for (int i = 0; i < toks->len; i++) {
		Token *a = vec_get(toks, i);
		if (a->kind == TK_ARG) {
			pp_error(pp, t->loc, _("script argument %s refers to script "
					       "argument '%s': arguments are not expanded "
					       "twice"), t->text, a->text);
			return false;
		}
		a->loc = t->loc;   /* point at the $N in the script */
		if (i == 0)
			a->space_before = t->space_before;
	}
	push_input(pp, toks, NULL, t->loc, false);
	pp->in->from_arg = true;
	return true;
}

/* ---- macros ---- */

static size_t name_slot(MacroTable *t, const char *name)
{
	uint64_t h = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 32) & (size_t)(t->cap - 1);
	while (t->slots[i] && t->slots[i]->name != name)
		i = (i + 1) & (size_t)(t->cap - 1);
	return i;
}

static Macro *find_in(MacroTable *t, const char *name)
{
	return t->cap ? t->slots[name_slot(t, name)] : NULL;
}

/* Add m, whose name is not in t yet. */
static void table_add(MacroTable *t, Macro *m)
{
	if (2 * (t->len + 1) > t->cap) {
		MacroTable bigger = { 0 };
		bigger.cap = t->cap ? 2 * t->cap : 16;
		bigger.slots = xalloc(sizeof(Macro *) * bigger.cap);
		for (int i = 0; i < t->cap; i++)
			if (t->slots[i])
				bigger.slots[name_slot(&bigger, t->slots[i]->name)] = t->slots[i];
		bigger.len = t->len;
		*t = bigger;
	}
	t->slots[name_slot(t, m->name)] = m;
	t->len++;
}

static Macro *find_macro(PP *pp, const char *at_name)
{
	const char *name = intern(at_name + 1);
	Macro *m = pp->local ? find_in(pp->local, name) : NULL;
	if (m || is_builtin_at_op(at_name))
		return m;
	if (!library_loaded)
		load_library_macros();
	return find_in(&library_macros, name);
}

static Token *pp_next(PP *pp);

/* Read a %( ... %) body after its '%(' from the current input. */
static Vec *read_body(PP *pp, Token *open, const char *what)
{
	Vec *body = NEW(Vec);
	int depth = 0;
	for (;;) {
		Token *t = raw_here(pp);
		if (!t) {
			pp_error(pp, open->loc, _("%s: '%%(' at %d:%d is not closed with "
						  "'%%)'"), what, open->loc.line, open->loc.col);
			return NULL;
		}
		if (is_op(t, "%("))
			depth++;
		else if (is_op(t, "%)") && depth-- == 0)
			return body;
		vec_push(body, t);
	}
}

/* define = "@define" NAME ["(" NAME ("," NAME)* ")"] "%(" tokens "%)" */
static void define_macro(PP *pp, Token *kw)
{
	Token *name = raw_here(pp);
	if (!name || name->kind != TK_IDENT || name->text[0] == '$' ||
	    name->text[0] == '@') {
		pp_error(pp, name ? name->loc : kw->loc,
			 _("expected a macro name after '@define', found %s"),
			 name ? tok_desc(name) : _("end of file"));
		return;
	}
	bool reject = false;
	if (!strcmp(name->text, "define")) {
		pp_error(pp, name->loc, _("'@define' cannot be redefined"));
		reject = true;
	}
	Macro *m = NEW(Macro);
	m->name = name->text;
	m->loc = name->loc;
	Token *t = raw_here(pp);
	if (is_op(t, "(")) {
		for (;;) {
			Token *p = raw_here(pp);
			if (!p || p->kind != TK_IDENT || p->text[0] == '$' ||
			    p->text[0] == '@') {
				pp_error(pp, p ? p->loc : t->loc, _("expected a parameter name "
								    "of macro '@%s', found %s"),
					 m->name, p ? tok_desc(p) : _("end of file"));
				return;
			}
			const char *pn = intern(xsprintf("@%s", p->text));
			for (int i = 0; i < m->params.len; i++)
				if (vec_get(&m->params, i) == pn) {
					pp_error(pp, p->loc, _("duplicate parameter '%s' of macro "
							       "'@%s'"), p->text, m->name);
					return;
				}
			vec_push(&m->params, (void *)pn);
			Token *sep = raw_here(pp);
			if (is_op(sep, ")"))
				break;
			if (!is_op(sep, ",")) {
				pp_error(pp, sep ? sep->loc : p->loc, _("expected ',' or ')' in "
									"the parameters of macro "
									"'@%s', found %s"),
					 m->name, sep ? tok_desc(sep) : _("end of file"));
				return;
			}
		}
		t = raw_here(pp);
	}
	if (!is_op(t, "%(")) {
		pp_error(pp, t ? t->loc : name->loc, _("expected '%%(' to start the body "
						       "of macro '@%s', found %s"),
			 m->name, t ? tok_desc(t) : _("end of file"));
		if (t)
			pp->in->pos--;
		return;
	}
	Vec *body = read_body(pp, t, xsprintf(_("macro '@%s'"), m->name));
	if (!body || reject)
		return;
	m->body = *body;
	const char *at = intern(xsprintf("@%s", m->name));
	MacroTable *table = pp->local ? pp->local : &library_macros;
	Macro *old = find_in(table, m->name);
	if (old && pp->local) {
		pp_error(pp, name->loc, _("macro '@%s' is already defined at %d:%d"),
			 m->name, old->loc.line, old->loc.col);
		return;
	}
	if (old)
		return;   /* the library keeps its first definition */
	if (is_builtin_at_op(at))
		warning_at(name->loc, _("macro '@%s' hides the built-in operator '@%s'"),
			   m->name, m->name);
	table_add(table, m);
}

/* Expand everything of toks on its own (macro arguments are expanded
 * before they are substituted). */
static Vec *expand_list(PP *pp, Vec *toks)
{
	Vec *out = NEW(Vec);
	push_input(pp, toks, NULL, NOLOC, true);
	Input *mine = pp->in;
	for (;;) {
		Token *t = pp_next(pp);
		if (t->kind == TK_EOF && pp->in == mine)
			break;
		if (t->kind == TK_EOF)
			continue;
		vec_push(out, t);
		pp->expanded++;
	}
	pop_input(pp);
	return out;
}

/* "(" arg ("," arg)* ")" after a macro name; args split at commas outside
 * brackets. */
static bool read_call_args(PP *pp, Token *call, Macro *m, Vec *args)
{
	Token *open = raw(pp);
	if (!is_op(open, "(")) {
		pp_error(pp, call->loc, _("macro '@%s' takes %d argument%s: write '@%s(...)'"),
			 m->name, m->params.len, m->params.len == 1 ? "" : "s", m->name);
		if (open->kind != TK_EOF)
			pp->in->pos--;
		return false;
	}
	Vec *cur = NEW(Vec);
	int depth = 0;
	for (;;) {
		Token *t = raw(pp);
		if (t->kind == TK_EOF) {
			pp_error(pp, open->loc, _("expected ')' to close '(' of the call of "
						  "macro '@%s', found end of file"), m->name);
			return false;
		}
		pp->expanded++;
		if (is_op(t, "(") || is_op(t, "[") || is_op(t, "{"))
			depth++;
		else if ((is_op(t, ")") || is_op(t, "]") || is_op(t, "}")) && depth > 0)
			depth--;
		else if (is_op(t, ")")) {
			if (cur->len || args->len)
				vec_push(args, cur);
			break;
		} else if (is_op(t, ",") && depth == 0) {
			vec_push(args, cur);
			cur = NEW(Vec);
			continue;
		}
		vec_push(cur, t);
	}
	if (args->len != m->params.len) {
		pp_error(pp, call->loc, _("macro '@%s' takes %d argument%s, but %d %s given"),
			 m->name, m->params.len, m->params.len == 1 ? "" : "s", args->len,
			 args->len == 1 ? _("was") : _("were"));
		return false;
	}
	return true;
}

static bool on_stack(PP *pp, Macro *m)
{
	for (Input *in = pp->in; in; in = in->up)
		if (in->macro == m)
			return true;
	return false;
}

static bool expand_macro(PP *pp, Token *call, Macro *m)
{
	if (pp->stopped)
		return false;
	if (pp->expanded > MAX_MACRO_TOKENS) {
		pp_error(pp, call->loc, _("macro expansion gives more than %ld tokens (at "
					  "'@%s')"), MAX_MACRO_TOKENS, m->name);
		pp->stopped = true;
		return false;
	}
	if (on_stack(pp, m)) {
		pp_error(pp, call->loc, _("macro '@%s' is recursive: it is used inside "
					  "its own expansion"), m->name);
		return false;
	}
	if (pp->macro_depth >= MAX_MACRO_DEPTH) {
		pp_error(pp, call->loc, _("too deeply nested: macro expansions may nest at "
					  "most %d levels (at '@%s')"), MAX_MACRO_DEPTH,
			 m->name);
		pp->stopped = true;
		return false;
	}
	Vec args = { 0 };
	if (m->params.len) {
		Vec raw_args = { 0 };
		if (!read_call_args(pp, call, m, &raw_args))
			return false;
		pp->macro_depth++;
		for (int i = 0; i < raw_args.len; i++)
			vec_push(&args, expand_list(pp, vec_get(&raw_args, i)));
		pp->macro_depth--;
	}
	Vec *body = NEW(Vec);
	for (int i = 0; i < m->body.len; i++) {
		Token *t = vec_get(&m->body, i);
		int k = -1;
		if (t->kind == TK_IDENT && t->text[0] == '@')
			for (int j = 0; j < m->params.len; j++)
				if (vec_get(&m->params, j) == t->text)
					k = j;
		if (k < 0) {
			vec_push(body, t);
			continue;
		}
		Vec *a = vec_get(&args, k);
		for (int j = 0; j < a->len; j++)
			vec_push(body, vec_get(a, j));
	}
	pp->expanded += body->len;
	if (body->len) {
		/* the first token sits where the call was, for wildcard
		 * adjacency in probe points */
		Token *first = NEW(Token);
		*first = *(Token *)vec_get(body, 0);
		first->space_before = call->space_before;
		body->data[0] = first;
	}
	push_input(pp, body, m, call->loc, false);
	pp->macro_depth++;
	return true;
}

/* ---- conditions ---- */

typedef enum { CV_ERR = -1, CV_FALSE = 0, CV_TRUE = 1 } CondValue;

/* The next token of a condition, with arguments and macros expanded. */
static Token *cond_token(PP *pp)
{
	for (;;) {
		Token *t = raw(pp);
		if (t->kind == TK_ARG) {
			if (expand_arg(pp, t))
				continue;
			return bad_token(t);
		}
		if (t->kind == TK_IDENT && t->text[0] == '@') {
			Macro *m = find_macro(pp, t->text);
			if (m) {
				if (expand_macro(pp, t, m))
					continue;
				return bad_token(t);
			}
		}
		return t;
	}
}

static const char *const cmp_ops[] = { "==", "!=", "<", "<=", ">", ">=", NULL };

static bool cmp_result(const char *op, int c)
{
	if (!strcmp(op, "=="))
		return c == 0;
	if (!strcmp(op, "!="))
		return c != 0;
	if (!strcmp(op, "<"))
		return c < 0;
	if (!strcmp(op, "<="))
		return c <= 0;
	if (!strcmp(op, ">"))
		return c > 0;
	return c >= 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* "==" and "!=" match a pattern with wildcards; the others order. */
static bool string_cond(const char *op, const char *lhs, const char *rhs, bool versions)
{
	bool eq_op = !strcmp(op, "==") || !strcmp(op, "!=");
	if (eq_op && has_glob(rhs)) {
		bool m = fnmatch(rhs, lhs, 0) == 0;
		return op[0] == '=' ? m : !m;
	}
	int c = versions ? version_cmp(lhs, rhs) : strcmp(lhs, rhs);
	return cmp_result(op, c);
}

static const char *kernel_v(void)
{
	const char *r = target_release();
	const char *dash = strchr(r, '-');
	return dash ? xstrndup(r, dash - r) : r;
}

static bool numeric(const char *s, long long *v)
{
	char *end;
	if (!s || !*s)
		return false;
	*v = strtoll(s, &end, 0);
	return *end == 0;
}

/* CONFIG_A OP CONFIG_B: as numbers when both are, else as strings. */
static bool config_vs_config(const char *op, const char *a, const char *b)
{
	const char *va = target_config(a), *vb = target_config(b);
	long long x, y;
	if (numeric(va, &x) && numeric(vb, &y))
		return cmp_result(op, x < y ? -1 : x > y);
	return cmp_result(op, strcmp(va ? va : "", vb ? vb : ""));
}

/* A literal operand: NUMBER, "-" NUMBER or STRING; NULL after an error. */
static Token *cond_literal(PP *pp, Token *t)
{
	if (is_op(t, "-")) {
		Token *n = cond_token(pp);
		if (n->kind != TK_NUMBER) {
			pp_error(pp, n->loc, _("expected a number after '-' in the condition, "
					       "found %s"), tok_desc(n));
			return NULL;
		}
		return synth(TK_NUMBER, n->text, (int64_t)(0 - (uint64_t)n->num), n);
	}
	return t;
}

/* term = operand OP literal */
static CondValue cond_term(PP *pp)
{
	Token *lhs = cond_literal(pp, cond_token(pp));
	if (!lhs)
		return CV_ERR;
	if (lhs->kind != TK_IDENT && lhs->kind != TK_NUMBER && lhs->kind != TK_STRING) {
		pp_error(pp, lhs->loc, _("expected a condition (kernel_v, arch, CONFIG_..., "
					 "a literal ...), found %s"), tok_desc(lhs));
		pp->in->pos -= lhs->kind != TK_EOF && pp->in->pos > 0;
		return CV_ERR;
	}
	Token *op = cond_token(pp);
	bool known_op = false;
	for (int i = 0; cmp_ops[i]; i++)
		known_op |= is_op(op, cmp_ops[i]);
	if (!known_op) {
		pp_error(pp, op->loc, _("expected a comparison (== != < <= > >=) in the "
					"%%( condition, found %s"), tok_desc(op));
		pp->in->pos -= op->kind != TK_EOF && pp->in->pos > 0;
		return CV_ERR;
	}
	Token *rhs = cond_literal(pp, cond_token(pp));
	if (!rhs)
		return CV_ERR;
	if (lhs->kind == TK_IDENT && !strncmp(lhs->text, "CONFIG_", 7) &&
	    rhs->kind == TK_IDENT && !strncmp(rhs->text, "CONFIG_", 7))
		return config_vs_config(op->text, lhs->text, rhs->text);
	if (rhs->kind != TK_NUMBER && rhs->kind != TK_STRING) {
		pp_error(pp, rhs->loc, _("expected a string or number literal after '%s', "
					 "found %s"), op->text, tok_desc(rhs));
		pp->in->pos -= rhs->kind != TK_EOF && pp->in->pos > 0;
		return CV_ERR;
	}
	bool eq_only = !strcmp(op->text, "==") || !strcmp(op->text, "!=");
	const char *want = NULL;        /* what rhs must be: "string"/"number" */
	if (lhs->kind == TK_IDENT) {
		const char *w = lhs->text;
		if (!strcmp(w, "kernel_v") || !strcmp(w, "kernel_vr") ||
		    !strcmp(w, "systemtap_v")) {
			if (rhs->kind != TK_STRING) {
				want = "string";
			} else {
				const char *v = !strcmp(w, "kernel_v") ? kernel_v()
					      : !strcmp(w, "kernel_vr") ? target_release()
					      : compat_version();
				return string_cond(op->text, v, rhs->text, true);
			}
		} else if (!strcmp(w, "arch") || !strcmp(w, "runtime") ||
			   !strcmp(w, "systemtap_privilege")) {
			if (!eq_only) {
				pp_error(pp, op->loc, _("'%s' can only be compared with == or !="),
					 w);
				return CV_ERR;
			}
			if (rhs->kind != TK_STRING) {
				want = "string";
			} else {
				const char *v = !strcmp(w, "arch") ? target_arch()
					      : !strcmp(w, "runtime") ? "kernel"
					      : sess.privilege ? sess.privilege : "stapdev";
				return string_cond(op->text, v, rhs->text, false);
			}
		} else if (!strcmp(w, "guru_mode")) {
			if (!eq_only) {
				pp_error(pp, op->loc, _("'guru_mode' can only be compared with == "
							"or !="));
				return CV_ERR;
			}
			if (rhs->kind != TK_NUMBER || (rhs->num != 0 && rhs->num != 1)) {
				pp_error(pp, rhs->loc, _("'guru_mode' is compared with 0 or 1, "
							 "found %s"), tok_desc(rhs));
				return CV_ERR;
			}
			return cmp_result(op->text, (sess.guru ? 1 : 0) - (int)rhs->num);
		} else if (!strncmp(w, "CONFIG_", 7)) {
			const char *v = target_config(w);
			if (rhs->kind == TK_STRING)
				return string_cond(op->text, v ? v : "", rhs->text, false);
			long long x = v ? strtoll(v, NULL, 0) : 0;
			return cmp_result(op->text, x < rhs->num ? -1 : x > rhs->num);
		} else {
			pp_error(pp, lhs->loc, _("unknown condition '%s': expected kernel_v, "
						 "kernel_vr, systemtap_v, arch, runtime, "
						 "systemtap_privilege, guru_mode, CONFIG_... or "
						 "a literal"), w);
			return CV_ERR;
		}
	} else if (lhs->kind == TK_NUMBER) {
		if (rhs->kind != TK_NUMBER)
			want = "number";
		else
			return cmp_result(op->text, lhs->num < rhs->num ? -1
						   : lhs->num > rhs->num);
	} else if (lhs->kind == TK_STRING) {
		if (rhs->kind != TK_STRING)
			want = "string";
		else
			return string_cond(op->text, lhs->text, rhs->text, false);
	} else {
		pp_error(pp, lhs->loc, _("expected a condition (kernel_v, arch, "
					 "CONFIG_..., a literal ...) after '%%(', found %s"),
			 tok_desc(lhs));
		return CV_ERR;
	}
	if (lhs->kind == TK_IDENT)
		pp_error(pp, rhs->loc, _("'%s' is compared with a %s, found %s"),
			 lhs->text, want, tok_desc(rhs));
	else
		pp_error(pp, rhs->loc, _("the left side is a %s, so the right side must "
					 "be one too; found %s"), want, tok_desc(rhs));
	return CV_ERR;
}

/* cond = and-cond ("||" and-cond)* "%?" ;  and-cond = term ("&&" term)*
 * Every term is read (and checked) even when the result is known. */
static CondValue cond_expr(PP *pp, Token *open)
{
	bool any = false, all = true;
	for (;;) {
		CondValue v = cond_term(pp);
		if (v == CV_ERR)
			return CV_ERR;
		all = all && v;
		Token *t = cond_token(pp);
		if (is_op(t, "&&"))
			continue;
		any = any || all;
		all = true;
		if (is_op(t, "||"))
			continue;
		if (is_op(t, "%?"))
			return any ? CV_TRUE : CV_FALSE;
		pp_error(pp, t->loc, _("expected '&&', '||' or '%%?' in the condition of "
				       "'%%(' at %d:%d, found %s"), open->loc.line,
			 open->loc.col, tok_desc(t));
		if (t->kind != TK_EOF)
			pp->in->pos--;
		return CV_ERR;
	}
}

/* Conditionals nest at most MAX_NEST_DEPTH deep, like expressions and
 * statements; those in a branch not taken count too.  True (after saying
 * so once) when the '%(' `open` at nesting `depth` (the outermost is 1)
 * is too deep. */
static bool cond_too_deep(PP *pp, Token *open, int depth)
{
	if (depth <= MAX_NEST_DEPTH)
		return false;
	if (!pp->conds_too_deep)
		pp_error(pp, open->loc, _("too deeply nested: %%( %%) conditionals may "
					  "nest at most %d levels"), MAX_NEST_DEPTH);
	pp->conds_too_deep = true;
	return true;
}

/* Skip the branch not taken.  Stops after the '%:' (returns true: the
 * else branch follows) or the closing '%)' (false). */
static bool skip_branch(PP *pp, Token *open, bool allow_else)
{
	int depth = 0;
	for (;;) {
		Token *t = raw_here(pp);
		if (!t) {
			pp_error(pp, open->loc, _("'%%(' is not closed with '%%)'%s"),
				 pp->in->macro ? _(" inside the macro body") : "");
			return false;
		}
		if (is_op(t, "%(")) {
			depth++;
			cond_too_deep(pp, t, pp->conds.len + 1 + depth);
		} else if (is_op(t, "%)")) {
			if (depth-- == 0)
				return false;
		} else if (depth == 0 && is_op(t, "%:")) {
			if (allow_else)
				return true;
			pp_error(pp, t->loc, _("a second '%%:' in the conditional '%%(' at "
					       "%d:%d"), open->loc.line, open->loc.col);
		} else if (depth == 0 && is_op(t, "%?")) {
			pp_error(pp, t->loc, _("a second '%%?' in the conditional '%%(' at "
					       "%d:%d"), open->loc.line, open->loc.col);
		}
	}
}

static void open_conditional(PP *pp, Token *open)
{
	Input *here = pp->in;
	CondValue v = cond_too_deep(pp, open, pp->conds.len + 1) ? CV_ERR
								  : cond_expr(pp, open);
	/* an argument or macro in the condition may have left inputs open */
	bool still_there = false;
	for (Input *in = pp->in; in && !still_there; in = in->up)
		still_there = in == here;
	while (still_there && pp->in != here)
		pop_input(pp);
	if (v == CV_ERR) {
		/* drop the rest of the condition quietly, then the whole
		 * conditional */
		int depth = 0;
		for (;;) {
			Token *t = raw_here(pp);
			if (!t)
				return;
			if (is_op(t, "%("))
				depth++;
			else if (is_op(t, "%)") && depth-- == 0)
				return;
			else if (is_op(t, "%?") && depth == 0)
				break;
		}
		if (skip_branch(pp, open, true))
			skip_branch(pp, open, false);
		return;
	}
	Cond *c = NEW(Cond);
	c->open = open;
	c->in = pp->in;
	if (v == CV_TRUE) {
		vec_push(&pp->conds, c);
		return;
	}
	if (skip_branch(pp, open, true)) {
		c->in_else = true;
		vec_push(&pp->conds, c);
	}
}

static Cond *current_cond(PP *pp)
{
	if (!pp->conds.len)
		return NULL;
	Cond *c = vec_last(&pp->conds);
	return c->in == pp->in ? c : NULL;
}

/* ---- the token stream ---- */

static Token *pp_next(PP *pp)
{
	for (;;) {
		Token *t = raw(pp);
		if (t->kind == TK_EOF) {
			close_input_conds(pp, pp->in);
			return t;
		}
		if (t->kind == TK_OP && t->text[0] == '%' && t->text[1]) {
			Cond *c = current_cond(pp);
			switch (t->text[1]) {
			case '(':
				open_conditional(pp, t);
				continue;
			case ':':
				if (c && !c->in_else) {
					skip_branch(pp, c->open, false);
					vec_pop(&pp->conds);
				} else if (c) {
					pp_error(pp, t->loc, _("a second '%%:' in the "
							       "conditional '%%(' at %d:%d"),
						 c->open->loc.line, c->open->loc.col);
				} else {
					pp_error(pp, t->loc, _("'%%:' without an open '%%('"));
				}
				continue;
			case ')':
				if (c)
					vec_pop(&pp->conds);
				else
					pp_error(pp, t->loc, _("'%%)' without an open '%%('"));
				continue;
			case '?':
				if (c)
					pp_error(pp, t->loc, _("a second '%%?' in the "
							       "conditional '%%(' at %d:%d"),
						 c->open->loc.line, c->open->loc.col);
				else
					pp_error(pp, t->loc, _("'%%?' without an open '%%('"));
				continue;
			}
		}
		if (t->kind == TK_ARG) {
			if (expand_arg(pp, t))
				continue;
			return bad_token(t);
		}
		if (t->kind == TK_IDENT && t->text[0] == '@') {
			if (!strcmp(t->text, "@define")) {
				define_macro(pp, t);
				continue;
			}
			Macro *m = find_macro(pp, t->text);
			if (m) {
				if (expand_macro(pp, t, m))
					continue;
				return bad_token(t);
			}
			if (!is_builtin_at_op(t->text)) {
				pp_error(pp, t->loc, _("unknown macro or operator '%s'"), t->text);
				return bad_token(t);
			}
		}
		return t;
	}
}

static PP *pp_new(Vec *raw_toks, SrcFile *src, MacroTable *local)
{
	PP *pp = NEW(PP);
	pp->src = src;
	pp->local = local;
	pp->eof = vec_last(raw_toks);
	push_input(pp, raw_toks, NULL, NOLOC, false);
	return pp;
}

Vec *preprocess(Vec *raw_toks, SrcFile *src)
{
	PP *pp = pp_new(raw_toks, src, NEW(MacroTable));
	Vec *out = NEW(Vec);
	for (;;) {
		Token *t = pp_next(pp);
		vec_push(out, t);
		if (t->kind == TK_EOF && !pp->in->up)
			break;
	}
	if (pp->stopped) {
		/* Half-expanded text would only give the parser errors of
		 * its own: parse nothing. */
		out->len = 0;
		vec_push(out, pp->eof);
	}
	return out;
}

/* ---- the macro library ---- */

static void load_library_file(const char *path)
{
	SrcFile *src = srcfile_read(path, path);
	if (!src) {
		warning_plain(_("cannot read macro library '%s': %s"), path, strerror(errno));
		return;
	}
	src->is_library = true;
	src->is_tapset = true;
	PP *pp = pp_new(lex_file(src), src, NULL);
	bool complained = false;
	for (;;) {
		Token *t = pp_next(pp);
		if (t->kind == TK_EOF && !pp->in->up)
			break;
		if (t->kind != TK_EOF && !complained) {
			pp_error(pp, t->loc, _("a macro library (.stpm) holds only @define "
					       "and %%( %%) conditionals, found %s"),
				 tok_desc(t));
			complained = true;
		}
	}
}

/* Parse every *.stpm file of the tapset path (once). */
static void load_library_macros(void)
{
	if (library_loaded || library_loading)
		return;
	library_loading = true;
	const Vec *dirs = tapset_dirs();
	for (int i = 0; i < dirs->len; i++) {
		const char *dir = vec_get(dirs, i);
		DIR *d = opendir(dir);
		if (!d)
			continue;
		Vec names = { 0 };
		struct dirent *e;
		while ((e = readdir(d))) {
			size_t n = strlen(e->d_name);
			if (n > 5 && !strcmp(e->d_name + n - 5, ".stpm"))
				vec_push(&names, xstrdup(e->d_name));
		}
		closedir(d);
		if (names.len)
			vec_sort(&names, cmp_cstr_ptr);
		for (int j = 0; j < names.len; j++)
			load_library_file(xsprintf("%s/%s", dir, (char *)vec_get(&names, j)));
	}
	library_loading = false;
	library_loaded = true;
}
