/* registry.c - matching a probe point against the families' shapes, and
 * handing it to the family whose shape it fits.
 *
 * Design
 * ------
 * Each family (begin_end.c, timer.c, kprobe.c, ... in families/) is one
 * ProbeFamily value: a name, a few "shape" lines (the language is in
 * shapes.c) and a resolve function; table.c lists them all.
 *
 * Component names in a point may hold wildcards (* ** {a,b}); they are
 * matched against the shapes here, so "ti**es(1)" finds timer.jiffies(1).
 * A family's resolve function then sees only points whose names are
 * concrete and whose arguments have the right kinds: it checks values
 * ("randomize must be smaller than the interval"), expands wildcards in
 * string arguments against its candidates (tracepoints, symbols, paths)
 * and says which $context variables the handler may use.  A point that
 * fits no shape gets its error from diagnose.c.
 *
 * Pass 3 hooks in the same way: a family's emit_decls/emit_code write
 * the glue of its probes, reading what its resolve function left in
 * ResolvedPoint.data (a tracepoint's prototype, a timer's interval), so
 * the generator never re-parses the point.
 *
 * The files of families/ call one way: a family calls the helper library
 * (family.h: helpers.c, near.c, dipoints.c, emit_glue.c, and its own
 * siblings), never the table or this file; table.c names the families;
 * shapes.c reads the table; diagnose.c, dump_types.c and this file read
 * the shapes.
 */
#include "shapes.h"

#include <string.h>

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
		if (!wildcard_match(c->name, m->name(m->ctx, ti)) ||
		    !m->fits(m->ctx, ti, c))
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
		if (!m->fits(m->ctx, k, c) || !wildcard_match(c->name, sb_cstr(&joined)))
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

/* ---- matching a point against the shapes ---- */

static const char *shape_comp_name(void *ctx, int i)
{
	return ((const Shape *)ctx)->comp[i].name;
}

static bool shape_comp_fits(void *ctx, int i, const ProbePointComp *c)
{
	return shape_arg_fits(c, ((const Shape *)ctx)->comp[i].arg);
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

bool probe_family_has_prefix(ProbePoint *pp, int n)
{
	if (!pp || n <= 0 || n > pp->comps.len)
		return false;
	for (int i = 0; i < n; i++)
		if (!ppc(pp, i)->name || strstr(ppc(pp, i)->name, "**"))
			return false;
	const Vec *shapes = family_shapes();
	for (int s = 0; s < shapes->len; s++) {
		const Shape *sh = shapes->data[s];
		int i = 0;
		while (i < n && i < sh->n &&
		       wildcard_match(ppc(pp, i)->name, sh->comp[i].name) &&
		       shape_arg_fits(ppc(pp, i), sh->comp[i].arg))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

int probe_family_resolve(ProbePoint *pp, Vec *out)
{
	family_near_start(pp);
	if (!pp || pp->comps.len == 0)
		return 0;
	const Vec *shapes = family_shapes();
	for (int i = 0; i < pp->comps.len; i++)
		if (!ppc(pp, i)->name)
			return 0;

	/* Every shape the point fits gives one concrete point; wildcards in
	 * names may make several shapes (and so families) fit. */
	Vec seen = { 0 };       /* texts of the concrete points so far */
	bool wild = point_has_wild_names(pp);
	int total = 0, matched = 0;
	bool failed = false;
	for (int s = 0; s < shapes->len; s++) {
		const Shape *sh = shapes->data[s];
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
		return shape_diagnose(pp);
	return total;
}
