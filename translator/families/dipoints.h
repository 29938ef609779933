/* dipoints.h - probe points resolved through debug information (the di_*
 * calls), shared by the families whose points name code by function,
 * source file and line: kernel.function/module().function/.statement
 * (kernel_function.c) and process(...).function/.statement (process.c).
 *
 * The pattern "FUNC[@FILE[:LINES|+N]]" and the suffixes (.call, .inline,
 * .return, .label, .callee(s), .statement, .nearest) mean the same in
 * both; what differs is where a probe goes at run time and which
 * functions a family leaves out, which the family says through
 * DiPointOps.  A family file, not a general header.
 */
#ifndef TAPC_FAMILIES_DIPOINTS_H
#define TAPC_FAMILIES_DIPOINTS_H

#include "family.h"

/* "func@file:line" -> its parts (file and line NULL when absent). */
typedef struct FuncPattern {
	const char *func, *file, *line;
} FuncPattern;

FuncPattern split_pattern(const char *s);

/* The suffixes of a point, read once. */
typedef struct PointKind {
	bool stmt, call, exported, inl, ret, nearest;
	ProbePointComp *label, *callee, *callees;
} PointKind;

typedef struct DiResolver DiResolver;

/* What a family decides of the points it resolves through debug
 * information. */
typedef struct DiPointOps {
	/* The family's ResolvedPoint.data for a probe at pc in f (an
	 * out-of-line function or an inlined instance); NULL with *why set
	 * when it cannot be placed. */
	void *(*place)(DiResolver *r, const DiFunction *f, uint64_t pc,
		       const char **why);
	/* A function the pattern matched: DIP_KEEP it, DIP_DROP it (not
	 * counted: as if the debug information did not have it), or
	 * DIP_DROP_COUNTED (it exists, but this point leaves it out).
	 * NULL: keep every one. */
	int (*filter)(DiResolver *r, const DiFunction *f);
	/* A name no probe may go on (callees, lines of functions), or NULL. */
	bool (*blocked)(const char *name);
	/* Why a call site cannot be probed as a .callee, or NULL. */
	const char *(*callee_refused)(DiResolver *r, const DiCallSite *cs);
	/* An out-of-line callee's point was made: data (place()'s) learns
	 * the call site's return address. */
	void (*callee_placed)(void *data, const DiCallSite *cs);
	/* "Did you mean" for a function name that matched nothing; NULL: the
	 * names of the module's DWARF functions. */
	void (*near)(DiResolver *r, const char *want);
	/* A plain name no function of the debug information has: resolve
	 * it some other way (the symbol table).  Returns what a resolve
	 * does (points made, -1 after an error), or DIP_NO_FALLBACK. */
	int (*fallback)(DiResolver *r);
	/* A function's entry probe goes after its prologue (di_probe_pc;
	 * user-space code), else on its first instruction (the kernel's:
	 * DWARF location lists say where the parameters are there). */
	bool after_prologue;
} DiPointOps;

enum { DIP_KEEP, DIP_DROP, DIP_DROP_COUNTED };
#define DIP_NO_FALLBACK (-1000)

/* One resolution of one point in one module. */
struct DiResolver {
	const ProbeFamily *fam;
	ProbePoint *pp;
	int fi;                 /* the function/statement component */
	const char *module;     /* NULL: the kernel; a name; a user path */
	DiSource src;
	const DiPointOps *ops;
	void *ctx;              /* the family's own */
	PointKind k;
	FuncPattern fp;
	bool wildcard;          /* the pattern may stand for many */
	Vec seen;               /* (uintptr_t) pc of points made */
	int made, refused;
	const char *why;        /* why the last one was refused */
	/* Set by ops->place with a refusal a user must hear of even when
	 * other places are made: a place the kernel would refuse at run
	 * time (dip_resolve warns about them, with the last why) */
	bool warn_refusal;
	int warned;
	const char *warn_why;
	Vec *out;
};

/* Start a resolution of pp (a function or statement point with a
 * string argument) in module: r's fields from the point.  False after
 * an error (an empty pattern). */
bool dip_init(DiResolver *r, const ProbeFamily *fam, ProbePoint *pp,
	      const char *module, DiSource src, const DiPointOps *ops,
	      void *ctx, Vec *out);
/* Resolve it: the points made (each with ops->place's data, its
 * ResolvedPoint pushed on r->out), or -1 after an error. */
int dip_resolve(DiResolver *r);

/* One point on f's entry, named by its source place, as dip_resolve()
 * makes for a function the pattern names (for a fallback that found f
 * another way): how many points that made. */
int dip_function_point(DiResolver *r, const DiFunction *f);

/* The out-of-line function of module whose code holds pc, or NULL (a
 * table of the module's functions by address, built once). */
const DiFunction *dip_outer_function(const char *module, uint64_t pc);
/* The names of module's out-of-line DWARF functions. */
const NameList *dip_function_names(const char *module);

#endif
