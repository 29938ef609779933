/* derive.c - pass 2: probe points become concrete probes.  Aliases are
 * expanded first (with wildcards, suffixes and optional points), then
 * each point goes to its family. */
#include "elab.h"

#include <stdlib.h>
#include <string.h>

/* ---- probe points: aliases first, then the families ---- */

/* The point alone, without '?', '!' and its condition. */
const char *plain_point(ProbePoint *pp)
{
	ProbePoint c = *pp;
	c.optional = c.sufficient = false;
	c.condition = NULL;
	return probe_point_text(&c);
}

static const char *point_names(ProbePoint *pp, int upto)
{
	StrBuf sb = { 0 };
	for (int i = 0; i < upto && i < pp->comps.len; i++) {
		ProbePointComp *c = vec_get(&pp->comps, i);
		sb_printf(&sb, "%s%s", i ? "." : "", c->name);
	}
	const char *r = intern(sb_cstr(&sb));
	sb_free(&sb);
	return r;
}

static bool same_literal(Node *a, Node *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	if (a->kind == N_NUMBER)
		return a->num == b->num;
	return a->str && b->str && !strcmp(a->str, b->str);
}

static const char *alias_comp_name(void *ctx, int i)
{
	return ((ProbePointComp *)vec_get(&((ProbePoint *)ctx)->comps, i))->name;
}

static bool alias_comp_fits(void *ctx, int i, const ProbePointComp *c)
{
	ProbePointComp *a = vec_get(&((ProbePoint *)ctx)->comps, i);
	return same_literal(c->arg, a->arg);
}

static bool alias_comp_takes_arg(void *ctx, int i)
{
	return ((ProbePointComp *)vec_get(&((ProbePoint *)ctx)->comps, i))->arg != NULL;
}

/* How many leading components of the user's point the alias name
 * matches (the rest is a suffix), or -1.  Wildcards, "**" included, work
 * as in the probe families (point_match). */
static int alias_match(ProbePoint *user, ProbePoint *name)
{
	PointMatcher m = { name->comps.len, alias_comp_name, alias_comp_fits,
			   alias_comp_takes_arg, name };
	return point_match(user, &m, true, NULL);
}

/* An alias name of the tapset index: dotted names without arguments, so
 * any argument may fit (loading one file too many is harmless). */
typedef struct IndexName {
	const char *parts[64];
	int n;
} IndexName;

static const char *index_comp_name(void *ctx, int i)
{
	return ((IndexName *)ctx)->parts[i];
}

static bool index_comp_fits(void *ctx, int i, const ProbePointComp *c)
{
	(void)ctx, (void)i, (void)c;
	return true;
}

static bool index_comp_takes_arg(void *ctx, int i)
{
	(void)ctx, (void)i;
	return false;
}

static bool index_name_matches(ProbePoint *pp, const char *an)
{
	IndexName in = { .n = 0 };
	for (const char *s = an; *s && in.n < 64;) {
		const char *dot = strchr(s, '.');
		size_t len = dot ? (size_t)(dot - s) : strlen(s);
		in.parts[in.n++] = intern_n(s, len);
		if (!dot)
			break;
		s = dot + 1;
	}
	PointMatcher m = { in.n, index_comp_name, index_comp_fits,
			   index_comp_takes_arg, &in };
	return point_match(pp, &m, true, NULL) >= 0;
}

/* Whether some tapset alias name starts with this component. */
static bool alias_first_known(const char *first)
{
	static Vec firsts;
	static bool ready;
	if (!ready) {
		ready = true;
		int n = tapset_alias_count();
		for (int i = 0; i < n; i++) {
			const char *an = tapset_alias_name(i);
			const char *dot = strchr(an, '.');
			const char *f = dot ? intern_n(an, dot - an) : intern(an);
			if (!firsts.len || vec_last(&firsts) != f)
				vec_push(&firsts, (void *)f);
		}
	}
	const char *in = intern(first);
	for (int i = 0; i < firsts.len; i++)
		if (vec_get(&firsts, i) == in)
			return true;
	return false;
}

