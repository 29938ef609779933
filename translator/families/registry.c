/* registry.c - the table of probe-point families, and matching points
 * against it.
 *
 * Design
 * ------
 * Each family (begin_end.c, timer.c, kprobe.c, ... in families/) is one
 * ProbeFamily value: a name, a few "shape" lines and a resolve function.
 * A shape line says which points the family accepts, in a tiny language:
 *
 *     timer.{s|sec|ms|msec}(n)[.randomize(n)]
 *     kernel.function(s)[.call|.return[.maxactive(n)]]
 *
 *   name(n)  the component takes a number;  name(s)  a string;
 *   name(s|n) either;  name(n?) / name(s?)  the argument may be left off;
 *   [a|b]    optionally one of the alternatives;  {a|b}  exactly one.
 *   Dots only separate components for the reader; alternatives may hold
 *   several components and nest.
 *
 * The first time a point is resolved (or the types are dumped), every line
 * is expanded into all its concrete shapes: plain sequences of
 * (name, argument kind).  A few hundred of them, so matching is a linear
 * scan, --dump-probe-types prints them as they are, and the error for a
 * malformed point comes from comparing it with the shapes that share the
 * longest prefix (which argument kind was wanted, which names could have
 * come next) rather than from code in each family.
 *
 * Component names in a point may hold wildcards (* ** {a,b}); they are
 * matched against the shapes here, so "ti**es(1)" finds timer.jiffies(1).
 * A family's resolve function then sees only points whose names are
 * concrete and whose arguments have the right kinds: it checks values
 * ("randomize must be smaller than the interval"), expands wildcards in
 * string arguments against its candidates (tracepoints, symbols, paths)
 * and says which $context variables the handler may use.
 *
 * Pass 3 hooks in the same way: a family's emit_decls/emit_code write
 * the glue of its probes, reading what its resolve function left in
 * ResolvedPoint.data (a tracepoint's prototype, a timer's interval), so
 * the generator never re-parses the point.  The table below is the only
 * list of families: adding one is its file (families/NAME.c and
 * runtime/families/NAME.c), a line here and Makefile.am.
 */
#include "family.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* family_NAME is defined in NAME.c (begin, end, error and never in
 * begin_end.c). */
extern const ProbeFamily family_begin, family_end, family_error,
	family_never, family_timer, family_kernel_function, family_hwbreak,
	family_kprobe, family_tracepoint, family_process, family_process_events,
	family_procfs, family_netfilter, family_perf, family_mark, family_java,
	family_python;

static const ProbeFamily *const families[] = {
	&family_begin, &family_end, &family_error, &family_never,
	&family_timer,
	&family_kernel_function, &family_hwbreak, &family_kprobe,
	&family_tracepoint, &family_mark,
	&family_process, &family_process_events,
	&family_procfs, &family_netfilter, &family_perf,
	&family_java, &family_python,
};

/* ---------------------------------------------------------------------
 * Wildcards
 */

/* Find the '}' closing the '{' at p (nesting counts), or NULL. */
static const char *brace_end(const char *p)
{
	int depth = 0;
	for (; *p; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0)
			return p;
	}
	return NULL;
}

static bool wmatch(const char *p, const char *s);

/* Try each alternative of the brace group at p, followed by the rest of
 * the pattern. */
static bool wmatch_braces(const char *p, const char *s)
{
	const char *end = brace_end(p);
	if (!end)		/* unbalanced: the '{' is a plain character */
		return *s == '{' && wmatch(p + 1, s + 1);
	const char *alt = p + 1;
	int depth = 0;
	for (const char *q = p + 1; q <= end; q++) {
		if (*q == '{') {
			depth++;
			continue;
		}
		if (*q == '}' && depth > 0) {
			depth--;
			continue;
		}
		if ((*q == ',' && depth == 0) || q == end) {
			char *pat = xsprintf("%.*s%s", (int)(q - alt), alt, end + 1);
			if (wmatch(pat, s))
				return true;
			alt = q + 1;
		}
	}
	return false;
}

/* '*' matches within one component, '**' across dots too. */
static bool wmatch(const char *p, const char *s)
{
	for (;;) {
		switch (*p) {
		case 0:
			return *s == 0;
		case '{':
			return wmatch_braces(p, s);
		case '*': {
			bool dstar = p[1] == '*';
			while (*p == '*')
				p++;
			for (const char *t = s;; t++) {
				if (wmatch(p, t))
					return true;
				if (!*t || (*t == '.' && !dstar))
					return false;
			}
		}
		default:
			if (*p != *s)
				return false;
			p++;
			s++;
		}
	}
}

