/*
 * regex.c - the ERE compiler (at init) and the Pike VM matcher.
 */
#include "tap.h"

enum {
	RE_CHAR, RE_ANY, RE_CLASS, RE_BOL, RE_EOL, RE_SAVE, RE_SPLIT, RE_JMP, RE_MATCH,
};

/* ---- parsing to a small tree (module init only) ---- */

enum { N_EMPTY, N_CHAR, N_ANY, N_CLASS, N_BOL, N_EOL, N_CAT, N_ALT, N_REPEAT, N_GROUP };

#define RE_MAXNODES 256
#define RE_MAXDEPTH 32		/* nested groups and repetitions */
#define RE_MAXREPEAT 255

struct re_node {
	u8 type, arg;
	s16 min, max;		/* repeat; max -1 = unbounded */
	s16 child, next;	/* first child, next sibling (-1 = none) */
};

struct re_parser {
	const char *p;
	struct tap_regex *re;
	struct re_node nodes[RE_MAXNODES];
	int nnodes, depth, err;
};

static int re_node(struct re_parser *ps, int type, int arg)
{
	struct re_node *n;

	if (ps->nnodes >= RE_MAXNODES) {
		ps->err = -E2BIG;
		return -1;
	}
	n = &ps->nodes[ps->nnodes];
	n->type = type;
	n->arg = arg;
	n->min = n->max = 0;
	n->child = n->next = -1;
	return ps->nnodes++;
}

static void re_class_set(u8 *bits, unsigned int ch)
{
	bits[ch >> 3] |= 1 << (ch & 7);
}

/* ASCII only: the kernel's ctype also classifies Latin-1, libc may not. */
static bool re_named_class(const char *name, size_t len, unsigned int uch)
{
	int ch = (int)uch;
	static const char *const names[] = {
		"alpha", "digit", "alnum", "space", "upper", "lower", "punct",
		"xdigit", "print", "graph", "cntrl", "blank",
	};
	unsigned int i;

	if (uch >= 128)
		return false;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			break;
	switch (i) {
	case 0: return isalpha(ch);
	case 1: return isdigit(ch);
	case 2: return isalnum(ch);
	case 3: return isspace(ch);
	case 4: return isupper(ch);
	case 5: return islower(ch);
	case 6: return ispunct(ch);
	case 7: return isxdigit(ch);
	case 8: return isprint(ch);
	case 9: return isgraph(ch);
	case 10: return iscntrl(ch);
	case 11: return ch == ' ' || ch == '\t';
	}
	return false;
}

static unsigned int re_escape(char ch)
{
	switch (ch) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'f': return '\f';
	case 'v': return '\v';
	case 'a': return '\a';
	}
	return (unsigned char)ch;
}

/* bracket = "[" "^"? "]"? (char | char "-" char | "[:" name ":]")* "]" */
static int re_parse_class(struct re_parser *ps)
{
	struct tap_regex *re = ps->re;
	const char *p = ps->p;
	bool negate = false, first = true;
	unsigned int lo, hi, ch;
	u8 *bits;
	int i;

	if (re->nclass >= TAP_RE_MAXCLASS) {
		ps->err = -E2BIG;
		return -1;
	}
	bits = re->classes[re->nclass];
	memset(bits, 0, 32);
	if (*p == '^') {
		negate = true;
		p++;
	}
	while (*p && (*p != ']' || first)) {
		first = false;
		if (p[0] == '[' && p[1] == ':') {
			const char *end = strstr(p + 2, ":]");

			if (!end)
				goto bad;
			for (ch = 1; ch < 256; ch++)
				if (re_named_class(p + 2, end - p - 2, ch))
					re_class_set(bits, ch);
			p = end + 2;
			continue;
		}
		lo = (unsigned char)*p++;
		if (lo == '\\' && *p)
			lo = re_escape(*p++);
		hi = lo;
		if (p[0] == '-' && p[1] && p[1] != ']') {
			hi = (unsigned char)p[1];
			p += 2;
			if (hi == '\\' && *p)
				hi = re_escape(*p++);
			if (hi < lo)
				goto bad;
		}
		for (ch = lo; ch <= hi; ch++)
			re_class_set(bits, ch);
	}
	if (*p != ']')
		goto bad;
	ps->p = p + 1;
	if (negate) {
		for (i = 0; i < 32; i++)
			bits[i] = ~bits[i];
		bits[0] &= ~1;		/* never NUL */
	}
	return re_node(ps, N_CLASS, re->nclass++);
bad:
	ps->err = -EINVAL;
	return -1;
}

static int re_parse_alt(struct re_parser *ps);