/* Load the tapset files whose aliases could match this point. */
static void load_aliases_for(ProbePoint *pp)
{
	const char *first = ((ProbePointComp *)vec_get(&pp->comps, 0))->name;
	if (!has_wildcard(first) && !alias_first_known(first))
		return;
	int n = tapset_alias_count();
	for (int i = 0; i < n; i++) {
		const char *an = tapset_alias_name(i);
		if (!index_name_matches(pp, an))
			continue;
		const char *key = intern(xsprintf("a:%s", an));
		if (!name_loaded(key))
			load_tapset_files(tapset_alias_files(i));
	}
}

static ProbePoint *point_with_suffix(ProbePoint *target, ProbePoint *user, int from)
{
	ProbePoint *np = NEW(ProbePoint);
	*np = *target;
	np->comps = (Vec){ 0 };
	for (int i = 0; i < target->comps.len; i++)
		vec_push(&np->comps, vec_get(&target->comps, i));
	for (int i = from; i < user->comps.len; i++)
		vec_push(&np->comps, vec_get(&user->comps, i));
	return np;
}

static Node *and_condition(Node *a, Node *b)
{
	if (!a)
		return b ? copy_node(b) : NULL;
	if (!b)
		return a;
	Node *n = node_new(N_LOGICAL, b->loc);
	n->op = intern("&&");
	n->lhs = a;
	n->rhs = copy_node(b);
	n->synthetic = true;
	return n;
}

/* One derived probe under construction. */
typedef struct Deriv {
	Probe *user;            /* the probe as written */
	ProbePoint *user_pp;    /* the point as written */
	const char *list_name;  /* the first alias level's name, for -l */
	Vec chain;              /* Probe *: aliases being expanded */
} Deriv;

Vec derived;   /* Derived * */

/* The blocks an alias expansion stacks up are one body: a probe's locals
 * are shared by all of them anyway. */
static void flatten_blocks(Node *blk)
{
	Vec out = { 0 };
	for (int i = 0; i < blk->stmts.len; i++) {
		Node *s = vec_get(&blk->stmts, i);
		if (s && s->kind == N_BLOCK) {
			if (s->synthetic)
				flatten_blocks(s);
			for (int j = 0; j < s->stmts.len; j++)
				vec_push(&out, vec_get(&s->stmts, j));
		} else {
			vec_push(&out, s);
		}
	}
	blk->stmts = out;
}

static void emit_probe(Deriv *d, ResolvedPoint *rp, Node *body, Node *cond)
{
	Probe *p = NEW(Probe);
	ProbePoint *cp = NEW(ProbePoint);
	*cp = *rp->point;
	cp->from = d->user_pp;
	cp->condition = copy_node(cond);
	rp->point = cp;
	vec_push(&p->points, cp);
	p->body = copy_node(body);
	if (p->body && p->body->kind != N_BLOCK)
		p->body = block_of(p->body->loc, p->body, NULL);
	if (!p->body)
		p->body = block_of(d->user->loc, NULL, NULL);
	if (p->body->synthetic)
		flatten_blocks(p->body);
	p->loc = d->user->loc;
	p->file = d->user->file;
	p->from_tapset = d->user->from_tapset;
	p->is_private = d->user->is_private;
	p->from_alias = d->chain.len ? vec_get(&d->chain, 0) : NULL;
	p->rp = rp;
	Derived *dv = NEW(Derived);
	dv->probe = p;
	dv->list_name = d->list_name ? d->list_name : plain_point(rp->point);
	vec_push(&derived, dv);
}

static int derive_point(Deriv *d, ProbePoint *pp, Node *body, Node *cond,
			bool optional);

static int derive_optional(Deriv *d, ProbePoint *pp, Node *body, Node *cond,
			   bool optional)
{
	if (!optional)
		return derive_point(d, pp, body, cond, false);
	int mark = derived.len, hard = hard_total;
	quiet_begin();
	int r = derive_point(d, pp, body, cond, true);
	bool errs = quiet_end();
	if (hard != hard_total)
		return -1;
	if (errs || r < 0) {
		derived.len = mark;   /* errors under '?' mean "nothing" */
		return 0;
	}
	return r;
}

