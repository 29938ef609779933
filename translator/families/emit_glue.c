/* emit_glue.c - pass 3's way into the probe families (emit.h): which
 * family has a code generator, and what the generators share.
 *
 * A family's generator writes the kernel glue of its probes: callbacks
 * that enter the probe context and call the body pass 3 wrote (tapp_N),
 * tables for the family's runtime file (runtime/families/NAME.c), and the
 * start/stop functions tap_on_start()/tap_on_stop() call.  The table
 * below says which family has one; a family without is reported as not
 * translatable yet.
 */
#include "pointdata.h"

#include <string.h>

typedef struct FamilyGen {
	const ProbeFamily *family;
	bool (*emit)(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
		     EmitProbe **probes, int n, FamilyCode *out);
	const char *(*ctx_expr)(const EmitProbe *ep, const CtxVar *v, bool write);
	bool (*supports_entry)(const ResolvedPoint *rp);
} FamilyGen;

static const FamilyGen generators[] = {
	{ &family_timer, emit_timer_probes, NULL, NULL },
	{ &family_kprobe, emit_kprobe_probes, NULL, kprobe_supports_entry },
	/* no DWARF yet: function-entry kprobes, $return only */
	{ &family_kernel_dwarf, emit_kernel_function_probes,
	  kernel_function_ctx_expr, kprobe_supports_entry },
	{ &family_trace, emit_trace_probes, trace_ctx_expr, NULL },
};

static const FamilyGen *generator_of(const ProbeFamily *fam)
{
	for (size_t i = 0; i < sizeof generators / sizeof generators[0]; i++)
		if (generators[i].family == fam)
			return &generators[i];
	return NULL;
}

/* The point as the user wrote it (before alias and wildcard expansion). */
static ProbePoint *user_point(const ResolvedPoint *rp)
{
	return rp->point->from ? rp->point->from : rp->point;
}

bool family_emit(Emitter *e, EmitPhase phase, const ProbeFamily *fam,
		 EmitProbe **probes, int n, FamilyCode *out)
{
	const FamilyGen *g = generator_of(fam);

	memset(out, 0, sizeof *out);
	if (n <= 0)
		return true;
	if (!g || !g->emit) {
		if (phase == EMIT_DECLS) {
			ResolvedPoint *rp = probes[0]->rp;
			error_at(user_point(rp)->loc,
				 _("probe point '%s' cannot be translated yet: tapc has "
				   "no code generator for %s probes"),
				 pp_text(rp->point), fam->name);
		}
		return false;
	}
	return g->emit(e, phase, fam, probes, n, out);
}

const char *family_ctx_expr(const EmitProbe *ep, const CtxVar *v, bool write)
{
	const FamilyGen *g = generator_of(ep->rp->family);
	return g && g->ctx_expr ? g->ctx_expr(ep, v, write) : NULL;
}

bool family_supports_entry(const ResolvedPoint *rp)
{
	const FamilyGen *g = generator_of(rp->family);
	return g && g->supports_entry && g->supports_entry(rp);
}

/* ---- shared by the generators ---- */

/* Pass 2 keeps the '?' of the point itself (and of an alias's target
 * point, which the concrete point is a copy of) and of the point the user
 * wrote; an optional mark on an alias level in between is not kept. */
bool emit_point_optional(const ResolvedPoint *rp)
{
	return pp_is_optional(rp->point) || pp_is_optional(user_point(rp));
}

bool emit_point_from_wildcard(const ResolvedPoint *rp)
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