/* atom = "(" alt ")" | bracket | "." | "^" | "$" | "\" char | char */
static int re_parse_atom(struct re_parser *ps)
{
	char ch = *ps->p++;
	int n, inner;

	switch (ch) {
	case '(':
		if (ps->re->nsub >= TAP_RE_NSUB - 1 || ++ps->depth > RE_MAXDEPTH) {
			ps->err = -E2BIG;
			return -1;
		}
		n = re_node(ps, N_GROUP, ++ps->re->nsub);
		inner = re_parse_alt(ps);
		ps->depth--;
		if (n < 0 || inner < 0 || *ps->p != ')') {
			if (!ps->err)
				ps->err = -EINVAL;
			return -1;
		}
		ps->p++;
		ps->nodes[n].child = inner;
		return n;
	case '[':
		return re_parse_class(ps);
	case '.':
		return re_node(ps, N_ANY, 0);
	case '^':
		return re_node(ps, N_BOL, 0);
	case '$':
		return re_node(ps, N_EOL, 0);
	case '\\':
		if (!*ps->p)
			break;
		return re_node(ps, N_CHAR, re_escape(*ps->p++));
	case '*': case '+': case '?': case '{': case ')': case '\0':
		break;
	default:
		return re_node(ps, N_CHAR, (unsigned char)ch);
	}
	ps->err = -EINVAL;
	return -1;
}

static int re_parse_count(struct re_parser *ps)
{
	int v = 0;

	if (*ps->p < '0' || *ps->p > '9')
		return -1;
	while (*ps->p >= '0' && *ps->p <= '9') {
		v = v * 10 + (*ps->p++ - '0');
		if (v > RE_MAXREPEAT)
			return -1;
	}
	return v;
}

/* repeat = atom ("*" | "+" | "?" | "{" m ("," n?)? "}")* */
static int re_parse_repeat(struct re_parser *ps)
{
	int atom = re_parse_atom(ps), n;
	int min, max;

	while (atom >= 0 && *ps->p && strchr("*+?{", *ps->p)) {
		char op = *ps->p++;

		if (op == '*') {
			min = 0, max = -1;
		} else if (op == '+') {
			min = 1, max = -1;
		} else if (op == '?') {
			min = 0, max = 1;
		} else {
			min = max = re_parse_count(ps);
			if (*ps->p == ',') {
				ps->p++;
				max = *ps->p == '}' ? -1 : re_parse_count(ps);
				if (max == -1 && ps->p[-1] != ',')
					min = -1;
			}
			if (min < 0 || *ps->p != '}' || (max >= 0 && max < min)) {
				ps->err = -EINVAL;
				return -1;
			}
			ps->p++;
		}
		if (++ps->depth > RE_MAXDEPTH) {
			ps->err = -E2BIG;
			return -1;
		}
		n = re_node(ps, N_REPEAT, 0);
		if (n < 0)
			return -1;
		ps->nodes[n].min = min;
		ps->nodes[n].max = max;
		ps->nodes[n].child = atom;
		atom = n;
	}
	return atom;
}

/* cat = repeat*  (a list of siblings under one N_CAT node) */
static int re_parse_cat(struct re_parser *ps)
{
	int cat = re_node(ps, N_CAT, 0), last = -1, n;

	while (cat >= 0 && *ps->p && *ps->p != '|' && *ps->p != ')') {
		n = re_parse_repeat(ps);
		if (n < 0)
			return -1;
		if (last < 0)
			ps->nodes[cat].child = n;
		else
			ps->nodes[last].next = n;
		last = n;
	}
	return cat;
}

/* alt = cat ("|" cat)* */
static int re_parse_alt(struct re_parser *ps)
{
	int alt = re_node(ps, N_ALT, 0), last = -1, n;

	while (alt >= 0) {
		n = re_parse_cat(ps);
		if (n < 0)
			return -1;
		if (last < 0)
			ps->nodes[alt].child = n;
		else
			ps->nodes[last].next = n;
		last = n;
		if (*ps->p != '|')
			break;
		ps->p++;
	}
	return alt;
}

/* ---- code generation ---- */

static int re_emit(struct re_parser *ps, int op, int arg, int x, int y)
{
	struct tap_regex *re = ps->re;

	if (re->ninst >= TAP_RE_MAXINST) {
		ps->err = -E2BIG;
		return -1;
	}
	re->inst[re->ninst] = (struct tap_re_inst){ op, arg, x, y };
	return re->ninst++;
}

static void re_gen(struct re_parser *ps, int n);

/*
 * Jumps still to be patched are chained through their own target field
 * (0xffff ends the chain), so no per-level array sits on the stack.
 */
#define RE_NOFIX 0xffff

static void re_patch_chain(struct tap_regex *re, int head, bool use_y, int target)
{
	while (head != RE_NOFIX) {
		struct tap_re_inst *in = &re->inst[head];
		int next = use_y ? in->y : in->x;

		if (use_y)
			in->y = target;
		else
			in->x = target;
		head = next;
	}
}