static int expand_alias(Deriv *d, ProbePoint *pp, Probe *alias, ProbePoint *aname,
			int matched, Node *body, Node *cond, bool optional)
{
	if (vec_has(&d->chain, alias)) {
		hard_error_at(pp->loc, xsprintf(_("recursive probe alias: '%s' expands "
						  "to itself (alias defined at %s:%d:%d)"),
				plain_point(pp),
				alias->loc.file ? alias->loc.file->name : "?",
				alias->loc.line, alias->loc.col));
		return -1;
	}
	if (d->chain.len > 64) {
		hard_error_at(pp->loc, _("probe alias expansion nested too deeply"));
		return -1;
	}
	bool has_suffix = matched < pp->comps.len;
	const char *saved_name = d->list_name;
	if (!d->list_name) {
		ProbePoint *shown = point_with_suffix(aname, pp, matched);
		shown->optional = shown->sufficient = false;
		shown->condition = NULL;
		d->list_name = probe_point_text(shown);
	}
	Node *nbody = alias->epilogue ? block_of(alias->loc, body, alias->body)
				      : block_of(alias->loc, alias->body, body);
	vec_push(&d->chain, alias);
	int total = 0;
	for (int i = 0; i < alias->points.len; i++) {
		ProbePoint *t = vec_get(&alias->points, i);
		ProbePoint *tp = point_with_suffix(t, pp, matched);
		bool opt = optional || t->optional || t->sufficient;
		int r = derive_optional(d, tp, nbody, cond, opt);
		if (r < 0) {
			if (has_suffix)
				note_at(pp->loc, _("the suffix of '%s' was applied to '%s' "
						   "of alias '%s'"), plain_point(pp),
					plain_point(t), plain_point(aname));
			total = -1;
			break;
		}
		if (r == 0 && has_suffix && !opt) {
			error_at(pp->loc, _("invalid suffix for probe '%s': '%s' does not "
					    "accept it"), plain_point(pp),
				 plain_point(tp));
			total = -1;
			break;
		}
		total += r;
		if (r > 0 && t->sufficient)
			break;
	}
	d->chain.len--;
	d->list_name = saved_name;
	return total;
}

static void suggest_points(ProbePoint *pp)
{
	ProbePointComp *c0 = vec_get(&pp->comps, 0);
	Vec names = { 0 };
	for (int i = 0; i < alias_pool.len; i++) {
		Probe *a = vec_get(&alias_pool, i);
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *an = vec_get(&a->alias_names, j);
			vec_push(&names, (void *)point_names(an, an->comps.len));
		}
	}
	int n = tapset_alias_count();
	for (int i = 0; i < n; i++)
		vec_push(&names, (void *)tapset_alias_name(i));
	const char *want = point_names(pp, pp->comps.len);
	/* a near name the point's family knows (a function, tracepoint,
	 * module), else a near alias or family name */
	const char *sim = probe_family_similar(pp);
	if (!*sim)
		sim = similar_names(want, &names);
	if (!*sim && !probe_family_known_prefix(c0->name)) {
		Vec firsts = { 0 };
		probe_family_first_names(&firsts);
		static const char *more[] = { "oneshot", "init", NULL };
		for (int i = 0; more[i]; i++)
			vec_push(&firsts, (void *)intern(more[i]));
		sim = similar_names(intern(c0->name), &firsts);
	}
	if (*sim)
		note_at(pp->loc, _("did you mean one of these?%s"), sim);
}

typedef struct AliasHit {
	Probe *alias;
	ProbePoint *name;
	int matched;
} AliasHit;

/* syscall.read.return names its own alias: the alias syscall.read with a
 * ".return" suffix is not used for it as well.  A hit is shadowed by one
 * that uses more of the user's point (through literal components) and
 * whose name extends the hit's name. */
