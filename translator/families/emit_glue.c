/* emit_glue.c - pass 3's way into the probe families (emit.h): the
 * dispatch to a family's generator hooks (family.h), and what the
 * generators share.
 *
 * A family's generator writes the kernel glue of its probes: callbacks
 * that enter the probe context and call the body pass 3 wrote (tapp_N),
 * tables for the family's runtime file (runtime/families/NAME.c), and the
 * start/stop functions tap_on_start()/tap_on_stop() call.  A family
 * without one is reported as not translatable yet.
 */
#include "emit_glue.h"

#include <string.h>

/* The point as the user wrote it (before alias and wildcard expansion). */
static ProbePoint *user_point(const ResolvedPoint *rp)
{
	return rp->point->from ? rp->point->from : rp->point;
}

bool family_emit(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
		 EmitProbe **probes, int n, FamilyCode *out)
{
	memset(out, 0, sizeof *out);
	if (n <= 0)
		return true;
	if (!fam->emit_decls || !fam->emit_code) {
		if (phase == EMIT_DECLS) {
			ResolvedPoint *rp = probes[0]->rp;
			error_at(user_point(rp)->loc,
				 _("probe point '%s' cannot be translated yet: tapc has "
				   "no code generator for %s probes"),
				 pp_text(rp->point), fam->name);
		}
		return false;
	}
	if (phase == EMIT_DECLS)
		return fam->emit_decls(e, probes, n);
	return fam->emit_code(e, probes, n, out);
}

const char *family_ctx_expr(const EmitProbe *ep, const CtxVar *v, bool write)
{
	const ProbeFamily *fam = ep->rp->family;
	return fam->ctx_expr ? fam->ctx_expr(ep, v, write) : NULL;
}

bool family_supports_entry(const ResolvedPoint *rp)
{
	return rp->family->supports_entry && rp->family->supports_entry(rp);
}

/* ---- shared by the generators ---- */

/* True when a failure to register this probe must not fail the run: the
 * point (or one it was expanded from) was marked '?' or '!'.  Pass 2
 * keeps the '?' of the point itself (and of an alias's target point,
 * which the concrete point is a copy of) and of the point the user wrote;
 * an optional mark on an alias level in between is not kept. */
static bool emit_point_optional(const ResolvedPoint *rp)
{
	return pp_is_optional(rp->point) || pp_is_optional(user_point(rp));
}

/* True when the point came from a wildcard: a failure to register it is a
 * warning, as one of many candidates may be off limits. */
static bool emit_point_from_wildcard(const ResolvedPoint *rp)
{
	ProbePoint *up = user_point(rp);
	for (int i = 0; i < up->comps.len; i++) {
		ProbePointComp *c = vec_get(&up->comps, i);
		if (has_wildcard(c->name))
			return true;
		if (c->arg && c->arg->kind == N_STRING && arg_has_glob(c->arg->str))
			return true;
	}
	return false;
}

const char *emit_point_flags(const ResolvedPoint *rp)
{
	bool opt = emit_point_optional(rp), wild = emit_point_from_wildcard(rp);
	if (opt && wild)
		return "TAP_PROBE_OPTIONAL | TAP_PROBE_WILDCARD";
	return opt ? "TAP_PROBE_OPTIONAL" : wild ? "TAP_PROBE_WILDCARD" : "0";
}

void emit_context_fill(Emitter *e, const char *regs, const char *type,
		       bool is_return)
{
	emit(e, "\tc->regs = %s;", regs);
	emit(e, "\tc->user_regs = _tap_user_regs(%s);", regs);
	emit(e, "\tc->probe_type = \"%s\";", type);
	if (is_return)
		emit(e, "\tc->is_return = true;");
}

void emit_void_handler(Emitter *e, const EmitProbe *ep, const char *name,
		       const char *params, const char *regs, const char *type,
		       bool is_return, const char *body_arg)
{
	emit(e, "static void %s(%s)", name, params);
	emit(e, "{");
	emit(e, "\tstruct tap_context *c = tap_context_enter(%s, TAP_STATE_RUNNING);",
	     ep->pp);
	emit_blank(e);
	emit(e, "\tif (!c)");
	emit(e, "\t\treturn;");
	emit_context_fill(e, regs, type, is_return);
	emit(e, "\t%s(c, %s);", ep->body_fn, body_arg);
	emit(e, "\ttap_context_exit(c);");
	emit(e, "}");
	emit_blank(e);
}
