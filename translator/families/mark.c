/* mark.c - kernel.mark: markers left the kernel in 2.6.32, so a point
 * is checked and then matches nothing on a newer kernel. */
#include "family.h"

static int resolve_mark(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *mc = pp_comp(pp, "mark");
	if (!*comp_str(mc)) {
		error_at(mc->loc, _("kernel.mark needs a marker name"));
		return -1;
	}
	if (version_cmp(target_release(), "2.6.32") >= 0)
		return 0;       /* no kernel this new has markers */
	ResolvedPoint *rp = rp_push(out, fam, pp);
	rp->needs_debuginfo = true;
	rp_var(rp, "name", TY_STRING, NULL)->scalar = true;
	rp_var(rp, "format", TY_STRING, NULL)->scalar = true;
	return 1;
}

static const char *const mark_shapes[] = { "kernel.mark(s)[.format(s)]", NULL };

const ProbeFamily family_mark = { "kernel.mark", mark_shapes, resolve_mark };
