/* shapes.c - compiling the families' shape lines into concrete shapes.
 *
 * A shape line says which points a family accepts, in a tiny language:
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
 * The first time the shapes are asked for, every line of every family in
 * the table (table.c) is expanded into all its concrete shapes: plain
 * sequences of (name, argument kind).  A few hundred of them, so matching
 * is a linear scan (registry.c), --dump-probe-types prints them as they
 * are (dump_types.c), and the error for a malformed point comes from
 * comparing it with the shapes that share the longest prefix
 * (diagnose.c) rather than from code in each family.
 */
#include "shapes.h"

#include <ctype.h>
#include <string.h>

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

/* True when pass 3 can translate probes of the family. */
static bool probe_family_translatable(const ProbeFamily *fam)
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

const Vec *family_shapes(void)
{
	if (shapes_ready)
		return &shapes;
	shapes_ready = true;
	for (const ProbeFamily *const *f = probe_families; *f; f++) {
		const ProbeFamily *fam = *f;
		add_shapes(fam, fam->shapes, probe_family_translatable(fam));
		if (fam->untranslatable_shapes)
			add_shapes(fam, fam->untranslatable_shapes, false);
	}
	return &shapes;
}

bool shape_arg_fits(const ProbePointComp *c, ArgKind want)
{
	ArgKind kind = !c->arg ? ARG_NONE :
		c->arg->kind == N_STRING ? ARG_STR : ARG_NUM;
	return kind == want;
}

void probe_family_first_names(Vec *out)
{
	const Vec *all = family_shapes();
	for (int i = 0; i < all->len; i++) {
		const char *name = intern(((const Shape *)all->data[i])->comp[0].name);
		bool seen = false;
		for (int j = 0; j < out->len && !seen; j++)
			seen = out->data[j] == name;
		if (!seen)
			vec_push(out, (void *)name);
	}
}

bool probe_family_known_prefix(const char *first)
{
	const Vec *all = family_shapes();
	for (int i = 0; i < all->len; i++) {
		const Shape *sh = all->data[i];
		if (!strcmp(sh->comp[0].name, first))
			return true;
	}
	return false;
}
