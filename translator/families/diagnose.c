/* diagnose.c - the error for a point that fits no family's shape: it
 * comes from comparing the point with the shapes that share its longest
 * prefix (which argument kind was wanted, which names could have come
 * next, which name was probably meant), not from code in each family.
 */
#include "shapes.h"

#include <string.h>

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
		if (!names_only && !shape_arg_fits(c, sh->comp[i].arg))
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

static bool family_has_comp(const Vec *shapes, const char *head,
			    const char *name)
{
	for (int i = 0; i < shapes->len; i++) {
		const Shape *sh = shapes->data[i];
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
static int arg_error(const Vec *shapes, ProbePoint *pp, int i)
{
	unsigned kinds = 0;
	for (int s = 0; s < shapes->len; s++) {
		const Shape *sh = shapes->data[s];
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

int shape_diagnose(ProbePoint *pp)
{
	const Vec *shapes = family_shapes();
	int pn = pp->comps.len;
	const char *text = pp_text(pp);

	/* Same names, wrong argument kinds: say which argument, at the
	 * first place where even the closest such shape differs. */
	int at = -1;
	for (int s = 0; s < shapes->len; s++) {
		const Shape *sh = shapes->data[s];
		if (sh->n == pn && prefix_len(pp, sh, true) == pn &&
		    prefix_len(pp, sh, false) > at)
			at = prefix_len(pp, sh, false);
	}
	if (at >= 0)
		return arg_error(shapes, pp, at);

	/* The longest prefix that fits some shape. */
	int best = 0;
	for (int s = 0; s < shapes->len; s++) {
		int k = prefix_len(pp, shapes->data[s], false);
		if (k > best)
			best = k;
	}
	if (best == 0)
		return 0;
	/* Names that could come next, for the message. */
	Vec next = { 0 };
	for (int s = 0; s < shapes->len; s++) {
		const Shape *sh = shapes->data[s];
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
			return arg_error(shapes, pp, best);
	const char *prev = ppc(pp, best - 1)->name;
	const char *head = ppc(pp, 0)->name;
	for (size_t h = 0; h < sizeof clash_hints / sizeof clash_hints[0]; h++)
		if (!strcmp(clash_hints[h].after, prev) &&
		    !strcmp(clash_hints[h].comp, bad->name)) {
			error_at(bad->loc, "%s", _(clash_hints[h].why));
			return -1;
		}
	if (!strcmp(bad->name, "maxactive")) {
		if (family_has_comp(shapes, head, "maxactive"))
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
