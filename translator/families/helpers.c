/* helpers.c - the families' helper library (family.h): reading the
 * components of a matched point, building the points and resolved points
 * a family returns, and the -l warning for a wildcard it cannot expand.
 * Every family calls these; they call no family and not the table.
 */
#include "family.h"

#include <string.h>

static ProbePointComp *ppc(ProbePoint *pp, int i)
{
	return pp->comps.data[i];
}

/* ---- reading a matched point ---- */

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

/* ---- building results ---- */

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

/* ---- -l ---- */

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
