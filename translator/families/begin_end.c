/* begin_end.c - the session families: begin, end, error and never.  None
 * of them has $context variables.  Pass 3 runs their probes itself (the
 * runners of tap_on_start()/tap_on_stop()), so they have no generator:
 * `session` says when each runs. */
#include "family.h"

/* begin(N)/end(N)/error(N): pass 3 orders the probes of each by N, read
 * from the point itself (0 when not given). */
static int resolve_session_point(const ProbeFamily *fam, ProbePoint *pp,
				 Vec *out)
{
	rp_push(out, fam, pp);
	return 1;
}

static const char *const begin_shapes[] = { "begin(n?)", NULL };
static const char *const end_shapes[] = { "end(n?)", NULL };
static const char *const error_shapes[] = { "error(n?)", NULL };
static const char *const never_shapes[] = { "never", NULL };

const ProbeFamily family_begin = {
	.name = "begin", .shapes = begin_shapes,
	.resolve = resolve_session_point, .session = SESSION_BEGIN,
};
const ProbeFamily family_end = {
	.name = "end", .shapes = end_shapes,
	.resolve = resolve_session_point, .session = SESSION_END,
};
const ProbeFamily family_error = {
	.name = "error", .shapes = error_shapes,
	.resolve = resolve_session_point, .session = SESSION_ERROR,
};

const ProbeFamily family_never = {
	.name = "never", .shapes = never_shapes, .resolve = resolve_session_point,
	.session = SESSION_NEVER,
};