static bool shadowed(AliasHit *h, Vec *hits, ProbePoint *user)
{
	for (int i = 0; i < hits->len; i++) {
		AliasHit *o = vec_get(hits, i);
		if (o->matched <= h->matched)
			continue;
		/* foo.* means foo.bar and foo with suffix '*' both */
		bool literal = true;
		for (int k = h->matched; k < o->matched && k < user->comps.len; k++)
			if (has_wildcard(((ProbePointComp *)vec_get(&user->comps, k))->name))
				literal = false;
		if (!literal)
			continue;
		int hn = h->name->comps.len;
		if (o->name->comps.len < hn)
			continue;
		bool same = true;
		for (int k = 0; k < hn && same; k++) {
			ProbePointComp *a = vec_get(&h->name->comps, k);
			ProbePointComp *b = vec_get(&o->name->comps, k);
			same = a->name == b->name || !strcmp(a->name, b->name);
			same = same && same_literal(a->arg, b->arg);
		}
		if (same)
			return true;
	}
	return false;
}

/* timer.profile.tick names the timer family's probe, not the alias
 * timer.profile with a ".tick" suffix: a hit whose (literal) suffix
 * continues the point along a family's shape gives way to the family,
 * which then also reports a bad rest ("timer.profile.tick.x"). */
static bool family_suffix(AliasHit *h, ProbePoint *user)
{
	if (h->matched >= user->comps.len)
		return false;
	for (int k = h->matched; k < user->comps.len; k++)
		if (has_wildcard(((ProbePointComp *)vec_get(&user->comps, k))->name))
			return false;
	return probe_family_has_prefix(user, h->matched + 1);
}

static int derive_point(Deriv *d, ProbePoint *pp, Node *body, Node *cond,
			bool optional)
{
	if (!pp->comps.len)
		return 0;
	cond = and_condition(cond, pp->condition);
	load_aliases_for(pp);
	int total = 0, alias_hits = 0;
	bool wild = false;
	for (int i = 0; i < pp->comps.len; i++)
		if (strchr(((ProbePointComp *)vec_get(&pp->comps, i))->name, '*'))
			wild = true;
	Vec hits = { 0 };
	for (int i = 0; i < alias_pool.len; i++) {
		Probe *a = vec_get(&alias_pool, i);
		if (a->is_private && a->file != d->user->file)
			continue;
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *an = vec_get(&a->alias_names, j);
			int m = alias_match(pp, an);
			if (m < 0)
				continue;
			AliasHit *h = NEW(AliasHit);
			h->alias = a;
			h->name = an;
			h->matched = m;
			vec_push(&hits, h);
		}
	}
	for (int i = 0; i < hits.len; i++) {
		AliasHit *h = vec_get(&hits, i);
		if (shadowed(h, &hits, pp) || family_suffix(h, pp))
			continue;
		alias_hits++;
		/* each wildcard match may fail alone; only none at all is wrong */
		int r = wild ? 0 : expand_alias(d, pp, h->alias, h->name, h->matched,
						body, cond, optional);
		if (wild) {
			int mark = derived.len, hard = hard_total;
			quiet_begin();
			r = expand_alias(d, pp, h->alias, h->name, h->matched, body, cond,
					 true);
			bool errs = quiet_end();
			if (hard != hard_total)
				return -1;
			if (errs || r < 0) {
				derived.len = mark;
				r = 0;
			}
		}
		if (r < 0)
			return -1;
		total += r;
	}
	if (!alias_hits || wild) {
		Vec rps = { 0 };
		int r = probe_family_resolve(pp, &rps);
		if (r < 0)
			return -1;
		for (int i = 0; i < rps.len; i++)
			emit_probe(d, vec_get(&rps, i), body, cond);
		total += rps.len;
	}
	if (!total && !optional && !alias_hits) {
		error_at(pp->loc, _("no match for probe point '%s'"), plain_point(pp));
		suggest_points(pp);
		return -1;
	}
	if (!total && !optional) {
		error_at(pp->loc, _("probe point '%s' resolved to no probes (its "
				    "aliases matched nothing)"), plain_point(pp));
		return -1;
	}
	return total;
}

void derive_probe(Probe *p)
{
	Deriv d = { p, NULL, NULL, { 0 } };
	for (int i = 0; i < p->points.len; i++) {
		ProbePoint *pp = vec_get(&p->points, i);
		d.user_pp = pp;
		int r = derive_optional(&d, pp, p->body, NULL,
					pp->optional || pp->sufficient);
		if (r > 0 && pp->sufficient)
			break;
	}
}

