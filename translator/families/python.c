/* python.c - python2/python3.module("M").function("F"): recognised, so
 * the message can say why tapc does not support it. */
#include "family.h"

static int resolve_python(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *head = vec_get(&pp->comps, 0);
	(void)fam;
	(void)out;
	error_at(head->loc, _("%s probes are not supported by tapc (they need the HelperSDT python runtime)"),
		 head->name);
	return -1;
}

static const char *const python_shapes[] = {
	"{python2|python3}.module(s).function(s)[.call|.return]", NULL
};

const ProbeFamily family_python = { "python", python_shapes, resolve_python };
