/* begin_end.c - the session families: begin, end, error and never.  None
 * of them has $context variables. */
#include "pointdata.h"

static int resolve_session_point(const ProbeFamily *fam, ProbePoint *pp,
				 Vec *out)
{
	ResolvedPoint *rp = rp_push(out, fam, pp);
	SessionPointData *d = NEW(SessionPointData);
	d->sequence = comp_num(vec_get(&pp->comps, 0));
	rp->data = d;
	return 1;
}

static const char *const begin_shapes[] = { "begin(n?)", NULL };
static const char *const end_shapes[] = { "end(n?)", NULL };
static const char *const error_shapes[] = { "error(n?)", NULL };
static const char *const never_shapes[] = { "never", NULL };

const ProbeFamily family_begin = { "begin", begin_shapes, resolve_session_point };
const ProbeFamily family_end = { "end", end_shapes, resolve_session_point };
const ProbeFamily family_error = { "error", error_shapes, resolve_session_point };

static int resolve_never(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	rp_push(out, fam, pp);
	return 1;
}

const ProbeFamily family_never = { "never", never_shapes, resolve_never };
