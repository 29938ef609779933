/* derive.c - pass 2: probe points become concrete probes.  Aliases are
 * expanded first (with wildcards, suffixes and optional points), then
 * each point goes to its family. */
#include "elab.h"

#include <stdlib.h>
#include <string.h>

/* ---- probe points: aliases first, then the families ---- */

static Node *block_of(Loc loc, Node *a, Node *b)
{
	Node *blk = node_new(N_BLOCK, loc);
	blk->synthetic = true;
	if (a)
		vec_push(&blk->stmts, a);
	if (b)
		vec_push(&blk->stmts, b);
	return blk;
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
	const char **parts;     /* interned */
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

/* The index's alias names split into their components, made once: every
 * probe point an alias expands to is matched against all of them. */
static const IndexName *index_names(void)
{
	static IndexName *names;
	if (names)
		return names;
	int n = tapset_alias_count();
	names = xalloc((size_t)(n ? n : 1) * sizeof *names);
	for (int i = 0; i < n; i++) {
		const char *an = tapset_alias_name(i);
		int parts = 1;
		for (const char *s = an; *s; s++)
			parts += *s == '.';
		names[i].parts = xalloc((size_t)parts * sizeof *names[i].parts);
		for (const char *s = an; *s;) {
			const char *dot = strchr(s, '.');
			size_t len = dot ? (size_t)(dot - s) : strlen(s);
			names[i].parts[names[i].n++] = intern_n(s, len);
			if (!dot)
				break;
			s = dot + 1;
		}
	}
	return names;
}

static bool index_name_matches(ProbePoint *pp, const IndexName *in)
{
	PointMatcher m = { in->n, index_comp_name, index_comp_fits,
			   index_comp_takes_arg, (void *)in };
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
	bool wild = has_wildcard(first);
	if (!wild && !alias_first_known(first))
		return;
	/* Without wildcards only the aliases named by a dotted prefix of the
	 * point can match it (syscall, syscall.read, syscall.read.return):
	 * look those up instead of matching every alias of the index (the
	 * syscall tapsets' ~1900 names, for each of their points). */
	bool any_wild = false;
	for (int i = 0; i < pp->comps.len; i++)
		if (has_wildcard(((ProbePointComp *)vec_get(&pp->comps, i))->name))
			any_wild = true;
	if (!any_wild) {
		for (int i = 1; i <= pp->comps.len; i++) {
			const char *name = point_names(pp, i);
			const Vec *files = tapset_alias_files_named(name);
			if (files && !name_loaded(intern(xsprintf("a:%s", name))))
				load_tapset_files(files);
		}
		return;
	}
	const IndexName *names = index_names();
	int n = tapset_alias_count();
	for (int i = 0; i < n; i++) {
		/* a plain first component must equal the name's first */
		if (!wild && (!names[i].n || strcmp(names[i].parts[0], first)))
			continue;
		if (!index_name_matches(pp, &names[i]))
			continue;
		const char *an = tapset_alias_name(i);
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
	/* messages name the point as the user knows it: the alias a point
	 * without wildcards matched (syscall.read.return), or the wildcard
	 * point itself (syscall.re*.return), so that one mistake in a
	 * handler many aliases share is one message, not one per probe */
	p->alias_point = NULL;
	if (d->chain.len) {
		p->alias_point = d->list_name;
		for (int i = 0; i < d->user_pp->comps.len; i++)
			if (has_wildcard(((ProbePointComp *)vec_get(&d->user_pp->comps,
								    i))->name))
				p->alias_point = probe_point_text(d->user_pp);
	}
	p->rp = rp;
	Derived *dv = NEW(Derived);
	dv->probe = p;
	dv->list_name = d->list_name ? d->list_name
				     : probe_point_plain_text(rp->point);
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
				probe_point_plain_text(pp),
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
						   "of alias '%s'"), probe_point_plain_text(pp),
					probe_point_plain_text(t),
					probe_point_plain_text(aname));
			total = -1;
			break;
		}
		if (r == 0 && has_suffix && !opt) {
			error_at(pp->loc, _("invalid suffix for probe '%s': '%s' does not "
					    "accept it"), probe_point_plain_text(pp),
				 probe_point_plain_text(tp));
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

/* Whether alias name NAME ("a.b.c") starts with the component FIRST. */
static bool same_first(const char *name, const char *first)
{
	size_t n = strlen(first);
	return !strncmp(name, first, n) && (name[n] == '.' || name[n] == '\0');
}

static void suggest_points(ProbePoint *pp)
{
	ProbePointComp *c0 = vec_get(&pp->comps, 0);
	Vec names = { 0 };
	/* only aliases of the same first component are near misses:
	 * nfs.open is not a misspelt vfs.open */
	for (int i = 0; i < alias_pool.len; i++) {
		Probe *a = vec_get(&alias_pool, i);
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *an = vec_get(&a->alias_names, j);
			const char *nm = point_names(an, an->comps.len);
			if (same_first(nm, c0->name))
				vec_push(&names, (void *)nm);
		}
	}
	int n = tapset_alias_count();
	for (int i = 0; i < n; i++)
		if (same_first(tapset_alias_name(i), c0->name))
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

/* The alias pool indexed by name ("syscall.read", interned): a point
 * without wildcards can only match the aliases named by one of its dotted
 * prefixes, so derive_point looks those up instead of matching the whole
 * pool (thousands of names with the syscall tapsets) for every point.
 * Aliases whose names hold wildcards are matched against every point. */
typedef struct PoolName {
	const char *name;       /* interned dotted names, no arguments */
	int pool, alias_name;   /* alias_pool index, alias_names index */
	struct PoolName *next;
} PoolName;

static PoolName **pool_index;
static PoolName *pool_wild;
static size_t pool_index_cap;
static int pool_indexed;

static size_t pool_slot(const char *name)
{
	return ((uintptr_t)name >> 4) * 2654435761u & (pool_index_cap - 1);
}

static void index_pool(void)
{
	if (!pool_index) {
		pool_index_cap = 4096;
		pool_index = calloc(pool_index_cap, sizeof *pool_index);
		if (!pool_index)
			fatal(_("out of memory"));
	}
	for (; pool_indexed < alias_pool.len; pool_indexed++) {
		Probe *a = vec_get(&alias_pool, pool_indexed);
		for (int j = 0; j < a->alias_names.len; j++) {
			ProbePoint *an = vec_get(&a->alias_names, j);
			PoolName *e = NEW(PoolName);
			e->name = point_names(an, an->comps.len);
			e->pool = pool_indexed;
			e->alias_name = j;
			if (has_wildcard(e->name)) {
				e->next = pool_wild;
				pool_wild = e;
			} else {
				size_t k = pool_slot(e->name);
				e->next = pool_index[k];
				pool_index[k] = e;
			}
		}
	}
}

static int cmp_pool_name(const void *x, const void *y)
{
	const PoolName *a = *(PoolName *const *)x, *b = *(PoolName *const *)y;
	if (a->pool != b->pool)
		return a->pool < b->pool ? -1 : 1;
	return a->alias_name < b->alias_name ? -1 : a->alias_name > b->alias_name;
}

/* The (alias, name) pairs that may match pp, in pool order. */
static Vec pool_candidates(ProbePoint *pp)
{
	Vec out = { 0 };
	index_pool();
	for (int i = 1; i <= pp->comps.len; i++) {
		const char *name = point_names(pp, i);
		for (PoolName *e = pool_index[pool_slot(name)]; e; e = e->next)
			if (e->name == name)
				vec_push(&out, e);
	}
	for (PoolName *e = pool_wild; e; e = e->next)
		vec_push(&out, e);
	if (out.len > 1)
		qsort(out.data, out.len, sizeof(void *), cmp_pool_name);
	return out;
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
	Vec cands = { 0 };
	bool scan = false;      /* match the whole pool: pp has wildcards */
	for (int i = 0; i < pp->comps.len; i++)
		if (has_wildcard(((ProbePointComp *)vec_get(&pp->comps, i))->name))
			scan = true;
	if (!scan)
		cands = pool_candidates(pp);
	for (int i = 0; i < (scan ? alias_pool.len : cands.len); i++) {
		PoolName *e = scan ? NULL : vec_get(&cands, i);
		Probe *a = vec_get(&alias_pool, scan ? i : e->pool);
		if (a->is_private && a->file != d->user->file)
			continue;
		for (int j = scan ? 0 : e->alias_name;
		     j < (scan ? a->alias_names.len : e->alias_name + 1); j++) {
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
		ProbePointComp *c0 = vec_get(&pp->comps, 0);
		/* a point no probe family reads is a tapset alias's name */
		const char *other = NULL;
		if (!strchr(c0->name, '*') && !probe_family_known_prefix(c0->name))
			other = tapset_alias_other_arch(probe_point_plain_text(pp));
		if (other) {
			error_at(pp->loc, _("no match for probe point '%s': only the "
					    "%s tapsets define it, %s has no such "
					    "point"), probe_point_plain_text(pp),
				 other, target_arch());
			return -1;
		}
		if (!strchr(c0->name, '*') && !probe_family_known_prefix(c0->name))
			error_at(pp->loc, _("no match for probe point '%s': no tapset "
					    "defines it"), probe_point_plain_text(pp));
		else
			error_at(pp->loc, _("no match for probe point '%s'"),
				 probe_point_plain_text(pp));
		suggest_points(pp);
		return -1;
	}
	if (!total && !optional) {
		error_at(pp->loc, _("probe point '%s' resolved to no probes (its "
				    "aliases matched nothing)"),
			 probe_point_plain_text(pp));
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

