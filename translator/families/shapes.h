/* shapes.h - the families' shapes, shared by the files that match points
 * against them (registry.c), diagnose a point that fits none
 * (diagnose.c) and list them (dump_types.c).  Not for the families
 * themselves: a family file includes family.h only.
 *
 * A shape line of a family (see shapes.c for the language) expands into
 * concrete shapes: plain sequences of (name, argument kind).
 */
#ifndef TAPC_FAMILIES_SHAPES_H
#define TAPC_FAMILIES_SHAPES_H

#include "family.h"

typedef enum ArgKind { ARG_NONE, ARG_NUM, ARG_STR } ArgKind;

#define MAX_SHAPE_COMPS 12

typedef struct ShapeComp {
	const char *name;       /* interned */
	ArgKind arg;
} ShapeComp;

typedef struct Shape {
	const ProbeFamily *family;
	bool translatable;      /* pass 3 can translate points of it */
	int n;
	ShapeComp comp[MAX_SHAPE_COMPS];
} Shape;

/* The list of families, NULL-terminated, in table order (table.c: the
 * one file that names every family). */
extern const ProbeFamily *const probe_families[];

/* Every concrete shape of every family (Shape *), in table order; built
 * from the table the first time it is asked for. */
const Vec *family_shapes(void);

/* Whether component c's argument (or its absence) is of kind want. */
bool shape_arg_fits(const ProbePointComp *c, ArgKind want);

/* Report why pp (whose names hold no wildcards) fits no shape
 * (diagnose.c).  Returns -1 after the error, or 0 when its first
 * component names no family (not the families' to report). */
int shape_diagnose(ProbePoint *pp);

/* Start resolving pp: the near misses the families offer from now on are
 * pp's (near.c, probe_family_similar()). */
void family_near_start(ProbePoint *pp);

static inline ProbePointComp *ppc(ProbePoint *pp, int i)
{
	return pp->comps.data[i];
}

#endif
