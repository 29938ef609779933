/* near.c - "did you mean" for a point whose name matched no candidate of
 * its family: while a point is resolved (registry.c starts it with
 * family_near_start()), the family offers the candidate names it knows
 * (family_near_miss(), family.h); the closest few, by edit distance, make
 * the " (similar: ...)" of pass 2's "no match" message
 * (probe_family_similar(), probes.h).
 */
#include "shapes.h"

#include <string.h>

#define MAX_NEAR 5

static ProbePoint *near_for;          /* the point being resolved */
static int near_n;
static struct { int dist; const char *text; } near[MAX_NEAR];

void family_near_start(ProbePoint *pp)
{
	near_for = pp;
	near_n = 0;
}

bool family_near_wanted(const ProbePoint *pp)
{
	return !pp->optional && !diag_is_quiet();
}

static int near_limit(const char *want)
{
	int limit = strlen(want) / 3 + 1;
	return limit > 3 ? 3 : limit;
}

bool family_near_length(const char *want, const char *name)
{
	int limit = near_limit(want);
	int dl = (int)strlen(want) - (int)strlen(name);
	return dl <= limit && -dl <= limit;
}

void family_near_miss(ProbePoint *pp, int comp, const char *want,
		      const char *name, const char *arg)
{
	int limit = near_limit(want);
	if (!family_near_length(want, name) || !strcmp(want, name))
		return;
	int d = edit_distance(want, name);
	if (d > limit || (near_n == MAX_NEAR && d >= near[MAX_NEAR - 1].dist))
		return;
	const char *text = intern(pp_text(pp_with_str(pp, comp, arg)));
	for (int i = 0; i < near_n; i++)
		if (near[i].text == text)
			return;
	/* keep near[] sorted by distance, first offered first */
	int at = near_n < MAX_NEAR ? near_n++ : MAX_NEAR - 1;
	while (at > 0 && near[at - 1].dist > d) {
		near[at] = near[at - 1];
		at--;
	}
	near[at].dist = d;
	near[at].text = text;
}

const char *probe_family_similar(ProbePoint *pp)
{
	if (!pp || pp != near_for || !near_n)
		return "";
	StrBuf sb = { 0 };
	for (int i = 0; i < near_n; i++)
		sb_printf(&sb, "%s%s", i ? ", " : "", near[i].text);
	const char *r = xsprintf(" (similar: %s)", sb_cstr(&sb));
	sb_free(&sb);
	return r;
}