bool wildcard_match(const char *pattern, const char *name)
{
	return wmatch(pattern, name);
}

bool has_wildcard(const char *s)
{
	return s && (strchr(s, '*') || strchr(s, '{'));
}

bool arg_glob_match(const char *pattern, const char *name)
{
	return fnmatch(pattern, name, 0) == 0;
}

bool arg_has_glob(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

/* ---------------------------------------------------------------------
 * Shapes: expanding the spec lines
 */

typedef enum ArgKind { ARG_NONE, ARG_NUM, ARG_STR } ArgKind;

#define MAX_SHAPE_COMPS 12

typedef struct ShapeComp {
	const char *name;       /* interned */
	ArgKind arg;
} ShapeComp;

typedef struct Shape {
	const ProbeFamily *family;
	bool translatable;      /* pass 3 can translate points of it */
	int n;
	ShapeComp comp[MAX_SHAPE_COMPS];
} Shape;

/* A partial expansion: a list of component sequences. */
typedef struct Seq {
	int n;
	ShapeComp comp[MAX_SHAPE_COMPS];
} Seq;

typedef struct SpecParser {
	const char *p;
	const char *line;       /* for internal errors */
} SpecParser;

static Vec seqs_alts(SpecParser *sp);

static void skip_dots(SpecParser *sp)
{
	while (*sp->p == '.' || *sp->p == ' ')
		sp->p++;
}

static Vec seq_single(const Seq *s)
{
	Vec v = { 0 };
	Seq *c = NEW(Seq);
	*c = *s;
	vec_push(&v, c);
	return v;
}

/* comp = NAME [ '(' ('n'|'s'|'s|n'|'n?'|'s?') ')' ] -> one or two seqs */
static Vec seqs_comp(SpecParser *sp)
{
	const char *start = sp->p;
	while (isalnum((unsigned char)*sp->p) || *sp->p == '_')
		sp->p++;
	if (sp->p == start)
		BUG("bad probe shape '%s' at '%s'", sp->line, start);
	Seq s = { .n = 1 };
	s.comp[0].name = intern_n(start, sp->p - start);
	Vec out = { 0 };
	if (*sp->p != '(') {
		s.comp[0].arg = ARG_NONE;
		return seq_single(&s);
	}
	const char *close = strchr(sp->p, ')');
	if (!close)
		BUG("bad probe shape '%s'", sp->line);
	const char *a = sp->p + 1;
	size_t len = close - a;
	sp->p = close + 1;
	bool opt = len > 0 && a[len - 1] == '?';
	if (opt)
		len--;
	if (opt) {
		s.comp[0].arg = ARG_NONE;
		vec_push(&out, seq_single(&s).data[0]);
	}
	if (memchr(a, 'n', len)) {
		s.comp[0].arg = ARG_NUM;
		vec_push(&out, seq_single(&s).data[0]);
	}
	if (memchr(a, 's', len)) {
		s.comp[0].arg = ARG_STR;
		vec_push(&out, seq_single(&s).data[0]);
	}
	return out;
}

/* The product of two lists of sequences. */
static Vec seqs_product(Vec a, Vec b, const char *line)
{
	Vec out = { 0 };
	for (int i = 0; i < a.len; i++) {
		for (int j = 0; j < b.len; j++) {
			Seq *x = a.data[i], *y = b.data[j];
			if (x->n + y->n > MAX_SHAPE_COMPS)
				BUG("probe shape '%s' is too long", line);
			Seq *c = NEW(Seq);
			*c = *x;
			memcpy(c->comp + c->n, y->comp, y->n * sizeof y->comp[0]);
			c->n += y->n;
			vec_push(&out, c);
		}
	}
	return out;
}

/* item = comp | '[' alts ']' | '{' alts '}' */
static Vec seqs_item(SpecParser *sp)
{
	char open = *sp->p;
	if (open != '[' && open != '{')
		return seqs_comp(sp);
	sp->p++;
	Vec alts = seqs_alts(sp);
	char want = open == '[' ? ']' : '}';
	if (*sp->p != want)
		BUG("bad probe shape '%s': expected '%c'", sp->line, want);
	sp->p++;
	if (open == '[') {
		Seq empty = { 0 };
		Vec out = seq_single(&empty);
		for (int i = 0; i < alts.len; i++)
			vec_push(&out, alts.data[i]);
		return out;
	}
	return alts;
}

/* seq = item { item } (dots skipped) */
static Vec seqs_seq(SpecParser *sp)
{
	Seq empty = { 0 };
	Vec acc = seq_single(&empty);
	for (;;) {
		skip_dots(sp);
		char c = *sp->p;
		if (!c || c == '|' || c == ']' || c == '}')
			return acc;
		acc = seqs_product(acc, seqs_item(sp), sp->line);
	}
}

/* alts = seq { '|' seq } */
static Vec seqs_alts(SpecParser *sp)
{
	Vec out = seqs_seq(sp);
	while (*sp->p == '|') {
		sp->p++;
		Vec more = seqs_seq(sp);
		for (int i = 0; i < more.len; i++)
			vec_push(&out, more.data[i]);
	}
	return out;
}

bool probe_family_translatable(const ProbeFamily *fam)
{
	return fam->session != SESSION_NONE || (fam->emit_decls && fam->emit_code);
}

static Vec shapes;          /* Shape * */
static bool shapes_ready;

static void add_shapes(const ProbeFamily *fam, const char *const *lines,
		       bool translatable)
{
	for (const char *const *l = lines; *l; l++) {
		SpecParser sp = { .p = *l, .line = *l };
		Vec v = seqs_alts(&sp);
		if (*sp.p)
			BUG("bad probe shape '%s' at '%s'", *l, sp.p);
		for (int i = 0; i < v.len; i++) {
			Seq *s = v.data[i];
			Shape *sh = NEW(Shape);
			sh->family = fam;
			sh->translatable = translatable;
			sh->n = s->n;
			memcpy(sh->comp, s->comp, sizeof s->comp);
			vec_push(&shapes, sh);
		}
	}
}

static void build_shapes(void)
{
	if (shapes_ready)
		return;
	shapes_ready = true;
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
		const ProbeFamily *fam = families[f];
		add_shapes(fam, fam->shapes, probe_family_translatable(fam));
		if (fam->untranslatable_shapes)
			add_shapes(fam, fam->untranslatable_shapes, false);
	}
}