static void re_gen_alt(struct re_parser *ps, const struct re_node *nd)
{
	struct tap_regex *re = ps->re;
	int chain = RE_NOFIX, split, jmp, c;

	for (c = nd->child; c >= 0 && !ps->err; c = ps->nodes[c].next) {
		if (ps->nodes[c].next >= 0) {
			split = re_emit(ps, RE_SPLIT, 0, 0, 0);
			if (split < 0)
				return;
			re->inst[split].x = re->ninst;
			re_gen(ps, c);
			jmp = re_emit(ps, RE_JMP, 0, chain, 0);
			if (jmp < 0)
				return;
			chain = jmp;
			re->inst[split].y = re->ninst;
		} else {
			re_gen(ps, c);
		}
	}
	if (!ps->err)
		re_patch_chain(re, chain, false, re->ninst);
}

static void re_gen_repeat(struct re_parser *ps, const struct re_node *nd)
{
	struct tap_regex *re = ps->re;
	int i, split, loop, chain = RE_NOFIX;

	for (i = 0; i < nd->min && !ps->err; i++)
		re_gen(ps, nd->child);
	if (nd->max < 0) {
		/* L: split body, out; body; jmp L */
		loop = re_emit(ps, RE_SPLIT, 0, 0, 0);
		if (loop < 0)
			return;
		re->inst[loop].x = re->ninst;
		re_gen(ps, nd->child);
		re_emit(ps, RE_JMP, 0, loop, 0);
		if (!ps->err)
			re->inst[loop].y = re->ninst;
		return;
	}
	/* x{m,n}: n - m optional copies, each skipping to the end */
	for (i = nd->min; i < nd->max && !ps->err; i++) {
		split = re_emit(ps, RE_SPLIT, 0, 0, chain);
		if (split < 0)
			return;
		re->inst[split].x = re->ninst;
		chain = split;
		re_gen(ps, nd->child);
	}
	if (!ps->err)
		re_patch_chain(re, chain, true, re->ninst);
}

/* Recursion only through groups and repeats, at most RE_MAXDEPTH deep. */
static void re_gen(struct re_parser *ps, int n)
{
	const struct re_node *nd = &ps->nodes[n];
	int c;

	if (ps->err)
		return;
	switch (nd->type) {
	case N_CHAR:
		re_emit(ps, RE_CHAR, nd->arg, 0, 0);
		break;
	case N_ANY:
		re_emit(ps, RE_ANY, 0, 0, 0);
		break;
	case N_CLASS:
		re_emit(ps, RE_CLASS, nd->arg, 0, 0);
		break;
	case N_BOL:
		re_emit(ps, RE_BOL, 0, 0, 0);
		break;
	case N_EOL:
		re_emit(ps, RE_EOL, 0, 0, 0);
		break;
	case N_CAT:
		for (c = nd->child; c >= 0 && !ps->err; c = ps->nodes[c].next)
			re_gen(ps, c);
		break;
	case N_ALT:
		re_gen_alt(ps, nd);
		break;
	case N_GROUP:
		re_emit(ps, RE_SAVE, 2 * nd->arg, 0, 0);
		re_gen(ps, nd->child);
		re_emit(ps, RE_SAVE, 2 * nd->arg + 1, 0, 0);
		break;
	case N_REPEAT:
		re_gen_repeat(ps, nd);
		break;
	}
}

/* Returns 0, -EINVAL for a malformed pattern, -E2BIG when it is too big. */
int tap_regex_compile(struct tap_regex *re, const char *pattern)
{
	struct re_parser *ps = tap_alloc(sizeof(*ps));
	int root, err;

	if (!ps)
		return -ENOMEM;
	memset(re, 0, sizeof(*re));
	ps->p = pattern;
	ps->re = re;
	root = re_parse_alt(ps);
	if (!ps->err && (root < 0 || *ps->p))
		ps->err = -EINVAL;	/* e.g. an unmatched ')' */
	if (!ps->err) {
		re_emit(ps, RE_SAVE, 0, 0, 0);
		re_gen(ps, root);
		re_emit(ps, RE_SAVE, 1, 0, 0);
		re_emit(ps, RE_MATCH, 0, 0, 0);
	}
	err = ps->err;
	tap_free(ps);
	return err;
}

/* ---- the Pike VM ---- */

/*
 * Add the thread at pc (and everything reachable without consuming a
 * character) to list l.  An explicit stack replaces recursion; a pc is
 * expanded once per step, so the stack never holds more than 3 entries
 * per instruction.
 */
