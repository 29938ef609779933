/* java.c - java("PROGRAM").class("C").method("M"): recognised, so the
 * message can say why tapc does not support it. */
#include "family.h"

static int resolve_java(const ProbeFamily *fam, ProbePoint *pp, Vec *out)
{
	ProbePointComp *head = vec_get(&pp->comps, 0);
	(void)fam;
	(void)out;
	error_at(head->loc, _("java probes are not supported by tapc (they need the Byteman agent runtime)"));
	return -1;
}

static const char *const java_shapes[] = {
	"java(s|n).class(s).method(s)[.return]", NULL
};

const ProbeFamily family_java = { "java", java_shapes, resolve_java };