/* ---------------------------------------------------------------------
 * --dump-probe-types
 */

static void shape_text(StrBuf *sb, const Shape *sh)
{
	for (int i = 0; i < sh->n; i++) {
		if (i)
			sb_putc(sb, '.');
		sb_puts(sb, sh->comp[i].name);
		if (sh->comp[i].arg == ARG_NUM)
			sb_puts(sb, "(number)");
		else if (sh->comp[i].arg == ARG_STR)
			sb_puts(sb, "(string)");
	}
}


/* After a shape of a family pass 3 cannot translate (documented in
 * tapc.1). */
#define UNTRANSLATABLE_MARK "  [not translatable]"

typedef struct TypeLine {
	const char *text;
	bool translatable;
} TypeLine;

static int cmp_type_line(const void *a, const void *b)
{
	return strcmp(((const TypeLine *)a)->text, ((const TypeLine *)b)->text);
}

void dump_probe_types(FILE *out)
{
	build_shapes();
	TypeLine *lines = xalloc(shapes.len * sizeof *lines);
	for (int i = 0; i < shapes.len; i++) {
		StrBuf sb = { 0 };
		const Shape *sh = shapes.data[i];
		shape_text(&sb, sh);
		lines[i].text = xstrdup(sb_cstr(&sb));
		lines[i].translatable = sh->translatable;
		sb_free(&sb);
	}
	qsort(lines, shapes.len, sizeof *lines, cmp_type_line);
	for (int i = 0; i < shapes.len; i++)
		if (i == 0 || strcmp(lines[i].text, lines[i - 1].text))
			fprintf(out, "%s%s\n", lines[i].text,
				lines[i].translatable ? "" : UNTRANSLATABLE_MARK);
}

void probe_family_first_names(Vec *out)
{
	build_shapes();
	for (int i = 0; i < shapes.len; i++) {
		const char *name = intern(((const Shape *)shapes.data[i])->comp[0].name);
		bool seen = false;
		for (int j = 0; j < out->len && !seen; j++)
			seen = out->data[j] == name;
		if (!seen)
			vec_push(out, (void *)name);
	}
}