static void re_addthread(struct tap_regex_scratch *w, const struct tap_regex *re,
			 struct tap_re_thread *l, int *n, int pc0, s32 *cap, int pos, int len,
			 u32 step)
{
	int sp = 0;

	w->stack[sp++] = (struct tap_re_frame){ .pc = pc0, .restore = -1 };
	while (sp > 0) {
		struct tap_re_frame f = w->stack[--sp];
		const struct tap_re_inst *in;

		if (f.restore >= 0) {
			cap[f.restore] = f.old;
			continue;
		}
		if (w->mark[f.pc] == step)
			continue;
		w->mark[f.pc] = step;
		in = &re->inst[f.pc];
		switch (in->op) {
		case RE_JMP:
			w->stack[sp++] = (struct tap_re_frame){ .pc = in->x, .restore = -1 };
			break;
		case RE_SPLIT:
			w->stack[sp++] = (struct tap_re_frame){ .pc = in->y, .restore = -1 };
			w->stack[sp++] = (struct tap_re_frame){ .pc = in->x, .restore = -1 };
			break;
		case RE_SAVE:
			w->stack[sp++] = (struct tap_re_frame){ .restore = in->arg, .old = cap[in->arg] };
			cap[in->arg] = pos;
			w->stack[sp++] = (struct tap_re_frame){ .pc = f.pc + 1, .restore = -1 };
			break;
		case RE_BOL:
			if (pos == 0)
				w->stack[sp++] = (struct tap_re_frame){ .pc = f.pc + 1, .restore = -1 };
			break;
		case RE_EOL:
			if (pos == len)
				w->stack[sp++] = (struct tap_re_frame){ .pc = f.pc + 1, .restore = -1 };
			break;
		default:
			l[*n].pc = f.pc;
			memcpy(l[*n].cap, cap, sizeof(l[*n].cap));
			(*n)++;
			break;
		}
	}
}

static bool re_step_char(const struct tap_regex *re, const struct tap_re_inst *in,
			 unsigned char ch)
{
	switch (in->op) {
	case RE_CHAR:
		return ch == in->arg;
	case RE_ANY:
		return ch != 0;
	case RE_CLASS:
		return re->classes[in->arg][ch >> 3] & (1 << (ch & 7));
	}
	return false;
}

/* 1 when s matches (captures recorded in c for matched()), else 0. */
int tap_regex_match(struct tap_context *c, const struct tap_regex *re, const char *s)
{
	struct tap_regex_scratch *w = c->re_scratch;
	int len = (int)strnlen(s, MAXSTRINGLEN - 1), pos, i, cur = 0, ncur = 0, nnext;
	bool matched = false;
	u32 step = 0;

	memset(w->mark, 0xff, sizeof(w->mark));
	for (pos = 0; pos <= len; pos++) {
		/* a new thread starts here unless a match already began earlier */
		if (!matched) {
			for (i = 0; i < TAP_RE_NCAP; i++)
				w->cap[i] = -1;
			re_addthread(w, re, w->list[cur], &ncur, 0, w->cap, pos, len, step);
		}
		if (!ncur)
			break;
		nnext = 0;
		step++;
		for (i = 0; i < ncur; i++) {
			struct tap_re_thread *t = &w->list[cur][i];
			const struct tap_re_inst *in = &re->inst[t->pc];

			if (matched && t->cap[0] > c->re_cap[0])
				continue;	/* starts later than the match */
			if (in->op == RE_MATCH) {
				if (!matched || t->cap[0] < c->re_cap[0] ||
				    t->cap[1] > c->re_cap[1]) {
					memcpy(c->re_cap, t->cap, sizeof(c->re_cap));
					matched = true;
				}
				continue;
			}
			if (pos < len && re_step_char(re, in, (unsigned char)s[pos]))
				re_addthread(w, re, w->list[!cur], &nnext, t->pc + 1, t->cap,
					     pos + 1, len, step);
		}
		cur = !cur;
		ncur = nnext;
	}
	c->re_matched = matched;
	if (matched) {
		tap_strlcpy(c->re_subject, s, MAXSTRINGLEN);
		/* groups the expression does not have: matched() says so */
		for (i = 2 * (re->nsub + 1); i < 2 * TAP_RE_NSUB; i++)
			c->re_cap[i] = -2;
	}
	return matched;
}

/* matched(n): group n of the last successful match ("" if it took no part). */
int tap_regex_matched(struct tap_context *c, int64_t n, char *dst)
{
	int start, end;

	dst[0] = '\0';
	/* stap's texts */
	if (!c->re_matched) {
		tap_error(c, "Attempted to get subexpression %lld from failed match",
			  (long long)n);
		return -1;
	}
	if (n < 0 || n >= TAP_RE_NSUB || c->re_cap[2 * n] == -2) {
		tap_error(c, "Attempted to get nonexistent subexpression %lld", (long long)n);
		return -1;
	}
	start = c->re_cap[2 * n];
	end = c->re_cap[2 * n + 1];
	if (start >= 0 && end >= start)
		tap_substr(dst, c->re_subject, start, end - start);
	return 0;
}