bool probe_family_known_prefix(const char *first)
{
	build_shapes();
	for (int i = 0; i < shapes.len; i++) {
		const Shape *sh = shapes.data[i];
		if (!strcmp(sh->comp[0].name, first))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------------
 * Reading and building points (shared with the families)
 */

static ProbePointComp *ppc(ProbePoint *pp, int i)
{
	return pp->comps.data[i];
}

ProbePointComp *pp_comp(ProbePoint *pp, const char *name)
{
	for (int i = 0; i < pp->comps.len; i++)
		if (!strcmp(ppc(pp, i)->name, name))
			return ppc(pp, i);
	return NULL;
}

int pp_comp_index(ProbePoint *pp, const char *name)
{
	for (int i = 0; i < pp->comps.len; i++)
		if (!strcmp(ppc(pp, i)->name, name))
			return i;
	return -1;
}

bool pp_has(ProbePoint *pp, const char *name)
{
	return pp_comp(pp, name) != NULL;
}

int64_t comp_num(const ProbePointComp *c)
{
	return c && c->arg && c->arg->kind == N_NUMBER ? c->arg->num : 0;
}

const char *comp_str(const ProbePointComp *c)
{
	return c && c->arg && c->arg->kind == N_STRING && c->arg->str ?
		c->arg->str : "";
}

bool comp_is_str(const ProbePointComp *c)
{
	return c && c->arg && c->arg->kind == N_STRING;
}

static void put_escaped(StrBuf *sb, const char *s)
{
	sb_putc(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_putc(sb, '\\');
		if (*s == '\n')
			sb_puts(sb, "\\n");
		else
			sb_putc(sb, *s);
	}
	sb_putc(sb, '"');
}

static void comp_text(StrBuf *sb, const ProbePointComp *c)
{
	sb_puts(sb, c->name);
	if (!c->arg)
		return;
	sb_putc(sb, '(');
	if (c->arg->kind == N_NUMBER)
		sb_printf(sb, "%lld", (long long)c->arg->num);
	else if (c->arg->kind == N_STRING)
		put_escaped(sb, c->arg->str ? c->arg->str : "");
	else
		sb_puts(sb, "...");
	sb_putc(sb, ')');
}

const char *pp_text(ProbePoint *pp)
{
	StrBuf sb = { 0 };
	for (int i = 0; i < pp->comps.len; i++) {
		if (i)
			sb_putc(&sb, '.');
		comp_text(&sb, ppc(pp, i));
	}
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

const char *pp_names_upto(ProbePoint *pp, int last)
{
	StrBuf sb = { 0 };
	for (int i = 0; i <= last && i < pp->comps.len; i++) {
		if (i)
			sb_putc(&sb, '.');
		sb_puts(&sb, ppc(pp, i)->name);
	}
	const char *r = xstrdup(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

static ProbePoint *pp_copy(ProbePoint *pp)
{
	ProbePoint *n = NEW(ProbePoint);
	*n = *pp;
	memset(&n->comps, 0, sizeof n->comps);
	for (int i = 0; i < pp->comps.len; i++) {
		ProbePointComp *c = NEW(ProbePointComp);
		*c = *ppc(pp, i);
		vec_push(&n->comps, c);
	}
	n->from = pp->from ? pp->from : pp;
	return n;
}

ProbePoint *pp_with_str(ProbePoint *pp, int i, const char *value)
{
	ProbePoint *n = pp_copy(pp);
	ProbePointComp *c = ppc(n, i);
	Node *a = node_new(N_STRING, c->arg ? c->arg->loc : c->loc);
	a->str = intern(value);
	a->type = TY_STRING;
	c->arg = a;
	return n;
}

ProbePoint *pp_with_num(ProbePoint *pp, int i, int64_t value)
{
	ProbePoint *n = pp_copy(pp);
	ProbePointComp *c = ppc(n, i);
	Node *a = node_new(N_NUMBER, c->arg ? c->arg->loc : c->loc);
	a->num = value;
	a->type = TY_LONG;
	c->arg = a;
	return n;
}

ResolvedPoint *rp_push(Vec *out, const ProbeFamily *fam, ProbePoint *pp)
{
	ResolvedPoint *rp = NEW(ResolvedPoint);
	rp->family = fam;
	rp->point = pp;
	rp->is_return = pp_has(pp, "return");
	vec_push(out, rp);
	return rp;
}

CtxVar *rp_var(ResolvedPoint *rp, const char *name, Type type,
	       const char *ctype)
{
	CtxVar *v = NEW(CtxVar);
	v->name = intern(name);
	v->type = type;
	v->ctype = ctype;
	vec_push(&rp->ctx_vars, v);
	return v;
}

const CtxVar *resolved_ctx_var(const ResolvedPoint *rp, const char *name)
{
	for (int i = 0; i < rp->ctx_vars.len; i++) {
		const CtxVar *v = rp->ctx_vars.data[i];
		if (!strcmp(v->name, name))
			return v;
	}
	return NULL;
}

/* ---------------------------------------------------------------------
 * Matching a point against the shapes
 */

static ArgKind arg_kind(const ProbePointComp *c)
{
	if (!c->arg)
		return ARG_NONE;
	return c->arg->kind == N_STRING ? ARG_STR : ARG_NUM;
}

static bool args_ok(const ProbePointComp *c, ArgKind want)
{
	return arg_kind(c) == want;
}

/* ---- matching components: shared by shapes and alias names ----
 *
 * A point component without "**" stands for exactly one target component:
 * its name pattern must match that name, and its argument must fit.  A
 * component with "**" stands for one or more consecutive ones: the
 * pattern is matched against their names joined with dots, and its
 * argument goes to the last of them, so the ones before it must take
 * none.  This way "t**ile" is timer.profile, "ke**on(\"f\")" is
 * kernel.function("f") and "sys**open" is syscall.open, whether the
 * target is a family's shape or a tapset alias's name.
 */

static int pm_from(ProbePoint *pp, int pi, const PointMatcher *m, int ti,
		   bool prefix, ProbePointComp **src)
{
	int pn = pp->comps.len;
	if (ti == m->n)
		return pi == pn || prefix ? pi : -1;
	if (pi == pn)
		return -1;
	ProbePointComp *c = ppc(pp, pi);
	if (!strstr(c->name, "**")) {
		if (!wmatch(c->name, m->name(m->ctx, ti)) || !m->fits(m->ctx, ti, c))
			return -1;
		int r = pm_from(pp, pi + 1, m, ti + 1, prefix, src);
		if (r >= 0 && src)
			src[ti] = c;
		return r;
	}
	StrBuf joined = { 0 };
	int best = -1;
	for (int k = ti; k < m->n; k++) {
		if (k > ti) {
			if (m->takes_arg(m->ctx, k - 1))
				break;
			sb_putc(&joined, '.');
		}
		sb_puts(&joined, m->name(m->ctx, k));
		if (!m->fits(m->ctx, k, c) || !wmatch(c->name, sb_cstr(&joined)))
			continue;
		int r = pm_from(pp, pi + 1, m, k + 1, prefix, src);
		if (r > best) {
			best = r;
			if (src)
				for (int j = ti; j <= k; j++)
					src[j] = c;
		}
		/* Without a suffix every match uses the whole point: the
		 * first will do (and keeps src consistent). */
		if (best >= 0 && !prefix)
			break;
	}
	sb_free(&joined);
	return best;
}

int point_match(ProbePoint *pp, const PointMatcher *m, bool prefix,
		ProbePointComp **src)
{
	ASSERT(!(prefix && src));
	if (!pp || m->n <= 0)
		return -1;
	return pm_from(pp, 0, m, 0, prefix, src);
}

static const char *shape_comp_name(void *ctx, int i)
{
	return ((const Shape *)ctx)->comp[i].name;
}

static bool shape_comp_fits(void *ctx, int i, const ProbePointComp *c)
{
	return args_ok(c, ((const Shape *)ctx)->comp[i].arg);
}

static bool shape_comp_takes_arg(void *ctx, int i)
{
	return ((const Shape *)ctx)->comp[i].arg != ARG_NONE;
}

/* Whether pp fits the shape sh; src[i] gets the point component that
 * stands for shape component i. */
static bool match_shape(ProbePoint *pp, const Shape *sh, ProbePointComp **src)
{
	PointMatcher m = { sh->n, shape_comp_name, shape_comp_fits,
			   shape_comp_takes_arg, (void *)sh };
	return point_match(pp, &m, false, src) >= 0;
}

static ProbePoint *concrete_point(ProbePoint *pp, const Shape *sh,
				  ProbePointComp **src)
{
	bool same = pp->comps.len == sh->n;
	for (int i = 0; same && i < sh->n; i++)
		same = ppc(pp, i)->name == sh->comp[i].name;
	if (same)
		return pp;
	ProbePoint *n = NEW(ProbePoint);
	*n = *pp;
	memset(&n->comps, 0, sizeof n->comps);
	for (int i = 0; i < sh->n; i++) {
		ProbePointComp *c = NEW(ProbePointComp);
		c->name = sh->comp[i].name;
		c->loc = src[i]->loc;
		c->arg = sh->comp[i].arg != ARG_NONE ? src[i]->arg : NULL;
		vec_push(&n->comps, c);
	}
	n->from = pp;
	return n;
}

static bool point_has_wild_names(ProbePoint *pp)
{
	for (int i = 0; i < pp->comps.len; i++)
		if (has_wildcard(ppc(pp, i)->name))
			return true;
	return false;
}

/* ---- diagnosing a point that fits no shape ---- */

static const char *arg_kinds_text(unsigned kinds)
{
	switch (kinds & ((1 << ARG_NUM) | (1 << ARG_STR))) {
	case 1 << ARG_NUM:
		return _("a number argument");
	case 1 << ARG_STR:
		return _("a string argument");
	default:
		return _("a string or number argument");
	}
}

/* How many leading components of pp fit sh, names and argument kinds. */
static int prefix_len(ProbePoint *pp, const Shape *sh, bool names_only)
{
	int i = 0;
	while (i < pp->comps.len && i < sh->n) {
		ProbePointComp *c = ppc(pp, i);
		if (c->name != sh->comp[i].name && strcmp(c->name, sh->comp[i].name))
			break;
		if (!names_only && !args_ok(c, sh->comp[i].arg))
			break;
		i++;
	}
	return i;
}

/* Pairs of components that never go together, with the reason. */
static const struct {
	const char *after, *comp, *why;
} clash_hints[] = {
	{ "hz", "randomize", N_("timer.hz does not support .randomize") },
	{ "sample", "hz", N_(".sample and .hz cannot be combined") },
	{ "hz", "sample", N_(".sample and .hz cannot be combined") },
	{ "read", "write", N_("a procfs probe is either .read or .write") },
	{ "write", "read", N_("a procfs probe is either .read or .write") },
	{ "inline", "return", N_("inlined functions have no return probe") },
};

static bool family_has_comp(const char *head, const char *name)
{
	for (int i = 0; i < shapes.len; i++) {
		const Shape *sh = shapes.data[i];
		if (strcmp(sh->comp[0].name, head))
			continue;
		for (int j = 1; j < sh->n; j++)
			if (!strcmp(sh->comp[j].name, name))
				return true;
	}
	return false;
}

/* Component i of pp has an argument no shape (that fits pp up to i)
 * takes: say what it needs. */
static int arg_error(ProbePoint *pp, int i)
{
	unsigned kinds = 0;
	for (int s = 0; s < shapes.len; s++) {
		const Shape *sh = shapes.data[s];
		if (sh->n > i && prefix_len(pp, sh, false) == i &&
		    !strcmp(sh->comp[i].name, ppc(pp, i)->name))
			kinds |= 1u << sh->comp[i].arg;
	}
	ProbePointComp *c = ppc(pp, i);
	const char *what = pp_names_upto(pp, i);
	if (c->arg && c->arg->kind != N_NUMBER && c->arg->kind != N_STRING)
		error_at(c->loc, _("the argument of %s must be a literal number or string"),
			 what);
	else if (kinds == 1u << ARG_NONE)
		error_at(c->loc, _("%s takes no argument"), what);
	else
		error_at(c->loc, _("%s needs %s"), what, arg_kinds_text(kinds));
	return -1;
}

/* Report why pp (whose names hold no wildcards) fits no shape.  Returns
 * 0 when its first component names no family (not ours to report). */
static int diagnose(ProbePoint *pp)
{
	int pn = pp->comps.len;
	const char *text = pp_text(pp);

	/* Same names, wrong argument kinds: say which argument, at the
	 * first place where even the closest such shape differs. */
	int at = -1;
	for (int s = 0; s < shapes.len; s++) {
		const Shape *sh = shapes.data[s];
		if (sh->n == pn && prefix_len(pp, sh, true) == pn &&
		    prefix_len(pp, sh, false) > at)
			at = prefix_len(pp, sh, false);
	}
	if (at >= 0)
		return arg_error(pp, at);

	/* The longest prefix that fits some shape. */
	int best = 0;
	for (int s = 0; s < shapes.len; s++) {
		int k = prefix_len(pp, shapes.data[s], false);
		if (k > best)
			best = k;
	}
	if (best == 0)
		return 0;
	/* Names that could come next, for the message. */
	Vec next = { 0 };
	for (int s = 0; s < shapes.len; s++) {
		const Shape *sh = shapes.data[s];
		if (prefix_len(pp, sh, false) != best || sh->n <= best)
			continue;
		const char *nm = sh->comp[best].name;
		bool dup = false;
		for (int j = 0; j < next.len && !dup; j++)
			dup = next.data[j] == nm;
		if (!dup)
			vec_push(&next, (void *)nm);
	}
	StrBuf list = { 0 };
	for (int j = 0; j < next.len && j < 8; j++)
		sb_printf(&list, "%s.%s", j ? ", " : "", (const char *)next.data[j]);
	if (next.len > 8)
		sb_puts(&list, ", ...");

	if (best == pn) {
		ProbePointComp *c = ppc(pp, pn - 1);
		error_at(c->loc, _("probe point '%s' is incomplete (it may continue with %s)"),
			 text, sb_cstr(&list));
		return -1;
	}

	ProbePointComp *bad = ppc(pp, best);
	for (int j = 0; j < next.len; j++)
		if (!strcmp(next.data[j], bad->name))
			return arg_error(pp, best);
	const char *prev = ppc(pp, best - 1)->name;
	const char *head = ppc(pp, 0)->name;
	for (size_t h = 0; h < sizeof clash_hints / sizeof clash_hints[0]; h++)
		if (!strcmp(clash_hints[h].after, prev) &&
		    !strcmp(clash_hints[h].comp, bad->name)) {
			error_at(bad->loc, "%s", _(clash_hints[h].why));
			return -1;
		}
	if (!strcmp(bad->name, "maxactive")) {
		if (family_has_comp(head, "maxactive"))
			error_at(bad->loc, _(".maxactive applies only to .return probes"));
		else
			error_at(bad->loc, _("%s probes do not take .maxactive"), head);
		return -1;
	}
	const char *near = NULL;
	int near_d = 3;
	for (int j = 0; j < next.len; j++) {
		int d = edit_distance(bad->name, next.data[j]);
		if (d < near_d) {
			near_d = d;
			near = next.data[j];
		}
	}
	if (best == 1 && !ppc(pp, 0)->arg && next.len) {
		if (near)
			error_at(bad->loc, _("probe point '%s' matches no probe family (did you mean '%s.%s'?)"),
				 text, head, near);
		else
			error_at(bad->loc, _("probe point '%s' matches no probe family ('%s' may continue with %s)"),
				 text, head, sb_cstr(&list));
	} else if (near) {
		error_at(bad->loc, _("unknown component '%s' in probe point '%s' (did you mean '%s'?)"),
			 bad->name, text, near);
	} else if (next.len) {
		error_at(bad->loc, _("'%s' cannot follow '%s' in probe point '%s' (expected %s)"),
			 bad->name, pp_names_upto(pp, best - 1), text, sb_cstr(&list));
	} else {
		error_at(bad->loc, _("'%s' cannot follow '%s' in probe point '%s' (nothing may follow it)"),
			 bad->name, pp_names_upto(pp, best - 1), text);
	}
	sb_free(&list);
	return -1;
}

bool probe_family_has_prefix(ProbePoint *pp, int n)
{
	if (!pp || n <= 0 || n > pp->comps.len)
		return false;
	for (int i = 0; i < n; i++)
		if (!ppc(pp, i)->name || strstr(ppc(pp, i)->name, "**"))
			return false;
	build_shapes();
	for (int s = 0; s < shapes.len; s++) {
		const Shape *sh = shapes.data[s];
		int i = 0;
		while (i < n && i < sh->n && wmatch(ppc(pp, i)->name, sh->comp[i].name) &&
		       args_ok(ppc(pp, i), sh->comp[i].arg))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

void family_cannot_list(Loc loc, const char *what, const char *why)
{
	static Vec said;        /* interned reasons already given */
	const char *w = intern(why);
	for (int i = 0; i < said.len; i++)
		if (said.data[i] == w)
			return;
	vec_push(&said, (void *)w);
	bool quiet = diag_is_quiet();
	diag_set_quiet(false);
	warning_at(loc, _("cannot list '%s': %s"), what, why);
	diag_set_quiet(quiet);
}

/* ---- near misses ---- */

#define MAX_NEAR 5

static ProbePoint *near_for;          /* the point being resolved */
static int near_n;
static struct { int dist; const char *text; } near[MAX_NEAR];

bool family_near_wanted(const ProbePoint *pp)
{
	return !pp->optional && !diag_is_quiet();
}

static int near_limit(const char *want)
{
	int limit = strlen(want) / 3 + 1;
	return limit > 3 ? 3 : limit;
}

bool family_near_length(const char *want, const char *name)
{
	int limit = near_limit(want);
	int dl = (int)strlen(want) - (int)strlen(name);
	return dl <= limit && -dl <= limit;
}

void family_near_miss(ProbePoint *pp, int comp, const char *want,
		      const char *name, const char *arg)
{
	int limit = near_limit(want);
	if (!family_near_length(want, name) || !strcmp(want, name))
		return;
	int d = edit_distance(want, name);
	if (d > limit || (near_n == MAX_NEAR && d >= near[MAX_NEAR - 1].dist))
		return;
	const char *text = intern(pp_text(pp_with_str(pp, comp, arg)));
	for (int i = 0; i < near_n; i++)
		if (near[i].text == text)
			return;
	/* keep near[] sorted by distance, first offered first */
	int at = near_n < MAX_NEAR ? near_n++ : MAX_NEAR - 1;
	while (at > 0 && near[at - 1].dist > d) {
		near[at] = near[at - 1];
		at--;
	}
	near[at].dist = d;
	near[at].text = text;
}

const char *probe_family_similar(ProbePoint *pp)
{
	if (!pp || pp != near_for || !near_n)
		return "";
	StrBuf sb = { 0 };
	for (int i = 0; i < near_n; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "", near[i].text);
	const char *r = xsprintf(" (similar: %s)", sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

int probe_family_resolve(ProbePoint *pp, Vec *out)
{
	near_for = pp;
	near_n = 0;
	if (!pp || pp->comps.len == 0)
		return 0;
	build_shapes();
	for (int i = 0; i < pp->comps.len; i++)
		if (!ppc(pp, i)->name)
			return 0;

	/* Every shape the point fits gives one concrete point; wildcards in
	 * names may make several shapes (and so families) fit. */
	Vec seen = { 0 };       /* texts of the concrete points so far */
	bool wild = point_has_wild_names(pp);
	int total = 0, matched = 0;
	bool failed = false;
	for (int s = 0; s < shapes.len; s++) {
		const Shape *sh = shapes.data[s];
		ProbePointComp *src[MAX_SHAPE_COMPS];
		if (!match_shape(pp, sh, src))
			continue;
		ProbePoint *c = concrete_point(pp, sh, src);
		const char *t = intern(pp_text(c));
		bool dup = false;
		for (int j = 0; j < seen.len && !dup; j++)
			dup = seen.data[j] == t;
		if (dup)
			continue;
		vec_push(&seen, (void *)t);
		matched++;
		if (!wild) {
			int r = sh->family->resolve(sh->family, c, out);
			if (r < 0)
				failed = true;
			else
				total += r;
			continue;
		}
		/* A point the wildcard made up, that its family rejects (a
		 * missing argument, no -c), is just not a match. */
		int before = out->len, errors = error_count;
		bool was_quiet = diag_is_quiet();   /* inside a '?' point too */
		diag_set_quiet(true);
		int r = sh->family->resolve(sh->family, c, out);
		diag_set_quiet(was_quiet);
		if (r < 0) {
			error_count = errors;
			out->len = before;
		} else {
			total += r;
		}
	}
	if (failed)
		return -1;
	if (matched == 0 && !wild)
		return diagnose(pp);
	return total;
}
